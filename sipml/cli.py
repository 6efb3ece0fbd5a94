"""The `sipml` command line. Heavy modules are imported inside the commands so `--help` stays fast.

Exit codes: 0 success; 1 the design is infeasible (or a computation has no answer); 2 bad usage or input;
70 an internal error (a bug: one line says what was being done; `--debug` shows the traceback); 130 / 143
interrupted / terminated. Results go to stdout (or atomically to `-o PATH`), messages to stderr, every error
as one line.
"""

from __future__ import annotations

import sys
import warnings
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer
import typer.core


class _Command(typer.core.TyperCommand):
    """A command whose help names each argument by its metavar alone (typer would add a Python type name such
    as '<list[str]>')."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, typer.core.TyperArgument):
                param.display_type_rich = lambda ctx: None


app = typer.Typer(add_completion=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="Physical-layer and cost calculator for silicon-photonic ML interconnects (after SiP-ML). "
                       "Shell completion: `sipml --install-completion`.")


DEFAULT_COMPARISON = ("sip-ring", "sip-ocs", "sip-ocs-384", "dgx-a100", "dgx-h100", "ideal")
EXIT_INTERNAL = 70  # EX_SOFTWARE (sysexits.h): an internal error
BYTES_PER_GPU_PAIR = 80  # [inferred] peak memory of `fabric --pattern` per GPU pair: its dense N×N traffic,
#                          distance and allocation matrices (measured 1.35 GB for 4096 GPUs on dgx-a100)


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    markdown = "markdown"


FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="output format")]
OutputOpt = Annotated[Optional[Path], typer.Option(
    "--output", "-o", metavar="PATH", help="write to this file (atomically; '-' for stdout); an existing target "
                                           "must be a regular file")]
SetOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", metavar="SECTION.KEY=VALUE",
    help="override a design value, e.g. --set link.data_rate='50 Gbit/s' (repeatable)")]
CatalogOpt = Annotated[Optional[list[Path]], typer.Option(
    "--catalog", metavar="FILE", help="a catalog file overriding or adding entries (repeatable)")]
DesignArg = Annotated[Optional[str], typer.Argument(
    metavar="DESIGN", show_default=False,
    help="design TOML file or built-in design name (default: the built-in sip-ring design)")]


# --- what is being done, for the one line an internal error prints ------------------------------------------
_ACTIVITY = ["starting"]


def _doing(text: str) -> None:
    _ACTIVITY[0] = text


def _named(design) -> str:
    from sipml.design import DEFAULT_DESIGN

    return str(design) if design else DEFAULT_DESIGN


def _emit(report, fmt: Format, output: Optional[Path]) -> None:
    from sipml.render import render, write_atomic

    _doing("rendering the report")
    text = render(report, fmt.value)
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        _doing(f"writing {output}")
        write_atomic(output, text)
        print(f"wrote {output}", file=sys.stderr)


def _load(design, overrides):
    from sipml.design import load_design

    _doing(f"loading the design {_named(design)}")
    return load_design(design, overrides)


def _catalog(files):
    from fabric.catalog import load_catalog

    _doing("loading the catalog")
    return load_catalog(*(files or []))


def _check_entries(loaded, design, catalog) -> None:
    from sipml.design import check_catalog_entries

    check_catalog_entries(loaded, catalog, _named(design))


def _evaluate(design: Optional[str], overrides: Optional[list[str]]):
    """Load a design and evaluate the optical link its fabric uses (with any switch passes); errors found while
    evaluating also name the file."""
    from core.errors import InputError
    from fabric.evaluate import effective_link
    from photonics.link import evaluate

    loaded = _load(design, overrides)
    link = effective_link(loaded)
    if link is None:
        raise InputError(f"{_named(design)}: [fabric] kind = '{loaded.fabric.kind}' has no optical link to budget")
    _doing(f"evaluating the link of {_named(design)}")
    try:
        return evaluate(link)
    except InputError as exc:
        raise InputError(f"{_named(design)}: {exc}") from None


def _evaluate_fabric(loaded, design):
    from core.errors import InputError
    from fabric.evaluate import evaluate_fabric

    _doing(f"evaluating the fabric of {_named(design)}")
    try:
        return evaluate_fabric(loaded)
    except InputError as exc:
        raise InputError(f"{_named(design)}: {exc}") from None


def _version(value: bool) -> None:
    if value:
        from sipml import __version__

        print(f"sipml {__version__}")
        raise typer.Exit()


@app.callback()
def root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="print the version and exit")] = False,
         debug: Annotated[bool, typer.Option("--debug", help="on an internal error, print the traceback (may "
                                                             "stand anywhere on the line)")] = False) -> None:
    # --debug is taken out of the arguments by `main` (so that it may stand anywhere); declared here for --help
    del version, debug


@app.command(cls=_Command)
def budget(design: DesignArg = None,
           fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
           min_spacing: Annotated[bool, typer.Option(
               "--min-spacing", help="also solve for the smallest channel spacing that still closes the budget "
                                     "(root-finder; crosstalk couples spacing and margin)")] = False) -> None:
    """Print the link budget line by line, the margin, the capacity and the limit that binds."""
    from sipml.reports import budget_report

    est = _evaluate(design, set_)
    spacing = None
    if min_spacing:
        from photonics.link import min_channel_spacing_hz

        _doing(f"solving for the smallest channel spacing of {_named(design)}")
        spacing = min_channel_spacing_hz(est.design)
    _emit(budget_report(est, _named(design), min_spacing_hz=spacing if min_spacing else False), fmt, output)


@app.command(cls=_Command)
def check(design: DesignArg = None,
          fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
          catalog: CatalogOpt = None) -> None:
    """Exit 0 when the design is feasible, 1 when not, printing every violated constraint with its numbers.
    The whole design is checked: its link, switch passes, reach, radix, and the catalog entries it names."""
    from sipml.reports import check_fabric_report

    loaded = _load(design, set_)
    _check_entries(loaded, design, _catalog(catalog))
    fab = _evaluate_fabric(loaded, design)
    _emit(check_fabric_report(fab, _named(design)), fmt, output)
    if not fab.feasible:
        raise typer.Exit(1)


def _check_fits(gpus: int) -> None:
    """DomainError, before anything is allocated, when the dense traffic matrices of `gpus` GPUs would not fit
    in the memory this machine has available."""
    from core.errors import DomainError

    needed = BYTES_PER_GPU_PAIR * gpus * gpus
    available = available_memory_bytes()
    if available is not None and needed > available:
        raise DomainError(f"--pattern on {gpus} GPUs needs about {needed / 2**30:.3g} GiB for its {gpus} × {gpus} "
                          f"traffic matrices; this machine has {available / 2**30:.3g} GiB available (use fewer "
                          f"GPUs: [fabric] gpus)")


def available_memory_bytes() -> int | None:
    """Memory this machine (or its cgroup) can still give, from /proc/meminfo and cgroup v2; None if unknown."""
    found = []
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            found.append(int(limit) - int(used))
    except (OSError, ValueError):
        pass
    return min(found) if found else None


@app.command(cls=_Command)
def fabric(design: DesignArg = None, fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
           message_size: Annotated[Optional[str], typer.Option(
               "--message-size", metavar="SIZE", help="bytes per rank for the collective times, e.g. '100 MB' "
                                                      "(default: [fabric] message_size)")] = None,
           pattern: Annotated[Optional[str], typer.Option(
               "--pattern", metavar="ring|groups|training",
               help="traffic pattern to allocate: ring, groups or training (ring + groups)")] = None,
           group_size: Annotated[Optional[int], typer.Option(
               "--group-size", min=1, metavar="N", help="GPUs per model-parallel group of the pattern "
                                                        "(default 8)")] = None,
           catalog: CatalogOpt = None) -> None:
    """Show the fabric's numbers: bandwidth, useful time, degree, bisection, reach, collective times.
    Exits 1 when the fabric is infeasible."""
    from core.errors import InputError
    from core.units import parse_value
    from fabric.collective_times import collective_times_s
    from sipml.reports import fabric_report

    if group_size is not None and pattern is None:
        raise InputError("--group-size applies only with --pattern")
    bits = None
    if message_size is not None:
        try:
            bits = parse_value(message_size, "bit")
        except InputError as exc:
            raise InputError(f"--message-size {message_size!r}: {exc}") from None
        if not 0 < bits < float("inf"):
            raise InputError(f"--message-size {message_size!r}: expected a positive, finite size")
    loaded = _load(design, set_)
    _check_entries(loaded, design, _catalog(catalog))
    fab = _evaluate_fabric(loaded, design)
    if bits is None:
        bits = loaded.fabric.message_size
    _doing(f"computing the collective times of {_named(design)}")
    times, algorithms = collective_times_s(loaded, fab, bits / 8)
    traffic = None
    group_size = group_size or 8
    if pattern is not None:
        from fabric.traffic import PATTERNS, pair_bandwidth, pattern_demand_bps

        gpus = loaded.fabric.gpus
        if pattern not in PATTERNS:
            raise InputError(f"--pattern {pattern!r}: expected one of {', '.join(PATTERNS)}")
        if pattern != "ring" and (group_size > gpus or gpus % group_size):
            raise InputError(f"--group-size {group_size}: must divide [fabric] gpus = {gpus}")
        _check_fits(gpus)
        _doing(f"allocating the '{pattern}' traffic of {_named(design)}")
        demand = pattern_demand_bps(pattern, gpus, group_size)
        traffic = (pattern, group_size, demand, pair_bandwidth(loaded, fab, demand))
    _emit(fabric_report(fab, times, algorithms, bits, _named(design), traffic), fmt, output)
    if not fab.feasible:
        raise typer.Exit(1)


@app.command(cls=_Command)
def cost(designs: Annotated[Optional[list[str]], typer.Argument(
             metavar="DESIGN", show_default=False,
             help="design files or built-in names (default: every built-in design)")] = None,
         fmt: FormatOpt = Format.table, output: OutputOpt = None, catalog: CatalogOpt = None,
         set_: SetOpt = None) -> None:
    """Side-by-side cost and power tables: per GPU and per cluster, with the breakdown and the price range.
    A --set must have an effect in every design compared."""
    from core.errors import InputError
    from fabric.cost import cluster_bom
    from sipml.design import NoEffect, builtin_designs
    from sipml.reports import cost_data, cost_report

    names = designs or [n for n in DEFAULT_COMPARISON if n in builtin_designs()]
    cat = _catalog(catalog)
    for change in cat.overrides:
        print(f"catalog: {change}", file=sys.stderr)
    loaded, refused = {}, {}
    for name in names:
        try:
            loaded[name] = _load(name, set_)
        except NoEffect as exc:  # gathered, so one line names every design a --set does not fit
            refused.setdefault(exc.problem, []).append(exc.source)
            continue
        _check_entries(loaded[name], name, cat)
    if refused:
        raise InputError("; ".join(f"{', '.join(sources)}: {problem}" for problem, sources in refused.items()))
    entries = []
    for name, design in loaded.items():
        fab = _evaluate_fabric(design, name)
        _doing(f"costing {name}")
        entries.append(cost_data(name, fab, cluster_bom(design, fab, cat), design.fabric.pue))
    _emit(cost_report(entries), fmt, output)


@app.command(cls=_Command)
def fields(fmt: FormatOpt = Format.table, output: OutputOpt = None) -> None:
    """List every design-file field: unit, library default, the built-in sip-ring's value, range, when it
    applies, help and source."""
    from sipml.reports import fields_report

    _emit(fields_report(), fmt, output)


@app.command(cls=_Command)
def init(path: Annotated[Path, typer.Argument(metavar="PATH", help="where to write the design file ('-': stdout)")],
         design: DesignArg = None, set_: SetOpt = None,
         force: Annotated[bool, typer.Option("--force", help="overwrite an existing file")] = False) -> None:
    """Write a design (a built-in or a file; default: the built-in sip-ring) as a complete, commented TOML file
    to start from."""
    from core.errors import InputError
    from sipml.design import written_design_toml
    from sipml.render import write_atomic

    to_stdout = str(path) == "-"
    if not to_stdout and path.exists() and not force:
        raise InputError(f"{path}: already exists (use --force to overwrite)")
    _doing(f"loading the design {_named(design)}")
    text = written_design_toml(design, set_)
    if to_stdout:
        sys.stdout.write(text)
        return
    _doing(f"writing {path}")
    write_atomic(path, text)
    print(f"wrote {path}", file=sys.stderr)


@app.command(cls=_Command)
def explain() -> None:
    """Show the power-budget equation and its closed-form solutions (derived with sympy)."""
    from photonics.symbolic import explain as derivation

    _doing("deriving the closed forms")
    print(derivation())


# --- the entry point ----------------------------------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _split_debug(args: list[str]) -> tuple[list[str], bool]:
    """`--debug` may stand anywhere before a `--`; it is taken out of the arguments."""
    end = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:end]
    return [a for i, a in enumerate(args) if not (i < end and a == "--debug")], debug


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app and return its exit code. No exception escapes: project errors and usage
    errors become one line on stderr and their exit code; anything else one line saying what was being done,
    exit 70 (the traceback only with --debug)."""
    from core.errors import SipmlError
    from sipml.render import Terminated, terminate_on_signal

    args, debug = _split_debug(list(sys.argv[1:] if argv is None else argv))
    _doing("reading the command line")
    try:
        with terminate_on_signal(), warnings.catch_warnings():
            warnings.showwarning = _warning_line
            code = app(args=args or ["--help"], prog_name="sipml", standalone_mode=False)
        return code if isinstance(code, int) else 0
    except SipmlError as exc:
        print(f"sipml: error: {_one_line(exc)}", file=sys.stderr)
        return exc.exit_code
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        print("sipml: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("sipml: terminated", file=sys.stderr)
        return 143
    except Exception as exc:  # noqa: BLE001 — the last line of defence: one line, never a raw traceback
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # a usage error of the command line
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            print(f"sipml: error: {_one_line(exc.format_message())}{hint}", file=sys.stderr)
            return exc.exit_code
        return _internal_error(exc, debug)
    except BaseException as exc:  # MemoryError and RecursionError derive from Exception; this is the rest
        return _internal_error(exc, debug)


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning (numpy's, say) as one line on stderr, without the source line Python would print."""
    print(f"sipml: warning: {category.__name__}: {_one_line(message)} while {_ACTIVITY[0]} "
          f"({Path(filename).name}:{lineno})", file=sys.stderr)


def _internal_error(exc: BaseException, debug: bool) -> int:
    if debug:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    if isinstance(exc, MemoryError):
        print(f"sipml: error: out of memory while {_ACTIVITY[0]}: the design is too big for this machine; "
              f"if it is not, please report it (--debug shows the traceback)", file=sys.stderr)
    else:
        print(f"sipml: internal error while {_ACTIVITY[0]}: {type(exc).__name__}: {_one_line(exc)[:200]}; please "
              f"report it with the command line (--debug shows the traceback)", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
