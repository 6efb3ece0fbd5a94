"""Physics of one silicon-photonic link: micro-rings, modulators, lasers, losses, receivers,
crosstalk, the power budget, MCM packaging and link capacity.

Kernels are pure functions on SI floats (numpy-broadcastable) with the unit in the argument name.
This package imports nothing from `fabric`, `workloads` or `sipml`.
"""
