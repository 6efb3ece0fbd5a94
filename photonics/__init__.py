"""Physics of one optical link: micro-rings, modulators, lasers, losses, receivers, crosstalk and filter ISI,
modulation formats and FEC, fiber dispersion and modal bandwidth, RIN, ring variation, the power budget, MCM
packaging and link capacity — for SiP-ML's micro-ring WDM chiplets (`ring_wdm`) and plain point-to-point links
(`point_to_point`), composed by `link.evaluate` into stage records (`records`).

Kernels are pure functions on SI floats (numpy-broadcastable) with the unit in the argument name.
This package imports nothing from `fabric`, `workloads` or `sipml`.
"""
