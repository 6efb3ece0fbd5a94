"""Issue 41: a fabric serves a traffic pattern at the capacity its estimate reports, after the FEC overhead.

With KP4 (RS(544,514), IEEE 802.3 cl. 91) every wavelength carries 514/544 of its line rate; the estimate's
per-GPU bandwidth says so, and before the fix SiP-Ring's serving still handed each pair the line rate."""

import json

import pytest

KP4_PAYLOAD = 514 / 544  # k/n of RS(544,514)


def _fabric(cli, kind, pattern, *extra):
    code, out, err = cli("fabric", kind, "--pattern", pattern, "-f", "json", *extra)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("kind", ["sip-ring", "sip-ocs"])
@pytest.mark.parametrize("pattern", ["ring", "groups", "training"])
def test_issue41_serving_at_the_post_fec_rate(cli, kind, pattern):
    plain = _fabric(cli, kind, pattern)
    coded = _fabric(cli, kind, pattern, "--set", "link.fec=kp4")
    # the estimate's capacity is the post-FEC one ...
    assert coded["per_gpu_bandwidth_gbps"] == pytest.approx(plain["per_gpu_bandwidth_gbps"] * KP4_PAYLOAD)
    # ... and every pair is served in the same proportion (same wavelengths or circuits, each at k/n of its rate)
    for key in ("min_pair_gbps", "mean_pair_gbps"):
        assert coded["traffic"][key] == pytest.approx(plain["traffic"][key] * KP4_PAYLOAD, rel=1e-9), key


def test_issue41_ring_neighbour_gets_one_direction_of_the_post_fec_capacity(cli):
    """Ring neighbours on SiP-Ring use one direction's fibers: half of the GPU's post-FEC capacity (1889.7 Gbit/s
    with KP4 on the built-in design), not half of its line rate (1000 Gbit/s)."""
    coded = _fabric(cli, "sip-ring", "ring", "--set", "link.fec=kp4")
    assert coded["traffic"]["min_pair_gbps"] == pytest.approx(coded["per_gpu_bandwidth_gbps"] / 2, rel=1e-9)
    assert coded["traffic"]["min_pair_gbps"] < 1000.0
