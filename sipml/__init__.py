"""sipml: the application — design-point files, the `sipml` command line, reports, and the Python API.

    from sipml import Q_, budget, cost, evaluate, fabric, load_design, mix, reliability, speedup, sweep

The functions run what the commands run (`help(sipml.api.<name>)` for each):

    load_design(design=None, changes=None)   a design file or built-in name, with {"section.key": value} changes
    evaluate(design, ...)                    the design point: its link, fabric, cost and trainings on demand
    budget(design, changes)                  `sipml budget`: the link budget, margin, capacity, binding limit
    fabric(design, changes, ...)             `sipml fabric`: per-GPU bandwidth, degree, bisection, reach
    cost(design, ...)                        `sipml cost`: the cluster's bill, cost and power (low/typical/high)
    reliability(design, model, changes)      `sipml reliability`: failures, checkpoints, ETTR and goodput
    speedup(designs, model, ...)             `sipml speedup`: training rows against baselines
    mix(designs, jobs, ...)                  `sipml mix`: several jobs sharing a fabric
    sweep(design, vary, ...)                 `sipml sweep`: a grid of design points, kept by column
    Q_(value, unit)                          a pint quantity in the calculator's unit registry (dBm included)

The API is imported on first use, so the command line starts without it.
"""

__version__ = "0.28.0"

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
