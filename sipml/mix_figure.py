"""The figure of `sipml mix --plot`: where each job runs on each design, one panel per design in the fabric's own
shape — a ring's arcs round a circle, pods as rows of servers, a torus's cubes, a circuit switch's GPUs — one colour
per job on every panel, idle units grey, units a job holds but does not use (stranded) in its colour faded."""

from __future__ import annotations

import math

IDLE = "#d9d9d9"


def placement_figure(runs: dict, title: str):
    """A matplotlib figure of each design's placement (`runs`: design name → workloads.mix.MixRun)."""
    from matplotlib.patches import Patch, Wedge

    from sipml.plotting import pyplot

    plt = pyplot()
    names = list(runs)
    cols = min(len(names), 2)
    rows = math.ceil(len(names) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 5.2 * rows), squeeze=False)
    jobs = [j.job.name for j in next(iter(runs.values())).jobs]
    colours = {name: plt.get_cmap("tab10")(i % 10) for i, name in enumerate(jobs)}
    for ax, name in zip(axes.flat, names):
        run = runs[name]
        slots = run.slots
        owner = _owners(run)
        if slots.contiguous:
            _ring(ax, slots, owner, colours, Wedge)
        else:
            _grid(ax, slots, owner, colours)
        used = sum(j.job.gpus for j in run.jobs if j.ran)
        kind = "" if run.estimate.kind == name else f" ({run.estimate.kind})"
        ax.set_title(f"{name}{kind}: {used:,} of {slots.gpus:,} GPUs running, "
                     f"{run.leftover.idle_gpus:,} idle", fontsize=10)
        ax.set_aspect("equal")
        ax.set_axis_off()
    for ax in list(axes.flat)[len(names):]:
        ax.set_axis_off()
    placed = {j.job.name for run in runs.values() for j in run.jobs if j.placed is not None}
    handles = [Patch(facecolor=colours[n], label=n if n in placed else f"{n} (not placed: cannot run)") for n in jobs]
    handles.append(Patch(facecolor=IDLE, label="idle"))
    if any(run.leftover.stranded_gpus for run in runs.values()):
        handles.append(Patch(facecolor="#f0d9b5", label="stranded: held, not used (the job's colour, faded)"))
    wide = any(len(h.get_label()) > 20 for h in handles)  # long labels in fewer columns, inside the figure
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 3 if wide else 6), frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.07, 1, 0.95))
    return fig


def _owners(run) -> list:
    """Per unit: (job name, whether the job uses all of it), or None where idle."""
    owner: list = [None] * run.slots.units
    for j in run.jobs:
        p = j.placed
        for k, u in enumerate(p.units if p else ()):
            owner[u] = (j.job.name, (k + 1) * p.unit_gpus <= p.gpus)
    return owner


def _ring(ax, slots, owner, colours, Wedge):
    """The ring as a circle of positions, each job's arc a coloured band (position 0 at the top, clockwise)."""
    n = len(owner)
    runs, start = [], 0
    for u in range(1, n + 1):
        if u == n or owner[u] != owner[start]:
            runs.append([start, u, owner[start]])
            start = u
    if len(runs) > 1 and runs[0][2] == runs[-1][2]:  # an arc wrapping round position 0 is one arc
        last = runs.pop()
        runs[0][0] = last[0] - n
    for first, end, o in runs:
        theta1, theta2 = 90 - 360 * end / n, 90 - 360 * first / n
        ax.add_patch(Wedge((0, 0), 1.0, theta1, theta2, width=0.28, facecolor=IDLE if o is None else colours[o[0]],
                           edgecolor="white", linewidth=0.8))
        if o is not None and (end - first) / n > 0.04:
            mid = math.radians((theta1 + theta2) / 2)
            ax.text(0.62 * math.cos(mid), 0.62 * math.sin(mid), f"{end - first:,}", ha="center", va="center",
                    fontsize=8)
    ax.text(0, 0, f"ring of {n:,} GPUs\n(positions clockwise\nfrom the top)", ha="center", va="center", fontsize=8)
    ax.set_xlim(-1.1, 1.1)
    ax.set_ylim(-1.1, 1.1)


def _grid(ax, slots, owner, colours):
    """Units as blocks side by side, one per pod (a near-square grid each; the whole cluster one block where the
    fabric has no pods), a blank column between pods."""
    import numpy as np
    from matplotlib.colors import to_rgba

    n = len(owner)
    pod = slots.domain_units or n
    pods = math.ceil(n / pod)
    width = 2 ** math.ceil(math.log2(math.sqrt(pod))) if pod > 1 else 1
    height = math.ceil(pod / width)
    total = pods * width + (pods - 1)
    image = np.ones((height, total, 4))
    for u, o in enumerate(owner):
        x = (u // pod) * (width + 1) + (u % pod) % width
        y = (u % pod) // width
        face = np.array(to_rgba(IDLE if o is None else colours[o[0]]))
        image[y, x] = face if o is None or o[1] else 0.45 * face + 0.55  # stranded: the job's colour, faded
    ax.imshow(image, interpolation="nearest", extent=(0, total, height, 0))
    if total <= 32 and height <= 32:  # cell borders where cells are large enough to see
        ax.vlines(np.arange(total + 1), 0, height, color="white", linewidth=0.6)
        ax.hlines(np.arange(height + 1), 0, total, color="white", linewidth=0.6)
    what = f"{slots.unit}s of {slots.unit_gpus} GPUs" if slots.unit_gpus > 1 else "GPUs"
    blocks = f", one block per {slots.domain} of {pod * slots.unit_gpus:,} GPUs" if slots.domain_units else ""
    ax.text(total / 2, height + 0.04 * height, f"{n:,} {what}{blocks}", ha="center", va="top", fontsize=8)
