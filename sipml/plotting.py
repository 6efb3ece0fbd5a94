"""Figures in sipml's house style (`sipml.mplstyle`): PNGs written atomically, axis labels with units, log axes
where the sweep asked for them, numeric groups on a colour scale, infeasible points marked rather than plotted as
answers. matplotlib is imported here only, when a figure is asked for.
"""

from __future__ import annotations

import io
import math
import numbers
from pathlib import Path

STYLE = Path(__file__).with_name("sipml.mplstyle")
MAX_CATEGORIES = 8  # [assumed] distinct colours a reader tells apart; more numeric groups go on a colour scale


def pyplot():
    """matplotlib.pyplot on the Agg backend, in the house style."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.style.use(str(STYLE))
    return plt


def figure_bytes(fig, fmt: str = "png", metadata: dict[str, str] | None = None) -> bytes:
    """`fig` as the bytes of `fmt` ('png', 'svg', 'pdf'), the figure closed; `metadata` in the format's own keys
    (`_format_metadata`) beside matplotlib's own."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, metadata=metadata)
    plt.close(fig)
    return buf.getvalue()


def png(fig, metadata: dict[str, str] | None = None) -> bytes:
    """`fig` as PNG bytes, the figure closed; `metadata`: PNG text chunks ('Title', 'Software', 'Creation Time',
    'Source', 'Description', …)."""
    return figure_bytes(fig, "png", metadata)


FIGURE_SUFFIXES = (".png", ".svg", ".pdf")  # what a figure file's name may end in: the format it is written in


def check_figure_path(path, option: str) -> None:
    """InputError unless `path` ends in a figure format `save` writes (so a name never says one format and holds
    another)."""
    from core.errors import InputError

    if Path(path).suffix.lower() not in FIGURE_SUFFIXES:
        raise InputError(f"{option} {path}: a figure is written as {', '.join(FIGURE_SUFFIXES)}; name the file with "
                         "one of them")


def save(fig, path, title: str) -> Path:
    """Write `fig` at `path` in the format its suffix names (`FIGURE_SUFFIXES`), atomically, and close it; its
    metadata say what it shows (`title`) and the version, date and command line that made it (`sipml.provenance`),
    as the report's figures do (PNG text chunks; SVG's Dublin Core and PDF's info keys for the same)."""
    from sipml.provenance import provenance, stamped
    from sipml.render import write_atomic_bytes

    fmt = Path(path).suffix.lower().lstrip(".") or "png"
    write_atomic_bytes(Path(path), figure_bytes(fig, fmt, _format_metadata(fmt, stamped(title, provenance()))))
    return Path(path)


def _format_metadata(fmt: str, stamp: dict[str, str]) -> dict[str, str]:
    """A figure's stamp (`sipml.provenance.stamped`: PNG text chunks) in the keys `fmt` takes: SVG's Dublin Core,
    PDF's info dictionary."""
    if fmt == "svg":
        return {"Title": stamp["Title"], "Creator": stamp["Software"], "Date": stamp["Creation Time"],
                "Source": stamp["Source"], "Description": stamp["Description"]}
    if fmt == "pdf":
        return {"Title": stamp["Title"], "Creator": stamp["Software"], "Subject": stamp["Description"]}
    return stamp


_UNIT_WORDS = {"db", "dbm", "gbps", "usd", "w", "s"}  # a column name's unit, said again by its [unit]


def label(column: str) -> str:
    """An axis label from a sweep column: 'margin_db [dB]' → 'margin (dB)', 'network_cost_usd_per_gpu [USD]' →
    'network cost per GPU (USD)', 'laser.power_per_line [W]' → 'laser.power_per_line (W)'."""
    name, _, unit = column.partition(" [")
    unit = unit.rstrip("]")
    if unit and "." not in name:
        name = name.replace("_pj_per_bit", "")
        name = " ".join(w for w in name.split("_") if w not in _UNIT_WORDS).replace("gpu", "GPU")
    if not unit:
        return name if "." in name else name.replace("_", " ")  # a design key stays as the user writes it
    return f"{name} ({unit})"


def column_named(name: str, columns) -> str:
    """The column a `--plot` name means: the column itself, or, for a quantity's bare key ('margin_db'), the one
    column that carries it with its unit ('margin_db [dB]'); the name unchanged where none (or several) match, so
    the caller's 'no column' error still names it."""
    columns = list(columns)
    if name in columns:
        return name
    matches = [c for c in columns if c.partition(" [")[0] == name]
    return matches[0] if len(matches) == 1 else name


def _numeric(values) -> bool:
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)


def _checks_pass(row: dict) -> bool:
    """The design at the point passes its checks (where it is infeasible, only for want of a strategy that trains)."""
    return all(bool(row[k]) for k in ("link_feasible", "fabric_feasible") if k in row) and not row.get("error")


def _feasible(row: dict) -> bool:
    return _checks_pass(row) and bool(row.get("training_feasible", True))


def sweep_plot(rows: list[dict], names: list[str], path, log_columns=(), order: dict | None = None,
               title: str = "") -> Path:
    """`sweep_figure` written as a PNG at `path`; `title` above the axes (what the sweep ran)."""
    fig = sweep_figure(rows, names, log_columns, order)
    if title:
        fig.axes[0].set_title(title, loc="left", fontsize="small")
    return save(fig, path, f"sweep: {' against '.join(names[1::-1])}" + (f" ({title})" if title else ""))


CLIFF_GAP = 2.0  # [assumed] a gap wider than twice the spread of the points beside it splits off a cliff
CLIFF_MIN_POINTS = 4  # [assumed] fewer points than this do not make a scale to protect


def _near_the_feasible(good: list, bad: list, y_name: str, log: bool) -> tuple[list, int]:
    """The infeasible points to draw and how many are left off: where the widest gap between the y values splits
    the points into the side holding every feasible one (at least CLIFF_MIN_POINTS) and a far side, and the gap is
    wider than CLIFF_GAP × that side's spread (on a log axis, in decades), the far side — a cliff, such as the
    −50 dB margin of a count a check refuses — is counted, not drawn, so it does not set the scale."""
    def at(r):
        return (math.log10(r[y_name]) if r[y_name] > 0 else -math.inf) if log else r[y_name]

    ys = sorted(at(r) for r in good + bad)
    if not good or len(ys) < 2 or not math.isfinite(ys[0]):
        return bad, 0
    gap, cut = max((b - a, i + 1) for i, (a, b) in enumerate(zip(ys, ys[1:])))
    low, high = ys[:cut], ys[cut:]
    good_ys = [at(r) for r in good]
    if all(v >= high[0] for v in good_ys):
        kept, lo, hi = high, high[0], high[-1]
    elif all(v <= low[-1] for v in good_ys):
        kept, lo, hi = low, low[0], low[-1]
    else:
        return bad, 0
    if len(kept) < CLIFF_MIN_POINTS or gap <= CLIFF_GAP * (hi - lo):
        return bad, 0
    inside = [r for r in bad if lo <= at(r) <= hi]
    return inside, len(bad) - len(inside)


def sweep_figure(rows: list[dict], names: list[str], log_columns=(), order: dict | None = None):
    """Column y against column x, coloured by a third column if given: a line per group when x is the group's only
    varying column, points otherwise. Numeric groups are ordered by value (or as the sweep's axis gave them, `order`)
    and, beyond MAX_CATEGORIES, drawn on a colour scale with a colour bar; columns in `log_columns` (axes the user
    asked `:log` for) get log scales. Infeasible points are drawn hollow and grey, and said so in the legend; those
far from every feasible one are counted there, not drawn."""
    plt = pyplot()
    import matplotlib.colors as mcolors

    x_name, y_name = names[0], names[1]
    rows = list(rows)  # each row once: a Table makes its row dicts anew at each pass

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    usable = [r for r in rows if isinstance(r.get(x_name), numbers.Real) and isinstance(r.get(y_name), numbers.Real)
              and math.isfinite(r[x_name]) and math.isfinite(r[y_name])]
    good = [r for r in usable if _feasible(r)]
    bad = [r for r in usable if not _feasible(r)]

    def draw(points, **style):
        points = sorted(points, key=lambda r: r[x_name])
        xs, ys = [r[x_name] for r in points], [r[y_name] for r in points]
        line = len({r[x_name] for r in points}) == len(points) and len(points) > 1  # one y per x: a curve
        return ax.plot(xs, ys, marker="o", linestyle="-" if line else "none", **style)

    if len(names) == 3:
        c_name = names[2]
        groups = list(dict.fromkeys(r.get(c_name) for r in rows))
        if order and c_name in order:
            groups = [g for g in order[c_name] if g in groups] + [g for g in groups if g not in order[c_name]]
        elif _numeric(groups):
            groups = sorted(groups)
        if _numeric(groups) and len(groups) > MAX_CATEGORIES:
            norm = (mcolors.LogNorm if c_name in log_columns and min(groups) > 0 else mcolors.Normalize)(
                vmin=min(groups), vmax=max(groups))
            cmap = plt.get_cmap("viridis")
            for g in groups:
                draw([r for r in good if r.get(c_name) == g], color=cmap(norm(g)), markersize=3)
            bar = fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax)
            bar.set_label(label(c_name))
        else:
            for g in groups:
                text = f"{g:g}" if isinstance(g, float) else str(g)
                members = [r for r in good if r.get(c_name) == g]
                if members:
                    draw(members, label=f"{label(c_name)} = {text}")
                else:  # a group with no feasible point still takes its colour, said in the legend
                    ax.plot([], [], marker="o", linestyle="none", label=f"{label(c_name)} = {text}: none feasible")
    elif good:
        draw(good)
    if x_name in log_columns:
        ax.set_xscale("log")
    if y_name in log_columns:
        ax.set_yscale("log")
    if bad:
        near, beyond = _near_the_feasible(good, bad, y_name, y_name in log_columns)
        for passes, marker, text in ((False, "o", "infeasible (a check fails)"),
                                     (True, "s", "no strategy trains there (the checks pass)")):
            these = [r for r in near if _checks_pass(r) == passes]
            if these:
                ax.plot([r[x_name] for r in these], [r[y_name] for r in these], marker=marker, linestyle="none",
                        markerfacecolor="none", color="#999999",
                        label=text + (f"; {beyond} more off the scale" if beyond else ""))
                beyond = 0  # said once
    drawn = {id(r) for r in usable}
    missing = [r for r in rows if id(r) not in drawn]  # points with no such number (a training no strategy runs, a
    if missing:  # price of what cannot be built): marked along the x axis, where the sweep went, and counted
        xs = [r[x_name] for r in missing if isinstance(r.get(x_name), numbers.Real) and math.isfinite(r[x_name])]
        ax.plot(xs, [0.0] * len(xs), marker="x", linestyle="none", color="#999999", clip_on=False,
                transform=ax.get_xaxis_transform(),
                label=f"{len(missing)} of {len(rows)} points have no {label(y_name)} (marked on the x axis)")
    ax.set(xlabel=label(x_name), ylabel=label(y_name))
    if ax.get_legend_handles_labels()[0]:  # beside the axes: inside, with no frame, it covered points
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    return fig
