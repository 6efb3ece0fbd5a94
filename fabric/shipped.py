"""The built-in fabric kinds, registered in `fabric.registry`: SiP-Ring, SiP-OCS, the electrical fabrics and the
ideal one (`fabric.design.KINDS`, in that order)."""

from __future__ import annotations

from fabric.electrical import ELECTRICAL
from fabric.ideal import IDEAL
from fabric.registry import register
from fabric.sip_ocs import SIP_OCS
from fabric.sip_ring import SIP_RING

for _kind in (SIP_RING, SIP_OCS, ELECTRICAL, IDEAL):
    register(_kind)
