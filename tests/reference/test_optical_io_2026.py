"""The optical I/O of 2026 as built-in designs (fabrics-2026.md K34–K38): each closes through `sipml budget` at its
published lane rate and λ count, and any SiP fabric design takes it with [optical_io] design = NAME."""

import json

import pytest

from sipml.design_files import load_design
from tests.sipml.cli_run import refused, run

PUBLISHED = {  # design: (lane Gbit/s, λ per fibre, capacity per direction Gbit/s after FEC)
    "oci-msa-gen1": (50, 4, 8 * 200),  # K34: 200 Gbit/s per fibre; 8 fibres [assumed]
    "intel-oci": (32, 8, 2048),  # K35
    "teraphy-2023": (32, 8, 2048),  # K36
    "passage-l200": (106.25, 16, 2 * 16 * 106.25 * 514 / 544),  # K38: 16 × 100G lanes per fibre; 2 fibres
}


def budget(capsys, *argv):
    code, out, err = run(capsys, "budget", *argv, "-f", "json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("design", PUBLISHED)
def test_each_closes_at_its_published_lane_rate_and_wavelengths(capsys, design):
    lane, wavelengths, capacity = PUBLISHED[design]
    data = budget(capsys, design)
    assert data["margin_db"] > 0
    assert data["capacity_gbps"] == pytest.approx(capacity, rel=1e-9)
    link = load_design(design).link.link
    assert (link.data_rate, link.wavelengths_per_fiber) == (lane * 1e9, wavelengths)


def test_a_fabric_design_takes_another_designs_optical_io(capsys):
    """SiP-Ring with Intel's OCI chiplet: its link is Intel's (2.048 Tbit/s per GPU per direction), the ring, its
    2 m hops between GPUs in a rack and the cluster its own (a hop was the 100 m reach Intel's file states, 50× the
    fiber bought: the path between GPUs is the fabric's, PATH_KEYS)."""
    code, out, err = run(capsys, "fabric", "sip-ring", "--set", "optical_io.design=intel-oci", "-f", "json")
    assert code in (0, 1), err
    data = json.loads(out)
    assert data["per_gpu_bandwidth_gbps"] == pytest.approx(2048)
    assert data["gpus"] == 1024 and "each hop: 2 m of fiber, 2 connectors" in data["notes"]
    # later --set items apply on top of the optical I/O: half its fibres, half its capacity
    code, out, err = run(capsys, "fabric", "sip-ring", "--set", "optical_io.design=intel-oci", "--set",
                         "link.fibers_per_direction=4", "-f", "json")
    assert json.loads(out)["per_gpu_bandwidth_gbps"] == pytest.approx(1024)


def test_a_design_file_names_its_optical_io_and_overrides_a_key(capsys, tmp_path):
    path = tmp_path / "ring-oci.toml"
    path.write_text('[optical_io]\ndesign = "oci-msa-gen1"\n\n[link]\nfibers_per_direction = 10\n\n'
                    '[fabric]\nkind = "sip-ring"\ngpus = 64\n', encoding="utf-8")
    code, out, err = run(capsys, "budget", str(path), "-f", "json")
    assert code == 0, err
    assert json.loads(out)["capacity_gbps"] == pytest.approx(10 * 200)  # GEN1's 200 Gbit/s per fibre, 10 fibres
    from sipml.design_files import load_design

    path.write_text('[optical_io]\ndesign = "intel-oci"\n\n[fabric]\nkind = "sip-ring"\ngpus = 64\n', encoding="utf-8")
    assert load_design(str(path)).link.loss.fiber_length == 10.0  # the path's default, not Intel's 100 m reach
    path.write_text('[optical_io]\ndesign = "intel-oci"\n', encoding="utf-8")  # a link alone: the chiplet's own
    assert load_design(str(path)).link.loss.fiber_length == 100.0
    path.write_text('[optical_io]\ndesign = "intel-oci"\n\n[loss]\nfiber_length = "3 m"\n\n'
                    '[fabric]\nkind = "sip-ring"\ngpus = 64\n', encoding="utf-8")
    assert load_design(str(path)).link.loss.fiber_length == 3.0


@pytest.mark.parametrize("text, fragment", [
    ('[optical_io]\ndesign = "no-such-io"\n', "no such file or built-in design"),
    ('[optical_io]\nname = "intel-oci"\n', "takes one key, design"),
])
def test_a_bad_optical_io_is_refused(capsys, tmp_path, text, fragment):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    refused(capsys, "budget", str(path), fragment=fragment)
