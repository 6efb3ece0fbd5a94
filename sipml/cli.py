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

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="Physical-layer and cost calculator for silicon-photonic ML interconnects (after SiP-ML).")


DEFAULT_COMPARISON = ("sip-ring", "sip-ocs", "sip-ocs-384", "dgx-a100", "dgx-h100", "ideal")


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


def _named(design) -> str:
    from sipml.design import DEFAULT_DESIGN

    return str(design) if design else DEFAULT_DESIGN


def _evaluate(design: Optional[str], overrides: Optional[list[str]]):
    """Load a design and evaluate the optical link its fabric uses (with any switch passes); errors found while
    evaluating also name the file."""
    from fabric.evaluate import effective_link
    from core.errors import InputError
    from photonics.link import evaluate
    from sipml.design import load_design

    loaded = load_design(design, overrides)
    link = effective_link(loaded)
    if link is None:
        raise InputError(f"{_named(design)}: [fabric] kind = '{loaded.fabric.kind}' has no optical link to budget")
    try:
        return evaluate(link)
    except InputError as exc:
        raise InputError(f"{_named(design)}: {exc}") from None


DesignArg = Annotated[Optional[str], typer.Argument(
    help="design TOML file or built-in design name (default: the built-in SiP-Ring design)")]


@app.command()
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

        spacing = min_channel_spacing_hz(est.design)
    _emit(budget_report(est, _named(design), min_spacing_hz=spacing if min_spacing else False), fmt, output)


@app.command()
def check(design: DesignArg = None,
          fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None) -> None:
    """Exit 0 when the design is feasible, 1 when not, printing every violated constraint with its numbers.
    A design with a [fabric] is checked as a whole (link, switch passes, reach, radix); one without, as a link."""
    from sipml.design import load_design
    from sipml.reports import check_fabric_report, check_report

    loaded = load_design(design, set_)
    if loaded.has_fabric:
        fab = _evaluate_fabric(loaded, design)
        _emit(check_fabric_report(fab, _named(design)), fmt, output)
        feasible = fab.feasible
    else:
        est = _evaluate(design, set_)
        _emit(check_report(est, _named(design)), fmt, output)
        feasible = est.feasible
    if not feasible:
        raise typer.Exit(1)


def _evaluate_fabric(loaded, design):
    from fabric.evaluate import evaluate_fabric
    from core.errors import InputError

    try:
        return evaluate_fabric(loaded)
    except InputError as exc:
        raise InputError(f"{_named(design)}: {exc}") from None


@app.command()
def fabric(design: DesignArg = None, fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
           message_size: Annotated[Optional[str], typer.Option(
               "--message-size", help="bytes per rank for the collective times, e.g. '100 MB' "
                                      "(default: [fabric] message_size)")] = None,
           pattern: Annotated[Optional[str], typer.Option(
               "--pattern", help="traffic pattern to allocate: ring, groups or training (ring + groups)")] = None,
           group_size: Annotated[Optional[int], typer.Option(
               "--group-size", min=1, help="GPUs per model-parallel group of the pattern (default 8)")] = None,
           groups: Annotated[Optional[str], typer.Option(
               "--groups", help="parallel groups running together, e.g. 'tp=8,dp=128' (also pp, ep): tensor groups "
                                "all-reduce, data-parallel groups all-reduce, pipeline stages send point-to-point, "
                                "expert groups all-to-all, each at --message-size per rank")] = None) -> None:
    """Show the fabric's numbers: bandwidth, useful time, degree, bisection, reach, collective times.
    Exits 1 when the fabric is infeasible."""
    from core.errors import InputError
    from core.units import parse_value
    from fabric.evaluate import job_collectives
    from sipml.design import load_design
    from sipml.reports import fabric_report

    loaded = load_design(design, set_)
    fab = _evaluate_fabric(loaded, design)
    if message_size is None:
        size = loaded.fabric.message_size
    else:
        try:
            size = parse_value(message_size, "byte")
        except InputError as exc:
            raise InputError(f"--message-size {message_size!r}: {exc}") from None
        if not size > 0 or size == float("inf"):
            raise InputError(f"--message-size {message_size!r}: expected a positive, finite size")
    times = job_collectives(fab, size)
    traffic = None
    if group_size is not None and pattern is None:
        raise InputError("--group-size applies only with --pattern")
    group_size = group_size or 8
    if pattern is not None:
        from fabric.traffic import pair_bandwidth, pattern_flows

        flows = pattern_flows(pattern, loaded.fabric.gpus, group_size)
        traffic = (pattern, group_size, pair_bandwidth(fab, flows))
    together = _groups_together(fab, groups, size) if groups is not None else None
    _emit(fabric_report(fab, times, size, _named(design), traffic, together), fmt, output)
    if not fab.feasible:
        raise typer.Exit(1)


def _groups_together(fab, spec: str, size: float):
    """(group, collective, time) for the parallel groups of `--groups`, priced running together."""
    from core.errors import InputError
    from fabric.evaluate import price
    from fabric.kind import Collective
    from fabric.layout import DIMENSIONS, OPERATION, parallel_groups

    sizes = {}
    for item in spec.split(","):
        name, sep, value = item.strip().partition("=")
        if not sep or name not in DIMENSIONS or not value.strip().isdigit():
            raise InputError(f"--groups {spec!r}: expected name=size items, names {', '.join(DIMENSIONS)}, "
                             "e.g. tp=8,dp=128")
        sizes[name] = int(value)
    layout = parallel_groups(fab.job_gpus, **sizes)
    collectives = [Collective(OPERATION[g.name], size, g.size, g.stride, name=g.name) for g in layout]
    return list(zip(layout, collectives, price(fab, collectives)))


@app.command()
def cost(designs: Annotated[Optional[list[str]], typer.Argument(
             help="design files or built-in names (default: every built-in design)")] = None,
         fmt: FormatOpt = Format.table, output: OutputOpt = None,
         catalog: Annotated[Optional[list[Path]], typer.Option(
             "--catalog", help="a catalog file overriding or adding entries (repeatable)")] = None,
         set_: SetOpt = None) -> None:
    """Side-by-side cost and power tables: per GPU and per cluster, with the breakdown and the price range."""
    from fabric.catalog import load_catalog
    from fabric.cost import cost_summary
    from sipml.design import builtin_designs, load_design
    from sipml.reports import cost_data, cost_report

    names = designs or [n for n in DEFAULT_COMPARISON if n in builtin_designs()]
    cat = load_catalog(*(catalog or []))
    for change in cat.overrides:
        print(f"catalog: {change}", file=sys.stderr)
    entries = []
    for name in names:
        loaded = load_design(name, set_)
        fab = _evaluate_fabric(loaded, name)
        entries.append(cost_data(name, fab, cost_summary(loaded, fab, cat)))
    _emit(cost_report(entries), fmt, output)


@app.command()
def speedup(designs: Annotated[Optional[list[str]], typer.Argument(
                help="design files or built-in names (default: sip-ring, sip-ocs, dgx-a100, dgx-h100)")] = None,
            model: Annotated[str, typer.Option("--model", "-m", help="zoo model name or a model TOML file")] = "gpt3-175b",
            gpus: Annotated[Optional[int], typer.Option("--gpus", min=2, help="GPUs in every cluster compared")] = None,
            batch: Annotated[Optional[int], typer.Option(
                "--batch", min=1, help="global batch (sequences, or samples; default: the model's, see `sipml models`)")] = None,
            strategy: Annotated[Optional[str], typer.Option(
                "--strategy", help="fix part of the strategy and search the rest, e.g. tp=8,pp=4,microbatch=1,"
                                   "recompute=full")] = None,
            baseline: Annotated[Optional[list[str]], typer.Option(
                "--baseline", help="baseline design (repeatable; the first sets `speedup`; default: fattree-200, "
                                   "SiP-ML's 200 Gbps fat-tree, and dgx-a100)")] = None,
            tokens: Annotated[Optional[float], typer.Option(
                "--tokens", help="tokens (or samples) of the training run to price (default: 300e9 tokens, or 90 "
                                 "ImageNet epochs)")] = None,
            fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None) -> None:
    """Training time of a model on each design: the best strategy, its breakdown, throughput, TFLOP/s and MFU,
    speedup, speedup per dollar and per watt over the baselines, energy and cost of a training run."""
    from sipml.speedup import run_speedup, speedup_report

    rows, source, failures = run_speedup(designs, model, gpus, batch, strategy, set_, baseline, tokens)
    _emit(speedup_report(rows, source, failures), fmt, output)
    if failures:
        raise typer.Exit(1)


@app.command()
def models(fmt: FormatOpt = Format.table, output: OutputOpt = None) -> None:
    """List the model zoo and the GPUs with their sources."""
    from sipml.speedup import models_report

    _emit(models_report(), fmt, output)


@app.command()
def report(fmt: FormatOpt = Format.table, output: OutputOpt = None,
           plots: Annotated[Optional[Path], typer.Option(
               "--plots", help="also write the figures (PNG) into this folder")] = None) -> None:
    """SiP-ML's story end to end on the built-in designs: the optical link and what binds it, the fabrics side by
    side, training speedup per dollar and per watt, the validation table, the assumptions that move the answer."""
    from sipml.report import build_report

    result, _ = build_report(plots)
    _emit(result, fmt, output)


@app.command()
def sweep(design: DesignArg = None,
          vary: Annotated[Optional[list[str]], typer.Option(
              "--vary", help="an axis: section.key=start:stop:count[:log] (units on start and stop) or "
                             "section.key=a,b,c (repeatable: the grid is their product)")] = None,
          model: Annotated[Optional[str], typer.Option(
              "--model", "-m", help="also train this model on every point (speedup over fattree-200)")] = None,
          batch: Annotated[Optional[int], typer.Option("--batch", min=1, help="global batch with --model")] = None,
          table: Annotated[str, typer.Option("--table", help="row format: csv, jsonl or parquet (default: from "
                                                            "-o's suffix, else csv)")] = "",
          output: OutputOpt = None, set_: SetOpt = None,
          plot: Annotated[Optional[str], typer.Option(
              "--plot", help="also write a PNG of columns x,y[,color] (see --plot-file)")] = None,
          plot_file: Annotated[Path, typer.Option("--plot-file", help="where --plot writes")] = Path("sweep.png"),
          scheduler: Annotated[Optional[str], typer.Option(
              "--scheduler", help="run on a Dask cluster, e.g. tcp://HOST:8786 (the rows equal the local run's)")]
          = None,
          workers: Annotated[Optional[int], typer.Option(
              "--workers", min=1, help="local processes (default: every core)")] = None,
          quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar")] = False) -> None:
    """Evaluate a grid of design points: one row per point with every input and output column and its unit."""
    import os

    from core.errors import InputError
    from sipml.render import write_atomic, write_atomic_bytes
    from sipml.sweep import plot as plot_rows
    from sipml.sweep import run_sweep, to_csv, to_jsonl, to_parquet

    if not vary:
        raise InputError("sweep needs at least one --vary axis, e.g. --vary link.wavelengths_per_fiber=4,8,16")
    kind = table or (output.suffix.lstrip(".") if output is not None else "csv")
    if kind not in ("csv", "jsonl", "parquet"):
        raise InputError(f"--table {kind!r}: expected csv, jsonl or parquet")
    if kind == "parquet" and output is None:
        raise InputError("Parquet output needs -o PATH")
    show = not quiet and sys.stderr.isatty()

    def progress(done, total):
        if show:
            width = 30
            filled = int(width * done / total)
            print(f"\rsweep [{'#' * filled}{'.' * (width - filled)}] {done}/{total} chunks", end="",
                  file=sys.stderr, flush=True)

    _, rows = run_sweep(design, set_, vary, model=model, batch=batch, scheduler=scheduler,
                        workers=workers or os.cpu_count(), progress=progress)
    if show:
        print(file=sys.stderr)
    if kind == "parquet":
        write_atomic_bytes(output, to_parquet(rows))
    else:
        text = to_csv(rows) if kind == "csv" else to_jsonl(rows)
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomic(output, text)
    if output is not None:
        print(f"wrote {output} ({len(rows)} rows)", file=sys.stderr)
    if plot is not None:
        plot_rows(rows, plot, plot_file)
        print(f"wrote {plot_file}", file=sys.stderr)


@app.command()
def validate(fmt: FormatOpt = Format.table, output: OutputOpt = None) -> None:
    """Reproduce every published case the project knows (physical layer, SiP-ML, NCCL, Megatron-LM): published,
    ours, error, tolerance. Exit 1 when any case is outside its tolerance."""
    from sipml.validation import all_cases, validation_report

    cases = all_cases()
    _emit(validation_report(cases), fmt, output)
    if not all(c.passed for c in cases):
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
    from core.errors import InputError
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
    from core.errors import SipmlError

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
