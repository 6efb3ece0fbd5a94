"""The `sipml` command line. Heavy modules are imported inside the commands so `--help` stays fast.

Exit codes: 0 success; 1 the design is infeasible (or a computation has no answer); 2 bad usage or input;
70 an internal error (a bug: one line says what was being done; `--debug` shows the traceback); 130 / 143 / 129
interrupted / terminated / hung up (SIGHUP: the terminal closed), as 128 + the signal. Results go to stdout (or atomically to `-o PATH`), messages to stderr, every error
as one line.
"""

from __future__ import annotations

import contextlib
import copy
import os
import re
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
                  help="Physical-layer, cost and training-speedup calculator for silicon-photonic ML interconnects (after "
                       "SiP-ML); `sipml report` tells the whole story. "
                       "Shell completion: `sipml --install-completion`.")


DEFAULT_COMPARISON = ("sip-ring", "sip-ocs", "sip-ocs-384", "dgx-a100", "dgx-h100", "ideal")
EXIT_INTERNAL = 70  # EX_SOFTWARE (sysexits.h): an internal error


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"
    csv_long = "csv-long"  # the JSON as key,value rows (csv: one row per design, a column per quantity)
    markdown = "markdown"
    html = "html"


SUFFIX_FORMATS = {".json": Format.json, ".csv": Format.csv, ".md": Format.markdown, ".html": Format.html,
                  ".htm": Format.html, ".txt": Format.table}  # what -o's name says it holds


def _format_for(ctx: typer.Context, fmt: Format, output: Optional[Path]) -> Format:
    """The format to write: --format's; where it is not given, the one -o's suffix names (`SUFFIX_FORMATS`: `-o
    budget.json` writes JSON); InputError where a given --format and the suffix disagree."""
    named = None if output is None or str(output) == "-" else SUFFIX_FORMATS.get(output.suffix.lower())
    if named is None or named is fmt or (fmt is Format.csv_long and named is Format.csv):
        return fmt
    if getattr(ctx.get_parameter_source("fmt"), "name", "") == "DEFAULT":  # click's ParameterSource: not given
        return named
    from core.errors import InputError

    raise InputError(f"-o {output}: a {output.suffix} name, but --format {fmt.value}: name the file for its format, "
                     f"or leave --format out (the suffix says it)")


def _checked_format(ctx: typer.Context, fmt: Format) -> str:
    """--format, or the format -o names where -o came first (`_format_for`); as its text, which typer turns into
    the Format the command gets."""
    return _format_for(ctx, Format(fmt), ctx.params.get("output")).value


FormatOpt = Annotated[Format, typer.Option("--format", "-f", callback=_checked_format,
                                           help="output format (default: the one -o's suffix names, else table)")]


def _checked_output(ctx: typer.Context, path: Optional[Path]) -> Optional[Path]:
    """An output target, checked before any work (the write checks it again); the format its suffix names taken
    where --format came first and was not given (`_format_for`)."""
    if path is not None and str(path) != "-":
        from core.errors import InputError
        from sipml.render import check_output

        try:
            check_output(path)
        except InputError as exc:
            raise InputError(f"-o {exc}") from None
    if "fmt" in ctx.params:
        ctx.params["fmt"] = _format_for(ctx, Format(ctx.params["fmt"]), path).value
    return path


OutputOpt = Annotated[Optional[Path], typer.Option(
    "--output", "-o", metavar="PATH", callback=_checked_output,
    help="write to this file (atomically; '-' for stdout), in the format its suffix names (.json, .csv, .md, .html, "
         ".txt) unless --format says; an existing target must be a regular file")]
SweepOutputOpt = Annotated[Optional[Path], typer.Option(
    "--output", "-o", metavar="PATH", callback=_checked_output,
    help="write to this file (atomically; '-' for stdout), in the format its suffix names (.csv, .jsonl, .parquet, "
         ".md, .html, .txt) unless --format says; an existing target must be a regular file")]
def _complete_keys(incomplete: str) -> list[str]:
    """Shell completion of a --set or --vary item: every design-file key as `section.key=` that starts with what
    is typed (a value is the user's to write)."""
    from core.fields import specs
    from sipml.design_files import ALL_SECTIONS

    keys = [f"{name}.{key}=" for name, cls in ALL_SECTIONS.items() for key in specs(cls)]
    return [key for key in keys if key.startswith(incomplete)]


def _each_key_once(items: Optional[list[str]]) -> Optional[list[str]]:
    """--set items, each key (with its DESIGN: scope) given once: a second value would silently win."""
    keys = [item.partition("=")[0].strip() for item in items or [] if "=" in item]
    twice = next((key for i, key in enumerate(keys) if key in keys[:i]), None)
    if twice is not None:
        from core.errors import InputError

        raise InputError(f"--set {twice} is given twice: give each key one value")
    return items


SetOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", metavar="SECTION.KEY=VALUE", autocompletion=_complete_keys, callback=_each_key_once,
    help="override a design value, e.g. --set link.data_rate='50 Gbit/s' (repeatable)")]
SetEachOpt = Annotated[Optional[list[str]], typer.Option(
    "--set", metavar="SECTION.KEY=VALUE", autocompletion=_complete_keys, callback=_each_key_once,
    help="override a design value, e.g. --set link.data_rate='50 Gbit/s' (repeatable; DESIGN:section.key=value "
         "changes that design alone)")]
CatalogOpt = Annotated[Optional[list[Path]], typer.Option(
    "--catalog", metavar="FILE", help="a catalog file overriding or adding entries (repeatable)")]
GpuFileOpt = Annotated[Optional[list[Path]], typer.Option(
    "--gpu-file", metavar="FILE", help="a GPU file (the format of workloads/gpus.toml) adding GPUs or overriding "
    "keys (repeatable); a new GPU names its catalog entry, from the shipped catalog or a --catalog file")]


# --- numbers on the command line: ASCII digits only (core.units.whole_number), each count within its bound --------
def _most_gpus() -> int:
    from fabric.cluster_design import MAX_GPUS

    return MAX_GPUS


def _most_batch() -> int:
    from workloads.strategy import MAX_BATCH

    return MAX_BATCH


def _most_workers() -> int:
    from sipml.sweep_run import max_workers

    return max_workers()


def _count(option: str, lo: int, most):
    """An option callback reading a count's text (the option is typed `str`, so click's int(), which reads '８' as 8
    and overflows on 2^64, never sees it): a whole number in ASCII digits from `lo` to `most()`."""
    def read(value):
        if value is None:
            return None
        from core.units import whole_number

        return whole_number(value, lo=lo, hi=most(), what=option)
    return read


# the batch and the fixed strategy of the commands that compute training quantities of designs they step through
TrainingBatchOpt = Annotated[Optional[str], typer.Option(
    "--batch", metavar="N", callback=_count("--batch", 1, _most_batch),
    help="global batch of the training quantities (sequences, or samples; 1 to 2^24; default: the model's for the "
         "job, as `speedup` takes it)")]
TrainingStrategyOpt = Annotated[Optional[str], typer.Option(
    "--strategy", metavar="KEY=VALUE,...",
    help="for training quantities, fix part of the strategy as `speedup --strategy` does (the rest is searched at "
         "every point; a baseline that cannot run it runs its best)")]


def _number(option: str):
    """An option callback reading a plain number's text by the quantity grammar (ASCII digits; no unit)."""
    def read(value):
        if value is None:
            return None
        from core.units import plain_number

        return plain_number(value, what=option)
    return read


def _check_model(model: str | None) -> None:
    """A --model that is neither a zoo name nor a readable model file is refused before any work (exit 2), where a
    sweep or a search would otherwise carry the refusal into every row."""
    if model is not None:
        from workloads.models import load_model

        _doing(f"loading the model {model}")
        load_model(model)


def _check_training_options(quantities, strategy: str | None, batch: int | None) -> None:
    """--strategy and --batch move training quantities only: refused (exit 2) where none of `quantities` is one,
    and a bad strategy before any work."""
    from core.errors import InputError
    from sipml.quantities import QUANTITIES

    given = [option for option, value in (("--strategy", strategy), ("--batch", batch)) if value is not None]
    if given and not any(QUANTITIES[q].stage == "training" for q in quantities):
        raise InputError(f"{given[0]}: {', '.join(quantities)} {'is' if len(quantities) == 1 else 'are'} not a "
                         f"training quantity ({given[0]} applies to those only)")
    if strategy is not None:
        from workloads.strategy import parse_strategy

        parse_strategy(strategy)


def _complete_designs(incomplete: str) -> list[str]:
    """Shell completion of a DESIGN: the built-in names that start with what is typed (files: the shell's own)."""
    from sipml.design_files import builtin_designs

    return [name for name in builtin_designs() if name.startswith(incomplete)]


def _complete_models(incomplete: str) -> list[str]:
    """Shell completion of a MODEL: the zoo's names."""
    from workloads.models import ZOO_DIR

    return [p.stem for p in sorted(ZOO_DIR.glob("*.toml")) if p.stem.startswith(incomplete)]


DesignArg = Annotated[Optional[str], typer.Argument(
    metavar="DESIGN", show_default=False, autocompletion=_complete_designs,
    help="design TOML file or built-in design name (default: the built-in sip-ring design)")]


# --- what is being done, for the one line an internal error prints ------------------------------------------
_ACTIVITY = ["starting"]


def _doing(text: str) -> None:
    _ACTIVITY[0] = text


def _named(design) -> str:
    from sipml.design_files import DEFAULT_DESIGN

    return str(design) if design else DEFAULT_DESIGN


def _emit(report, fmt: Format, output: Optional[Path], title: str = "sipml") -> None:
    from sipml.render import render, write_atomic

    from sipml.render import terminal_width

    _doing("rendering the report")
    to_terminal = output is None or str(output) == "-"
    text = render(report, fmt.value, terminal_width() if to_terminal else None, title=title)
    if to_terminal:
        sys.stdout.write(text)
    else:
        _doing(f"writing {output}")
        write_atomic(output, text)
        print(f"wrote {output}", file=sys.stderr)


@contextlib.contextmanager
def _progress(what: str, unit: str, quiet: bool):
    """A progress callback `(done, total)` drawing a rich progress bar on stderr while the block runs; silent with
    --quiet or when stderr is not a terminal."""
    if quiet or not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    with Progress(TextColumn(f"{what}"), BarColumn(), MofNCompleteColumn(), TextColumn(unit), TimeElapsedColumn(),
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def update(done, total):
            bar.update(task, completed=done, total=total)

        yield update


def _load(design, overrides):
    from sipml.design_files import load_design

    _doing(f"loading the design {_named(design)}")
    return load_design(design, overrides)


def _catalog(files):
    """The shipped catalog with the user's files merged, each change said on stderr."""
    from fabric.catalog import load_catalog

    _doing("loading the catalog")
    catalog = load_catalog(*(files or []))
    for file, entry in catalog.added:
        print(f"catalog: {file}: adds [{entry}]", file=sys.stderr)
    for change in catalog.overrides:
        print(f"catalog: {change}", file=sys.stderr)
    return catalog


def _gpu_table(files, catalog):
    """The shipped GPUs with the user's GPU files merged, each change said on stderr (None without any: the shipped
    ones, read where used)."""
    if not files:
        return None
    from workloads.gpus import gpu_changes, load_gpus

    _doing("loading the GPU files")
    gpus = load_gpus(*files, catalog=catalog)
    for change in gpu_changes(gpus):
        print(f"gpu file: {change}", file=sys.stderr)
    return gpus


def _data_files(catalog, gpu_file):
    """The user's catalog and GPU files as a sweep's workers read them, each read here first (an error is said
    once, before any work)."""
    from sipml.sweep_point_rows import DataFiles

    _gpu_table(gpu_file, _catalog(catalog))
    return DataFiles(tuple(str(p.resolve()) for p in catalog or ()), tuple(str(p.resolve()) for p in gpu_file or ()))


def _check_entries(loaded, design, catalog) -> None:
    from sipml.design_files import check_catalog_entries

    check_catalog_entries(loaded, catalog, _named(design))


def _link(point, design):
    """The optical link of a loaded point (with any switch passes its fabric adds); errors found while evaluating
    also name the file."""
    from core.errors import InputError

    if point.link_design is None:
        raise InputError(f"{_named(design)}: [fabric] kind = '{point.design.fabric.kind}' has no optical link to "
                         "budget")
    _doing(f"evaluating the link of {_named(design)}")
    try:
        return point.link
    except InputError as exc:
        raise InputError(f"{_named(design)}: {exc}") from None


def _fabric(point, design):
    from core.errors import InputError

    _doing(f"evaluating the fabric of {_named(design)}")
    try:
        return point.fabric
    except InputError as exc:
        raise InputError(f"{_named(design)}: {exc}") from None


def _point(design, overrides, catalog=None, gpus=None):
    """The evaluation of a loaded design (`workloads.evaluation.Evaluation`): each stage computed once; `gpus` the
    GPUs with a user's GPU files (None: the shipped ones)."""
    from workloads.evaluation import Evaluation

    return Evaluation(_load(design, overrides), catalog, gpus)


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
    from sipml.design_reports import budget_report

    est = _link(_point(design, set_), design)
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
    The whole design is checked: its link, switch passes, reach, radix, and the catalog entries it names (a file
    without [fabric] in the default fabric, as `fabric` and `cost` see it); a point-to-point link, which no SiP
    fabric is built from, as a link."""
    from sipml.design_reports import check_fabric_report, check_report

    point = _point(design, set_)
    loaded = point.design
    if loaded.link.link.kind == "ring-wdm" or loaded.has_fabric:
        _check_entries(loaded, design, _catalog(catalog))
        fab = _fabric(point, design)
        _emit(check_fabric_report(fab, _named(design)), fmt, output)
        feasible = fab.feasible
    else:
        est = _link(point, design)
        _emit(check_report(est, _named(design)), fmt, output)
        feasible = est.feasible
    if not feasible:
        raise typer.Exit(1)


@app.command(cls=_Command)
def fabric(design: DesignArg = None, fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
           message_size: Annotated[Optional[str], typer.Option(
               "--message-size", metavar="SIZE", help="bytes per rank for the collective times, e.g. '100 MB' "
                                                      "(default: [fabric] message_size)")] = None,
           pattern: Annotated[Optional[str], typer.Option(
               "--pattern", metavar="ring|groups|training",
               help="traffic pattern to allocate: ring, groups or training (ring + groups)")] = None,
           group_size: Annotated[Optional[str], typer.Option(
               "--group-size", metavar="N", callback=_count("--group-size", 1, _most_gpus),
               help="GPUs per model-parallel group of the groups or training pattern, at most the cluster's GPUs "
                    "(default 8)")] = None,
           groups: Annotated[Optional[str], typer.Option(
               "--groups", metavar="NAME=SIZE,...",
                                                         help="parallel groups running together, e.g. 'tp=8,dp=128' (also pp, ep): tensor groups "
                                "all-reduce, data-parallel groups all-reduce, pipeline stages send point-to-point, "
                                "expert groups all-to-all, each at --message-size per rank")] = None,
           catalog: CatalogOpt = None, gpu_file: GpuFileOpt = None) -> None:
    """Show the fabric's numbers: bandwidth, useful time, degree, bisection, reach, collective times.
    Exits 1 when the fabric is infeasible."""
    from core.errors import InputError
    from fabric.evaluate import groups_together, job_collectives
    from sipml.design_reports import fabric_report

    from fabric.traffic import PATTERNS

    if group_size is not None and pattern is None:
        raise InputError("--group-size applies only with --pattern")
    if pattern is not None and pattern not in PATTERNS:
        raise InputError(f"--pattern {pattern!r}: expected one of {', '.join(PATTERNS)}")
    if group_size is not None and pattern == "ring":
        raise InputError("--group-size has no effect with --pattern ring (neighbours only): give --pattern groups "
                         "or training")
    if pattern == "groups" and group_size is not None and int(group_size) < 2:
        raise InputError(f"--group-size {group_size}: a group of one GPU sends nothing, so --pattern groups has no "
                         "traffic; give 2 or more")
    sizes = _parse_groups(groups) if groups is not None else None
    size = None
    if message_size is not None:  # bounded as the design's [fabric] message_size
        from core.fields import specs
        from fabric.cluster_design import FabricSection

        try:
            size = specs(FabricSection)["message_size"].parse(message_size)
        except InputError as exc:
            raise InputError(f"--message-size {message_size!r}: {exc}") from None
    cat = _catalog(catalog)
    point = _point(design, set_, gpus=_gpu_table(gpu_file, cat))
    loaded = point.design
    if group_size is not None and group_size > loaded.fabric.gpus:
        raise InputError(f"--group-size {group_size:,}: a group holds at most the {loaded.fabric.gpus:,} GPUs the "
                         f"pattern spans in {_named(design)}")
    given, group_size = group_size is not None, group_size or 8
    if pattern in ("groups", "training") and loaded.fabric.gpus % group_size:
        raise InputError(f"--group-size {group_size}{'' if given else ' (the default)'}: the {pattern!r} pattern's "
                         f"groups must divide the {loaded.fabric.gpus:,} GPUs of {_named(design)}")
    if sizes is not None:
        _check_groups(sizes, groups, loaded.job_gpus)
    _check_entries(loaded, design, cat)
    fab = _fabric(point, design)
    size = loaded.fabric.message_size if size is None else size
    _doing(f"computing the collective times of {_named(design)}")
    times = job_collectives(fab, size)
    traffic = None
    if pattern is not None:
        from fabric.traffic import pair_bandwidth, pattern_flows

        _doing(f"allocating the '{pattern}' traffic of {_named(design)}")
        flows = pattern_flows(pattern, loaded.fabric.gpus, group_size)
        traffic = (pattern, group_size, pair_bandwidth(fab, flows))
    together = groups_together(fab, sizes, size) if sizes is not None else None
    _emit(fabric_report(fab, times, size, _named(design), traffic, together), fmt, output)
    if not fab.feasible:
        raise typer.Exit(1)


def _parse_groups(spec: str) -> dict:
    """The sizes of `--groups` ('tp=8,dp=128'), read before any work (`fabric.layout.parse_groups`)."""
    from fabric.layout import parse_groups

    return parse_groups(spec, "--groups")


def _check_groups(sizes: dict, spec: str, job_gpus: int) -> None:
    """The groups must lay out over the job's ranks (tp·dp·pp = the ranks, ep dividing dp), checked before the
    fabric is evaluated."""
    from core.errors import InputError
    from fabric.layout import parallel_groups

    try:
        parallel_groups(job_gpus, **sizes)
    except InputError as exc:
        raise InputError(f"--groups {spec!r}: {exc}") from None


@app.command(cls=_Command)
def cost(designs: Annotated[Optional[list[str]], typer.Argument(
             metavar="DESIGN", show_default=False,
             help=f"design files or built-in names (default: {', '.join(DEFAULT_COMPARISON)})")] = None,
         fmt: FormatOpt = Format.table, output: OutputOpt = None, catalog: CatalogOpt = None,
         set_: SetEachOpt = None, gpu_file: GpuFileOpt = None) -> None:
    """Side-by-side cost and power tables: per GPU and per cluster, with the breakdown and the price range.
    A --set must have an effect in every design named (DESIGN:section.key=value changes one alone); with no design
    named, the built-in designs it has no effect on are left out, and a line on stderr names them. An infeasible
    design gets no price: what cannot be built is not costed."""
    from core.errors import InputError
    from sipml.design_files import NoEffect, builtin_designs
    from sipml.design_reports import cost_data, cost_report
    from workloads.evaluation import Evaluation

    names = designs or [n for n in DEFAULT_COMPARISON if n in builtin_designs()]
    cat = _catalog(catalog)
    gpus = _gpu_table(gpu_file, cat)
    from sipml.design_files import scoped_overrides

    loaded, refused = {}, {}
    for name in names:
        try:
            loaded[name] = _load(name, scoped_overrides(name, set_, names))
        except NoEffect as exc:  # gathered, so one line names every design a --set does not fit
            refused.setdefault(exc.problem, []).append(exc.source)
            continue
        _check_entries(loaded[name], name, cat)
    why = "; ".join(f"{', '.join(sources)}: {problem}" for problem, sources in refused.items())
    if refused and (designs or not loaded):
        raise InputError(why)
    if refused:  # the default comparison: the designs a --set does not fit are left out, and said so
        print(f"sipml: left out of the comparison: {why}", file=sys.stderr)
    entries = []
    for name, design in loaded.items():
        point = Evaluation(design, cat, gpus)
        fab = _fabric(point, name)
        _doing(f"costing {name}")
        try:
            cost = point.cost
        except InputError as exc:  # a catalog entry the design's choices do not fit: say which design
            raise InputError(f"{_named(name)}: {exc}") from None
        entries.append(cost_data(name, fab, cost))
    _emit(cost_report(entries), fmt, output)


@app.command(cls=_Command)
def speedup(designs: Annotated[Optional[list[str]], typer.Argument(
                metavar="DESIGN", show_default=False,
                                                                   help="design files or built-in names (default: sip-ring, sip-ocs, dgx-a100, dgx-h100)")] = None,
            model: Annotated[str, typer.Option("--model", "-m", metavar="MODEL", autocompletion=_complete_models,
                                               help="zoo model name or a model TOML file")] = "gpt3-175b",
            gpus: Annotated[Optional[str], typer.Option("--gpus", metavar="N", callback=_count("--gpus", 1, _most_gpus),
                                                        help="GPUs in every cluster compared (1 to 2^20; 1: a "
                                                             "one-GPU job on one GPU of each cluster, charged its "
                                                             "share)")] = None,
            batch: Annotated[Optional[str], typer.Option(
                "--batch", metavar="N", callback=_count("--batch", 1, _most_batch),
                help="global batch (sequences, or samples; 1 to 2^24; default: the model's, see `sipml models`)")]
            = None,
            strategy: Annotated[Optional[str], typer.Option(
                "--strategy", metavar="KEY=VALUE,...",
                                                            help="fix part of the strategy and search the rest, e.g. tp=8,pp=4,microbatch=1,"
                                   "recompute=full; a baseline that cannot run it runs its best without the parts it "
                                   "cannot, and says so")] = None,
            baseline: Annotated[Optional[list[str]], typer.Option(
                "--baseline", metavar="DESIGN",
                                                                  help="baseline design (repeatable; the first sets `speedup`; default: fattree-200, "
                                   "SiP-ML's 200 Gbit/s fat-tree, and dgx-a100; each carries the GPU and server host of "
                                   "the design it is compared with, unless --set DESIGN:fabric.gpu=… gives it one, and "
                                   "its [reliability] settings but its hot spares)")] = None,
            tokens: Annotated[Optional[str], typer.Option(
                "--tokens", metavar="COUNT", callback=_number("--tokens"),
                                                            help="tokens (or samples) of the training run to price (default: 300e9 tokens, or 90 "
                                 "ImageNet epochs)")] = None,
            fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetEachOpt = None,
            catalog: CatalogOpt = None, gpu_file: GpuFileOpt = None) -> None:
    """Training time of a model on each design: the best strategy, its breakdown, throughput, TFLOP/s and MFU,
    speedup, speedup per dollar and per watt over the baselines, energy and cost of a training run."""
    from sipml.speedup_report import run_speedup, speedup_report

    cat = _catalog(catalog)
    table = _gpu_table(gpu_file, cat)
    _doing(f"training {model} on the designs")
    rows, source, failures = run_speedup(designs, model, gpus, batch, strategy, set_, baseline, tokens, catalog=cat,
                                         gpu_table=table)
    _emit(speedup_report(rows, source, failures), fmt, output)
    if failures:
        raise typer.Exit(1)


@app.command(cls=_Command)
def reliability(design: DesignArg = None,
                model: Annotated[str, typer.Option("--model", "-m", metavar="MODEL", autocompletion=_complete_models,
                                                   help="zoo model name or a model TOML file (its checkpoint size)")]
                = "gpt3-175b",
                fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
                catalog: CatalogOpt = None) -> None:
    """The reliability budget of one training job on a design, line by line: each part it is exposed to, its
    failure rate and what a failure does; the job's interruptions, checkpoints, restarts and effective training
    time (ETTR); and the assumptions that move it most."""
    from sipml.reliability_report import reliability_report
    from workloads.models import load_model

    from core.errors import InputError

    _check_model(model)
    loaded = _load(design, set_)
    cat = _catalog(catalog)
    if loaded.has_fabric:
        _check_entries(loaded, design, cat)  # a catalog entry the catalog lacks, named as `fabric` does
    try:
        report = reliability_report(_named(design), loaded, load_model(model), catalog=cat)
    except InputError as exc:  # what the design cannot be (its fabric, a catalog entry), named as `fabric` names it
        raise InputError(f"{_named(design)}: {exc}") from None
    _emit(report, fmt, output)


@app.command(cls=_Command)
def mix(designs: Annotated[Optional[list[str]], typer.Argument(
            metavar="DESIGN", show_default=False,
            help="design files or built-in names (default: sip-ring, sip-ocs-384, cpo-800g, ocs-torus-v4)")] = None,
        jobs: Annotated[Optional[str], typer.Option(
            "--jobs", "-j", metavar="MIX", help="the job mix: a mix TOML file or a built-in mix (default: "
                                                "four-jobs-4096; see README 'Several jobs on one fabric')")] = None,
        gpus: Annotated[Optional[str], typer.Option("--gpus", metavar="N", callback=_count("--gpus", 2, _most_gpus),
                                                    help="GPUs of every cluster (default: the mix's, else each "
                                                         "design's)")] = None,
        policy: Annotated[Optional[str], typer.Option(
            "--policy", metavar="first-fit|best-fit", help="placement policy (default: the mix's)")] = None,
        vary: Annotated[Optional[list[str]], typer.Option(
            "--vary", metavar="JOB.KEY=a,b,c", help="run the mix at each size of a job: JOB.gpus or JOB.batch "
                                                    "(repeatable: the product)")] = None,
        plot: Annotated[Optional[Path], typer.Option(
            "--plot", metavar="FILE", help="also write the figure of where each job runs (.png, .svg or .pdf)")] = None,
        fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetEachOpt = None, catalog: CatalogOpt = None,
        gpu_file: GpuFileOpt = None) -> None:
    """Several jobs sharing one cluster, each design side by side: where each job runs (the fabric's own rule), its
    iteration time alone and together, the GPUs left idle and the largest job that still fits, and the whole
    mix's throughput per dollar and per watt."""
    from sipml.mix_report import run_mix_command

    if plot is not None:
        from sipml.plotting import check_figure_path
        from sipml.render import check_output

        check_output(plot)
        check_figure_path(plot, "--plot")
    cat = _catalog(catalog)
    table = _gpu_table(gpu_file, cat)
    _doing("placing and training the mix")
    report, ok = run_mix_command(designs, jobs, gpus, policy, set_, vary, plot, embed=fmt is Format.html,
                                 catalog=cat, gpu_table=table)
    _emit(report, fmt, output, title="sipml mix: several jobs on one fabric")
    if not ok:
        raise typer.Exit(1)


@app.command(cls=_Command)
def models(fmt: FormatOpt = Format.table, output: OutputOpt = None, catalog: CatalogOpt = None,
           gpu_file: GpuFileOpt = None) -> None:
    """List the model zoo and the GPUs with their sources (with `--gpu-file`, the user's GPUs among them)."""
    from sipml.speedup_report import models_report

    prices = _catalog(catalog)
    _emit(models_report(prices, _gpu_table(gpu_file, prices)), fmt, output)


@app.command(cls=_Command)
def report(fmt: FormatOpt = Format.table, output: OutputOpt = None,
           plots: Annotated[Optional[Path], typer.Option(
               "--plots", metavar="FOLDER", help="also write the figures (PNG) into this folder")] = None,
           design: Annotated[Optional[list[str]], typer.Option(
               "--design", metavar="DESIGN", help="also compare this design's fabric and cost with the built-in ones "
                                                  "(a TOML file or a built-in name; repeatable)")] = None) -> None:
    """SiP-ML's story end to end on the built-in designs: the optical link and what binds it, the fabrics side by
    side (with each `--design`), training speedup per dollar and per watt, the validation table, the assumptions
    that move the answer. `-f html -o report.html`: one self-contained page, the figures embedded."""
    from sipml.story_report import build_report

    result, _ = build_report(plots, embed=fmt is Format.html, designs=tuple(design or ()))
    _emit(result, fmt, output, title="sipml report: SiP-ML's story on the built-in designs")


SWEEP_READABLE = {"table": "table", "txt": "table", "markdown": "markdown", "md": "markdown", "html": "html"}


def _sweep_format(table: str, output, to_stdout: bool) -> str:
    """The format a sweep writes: --format's (json is jsonl: a sweep's JSON is one object per row), else -o's
    suffix's, else csv; InputError for one a sweep does not write, or Parquet without a file."""
    from core.errors import InputError

    table = "jsonl" if table == "json" else table
    if table and table not in ("csv", "jsonl", "parquet", "table", "markdown", "html"):
        raise InputError(f"--format {table!r}: a sweep writes csv, jsonl (or json), parquet, table, markdown or html")
    suffix = output.suffix.lstrip(".").lower() if output is not None else ""
    if not table and suffix == "json":  # the other commands' .json is one document; a sweep's, a line a row
        raise InputError(f"-o {output}: a sweep writes JSON as JSON lines, one object a row: name the file .jsonl")
    if not table and suffix not in ("", "csv", "jsonl", "parquet", *SWEEP_READABLE):
        raise InputError(f"-o {output}: the suffix .{suffix} is not a sweep format (.csv, .jsonl, .parquet, .txt, "
                         ".md, .html); name one with --format")
    kind = table or SWEEP_READABLE.get(suffix, suffix) or "csv"
    if kind == "parquet" and output is None:
        raise InputError("Parquet output needs a file: -o PATH" + (" (not -o -, standard output)" if to_stdout
                                                                   else ""))
    return kind


def _write_sweep(rows, axes, kind: str, output, title: str) -> None:
    """The sweep's rows in `kind` to `output` (None: stdout), each file written atomically."""
    from sipml.render import write_atomic_bytes
    from sipml.rows import csv_parts, jsonl_parts, to_parquet

    if kind in ("table", "markdown", "html"):
        from sipml.sweep_run import sweep_report

        _emit(sweep_report(rows, axes, f"{len(rows):,} rows"), Format(kind), output, title=title)
        return
    if kind == "parquet":
        write_atomic_bytes(output, to_parquet(rows))
    else:
        parts = csv_parts(rows) if kind == "csv" else jsonl_parts(rows)
        if output is None:
            for part in parts:
                sys.stdout.write(part)
        else:
            write_atomic_bytes(output, (part.encode("utf-8") for part in parts))
    if output is not None:
        print(f"wrote {output} ({len(rows)} rows)", file=sys.stderr)


@app.command(cls=_Command)
def sweep(design: DesignArg = None,
          vary: Annotated[Optional[list[str]], typer.Option(
              "--vary", metavar="SECTION.KEY=RANGE|LIST", autocompletion=_complete_keys,
                                                            help="an axis: section.key=start:stop:count[:log] (units on start and stop) or "
                             "section.key=a,b,c (repeatable: the grid is their product)")] = None,
          model: Annotated[Optional[str], typer.Option(
              "--model", "-m", metavar="MODEL",
                                                       help="also train this model on every point (speedup over --baseline)")] = None,
          baseline: Annotated[Optional[str], typer.Option(
              "--baseline", metavar="DESIGN",
              help="with --model, the design the speedups are over, as speedup takes it (default fattree-200)")] = None,
          batch: Annotated[Optional[str], typer.Option("--batch", metavar="N", callback=_count("--batch", 1, _most_batch),
                                                       help="global batch with --model (1 to 2^24)")] = None,
          table: Annotated[str, typer.Option("--format", "-f", "--table",
                                             metavar="csv|jsonl|parquet|table|markdown|html",
                                             help="csv, jsonl or parquet: every digit, axes in SI with a column in "
                                                  "the unit written beside; table, markdown or html: to read, in the "
                                                  "unit written, 4 digits (default: from -o's suffix, else csv; "
                                                  "--table is the same)")] = "",
          output: SweepOutputOpt = None, set_: SetOpt = None,
          plot: Annotated[Optional[str], typer.Option(
              "--plot", metavar="X,Y[,COLOR]",
              help="also write a figure of columns x,y[,color] (see --plot-file)")] = None,
          plot_file: Annotated[Path, typer.Option("--plot-file", metavar="PATH",
                                                  help="where --plot writes (.png, .svg or .pdf)")] = Path("sweep.png"),
          scheduler: Annotated[Optional[str], typer.Option(
              "--scheduler", metavar="ADDRESS",
                                                           help="run on a Dask cluster, e.g. tcp://HOST:8786 (the rows equal the local run's; each worker "
                                                                "is set to keep up to 64 MiB of freed memory for its "
                                                                "array temporaries, as a local run is)")]
          = None,
          workers: Annotated[Optional[str], typer.Option(
              "--workers", metavar="N", callback=_count("--workers", 1, _most_workers),
              help="local processes (default: every core; at most 4 per core)")] = None,
          link_only: Annotated[bool, typer.Option(
              "--link-only", help="only the link's columns (no fabric, cost or training): the whole grid in one "
                                  "vectorised pass where the axes are link fields")] = False,
          quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
          catalog: CatalogOpt = None, gpu_file: GpuFileOpt = None) -> None:
    """Evaluate a grid of design points: one row per point with every input and output column and its unit."""
    import os

    from core.errors import InputError
    from sipml.render import check_output
    from sipml.sweep_point_rows import BASELINE
    from sipml.sweep_run import check_plot, run_sweep
    from sipml.sweep_run import plot as plot_rows

    if not vary:
        raise InputError("sweep needs at least one --vary axis, e.g. --vary link.wavelengths_per_fiber=4,8,16")
    if batch is not None and model is None:
        raise InputError("--batch applies only with --model (the batch the model trains at)")
    _check_model(model)
    to_stdout = output is not None and str(output) == "-"
    if to_stdout:
        output = None
    kind = _sweep_format(table, output, to_stdout)
    if plot is None and plot_file != Path("sweep.png"):
        raise InputError("--plot-file names where --plot writes: give --plot X,Y[,COLOR] too")
    if plot is not None:
        from sipml.plotting import check_figure_path

        try:
            check_output(plot_file)
        except InputError as exc:
            raise InputError(f"--plot-file {exc}") from None
        check_figure_path(plot_file, "--plot-file")
    if plot is not None:
        check_plot(plot, vary, model is not None, link_only)
    files = _data_files(catalog, gpu_file)
    _doing(f"sweeping {_named(design)}")
    with _progress("sweep", "chunks", quiet) as progress:
        axes, rows = run_sweep(design, set_, vary, model=model, batch=batch, scheduler=scheduler,
                               workers=workers or os.cpu_count(), progress=progress, link_only=link_only, files=files,
                               baseline=baseline or BASELINE)
    _write_sweep(rows, axes, kind, output, f"sipml sweep of {design or 'sip-ring'}: " + " × ".join(vary))
    if plot is not None:
        plot_rows(rows, plot, plot_file, vary, design or "", model, baseline or BASELINE)
        print(f"wrote {plot_file}", file=sys.stderr)


@app.command(cls=_Command)
def optimize(design: DesignArg = None,
             maximize: Annotated[Optional[str], typer.Option(
                 "--maximize", metavar="QUANTITY", help="quantity to maximize (any of `sipml explain`'s)")] = None,
             minimize: Annotated[Optional[str], typer.Option(
                 "--minimize", metavar="QUANTITY", help="quantity to minimize")] = None,
             vary: Annotated[Optional[list[str]], typer.Option(
                 "--vary", metavar="SECTION.KEY=RANGE|LIST", autocompletion=_complete_keys, help="an axis, as for `sipml sweep` (repeatable: the "
                                                                 "grid is their product)")] = None,
             subject_to: Annotated[Optional[list[str]], typer.Option(
                 "--subject-to", metavar="QUANTITY>=NUMBER", help="a constraint (repeatable; also <=, >, <)")] = None,
             model: Annotated[str, typer.Option("--model", "-m", metavar="MODEL", autocompletion=_complete_models,
                                                help="model for training quantities")] = "gpt2-355m",
             baseline: Annotated[str, typer.Option("--baseline", metavar="DESIGN",
                                                   help="baseline for speedup quantities")] = "fattree-200",
             fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
             refine: Annotated[bool, typer.Option(
                 "--refine", help="then search each continuous axis between the best point's neighbours (scipy)")]
             = False,
             quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
             catalog: CatalogOpt = None, gpu_file: GpuFileOpt = None, strategy: TrainingStrategyOpt = None,
             batch: TrainingBatchOpt = None,
             link_only: Annotated[bool, typer.Option(
                 "--link-only", help="judge each point by its link alone, as `budget` does (no fabric: a ring-wdm "
                                     "link without a [fabric] is not judged against the default ring); link "
                                     "quantities only")] = False) -> None:
    """Find the best point of a grid for one quantity, feasible and under the constraints, and say what stops it
    (what the better points fail). Exhaustive over the grid; --refine continues along continuous axes. Exits 1
    when no point qualifies."""
    from core.errors import InputError
    from sipml.optimize import optimize as search
    from sipml.optimize import check_target, optimize_report, parse_constraint

    if (maximize is None) == (minimize is None):
        raise InputError("optimize needs exactly one of --maximize QUANTITY or --minimize QUANTITY")
    check_target(maximize or minimize)
    constraints = [parse_constraint(c) for c in subject_to or []]
    _check_model(model)
    _check_training_options(list(dict.fromkeys([maximize or minimize, *(c.quantity for c in constraints)])),
                            strategy, batch)
    cat = _catalog(catalog)
    gpus = _gpu_table(gpu_file, cat)
    _doing(f"searching the grid of {_named(design)}")
    with _progress("optimize", "points", quiet) as progress:
        result = search(design, set_, vary, maximize or minimize, maximize is not None, constraints, model=model,
                        baseline=baseline, progress=progress, refine=refine, catalog=cat, gpus=gpus, strategy=strategy,
                        batch=batch, link_only=link_only)
    _emit(optimize_report(result, _named(design)), fmt, output)
    if result["best"] is None:
        raise typer.Exit(1)


@app.command(cls=_Command)
def validate(fmt: FormatOpt = Format.table, output: OutputOpt = None) -> None:
    """Reproduce every published case the project knows (physical layer, SiP-ML, NCCL, Megatron-LM): published,
    ours, error, tolerance. Exit 1 when any case is outside its tolerance."""
    from sipml.validation import all_cases, validation_report

    cases = all_cases()
    _emit(validation_report(cases), fmt, output)
    if not all(c.passed for c in cases):
        raise typer.Exit(1)


@app.command(cls=_Command)
def fields(sections: Annotated[Optional[list[str]], typer.Argument(
               metavar="SECTION", show_default=False, help="only these sections (default: all)")] = None,
           fmt: FormatOpt = Format.table, output: OutputOpt = None) -> None:
    """List every design-file field: unit, library default, the built-in sip-ring's value, range, when it
    applies, help and source."""
    from sipml.design_reports import fields_report

    _emit(fields_report(sections), fmt, output)


@app.command(cls=_Command)
def init(path: Annotated[Path, typer.Argument(metavar="PATH", help="where to write the design file ('-': stdout)")],
         design: DesignArg = None, set_: SetOpt = None,
         force: Annotated[bool, typer.Option("--force", help="overwrite an existing file")] = False) -> None:
    """Write a design (a built-in or a file; default: the built-in sip-ring) as a complete, commented TOML file
    to start from."""
    from core.errors import InputError
    from sipml.design_files import written_design_toml
    from sipml.render import check_output, write_atomic

    to_stdout = str(path) == "-"
    if not to_stdout:
        check_output(path)  # a folder, a link or a device is refused as such, --force or not
        if path.exists() and not force:
            raise InputError(f"{path}: already exists (use --force to overwrite)")
    _doing(f"loading the design {_named(design)}")
    text = written_design_toml(design, set_)
    if to_stdout:
        sys.stdout.write(text)
        return
    _doing(f"writing {path}")
    write_atomic(path, text)
    print(f"wrote {path}", file=sys.stderr)
    refusal = _refusal_of(path)
    if refusal:  # written to edit, but said: a file that fails at once looked like a working start
        print(f"note: as written, its fabric is refused ({refusal}): edit it before use", file=sys.stderr)


def _refusal_of(path) -> str:
    """Why the design file at `path` cannot be evaluated (its fabric refused), '' where it can."""
    from core.errors import InputError
    from fabric.evaluate import evaluate_fabric
    from sipml.design_files import load_design

    try:
        design = load_design(str(path))
        if design.has_fabric:
            evaluate_fabric(design)
    except InputError as exc:
        return str(exc).splitlines()[0]
    return ""


@app.command(cls=_Command)
def explain(quantity: Annotated[Optional[str], typer.Argument(
                metavar="QUANTITY", show_default=False,
                help="a reported quantity by its JSON key (margin_db, capacity_gbps, optical_reach, "
                     "network_cost_usd_per_gpu, speedup, …); without it, the budget equation's derivation")] = None,
            design: DesignArg = None, fmt: FormatOpt = Format.table, output: OutputOpt = None, set_: SetOpt = None,
            model: Annotated[str, typer.Option("--model", "-m", metavar="MODEL", autocompletion=_complete_models,
                                               help="model for the training quantities")] = "gpt2-355m",
            baseline: Annotated[str, typer.Option("--baseline", metavar="DESIGN",
                                                  help="baseline for speedup quantities")] = "fattree-200",
            catalog: CatalogOpt = None, gpu_file: GpuFileOpt = None, strategy: TrainingStrategyOpt = None,
            batch: TrainingBatchOpt = None) -> None:
    """Explain a number: its formula, the design's numbers in it, and the inputs that move it most (each design
    input ±10 %, counts ±1, catalog prices low … high), with their sources. Without QUANTITY: the power-budget
    equation and its closed-form solutions (derived with sympy)."""
    if quantity is None:
        if design is not None or set_ or batch is not None or strategy is not None:
            from core.errors import InputError

            raise InputError("explain: name a QUANTITY to explain for a design (and --batch or --strategy for a "
                             "training one), e.g. `sipml explain margin_db sip-ring`")
        from photonics.symbolic import explain as derivation
        from sipml.render import Report, Table

        _doing("deriving the closed forms")
        if fmt is Format.table and (output is None or str(output) == "-"):
            print(derivation())  # on the terminal, the derivation as it is laid out
            return
        lines = derivation().splitlines()
        title = "The power-budget equation and its closed forms (sympy)"
        _emit(Report({"derivation": lines}, [Table(title, ["derivation"], [{"derivation": line} for line in lines])]),
              fmt, output, title=title)
        return
    from sipml.explain import check_quantity, explain_quantity

    check_quantity(quantity)
    _check_model(model)
    _check_training_options([quantity], strategy, batch)
    loaded = _load(design, set_)
    cat = _catalog(catalog) if catalog or gpu_file else None
    gpus = _gpu_table(gpu_file, cat)
    _doing(f"explaining {quantity} of {_named(design)}")
    _emit(explain_quantity(quantity, loaded, _named(design), model=model, baseline=baseline, catalog=cat, gpus=gpus,
                           strategy=strategy, batch=batch), fmt, output)


# --- the entry point ----------------------------------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _split_debug(args: list[str]) -> tuple[list[str], bool]:
    """`--debug` may stand anywhere before a `--`; it is taken out of the arguments."""
    end = args.index("--") if "--" in args else len(args)
    debug = "--debug" in args[:end]
    return [a for i, a in enumerate(args) if not (i < end and a == "--debug")], debug


_COMMANDS = {info.name or typer.main.get_command_name(info.callback.__name__): info
             for info in app.registered_commands}


def _refuse_empty_paths(group, args: list[str]) -> None:
    """InputError for a file or folder option given as '' (or blanks): a path reads '' as '.', the working folder,
    so `--plots ''` would fill it with figures and `-o ''` be refused as a folder, naming '.'."""
    from typer.models import TyperPath

    from core.errors import InputError

    command = group.commands.get(args[0]) if args and hasattr(group, "commands") else None
    if command is None:
        return
    paths = {opt for p in command.params if isinstance(p.type, TyperPath) for opt in p.opts}
    valued = {opt for p in command.params if getattr(p, "param_type_name", "") == "option" and not p.is_flag
              for opt in p.opts}
    positional_path = next((isinstance(p.type, TyperPath) for p in command.params
                            if getattr(p, "param_type_name", "") == "argument"), False)
    positionals = 0
    for before, name, following in zip(args, args[1:], [*args[2:], None]):
        option, eq, attached = name.partition("=")
        value = attached if eq else following
        if option in paths and value is not None and not value.strip():
            raise InputError(f"{option} {value!r}: an empty path; give a file or folder name")
        if before in valued or name.startswith("-") and name != "-":
            continue
        positionals += 1
        if positional_path and positionals == 1 and not name.strip():  # `init ''`: its first argument a path
            raise InputError(f"{name!r}: an empty path; give a file name")


def _invoked(args: list[str]) -> str | None:
    """The command the arguments run when they start with one, or None where every command is needed: a root
    option first (`--help` lists the commands), a misspelt command (click suggests the near names), shell
    completion."""
    name = args[0] if args else None
    if name not in _COMMANDS or "_SIPML_COMPLETE" in os.environ:  # click's variable for the prog name `sipml`
        return None
    return name


_CONVERTED: dict = {}  # a command's name (None: every command) → the click group typer made of it


def _click_app(command: str | None):
    """The click group typer converts the app into: with `command`, a group of that command alone (the root's
    options and callback kept), so that a run converts only the signature it runs (typer reads each command's
    annotations: 2–6 ms a command, ~25 ms for all); with None, every command. Converted once per process: the
    group is a declaration (each run parses its own arguments in a context of its own), and a process that runs
    commands one after another — the Python API, a notebook, the test suite — converts each once."""
    if command not in _CONVERTED:
        if command is None:
            _CONVERTED[command] = typer.main.get_command(app)
        else:
            one = copy.copy(app)
            one.registered_commands = [_COMMANDS[command]]
            _CONVERTED[command] = typer.main.get_command(one)
    return _CONVERTED[command]


@contextlib.contextmanager
def _one_blas_thread():
    """A command's numpy work is elementwise, with no matrix product to share out: the worker threads OpenBLAS
    starts with numpy would only spin (~0.1 s of CPU a command on 2 cores, measured; `sipml report` 2.94 → 2.71 s
    CPU). Set while the command runs, before numpy is imported, so its processes (and the workers they start) run
    one; a user's own OPENBLAS_NUM_THREADS or OMP_NUM_THREADS is kept, and a Python caller's environment is as it
    was once the command returns."""
    mine = "numpy" not in sys.modules and not {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"} & set(os.environ)
    if mine:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        if mine:
            os.environ.pop("OPENBLAS_NUM_THREADS", None)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app and return its exit code. No exception escapes: project errors and usage
    errors become one line on stderr and their exit code; anything else one line saying what was being done,
    exit 70 (the traceback only with --debug)."""
    from core.allocator import small_pages

    with _one_blas_thread(), small_pages():  # numpy's large arrays on ordinary pages (core.allocator)
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    from core.allocator import keep_freed_memory
    from core.errors import SipmlError
    from sipml.render import Terminated, terminate_on_signal

    keep_freed_memory()  # the command's process is ours: its array temporaries reuse memory (core.allocator)
    args, debug = _split_debug(list(sys.argv[1:] if argv is None else argv))
    _doing("reading the command line")
    try:
        with terminate_on_signal(), warnings.catch_warnings():
            warnings.showwarning = _warning_line
            group = _click_app(_invoked(args))
            _refuse_empty_paths(group, args)
            code = group.main(args=args or ["--help"], prog_name="sipml", standalone_mode=False)
        if not args:  # no command: the help, and the exit code of a command line without one (bad usage)
            return 2
        return code if isinstance(code, int) else 0
    except SipmlError as exc:
        print(f"sipml: error: {_one_line(exc)}{_split_value_hint(args, str(exc))}", file=sys.stderr)
        return exc.exit_code
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        print("sipml: interrupted", file=sys.stderr)
        return 130
    except Terminated as exc:  # 128 + the signal, as a shell reports a process the signal ended
        import signal

        hangup = exc.args and exc.args[0] == getattr(signal, "SIGHUP", None)
        print("sipml: hung up (the terminal closed)" if hangup else "sipml: terminated", file=sys.stderr)
        return 129 if hangup else 143
    except Exception as exc:  # noqa: BLE001 — the last line of defence: one line, never a raw traceback
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # a usage error of the command line
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            message = exc.format_message()
            if re.search(r"No such option: --gpus(?![\w-])", message):  # speedup's option, the others' field
                message = "No such option: --gpus (this command takes the cluster's size as --set fabric.gpus=N)"
            print(f"sipml: error: {_one_line(message)}{_split_value_hint(args, message) or hint}", file=sys.stderr)
            return exc.exit_code
        return _internal_error(exc, debug)
    except BaseException as exc:  # MemoryError and RecursionError derive from Exception; this is the rest
        return _internal_error(exc, debug)


def _split_value_hint(args: list[str], message: str) -> str:
    """Where the shell split an unquoted `--set key=25 Gbit/s` in two (a number, then a word that reads as a unit,
    which the command took for a design or an extra argument, or the number alone refused): how to write it."""
    from core.units import is_unit

    for i, arg in enumerate(args[:-1]):
        item = arg[len("--set="):] if arg.startswith("--set=") else args[i + 1] if arg == "--set" else None
        after = i + 1 if arg.startswith("--set=") else i + 2
        if item is None or "=" not in item or after >= len(args):
            continue
        unit = args[after]
        try:
            float(item.partition("=")[2])
        except ValueError:
            continue
        if is_unit(unit) and (unit in message or "bare number" in message):
            return f" (the shell split an unquoted value in two: write --set '{item} {unit}')"
    return ""


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
