"""Where a training job's parallel groups sit: Megatron-LM's rank order, tensor-parallel fastest, then data, then
pipeline (Narayanan et al., SC21; Megatron-LM's default "tp-dp-pp" order), expert-parallel groups inside the
data-parallel dimension. Ranks sit on consecutive GPUs (fabric.kind), so a group of size p at stride s is the job's
ranks b, b+s, …, b+(p−1)s, every copy running at once."""

from __future__ import annotations

from core.errors import InputError
from core.records import record

DIMENSIONS = ("tp", "dp", "pp", "ep")
OPERATION = {"tp": "all_reduce", "dp": "all_reduce", "pp": "p2p", "ep": "all_to_all"}  # what each group runs


@record
class Group:
    """One parallelism dimension of a job's layout: its name, how many ranks it groups, and their stride."""
    name: str
    size: int
    stride: int


def parse_groups(spec: str, what: str = "groups") -> dict[str, int]:
    """'tp=8,dp=128' → {'tp': 8, 'dp': 128}: names of DIMENSIONS, each once, sizes whole numbers in ASCII digits
    (core.units.whole_number) from 1 to 2^20; InputError naming `what` otherwise. `parallel_groups` checks that
    the sizes lay out over a job."""
    from core.errors import shown
    from core.units import whole_number

    sizes: dict[str, int] = {}
    for item in str(spec).split(","):
        name, sep, value = (part.strip() for part in item.partition("="))
        if not sep or name not in DIMENSIONS:
            raise InputError(f"{what} {shown(spec)}: expected name=size items, names {', '.join(DIMENSIONS)}, "
                             "e.g. tp=8,dp=128")
        if name in sizes:
            raise InputError(f"{what} {shown(spec)}: {name} is given twice (give each group's size once)")
        sizes[name] = whole_number(value, lo=1, hi=MAX_GROUP_SIZE, what=f"{what} {name}=")
    return sizes


MAX_GROUP_SIZE = 1 << 20  # a group spans at most the largest cluster (fabric.cluster_design.MAX_GPUS)


def parallel_groups(job_gpus: int, *, tp: int = 1, dp: int | None = None, pp: int = 1, ep: int = 1) -> list[Group]:
    """The tp, dp, pp (and ep) groups of a job of `job_gpus` ranks; dp defaults to what tp and pp leave.
    tp·dp·pp must equal the job's ranks and ep must divide dp."""
    for name, value in (("tp", tp), ("pp", pp), ("ep", ep)) + ((("dp", dp),) if dp is not None else ()):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{name} = {value!r}: expected a whole number ≥ 1")
    if dp is None:
        if job_gpus % (tp * pp):
            raise InputError(f"tp × pp = {tp * pp} does not divide the job's {job_gpus} ranks")
        dp = job_gpus // (tp * pp)
    if tp * dp * pp != job_gpus:
        raise InputError(f"tp × dp × pp = {tp} × {dp} × {pp} = {tp * dp * pp}, but the job has {job_gpus} ranks "
                         "(set [fabric] job_gpus, or change the sizes)")
    if dp % ep:
        raise InputError(f"ep = {ep} must divide dp = {dp} (expert-parallel groups sit inside the data-parallel one)")
    groups = [Group("tp", tp, 1), Group("dp", dp, tp), Group("pp", pp, tp * dp)]
    if ep > 1:
        groups.append(Group("ep", ep, tp))
    return [g for g in groups if g.size > 1]
