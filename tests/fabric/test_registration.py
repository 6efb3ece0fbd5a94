"""A fabric kind is one `register` call: a toy kind with its own section, registered here and nowhere else, is
accepted by [fabric] kind, its section is read from a design file (defaults, units, unknown keys refused), and the
collectives are priced by its own formula — through the loader, the fabric evaluation and `sipml fabric`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from core.errors import InputError
from core.fields import Section, non_negative, positive
from fabric.estimate import FabricEstimate
from fabric.evaluate import evaluate_fabric, price
from fabric.kind import BITS_PER_BYTE, Collective, CollectiveTime, FabricKind, proportional
from fabric.registry import register, unregister


@dataclass(frozen=True, kw_only=True, slots=True)
class ToyBusSection(Section):
    """One shared bus every GPU sends on in turn."""

    section_name: ClassVar[str] = "toy_bus"

    bandwidth: float = positive("100 Gbit/s", "bit/s", "rate of the shared bus", "[assumed] a test kind")
    latency: float = non_negative("1 us", "s", "latency of one transfer", "[assumed] a test kind")


def _evaluate(design) -> FabricEstimate:
    bus = design.topology
    gpus = design.fabric.gpus
    return FabricEstimate(design=design, kind="toy-bus", gpus=gpus, job_gpus=design.job_gpus,
                          per_gpu_bandwidth_bps=bus.bandwidth / gpus, useful_fraction=1.0, degree=gpus - 1,
                          bisection_bps=bus.bandwidth / 2, pod_gpus=gpus, details=bus)


def _price(est, c, n, p, s, share) -> CollectiveTime:
    """Every rank's bytes cross the bus one after the other: p·n·8/B (all-reduce twice), plus one latency."""
    bus = est.design.topology
    passes = 2.0 if c.op == "all_reduce" else 1.0
    t = bus.latency + passes * p * n * BITS_PER_BYTE / (bus.bandwidth * share)
    return CollectiveTime(np.where(p > 1, t, 0.0), "bus", share, bus.bandwidth * share)


TOY = FabricKind(name="toy-bus", section="toy_bus", section_type=ToyBusSection, evaluator=_evaluate,
                 sharer=lambda est, collectives, arrays: proportional([np.asarray(1.0) for _ in collectives]),
                 pricer=_price)

DESIGN = """
[fabric]
kind = "toy-bus"
gpus = 16

[toy_bus]
bandwidth = "400 Gbit/s"
"""


@pytest.fixture
def toy():
    register(TOY)
    yield TOY
    unregister(TOY.name)


def write(tmp_path, text):
    path = tmp_path / "toy.toml"
    path.write_text(text)
    return str(path)


def test_a_registered_kind_loads_from_a_file_with_its_own_section_and_prices_collectives(toy, tmp_path):
    from sipml.design import load_design

    design = load_design(write(tmp_path, DESIGN))
    assert isinstance(design.topology, ToyBusSection)
    assert (design.topology.bandwidth, design.topology.latency) == (400e9, 1e-6)  # given, and the default
    est = evaluate_fabric(design)
    [t] = price(est, [Collective("all_reduce", 1e6, 16)])
    launch = design.fabric.launch_latency  # [fabric]'s, added to every kind's price
    assert float(t.seconds) == pytest.approx(launch + 1e-6 + 2 * 16 * 1e6 * 8 / 400e9, rel=1e-12)


def test_its_section_is_checked_like_every_other(toy, tmp_path):
    from sipml.design import load_design

    with pytest.raises(InputError, match=r"\[toy_bus\].*unknown key 'bandwith'.*bandwidth"):
        load_design(write(tmp_path, DESIGN.replace("bandwidth", "bandwith")))
    with pytest.raises(InputError, match=r"\[toy_bus\] bandwidth"):
        load_design(write(tmp_path, DESIGN.replace('"400 Gbit/s"', '"400 W"')))


def test_sipml_fabric_reports_it(toy, tmp_path, capsys):
    from sipml.cli import main

    code = main(["fabric", write(tmp_path, DESIGN), "-f", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["fabric"] == "toy-bus" and out["per_gpu_bandwidth_gbps"] == pytest.approx(25.0)


def test_without_its_registration_the_kind_and_its_section_are_unknown(tmp_path):
    from sipml.design import load_design

    with pytest.raises(InputError, match="toy"):
        load_design(write(tmp_path, DESIGN))


# --- the built-in kinds are imported when first used ---------------------------------------------------------------
def test_a_command_on_a_sip_ring_design_imports_no_other_kind():
    """`sipml budget` and `sipml check` on the built-in SiP-Ring design read every kind's name and section without
    importing the other kinds' modules; `sipml fabric dgx-h100` imports the electrical one."""
    import subprocess
    import sys

    code = ("import sys, io, contextlib\nfrom sipml.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
            "    codes = [main(a) for a in ARGS]\n"
            "print(codes, sorted(m for m in sys.modules if m in ('fabric.sip_ring', 'fabric.sip_ocs', "
            "'fabric.electrical', 'fabric.ideal')))")
    cases = [([["budget"], ["check"]], ["fabric.sip_ring"]), ([["fabric", "dgx-h100"]], ["fabric.electrical"])]
    for args, loaded in cases:
        out = subprocess.run([sys.executable, "-c", code.replace("ARGS", repr(args))], capture_output=True,
                             text=True, check=True).stdout
        assert out.strip() == f"{[0] * len(args)} {loaded}", out


def test_a_deferred_kind_is_the_kind_its_module_defines():
    """Each built-in kind's registered name, section and optical flag are its definition's; a deferred entry that
    says otherwise is refused when the kind is first used, naming both."""
    from fabric.registry import Deferred, declared, defer, get_kind

    for entry in declared():
        kind = get_kind(entry.name)
        assert (kind.name, kind.section, kind.optical) == (entry.name, entry.section, entry.optical)
    defer(Deferred("toy-wrong", "ideal", True, "fabric.ideal", "IDEAL"))
    try:
        with pytest.raises(RuntimeError, match="toy-wrong.*fabric.ideal.IDEAL"):
            get_kind("toy-wrong")
    finally:
        unregister("toy-wrong")
