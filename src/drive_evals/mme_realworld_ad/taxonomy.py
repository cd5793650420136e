"""The three editions of MME-RealWorld's Autonomous_Driving domain, their sub-categories and their item counts.

Sub-category (l2) names are the datasets' own spellings, typos included (EN "Pedestrain", protocol D18), because
they are the group keys of the official script; `-T subsets=` also takes the corrected spelling and the task names.
Counts are the protocol's (docs/mme_realworld_ad.md): a loaded set with other counts is a warning, not a refusal,
since the official script never checks them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from drive_evals.kit import ParameterError

Edition = Literal["en", "cn", "lite"]
EDITIONS: tuple[Edition, ...] = ("en", "cn", "lite")
PERCEPTION, REASONING = "Perception", "Reasoning"
TASKS = (PERCEPTION, REASONING)
DOMAIN = "Autonomous_Driving"
"""The domain's spelling in `Subtask` (official JSON) and after the slash of `category` (parquet, TSV)."""

EN_L2: dict[str, tuple[tuple[str, int], ...]] = {
    PERCEPTION: (
        ("Objects_Identify", 1101),
        ("Object_Count", 720),
        ("Attribute_Motion_MultiPedestrians", 493),
        ("Attribute_Motion_MultiVehicles", 823),
        ("Attribute_Motion_Pedestrain", 164),  # sic
        ("Attribute_Motion_Vehicle", 158),
        ("Attribute_Visual_TrafficSignal", 201),
    ),
    REASONING: (
        ("Attention_TrafficSignal", 217),
        ("Prediction_Intention_Ego", 304),
        ("Prediction_Intention_Pedestrian", 103),
        ("Prediction_Intention_Vehicle", 207),
        ("Relation_Interaction_Ego2Pedestrain", 106),  # sic
        ("Relation_Interaction_Ego2TrafficSignal", 105),
        ("Relation_Interaction_Ego2Vehicle", 101),
        ("Relation_Interaction_Other2Other", 201),
    ),
}
TYPOS = {"Attribute_Motion_Pedestrain": "Attribute_Motion_Pedestrian",
         "Relation_Interaction_Ego2Pedestrain": "Relation_Interaction_Ego2Pedestrian"}  # fmt: skip
"""EN spelling -> the corrected spelling, which is also the CN set's."""


@dataclass(frozen=True)
class SubCategory:
    task: str
    name: str
    """As the edition's data spells it."""
    expected: int


def _edition(edition: Edition) -> tuple[SubCategory, ...]:
    per_l2 = {"cn": 100, "lite": 50}.get(edition)
    return tuple(
        SubCategory(task, TYPOS.get(name, name) if edition == "cn" else name, per_l2 or count)
        for task, names in EN_L2.items()
        for name, count in names
    )


SUBCATEGORIES: dict[Edition, tuple[SubCategory, ...]] = {edition: _edition(edition) for edition in EDITIONS}
"""Lite is a sample of the EN set, so it keeps the EN spellings [inference]; 50 per l2 [inference, protocol 1.4]."""


def expected_counts(edition: Edition) -> dict[str, int]:
    """Items per task: EN 3660/1344, CN 700/800, Lite 350/400."""
    return {task: sum(s.expected for s in SUBCATEGORIES[edition] if s.task == task) for task in TASKS}


def parse_subsets(value: str | Sequence[str] | None, edition: Edition) -> tuple[str, ...]:
    """`-T subsets=` -> the edition's l2 names, in official order. Takes the edition's spelling, the other
    spelling of a typo'd name, and `Perception`/`Reasoning` for all of a task's l2; case-insensitive."""
    known = SUBCATEGORIES[edition]
    if value is None:
        return tuple(s.name for s in known)
    items = [v.strip() for v in (value.split(",") if isinstance(value, str) else value) if str(v).strip()]
    aliases: dict[str, set[str]] = {}
    for sub in known:
        for alias in {sub.name, TYPOS.get(sub.name, sub.name), *(k for k, v in TYPOS.items() if v == sub.name)}:
            aliases.setdefault(alias.lower(), set()).add(sub.name)
        aliases.setdefault(sub.task.lower(), set()).add(sub.name)
    unknown = [item for item in items if item.lower() not in aliases]
    if unknown or not items:
        names = ", ".join(s.name for s in known)
        raise ParameterError(
            f"subsets: unknown {unknown or 'empty selection'}; choose from {PERCEPTION}, {REASONING}, {names}"
        )
    chosen = set().union(*(aliases[item.lower()] for item in items))
    return tuple(s.name for s in known if s.name in chosen)
