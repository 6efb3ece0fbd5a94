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


def png(fig) -> bytes:
    """`fig` as PNG bytes; the figure is closed."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue()


def save(fig, path) -> Path:
    """Write `fig` as a PNG at `path`, atomically, and close it."""
    from sipml.render import write_atomic_bytes

    write_atomic_bytes(Path(path), png(fig))
    return Path(path)


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


def _numeric(values) -> bool:
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)


def _feasible(row: dict) -> bool:
    flags = [row[k] for k in ("link_feasible", "fabric_feasible", "training_feasible") if k in row]
    return all(bool(f) for f in flags) and not row.get("error")


def _shown(value, unit: str, factor: float):
    """An SI value in the unit the user wrote (dBm: 10·log10 of the power in mW)."""
    if unit == "dBm":
        return 10 * math.log10(value / 1e-3) if value > 0 else -math.inf
    return value / factor


def sweep_plot(rows: list[dict], names: list[str], path, log_columns=(), order: dict | None = None,
               shown: dict | None = None) -> Path:
    """`sweep_figure` written as a PNG at `path`."""
    return save(sweep_figure(rows, names, log_columns, order, shown), path)


def sweep_figure(rows: list[dict], names: list[str], log_columns=(), order: dict | None = None,
                 shown: dict | None = None):
    """Column y against column x, coloured by a third column if given: a line per group when x is the group's only
    varying column, points otherwise. Numeric groups are ordered by value (or as the sweep's axis gave them, `order`)
    and, beyond MAX_CATEGORIES, drawn on a colour scale with a colour bar; columns in `log_columns` (axes the user
    asked `:log` for) get log scales. Infeasible points are drawn hollow and grey, and said so in the legend."""
    plt = pyplot()
    import matplotlib.colors as mcolors

    x_name, y_name = names[0], names[1]
    shown = shown or {}
    if any(n in shown for n in names):  # each axis in the unit its values were written in
        rows = [{**r, **{n: _shown(r[n], *shown[n]) for n in names if n in shown
                         and isinstance(r.get(n), numbers.Real)}} for r in rows]
        if order:
            order = {n: [_shown(v, *shown[n]) if n in shown else v for v in vals] for n, vals in order.items()}

    def axis_label(name):
        return f"{name.partition(' [')[0]} ({shown[name][0]})" if name in shown else label(name)

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
            bar.set_label(axis_label(c_name))
        else:
            for g in groups:
                text = f"{g:g}" if isinstance(g, float) else str(g)
                draw([r for r in good if r.get(c_name) == g], label=f"{axis_label(c_name)} = {text}")
    elif good:
        draw(good)
    if bad:
        ax.plot([r[x_name] for r in bad], [r[y_name] for r in bad], marker="o", linestyle="none",
                markerfacecolor="none", color="#999999", label="infeasible (a check fails)")
    if x_name in log_columns:
        ax.set_xscale("log")
    if y_name in log_columns:
        ax.set_yscale("log")
    ax.set(xlabel=axis_label(x_name), ylabel=axis_label(y_name))
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best")
    return fig
