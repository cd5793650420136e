"""VLADBench's 5 domains, 11 aspects and 28 scored tasks, with each task's scorer and weights, as the official code
states them (VLMEvalKit `vlmeval/dataset/vladbench.py` `all_tasks`, `func_mapping`, `weights`, identical to the
authors' `all_task.json` and `evaluate_vlm.py`).

The names are the official spellings, typos included (`Vehicle_Bahavior`, `VRU_Bahavior`,
`Key_Obsturction_Detection`): the TSV's `category3` must match them exactly, as VLMEvalKit filters rows by them.
The `tasks` parameter also accepts the corrected spellings, aspect and domain names, and the domains' paper
abbreviations (TKU, GER, TGG, TAC, EDP).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from drive_evals.errors import ParameterError

ScorerKind = Literal["general", "grounding", "relation", "road_speed", "road_change", "judge"]

DEFAULT_WEIGHTS = (0.0, 0.8, 0.2)
"""[others, accuracy, obey]: the weights of every task not in the official `weights` table."""
THIRD_METRIC = {
    "general": "none",
    "grounding": "mean IoU of the localisation questions",
    "relation": "tip consistency",
    "road_speed": "tip consistency",
    "road_change": "tip consistency",
    "judge": "yes/no accuracy",
}
"""What `others`, the first weight's metric, is for each scorer (the Judge scorer's `accuracy` is then the accuracy
on its descriptive questions)."""


@dataclass(frozen=True)
class TaskInfo:
    """One scored task: where it sits in the taxonomy, which official scorer reads it, and its composite weights."""

    name: str
    aspect: str
    domain: str
    scorer: ScorerKind
    weights: tuple[float, float, float] = DEFAULT_WEIGHTS
    """[others, accuracy, obey]: the task's score is 100 * (w0 * others + w1 * accuracy + w2 * obey)."""


_G: ScorerKind = "general"
_LOC: ScorerKind = "grounding"
_REL: ScorerKind = "relation"
_SPEED: ScorerKind = "road_speed"
_CHANGE: ScorerKind = "road_change"
_JUDGE: ScorerKind = "judge"
_TGG = (0.3, 0.5, 0.2)
_CUTIN = (0.7, 0.1, 0.2)

TASKS: tuple[TaskInfo, ...] = (
    TaskInfo("Traffic_Light", "Road_Traffic_Signals", "Traffic_Knowledge_Understanding", _G),
    TaskInfo("Pavement_Marking", "Road_Traffic_Signals", "Traffic_Knowledge_Understanding", _G),
    TaskInfo("Traffic_Sign", "Road_Traffic_Signals", "Traffic_Knowledge_Understanding", _G),
    TaskInfo("Right_Of_Way", "Road_Passage_Provisions", "Traffic_Knowledge_Understanding", _G),
    TaskInfo("VRU_Recognition", "Foreground", "General_Element_Recognition", _LOC, _TGG),
    TaskInfo("Vehicle_Recognition", "Foreground", "General_Element_Recognition", _LOC, _TGG),
    TaskInfo("Vehicle_Status", "Foreground", "General_Element_Recognition", _G),
    TaskInfo("Lane_Recognition", "Foreground", "General_Element_Recognition", _G),
    TaskInfo("Obstruction_Recognition", "Foreground", "General_Element_Recognition", _LOC, _TGG),
    TaskInfo("Light", "Background", "General_Element_Recognition", _G),
    TaskInfo("Weather", "Background", "General_Element_Recognition", _G),
    TaskInfo("Sign_Sign_Relation", "Signal_Element_Relation", "Traffic_Graph_Generation", _REL, _TGG),
    TaskInfo("Sign_Lane_Relation", "Signal_Element_Relation", "Traffic_Graph_Generation", _REL, _TGG),
    TaskInfo("Light_Lane_Relation", "Signal_Element_Relation", "Traffic_Graph_Generation", _REL, _TGG),
    TaskInfo("Lane_Speed_Relation", "Lane_Element_Relation", "Traffic_Graph_Generation", _SPEED, _TGG),
    TaskInfo("Lane_Change_Relation", "Lane_Element_Relation", "Traffic_Graph_Generation", _CHANGE, _TGG),
    TaskInfo("VRU_Cutin", "Intention_Judgment", "Target_Attribute_Comprehension", _JUDGE, _CUTIN),
    TaskInfo("Vehicle_Cutin", "Intention_Judgment", "Target_Attribute_Comprehension", _JUDGE, _CUTIN),
    TaskInfo("VRU_Cross", "Intention_Judgment", "Target_Attribute_Comprehension", _JUDGE, _CUTIN),
    TaskInfo("Long_Short_Parking", "Intention_Judgment", "Target_Attribute_Comprehension", _G),
    TaskInfo("Vehicle_Bahavior", "Behavior_Understanding", "Target_Attribute_Comprehension", _G),
    TaskInfo("VRU_Bahavior", "Behavior_Understanding", "Target_Attribute_Comprehension", _G),
    TaskInfo("Key_Obsturction_Detection", "Ego_Action_Reasoning", "Ego_Decision_Planning", _JUDGE, (0.8, 0.0, 0.2)),
    TaskInfo("Spatial_Temporal_Reasoning", "Ego_Action_Reasoning", "Ego_Decision_Planning", _JUDGE, (0.4, 0.4, 0.2)),
    TaskInfo("Risk_Prediction", "Ego_Action_Reasoning", "Ego_Decision_Planning", _JUDGE, _CUTIN),
    TaskInfo("Drive_Efficiency", "Ego_Action_Reasoning", "Ego_Decision_Planning", _G),
    TaskInfo("Longitudinal", "Meta_Action_Decision", "Ego_Decision_Planning", _G),
    TaskInfo("Lateral", "Meta_Action_Decision", "Ego_Decision_Planning", _G),
)
"""In the official order (`all_tasks`), which is the order of the official score table."""

UNSCORED_TASKS = ("Trajectory",)
"""In the official taxonomy (aspect `Ego_trajectory_Planning`) but skipped by the scorer and not released."""

BY_NAME = {task.name: task for task in TASKS}
ASPECTS: tuple[str, ...] = tuple(dict.fromkeys(task.aspect for task in TASKS))
DOMAINS: tuple[str, ...] = tuple(dict.fromkeys(task.domain for task in TASKS))
DOMAIN_ABBREVIATIONS = {
    "TKU": "Traffic_Knowledge_Understanding",
    "GER": "General_Element_Recognition",
    "TGG": "Traffic_Graph_Generation",
    "TAC": "Target_Attribute_Comprehension",
    "EDP": "Ego_Decision_Planning",
}
"""The paper's abbreviations (arXiv 2503.21505, section 3.1)."""
CORRECTED_SPELLINGS = {
    "Vehicle_Behavior": "Vehicle_Bahavior",
    "VRU_Behavior": "VRU_Bahavior",
    "Key_Obstruction_Detection": "Key_Obsturction_Detection",
}
"""What a user may type for the three misspelt official task names."""


def _key(name: str) -> str:
    """Names compare without case, and with spaces or hyphens read as underscores (`right of way`)."""
    return name.strip().replace(" ", "_").replace("-", "_").casefold()


def _selectors() -> dict[str, tuple[str, ...]]:
    """Every accepted name (by `_key`) -> the official task names it selects, in official order."""
    found: dict[str, tuple[str, ...]] = {}
    for task in TASKS:
        found[_key(task.name)] = (task.name,)
    for wrong_free, official in CORRECTED_SPELLINGS.items():
        found[_key(wrong_free)] = (official,)
    for aspect in ASPECTS:
        found[_key(aspect)] = tuple(t.name for t in TASKS if t.aspect == aspect)
    for domain in DOMAINS:
        found[_key(domain)] = tuple(t.name for t in TASKS if t.domain == domain)
    for short, domain in DOMAIN_ABBREVIATIONS.items():
        found[_key(short)] = found[_key(domain)]
    return found


_SELECTORS = _selectors()


def parse_tasks(tasks: str | Sequence[str] | None) -> list[str]:
    """Official task names selected by a list or a comma-separated string of task, aspect or domain names.

    None selects all 28. The result is in the official order, without repeats. Unknown names are one error that
    names all of them.
    """
    if tasks is None:
        return [task.name for task in TASKS]
    if isinstance(tasks, str):
        names = tasks.split(",")
    elif isinstance(tasks, (list, tuple)):
        names = [str(name) for name in tasks]
    else:
        raise ParameterError(f"tasks={tasks!r}: expected task, aspect or domain names (comma-separated)")
    names = [name.strip() for name in names if name.strip()]
    unknown = [
        name for name in names if _key(name) in {_key(t) for t in UNSCORED_TASKS} or _key(name) not in _SELECTORS
    ]
    if unknown or not names:
        problem = f"unknown or unscored name(s) {unknown}" if unknown else "no task selected"
        raise ParameterError(
            f"tasks: {problem}; give task names ({', '.join(t.name for t in TASKS)}), aspects "
            f"({', '.join(ASPECTS)}) or domains ({', '.join(DOMAINS)} or {', '.join(DOMAIN_ABBREVIATIONS)})"
        )
    chosen = {official for name in names for official in _SELECTORS[_key(name)]}
    return [task.name for task in TASKS if task.name in chosen]
