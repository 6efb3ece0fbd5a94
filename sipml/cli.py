"""The `sipml` command line. Heavy modules are imported inside the commands so `--help` stays fast.

Exit codes: 0 success; 1 the design is infeasible (or a computation has no answer); 2 bad usage or input.
Results go to stdout (or atomically to `-o PATH`), messages to stderr.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Physical-layer and cost calculator for silicon-photonic ML interconnects (after SiP-ML).")


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="output format")]
OutputOpt = Annotated[Optional[Path], typer.Option("--output", "-o", help="write to this file (atomically)")]
SetOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", help="override a design value, e.g. --set link.data_rate='50 Gbit/s' (repeatable)")]


def _emit(report, fmt: Format, output: Optional[Path]) -> None:
    from sipml.render import render, write_atomic

    text = render(report, fmt.value)
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
        print(f"wrote {output}", file=sys.stderr)


def _evaluate(design: Optional[Path], overrides: Optional[list[str]]):
    """Load and evaluate a design; errors found while evaluating also name the file."""
    from photonics.errors import InputError
    from photonics.link import evaluate
    from sipml.design import load_design

    loaded = load_design(design, overrides)
    try:
        return evaluate(loaded)
    except InputError as exc:
        raise InputError(f"{design if design else '<built-in design>'}: {exc}") from None


@app.command()
def budget(design: Annotated[Optional[Path], typer.Argument(help="design TOML (default: the built-in design)")] = None,
           fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None) -> None:
    """Print the link budget line by line, the margin, the capacity and the limit that binds."""
    from sipml.reports import budget_report

    est = _evaluate(design, set_)
    _emit(budget_report(est, str(design) if design else "built-in design"), fmt, output)


@app.command()
def check(design: Annotated[Optional[Path], typer.Argument(help="design TOML (default: the built-in design)")] = None,
          fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None) -> None:
    """Exit 0 when the design is feasible, 1 when not, printing every violated constraint with its numbers."""
    from sipml.reports import check_report

    est = _evaluate(design, set_)
    _emit(check_report(est, str(design) if design else "built-in design"), fmt, output)
    if not est.feasible:
        raise typer.Exit(1)


@app.command()
def fields(fmt: FormatOpt = Format.table, output: OutputOpt = None) -> None:
    """List every design-file field: unit, default, range, help and source."""
    from sipml.reports import fields_report

    _emit(fields_report(), fmt, output)


@app.command()
def init(path: Annotated[Path, typer.Argument(help="where to write the design file")],
         force: Annotated[bool, typer.Option("--force", help="overwrite an existing file")] = False) -> None:
    """Write the built-in design as a commented TOML file to start from."""
    from photonics.errors import InputError
    from sipml.design import default_design_toml
    from sipml.render import write_atomic

    if path.exists() and not force:
        raise InputError(f"{path}: already exists (use --force to overwrite)")
    write_atomic(path, default_design_toml())
    print(f"wrote {path}", file=sys.stderr)


@app.command()
def explain() -> None:
    """Show the power-budget equation and its closed-form solutions (derived with sympy)."""
    from photonics.symbolic import explain as derivation

    print(derivation())


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app; project errors become one line on stderr and their exit code
    (usage errors are reported by typer with exit code 2)."""
    from photonics.errors import SipmlError

    try:
        app(args=argv, prog_name="sipml")
    except SipmlError as exc:
        print(f"sipml: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
