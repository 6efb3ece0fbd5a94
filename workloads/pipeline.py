"""Pipeline-parallel schedules: the bubble of GPipe / 1F1B and of the interleaved 1F1B schedule (Narayanan et
al., SC21 §2.2), broadcasting over arrays of (p, m, v)."""

from __future__ import annotations

import numpy as np


def bubble_fraction(pp, microbatches, interleave=1):
    """Idle time over ideal compute time: (p − 1)/m for GPipe and 1F1B, (1/v)·(p − 1)/m with v model chunks
    per GPU (interleaved 1F1B) — N21 §2.2.1, §2.2.2."""
    p, m, v = (np.asarray(x, dtype=float) for x in (pp, microbatches, interleave))
    return (p - 1.0) / (v * m)


def bubble_share_of_iteration(pp, microbatches, interleave=1):
    """The bubble as a share of the iteration's wall time: (p − 1)/(v·m + p − 1) [inferred from N21]."""
    p, m, v = (np.asarray(x, dtype=float) for x in (pp, microbatches, interleave))
    return (p - 1.0) / (v * m + p - 1.0)


def stage_layers(layers: int, pp):
    """(first, interior, last) layers of each pipeline stage, arrays over pp: L/p each where p divides L, else
    ⌈L/p⌉ on the interior stages and the rest split between the first and the last (the first takes the smaller
    half: it also holds the embedding). One stage holds them all. Over many stages' counts (a strategy search's),
    each depth up to the largest is split once and read at every element."""
    p = np.asarray(pp, dtype=np.int64)
    if p.size > 4 * layers and p.min() >= 1:  # integer division per element costs more than a table of the depths
        return tuple(split[p - 1] for split in stage_layers(layers, np.arange(1, int(p.max()) + 1)))
    even = layers % p == 0
    interior = np.where(even, layers // p, -(-layers // p))
    rest = layers - np.maximum(p - 2, 0) * interior
    first = np.where(even, interior, rest // 2)
    last = np.where(even, interior, rest - rest // 2)
    return (np.where(p == 1, layers, first), np.where(p <= 2, 0, interior), np.where(p == 1, 0, last))
