"""The built-in fabric kinds, registered in `fabric.registry`: SiP-Ring, SiP-OCS, the OCS torus, the electrical
fabrics and the ideal one (`fabric.cluster_design.KINDS`, in that order), each imported when first used."""

from __future__ import annotations

from fabric.registry import Deferred, defer

for _entry in (Deferred("sip-ring", "sip_ring", True, "fabric.sip_ring", "SIP_RING"),
               Deferred("sip-ocs", "sip_ocs", True, "fabric.sip_ocs", "SIP_OCS"),
               Deferred("ocs-torus", "ocs_torus", True, "fabric.ocs_torus", "OCS_TORUS"),
               Deferred("electrical", "electrical", False, "fabric.electrical", "ELECTRICAL"),
               Deferred("ideal", "ideal", False, "fabric.ideal", "IDEAL")):
    defer(_entry)
