"""VLMEvalKit's six VLADBench scorers, one question at a time (pure functions, no Inspect).

VLMEvalKit (`vlmeval/dataset/vladbench.py` at e8e78f0) scores a task as a whole: it walks the task's questions
sample by sample and counts. Every count is a sum over questions, so each question's part is computed here
(`Verdict`) and `aggregate.task_result` sums them as the official function does; the consistency term of the
relation tasks, the one that pairs two questions of a sample, is computed there too. `tests/vladbench` checks the
composition against an independent restatement of each official function.

Where the official function is defined, the number is the same (its quirks included: the obey check is "a
substring of the question", nested options defeat the substring rule, `1/1/1` scores 1.5). Where it crashes or
depends on the model's name, the decision is stated at the function and in docs/vladbench.md (Fidelity):

- `box_format` replaces the model-name rule for localisation questions (`norm1000`, what VLMEvalKit does for the
  names it knows, or `pixel`, the authors' unscaled branch);
- the reply is the one VLMEvalKit reads back from its xlsx prediction file (`readback.read_back`, applied by the
  scorer); one read back as missing (empty, or exactly a pandas missing-value string such as `None`) is read as
  the text `nan`, as the official option scorers read NaN; where the official function would crash on it
  (relation, lane speed, localisation), it scores 0 without obey credit;
- a box number that `float()` cannot read (`1.2.3`), which crashes the official function, leaves the box unread.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from drive_evals.vladbench.taxonomy import ScorerKind

BoxFormat = Literal["norm1000", "pixel"]
BOX_FORMATS: tuple[BoxFormat, ...] = ("norm1000", "pixel")
ObeySemicolons = Literal["vlmevalkit", "strip"]
OBEY_SEMICOLONS: tuple[ObeySemicolons, ...] = ("vlmevalkit", "strip")

EMPTY_READ_AS = "nan"
"""A reply read back as NaN from VLMEvalKit's xlsx prediction file (empty, or a pandas missing-value string), which
its scorers turn into this text (`str(nan)`)."""
LOCALISATION_MARKER = "located in the image?"
"""A Grounding question holding this (lower-cased) asks for a box; the others are scored as General questions."""
MULTIPLE_OPTIONS = "', '"
"""A cleaned reply holding this lists several quoted options: it counts in the denominator only."""
JUDGEMENT_ANSWERS = ("yes", "no")
NORM_GRID = 1000
"""VLMEvalKit's default box convention: [x1, y1, x2, y2] scaled to 0-1000."""
NORMALISED_BELOW = 4
"""A parsed box whose coordinates sum below this is read as 0-1 and scaled to the 0-1000 grid (official rule)."""
IOU_CORRECT_ABOVE = 0.5

_STRIP_CHARS = ":[]()' ."
_SYMBOLS = re.compile(r"[\*\n\"\"]")
_OPTION_LIST = re.compile(r"\[([^\]]+)\]")
BOX_PATTERN = re.compile(
    r"\[\s*([^\],]*\d+[^\],]*)\s*,\s*([^\],]*\d+[^\],]*)\s*,\s*([^\],]*\d+[^\],]*)\s*,\s*([^\],]*\d+[^\],]*)\s*\]"
)
_NOT_NUMBER = re.compile(r"[^0-9.]")
_CORRESPONDS = re.compile(r"corresponds to No.([+-]?\d+|[+-]?\d+/\d+)")
_CORRESPONDING = re.compile(r"corresponding to.*is\s+(-?\d+(?:/\d+)*)")
_NUMBERS = re.compile(r"(-?\d+(?:/\d+)*)")
SPEED_PATTERN = re.compile(r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]")


@dataclass(frozen=True)
class Verdict:
    """One question's part of its task's official counts."""

    correct: float
    """Accuracy credit: 0 or 1; lane speed 0, 0.5 or 1; relation the share of reference ids named (can exceed 1:
    repeated ids are not de-duplicated)."""
    obey: bool
    """Instruction following as the official check reads it."""
    localisation: bool = False
    """A Grounding box question: its IoU enters the task's mean IoU."""
    iou: float = 0.0
    yes_no: bool = False
    """A Judge question whose reference is yes or no: it counts in the yes/no accuracy, else in the descriptive."""
    paired: bool = False
    """Its `correct` enters the sample's list that the tip-consistency term pairs (relation, lane speed, lane
    change); a lane-change reply listing several options is left out of that list, as officially."""
    read: str = ""
    """What the rule read from the reply (cleaned text, box, numbers), for the viewer."""


def clean_string(text: str) -> str:
    """Strip `: [ ] ( ) ' .` and spaces from both ends."""
    start, end = 0, len(text)
    while start < end and text[start] in _STRIP_CHARS:
        start += 1
    while end > start and text[end - 1] in _STRIP_CHARS:
        end -= 1
    return text[start:end]


def remove_symbols(text: str) -> str:
    """Keep what follows the last `correct answer is:` (case-sensitive), then drop `*`, newlines and `"`."""
    if "correct answer is:" in text:
        text = text.split("correct answer is:")[-1]
    return _SYMBOLS.sub("", text)


def extract_options(question: str) -> list[str]:
    """The options of the last `[...]` group; split on `', '` when quoted, else on `, ` (so `['True','False']`
    stays one item)."""
    matches = _OPTION_LIST.findall(question)
    if not matches:
        return []
    options = matches[-1]
    if "'" not in options:
        return options.split(", ")
    return [item.strip().strip("'") for item in options.split("', '")]


def option_correct(clean_reply: str, reference: str, options: Sequence[str]) -> bool:
    """Exact match, or the reference inside the reply when it is an option and no other option is inside too."""
    if clean_reply == reference:
        return True
    if reference not in clean_reply or reference not in options:
        return False
    others = list(options)
    others.remove(reference)  # one occurrence, as `list.remove` officially
    return not any(option in clean_reply for option in others)


def _reply_text(reply: str | None) -> str:
    return reply if reply else EMPTY_READ_AS


def _question_for_obey(question: str, semicolons: ObeySemicolons) -> str:
    """The lower-cased question the checks read: VLMEvalKit keeps its `;`, the authors' scorer drops them."""
    lowered = question.lower()
    return lowered.replace(";", "") if semicolons == "strip" else lowered


def choice_verdict(
    question: str,
    reference: str,
    reply: str | None,
    *,
    judge: bool = False,
    paired: bool = False,
    semicolons: ObeySemicolons = "vlmevalkit",
) -> Verdict:
    """The General rule (also Grounding's non-box questions, lane change, and Judge with `judge=True`).

    Judge differs in two places, as officially: the reference is `clean_string`-ed, and `;` is removed from the
    reply before the obey check. `semicolons="strip"` removes `;` from the question too (the authors' reading).
    """
    asked = _question_for_obey(question, semicolons)  # the authors read options from this text too
    options = extract_options(asked)
    clean = clean_string(remove_symbols(_reply_text(reply))).lower()
    gold = (clean_string(reference) if judge else reference).lower()
    yes_no = judge and gold in JUDGEMENT_ANSWERS
    if MULTIPLE_OPTIONS in clean:
        return Verdict(0.0, False, yes_no=yes_no, read=clean)
    checked = clean.replace(";", "") if judge else clean
    obey = checked in asked
    correct = 1.0 if option_correct(clean, gold, options) else 0.0
    return Verdict(correct, obey, yes_no=yes_no, paired=paired, read=clean)


def parse_box(reply: str) -> list[float] | None:
    """The one `[a, b, c, d]` box in the reply, each part stripped to digits and dots; None for zero or several
    boxes, or a part `float()` cannot read or that is not finite (the official function crashes on those)."""
    matches = BOX_PATTERN.findall(reply)
    try:
        boxes = [[float(_NOT_NUMBER.sub("", part)) for part in match] for match in matches]
    except ValueError:
        return None
    if len(boxes) != 1 or not all(math.isfinite(x) for x in boxes[0]):
        return None
    return boxes[0]


def box_iou(box_a: Sequence[float], box_b: Sequence[float]) -> float:
    """The official IoU on integer, pixel-inclusive boxes (`+ 1` on each side); 0 where its union is 0 (where
    the official function divides by zero, possible only for inverted boxes)."""
    a = [int(x) for x in box_a]
    b = [int(x) for x in box_b]
    x_a, y_a = max(a[0], b[0]), max(a[1], b[1])
    x_b, y_b = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0, x_b - x_a + 1) * max(0, y_b - y_a + 1)
    area_a = (a[2] - a[0] + 1) * (a[3] - a[1] + 1)
    area_b = (b[2] - b[0] + 1) * (b[3] - b[1] + 1)
    union = area_a + area_b - inter
    return inter / float(union) if union else 0.0


def gold_box(reference: str, dimension: Sequence[float], box_format: BoxFormat) -> list[int]:
    """The reference box in the convention answers are compared in: pixels, or truncated onto the 0-1000 grid."""
    box = parse_int_list(reference)
    if box_format == "pixel":
        return box
    width, height = float(dimension[0]), float(dimension[1])
    return [
        int(NORM_GRID * box[0] / width),
        int(NORM_GRID * box[1] / height),
        int(NORM_GRID * box[2] / width),
        int(NORM_GRID * box[3] / height),
    ]


def parse_int_list(text: str) -> list[int]:
    """`"[1293, 0, 1916, 983]"` -> ints, as the official `list(map(int, toliststr(text)))` reads a reference."""
    inner = text.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise ValueError(f"not a list: {text!r}")
    return [int(part.strip()) for part in inner[1:-1].split(",")]


def box_verdict(reference: str, dimension: Sequence[float], reply: str | None, box_format: BoxFormat) -> Verdict:
    """A Grounding box question: obey when exactly one box is read, correct when IoU > 0.5 against the gold box.

    `norm1000` reads a box whose coordinates sum below 4 as 0-1 and scales it by 1000 (official); `pixel` compares
    the reply's numbers with the pixel reference as they are.
    """
    box = parse_box(reply) if reply else None
    predicted = box if box is not None else [0.0, 0.0, 0.0, 0.0]
    if box_format == "norm1000" and sum(predicted) < NORMALISED_BELOW:
        predicted = [x * NORM_GRID for x in predicted]
    iou = box_iou(predicted, gold_box(reference, dimension, box_format))
    read = f"[{', '.join(f'{x:g}' for x in box)}]" if box is not None else ""
    return Verdict(1.0 if iou > IOU_CORRECT_ABOVE else 0.0, box is not None, localisation=True, iou=iou, read=read)


def relation_numbers(reply: str) -> tuple[list[str], bool]:
    """The ids a relation reply names, and whether the obey check passes (only the generic-number branch can)."""
    if "corresponds to" in reply:
        match = _CORRESPONDS.search(reply)
        return (match.group(1).split("/") if match else []), False
    if "corresponding to" in reply:
        found = _CORRESPONDING.search(reply)
        return (found.group(1).split("/") if found else []), False
    numbers = _NUMBERS.findall(reply)
    return (numbers[-1].split("/") if numbers else []), bool(numbers)


def relation_verdict(reference: str, reply: str | None) -> Verdict:
    """0 if any named id is not in the reference, else 1/len(reference ids) per id named, repeats included."""
    if not reply:
        return Verdict(0.0, False, paired=True)
    named, obey = relation_numbers(reply)
    gold = reference.split("/")
    credit = 0.0
    if all(number in gold for number in named):
        for _ in named:
            credit += 1 / len(gold)
    return Verdict(credit, obey, paired=True, read="/".join(named))


def speed_verdict(reference: str, reply: str | None) -> Verdict:
    """Exactly one `[X,Y]` in the reply obeys; each bound equal to the reference's as text earns 0.5."""
    gold = SPEED_PATTERN.findall(reference)[0]
    found = SPEED_PATTERN.findall(reply) if reply else []
    if len(found) != 1:
        return Verdict(0.0, False, paired=True)
    credit = 0.0
    for expected, given in zip(gold, found[0], strict=True):
        if expected == given:
            credit += 0.5
    return Verdict(credit, True, paired=True, read=f"[{found[0][0]},{found[0][1]}]")


def is_localisation(question: str) -> bool:
    return LOCALISATION_MARKER in question.lower()


def score_question(
    kind: ScorerKind,
    question: str,
    reference: str,
    dimension: Sequence[float] | None,
    reply: str | None,
    box_format: BoxFormat = "norm1000",
    semicolons: ObeySemicolons = "vlmevalkit",
) -> Verdict:
    """One question's verdict under its task's official scorer. Never raises on any reply text."""
    if kind == "grounding" and is_localisation(question):
        if dimension is None:
            raise ValueError("a localisation question needs the image dimension")
        return box_verdict(reference, dimension, reply, box_format)
    if kind == "relation":
        return relation_verdict(reference, reply)
    if kind == "road_speed":
        return speed_verdict(reference, reply)
    if kind == "road_change":
        return choice_verdict(question, reference, reply, paired=True, semicolons=semicolons)
    return choice_verdict(question, reference, reply, judge=kind == "judge", semicolons=semicolons)
