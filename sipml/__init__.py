"""sipml: the application — design-point files, the `sipml` command line, reports, and the Python API.

    from sipml import Q_, budget, cost, evaluate, fabric, load_design, reliability, speedup, sweep

(see `sipml.api`). The API is imported on first use, so the command line starts without it.
"""

__version__ = "0.24.1"

_API = ("budget", "cost", "evaluate", "fabric", "load_design", "mix", "reliability", "speedup", "sweep")  # sipml.api.__all__
__all__ = ["Q_", *_API]


def __dir__() -> list[str]:
    """The module's names and the public ones it imports on first use (`__all__`), so `dir(sipml)` and a
    notebook's completion list them before any is used."""
    return sorted({*globals(), *__all__})


def __getattr__(name: str):
    if name in _API:
        from sipml import api

        return getattr(api, name)
    if name == "Q_":
        from core.units import Q_

        return Q_
    raise AttributeError(f"module 'sipml' has no attribute {name!r}")
