"""A benchmark's headline as a sum over clusters, the form the confidence sequence needs.

Every headline the rules support is, on the full run, a sum of per-cluster contributions v_c with per-unit weights
fixed before the run: a mean over units (weight 1/N), an equal mean over groups (1/(G N_g): SURDS over subsets,
DriveBench over tasks; a cluster may span groups). Where the headline leaves out a unit it could not score (a judge
that failed: DriveLMM-o1's and DriveBench's means are over the judged items), the true headline S/J lies between S/N
(the unit counted as 0) and (S + N - J)/N (counted as 1), so the lower side of the sequence reads it as 0 and the
upper side as 1: the interval holds whatever the missing verdicts would have been, and is as wide as they are.

In the paired form (`vs:LOG`) the reference run is finished, so its contribution u_c to its own headline is known
for every cluster (with its own judged denominators, so the u_c sum to its logged headline exactly), and the
sequence runs on d_c = v_c - u_c, in [-u_c, W_c - u_c] (W_c the cluster's weight), mapped to [0, 1].

Which headline each benchmark has and which rules hold for it: `forms.headline_form` and docs/statistics.md.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from drive_evals.stats.sequence import FloatArray

Eligible = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class HeadlineForm:
    """How one benchmark's headline is computed from its units."""

    scorer: str
    value_key: str
    """Score.value key of a unit's value in [0, 1]; a unit without it (NaN) is left out of the headline."""
    cluster_key: str
    group_key: str | None
    """Sample metadata key of the groups the headline averages equally (None: a mean over units)."""
    subset: str | None = None
    """Only units of this group count (a subset's own score)."""
    counted_key: str | None = None
    """Only units whose Score.value under this key is 1 count (DriveBench's officially scored questions)."""
    eligible: Eligible | None = None
    """Whether a unit counts, from its sample metadata alone, where `counted_key` is known only once scored: a live
    run needs it to fix the weights before the first call."""
    missing_values: Mapping[str, float] | None = None
    """What a unit whose sample errored counts as (SURDS: 0); without a value there it is left out, like a unit
    the judge could not score."""


@dataclass(frozen=True)
class Unit:
    """One planned unit: its cluster and group, whether it counts, and its value (None: not scored)."""

    id: str
    cluster: str
    group: str
    value: float | None
    clipped: bool = False
    """The score lay outside [0, 1] (a judge out of its range, counted as given officially) and was clipped to it:
    the sequence then bounds the headline with such values clipped (the run's record counts them)."""


def unit_of(
    form: HeadlineForm, sample_id: str, metadata: Mapping[str, Any], value: Mapping[str, Any] | None
) -> Unit | None:
    """The unit a sample is, or None when it does not count towards the headline. `value` is its score value, or
    None when the sample has no score (errored: counted as `missing_values` says)."""
    group = str(metadata.get(form.group_key, "")) if form.group_key else ""
    if form.subset is not None and group != form.subset:
        return None
    cluster = str(metadata.get(form.cluster_key, sample_id))
    if value is None:
        value = form.missing_values or {}
        counted = form.counted_key is None or value.get(form.counted_key) == 1
        if not counted and (form.eligible is None or not form.eligible(metadata)):
            return None
    elif form.counted_key is not None and _number(value.get(form.counted_key)) != 1:
        return None
    number = _number(value.get(form.value_key))
    clipped = number is not None and not 0.0 <= number <= 1.0
    if number is not None:
        number = min(max(number, 0.0), 1.0)
    return Unit(sample_id, cluster, group if form.group_key and form.subset is None else "", number, clipped)


def _number(item: object) -> float | None:
    if isinstance(item, bool) or not isinstance(item, (int, float)) or math.isnan(item):
        return None
    return float(item)


def planned_unit(form: HeadlineForm, sample_id: str, metadata: Mapping[str, Any]) -> Unit | None:
    """The unit a sample will be, before it is scored (a live run fixes the weights from these)."""
    if form.counted_key is not None and form.eligible is None:
        raise ValueError("a live run needs `eligible` where the headline counts units by a score value")
    group = str(metadata.get(form.group_key, "")) if form.group_key else ""
    if form.subset is not None and group != form.subset:
        return None
    if form.eligible is not None and not form.eligible(metadata):
        return None
    cluster = str(metadata.get(form.cluster_key, sample_id))
    return Unit(sample_id, cluster, group if form.group_key and form.subset is None else "", None)


class Population:
    """The run's clusters in the committed order, with each unit's weight in the headline.

    `reference`: the finished run's units by id (the paired form); each of this run's units must be there.
    """

    def __init__(
        self,
        units: Sequence[Unit],
        order: Sequence[str],
        reference: Mapping[str, Unit] | None = None,
        cluster_key: str = "cluster",
    ) -> None:
        self.order = list(order)
        self.cluster_key = cluster_key
        counts: dict[str, int] = defaultdict(int)
        for unit in units:
            counts[unit.group] += 1
        groups = len(counts)
        self.weight = {unit.id: 1.0 / (groups * counts[unit.group]) for unit in units}
        self.members: dict[str, list[str]] = defaultdict(list)
        for unit in units:
            self.members[unit.cluster].append(unit.id)
        missing = [cluster for cluster in self.order if cluster not in self.members]
        if missing or len(self.members) != len(self.order):
            raise ValueError(f"the committed order does not list the run's clusters ({len(missing)} unknown)")
        self.cluster_weight = np.array([sum(self.weight[u] for u in self.members[c]) for c in self.order])
        self.reference_part = None if reference is None else _reference_parts(units, self.order, reference)
        # the largest cluster spans the whole [0, 1] scale; a paired difference lies in [-u_c, W_c - u_c]
        parts = [0.0] if self.reference_part is None else [float(self.reference_part.max())]
        self.scale = max(float(self.cluster_weight.max()), *parts)

    @property
    def size(self) -> int:
        return len(self.order)

    @property
    def paired(self) -> bool:
        return self.reference_part is not None

    def floors(self) -> FloatArray:
        if self.reference_part is None:
            return np.zeros(self.size)
        return (1 - self.reference_part / self.scale) / 2

    def ceilings(self) -> FloatArray:
        if self.reference_part is None:
            return self.cluster_weight / self.scale
        return (1 + (self.cluster_weight - self.reference_part) / self.scale) / 2

    def contribution(self, index: int, values: Mapping[str, float | None]) -> tuple[float, float]:
        """The cluster's share of the headline, with its unscored units at 0 and at 1."""
        members = self.members[self.order[index]]
        scored = sum(self.weight[u] * (values[u] or 0.0) for u in members)
        unscored = sum(self.weight[u] for u in members if values[u] is None)
        reference = 0.0 if self.reference_part is None else float(self.reference_part[index])
        return scored - reference, scored + unscored - reference

    def to_unit(self, contribution: float) -> float:
        """A cluster's contribution on the sequence's [0, 1] scale."""
        x = contribution / self.scale
        return x if self.reference_part is None else (x + 1) / 2

    def headline(self, mean: float) -> float:
        """A population mean on the sequence's scale as the headline (or the paired difference)."""
        total = mean * self.size
        if self.reference_part is not None:
            total = 2 * total - self.size
        return total * self.scale

    def reference_headline(self) -> float | None:
        return None if self.reference_part is None else float(self.reference_part.sum())


def _reference_parts(units: Sequence[Unit], order: Sequence[str], reference: Mapping[str, Unit]) -> FloatArray:
    """Each cluster's contribution to the reference run's own headline (its judged units, its own weights)."""
    absent = [unit.id for unit in units if unit.id not in reference]
    if absent:
        raise ValueError(f"the reference run lacks {len(absent)} of this run's units (first: {absent[0]})")
    mine = {unit.id for unit in units}
    theirs = [reference[u] for u in reference if u in mine and reference[u].value is not None]
    counts: dict[str, int] = defaultdict(int)
    for unit in theirs:
        counts[unit.group] += 1
    groups = len({unit.group for unit in units})
    if len(counts) != groups:
        raise ValueError("the reference run has no scored unit in some group of the headline")
    part: dict[str, float] = defaultdict(float)
    for unit in theirs:
        part[unit.cluster] += (unit.value or 0.0) / (groups * counts[unit.group])
    return np.array([part.get(cluster, 0.0) for cluster in order])
