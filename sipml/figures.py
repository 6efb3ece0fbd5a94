"""Display figures of a fabric estimate: labels and printing units for each kind's typed details.

The fabric floor returns typed records; the names and units a person reads are chosen here. A kind this module does
not know is shown field by field from its details record.
"""

from __future__ import annotations

import dataclasses
import numbers

from fabric.estimate import FabricEstimate


def _ring(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    d = est.details
    out = {"wavelengths per fiber": (float(d.wavelengths_per_fiber), ""),
           "fibers per ring direction": (float(d.fibers_per_direction), ""),
           "loss of passing one GPU": (d.pass_loss_db, "dB"),
           "neighbour margin": (d.neighbour_margin_db, "dB"),
           "unamplified reach": (float(d.unamplified_reach_hops), "hops")}
    if d.amplified is not None:
        a = d.amplified
        out.update({"OSNR after one amplifier": (a.osnr_db, f"dB in {a.osnr_bandwidth_hz / 1e9:.0f} GHz"),
                    "Q after one amplifier": (a.q, f"needed {a.q_needed:.2f}"),
                    "amplifiers a wavelength may pass": (float(a.amplifiers_passable), ""),
                    "amplifier input per channel": (a.amplifier_input_dbm, "dBm average")})
    out["optical reach"] = (float(est.reach_hops), "hops")
    out["amplifiers"] = (float(d.amplifiers), "")
    return out


def _ocs(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    d = est.details
    return {"switch tiers per plane": (float(d.tiers), ""),
            "switch passes per circuit": (float(d.switch_passes), ""),
            "fibers per port": (float(d.fibers_per_port), ""),
            "per-port bandwidth": (d.port_bps / 1e9, "Gbps"),
            "OCS count": (float(d.ocs_count), ""),
            "pods": (float(d.pods), ""),
            "GPUs per pod": (float(est.pod_gpus), ""),
            "margin through the switch": (d.margin_db, "dB"),
            "reconfiguration time": (d.reconfiguration_s * 1e3, "ms")}


def _electrical(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    d = est.details
    return {"GPUs per server": (float(d.gpus_per_server), ""), "servers": (float(d.servers), ""),
            "NVLink per GPU": (d.nvlink_bps / 1e9, "Gbps"), "NIC per GPU": (d.nic_bps / 1e9, "Gbps"),
            "rail planes": (float(d.rails), ""), "fat-tree tiers per plane": (float(d.tiers), ""),
            "switches": (float(d.switches), ""),
            "links": (float(d.links), ""), "oversubscription": (d.oversubscription, "")}


def _ideal(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    return {"per-GPU rate": (est.per_gpu_bandwidth_bps / 1e9, "Gbps")}


def _generic(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    if not dataclasses.is_dataclass(est.details):
        return {}
    return {f.name.replace("_", " "): (float(getattr(est.details, f.name)), "")
            for f in dataclasses.fields(est.details)
            if isinstance(getattr(est.details, f.name), numbers.Real)}


_BY_KIND = {"sip-ring": _ring, "sip-ocs": _ocs, "electrical": _electrical, "ideal": _ideal}


def figures(est: FabricEstimate) -> dict[str, tuple[float, str]]:
    """name → (value, unit) of the fabric's own figures, in the order a reader wants them."""
    return _BY_KIND.get(est.kind, _generic)(est)
