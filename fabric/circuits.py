"""How a reconfigurable fabric's circuits follow one training job: the schedule every kind with re-pointable
circuits (OCS ports, ring wavelengths, the cube links of an OCS torus) declares, and what it costs.

Within one iteration a job moves between phases — tensor-, pipeline-, data- and expert-parallel collectives — whose
groups want different circuits. A fabric can meet that three ways (fabrics-2026.md K31–K33):

- **fixed**: configured once per job for its whole traffic (SiP-ML's single shot, SiP-Ring's static wavelengths,
  a TPU slice): nothing is switched while it trains, and every collective type holds its share of the circuits
  whether or not it is running.
- **periodic**: re-configured every `interval` (SiP-ML's multi-shot OCS, SiP-ML's simulator's ring), dark for the
  switching time each interval, so the circuits carry traffic interval/(interval + switch) of the time. Where the
  circuits are re-pointed to what runs at that moment (`follows_running`), a call waits on average half an interval
  for the next decision point and then the switch; where they follow the job's whole mix, nothing waits.
- **phased**: re-pointed when the running collective changes (photonic rails, K31): the call has every circuit
  and pays one switch before it. The switch is part of the call, so it is hidden wherever the training model hides
  the call under compute (a bucketed gradient reduction under the backward pass) and exposed where the call is
  (tensor-parallel collectives between GEMMs).

A kind whose policy is `auto` offers each of its schedules as a way to run a job, and the workload keeps the fastest
(`fabric.kind.FabricKind.variants`): circuits stay fixed whenever switching costs more than it saves. One switch
is the switch's own reconfiguration (the catalog's `switching_time`: 1.2 ms median for a 3D-MEMS Palomar, ~10 µs
for a silicon-photonic switch) plus the link bring-up on the new circuit (CDR lock, link training, FEC sync) and the
controller, which no source publishes (K30): a design parameter.
"""

from __future__ import annotations

import numpy as np

from core.records import record
from fabric.estimate import useful_time_fraction

@record
class Schedule:
    """One way a fabric's circuits follow a job: its policy ('fixed', 'periodic' or 'phased', as above), the time of one switch (device +
    bring-up), the interval between reconfigurations (periodic), and whether a periodic reconfiguration follows
    what runs at that moment (then a call waits for the next one) or the job's whole traffic."""

    policy: str
    switch_s: float
    interval_s: float = 0.0
    follows_running: bool = False

    @property
    def useful_fraction(self) -> float:
        """Share of time the circuits carry traffic: interval / (interval + switch) when periodic, else 1 (a phased
        fabric pays per call, `call_wait_s`)."""
        if self.policy != "periodic" or self.interval_s + self.switch_s == 0:  # an instant switch is never dark
            return 1.0
        return useful_time_fraction(self.interval_s, self.switch_s)

    @property
    def call_wait_s(self) -> float:
        """What one call waits before its circuits are there: one switch when phased; half an interval and a switch
        when periodic and following what runs; nothing otherwise."""
        if self.policy == "phased":
            return self.switch_s
        if self.policy == "periodic" and self.follows_running:
            return self.interval_s / 2 + self.switch_s
        return 0.0

    @property
    def static(self) -> bool:
        """Whether collective types split the circuits by the job's whole traffic (fixed, or periodic re-pointed to
        the mix) rather than among what runs at once."""
        return self.policy == "fixed" or (self.policy == "periodic" and not self.follows_running)


def with_wait(seconds, wait_s, p):
    """A call's seconds with its wait for circuits added (a group of one rank sends nothing and waits for none)."""
    return seconds + np.where(p > 1, wait_s, 0.0) if np.any(wait_s) else seconds
