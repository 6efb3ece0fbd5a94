"""One design point evaluated stage by stage: its optical link → its fabric → the fabric's priced bill → the
training of a model on it, against a baseline. Each stage is computed the first time it is read, at most once, and
handed to the next; commands, sweeps, `optimize`, `explain`, `report` and the Python API all read a design's
numbers from here.

    point = Evaluation(design)
    point.link.margin_db, point.fabric.reach_hops, point.cost.network_cost_per_gpu_usd.typical
    point.training(model, batch).best.iteration_s

`priced(catalog)` is the same point under another catalog: the link and the fabric carry over, the bill and the
training are priced again. `gpus`: the GPUs the training finds the design's `[fabric] gpu` among (the shipped ones,
or with a user's GPU files, `workloads.gpus.load_gpus`).
"""

from __future__ import annotations

import functools

from typing import TYPE_CHECKING

from core.errors import InputError
from fabric.cluster_design import ClusterDesign
from photonics.link_design import LinkDesign
from photonics.link import LinkEstimate, evaluate

if TYPE_CHECKING:  # the fabric's stages are imported when first read: a link's budget imports none of them
    from fabric.catalog import Catalog
    from fabric.cost import CostSummary
    from fabric.estimate import FabricEstimate


class Evaluation:
    """The stages of one design point (a `ClusterDesign`, or a `LinkDesign` for a link on its own)."""

    def __init__(self, design: ClusterDesign | LinkDesign, catalog: Catalog | None = None, gpus=None):
        self.design = design
        self._catalog = catalog
        self.gpus = gpus  # None: the shipped GPUs
        self._trainings: dict[tuple, object] = {}

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            from fabric.catalog import load_catalog

            self._catalog = load_catalog()
        return self._catalog

    @property
    def cluster(self) -> ClusterDesign:
        if not isinstance(self.design, ClusterDesign):
            raise InputError("a link on its own has no fabric: give the design a [fabric]")
        return self.design

    @functools.cached_property
    def link_design(self) -> LinkDesign | None:
        """The GPU-to-GPU optical link (with any switch passes the fabric adds); None for an electrical fabric."""
        if isinstance(self.design, LinkDesign):
            return self.design
        from fabric.evaluate import effective_link

        return effective_link(self.design)

    @functools.cached_property
    def link(self) -> LinkEstimate | None:
        """The optical link's estimate (`photonics.link.evaluate`); None for an electrical fabric."""
        return None if self.link_design is None else evaluate(self.link_design)

    def share_link(self, links: dict, evaluate: bool = True) -> None:
        """Take this point's link estimate from `links` ({LinkDesign: LinkEstimate} of points evaluated before)
        when one of them had the same link design, else add this point's there — evaluated now, or with
        `evaluate` false only if it already was (nothing is evaluated out of the order the point's readings ask
        for): a sweep's points that differ off the link (GPU count, fabric settings) evaluate it once."""
        design = self.link_design
        if design is None:
            return
        if "link" in self.__dict__:
            links.setdefault(design, self.__dict__["link"])
        elif design in links:
            self.__dict__["link"] = links[design]
        elif evaluate:
            links[design] = self.link

    @functools.cached_property
    def fabric(self) -> FabricEstimate:
        """The fabric (`fabric.evaluate.evaluate_fabric`), built on `link`, its servers' NVLink no faster than the
        GPU's (`workloads.speedup.gpu_bound`), a note where the servers' is slower than the GPU's own."""
        import dataclasses

        from fabric.evaluate import evaluate_fabric
        from workloads.speedup import gpu_bound, gpu_bound_note, slower_nvlink_note

        design = gpu_bound(self.cluster, self.gpus)
        if self.link_design is not None and design.link.link.kind != "ring-wdm":
            return evaluate_fabric(design)  # refused there, with the reason
        est = evaluate_fabric(design, self.link)
        said = gpu_bound_note(self.cluster, design) or slower_nvlink_note(self.cluster, self.gpus)
        return dataclasses.replace(est, notes=(*est.notes, said)) if said else est

    @functools.cached_property
    def cost(self) -> CostSummary:
        """The fabric's bill of materials priced from the catalog (`fabric.cost.cost_summary`)."""
        from fabric.cost import cost_summary

        return cost_summary(self.cluster, self.fabric, self.catalog)

    def training(self, model, batch: int, fixed: dict | None = None, *, name: str = "design", top: int = 5,
                 stack=None, gradient_bytes: float | None = None):
        """`workloads.speedup.evaluate_model` of `model` on this point's fabric and bill (each set of arguments
        searched once); `name` names the design in the result."""
        from workloads.speedup import evaluate_model

        key = (model, batch, tuple(sorted((fixed or {}).items())), name, top, stack, gradient_bytes)
        if key not in self._trainings:
            self._trainings[key] = evaluate_model(model, self.cluster, name, batch, fixed, catalog=self.catalog,
                                                  top=top, stack=stack, gradient_bytes=gradient_bytes,
                                                  estimate=self.fabric, cost=self.cost, gpus=self.gpus)
        return self._trainings[key]

    def priced(self, catalog: Catalog) -> Evaluation:
        """The same point under `catalog`: the link and fabric computed here carry over, the bill and the training
        do not."""
        other = Evaluation(self.design, catalog, self.gpus)
        for stage in ("link_design", "link", "fabric"):
            if stage in self.__dict__:
                other.__dict__[stage] = self.__dict__[stage]
        return other
