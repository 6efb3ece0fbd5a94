"""What a filed output says about how it was made: the version, the date and the command line, as a report's stamp
and as a figure's PNG metadata."""

from __future__ import annotations

from pathlib import Path


def provenance() -> dict[str, str]:
    """What a filed output says about how it was made: the version, the date and time (local, with its offset),
    and the command line (rebuilt from the running command's parameters; 'Python API' outside the CLI)."""
    from datetime import datetime

    from sipml import __version__

    return {"version": __version__, "date": datetime.now().astimezone().isoformat(timespec="seconds"),
            "command": command_line()}


def stamp_text(stamp: dict[str, str]) -> str:
    return f"sipml {stamp['version']}, {stamp['date']}: {stamp['command']}"


def command_line() -> str:
    """The running `sipml` command as a shell would take it again: the process's own arguments where it is the
    `sipml` program; else (`sipml.cli.main([...])`) rebuilt from the command's context, its path and every
    parameter given a value other than its default; 'Python API' when no command is running."""
    import shlex
    import sys

    program = Path(sys.argv[0])
    if (program.name == "sipml" or program.parts[-2:] == ("sipml", "__main__.py")) and len(sys.argv) > 1:
        return shlex.join(["sipml", *sys.argv[1:]])
    ctx = _current_context()
    if ctx is None:
        return "Python API"
    words = ctx.command_path.split()

    def text(value) -> str:
        return str(getattr(value, "value", value))

    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        default = param.default() if callable(param.default) else param.default
        if value is None or values == [] or value is False or text(value) == text(default):
            continue
        if param.param_type_name == "argument":
            words += [text(v) for v in values]
        elif getattr(param, "is_flag", False):
            words.append(max(param.opts, key=len))
        else:
            for v in values:
                words += [max(param.opts, key=len), text(v)]
    return shlex.join(words)


def _current_context():
    """The running command's click context (typer carries its own copy of click; plain click as well), or None."""
    import importlib

    for name in ("typer._click.globals", "click"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        ctx = getattr(module, "get_current_context", lambda silent: None)(silent=True)
        if ctx is not None:
            return ctx
    return None


def stamped(title: str, stamp: dict) -> dict[str, str]:
    """A figure's PNG metadata: its title, and the version, date and command line that made it."""
    return {"Title": title, "Software": f"sipml {stamp['version']}", "Creation Time": stamp["date"],
            "Source": stamp["command"], "Description": stamp_text(stamp)}
