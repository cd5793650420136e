"""An independent statement of VLMEvalKit's VLADBench scorers (vlmeval/dataset/vladbench.py at e8e78f0), for tests.

Written from the rules as docs/vladbench.md and the protocol reference state them, task-at-a-time as the official
functions work (samples of questions in, `(n, accuracy, obey, others)` out), not from the package's per-question
decomposition. Where the official code raises, this raises too (TypeError, ValueError, ZeroDivisionError), so a test
can tell "defined and equal" from "official code crashes". The model-name rule is replaced by `box_format`
(`norm1000`: a name in the official resize list; `pixel`: the authors' unscaled branch).

An empty reply is passed as `float("nan")`, which is how VLMEvalKit reads an empty answer back from its xlsx file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

Sample = dict[str, list[Any]]
"""`{"reference": [...], "prediction": [...], "questions": [...], "dimension": [[w, h], ...]}`"""

EDGE = ":[]()' ."


def strip_edges(text: str) -> str:
    while text and text[0] in EDGE:
        text = text[1:]
    while text and text[-1] in EDGE:
        text = text[:-1]
    return text


def tidy(reply: Any) -> str:
    text = str(reply)
    marker = "correct answer is:"
    if marker in text:
        text = text.split(marker)[-1]
    for symbol in ("*", "\n", '"'):
        text = text.replace(symbol, "")
    return text


def option_list(question: str) -> list[str]:
    groups = re.findall(r"\[([^\]]+)\]", question)
    if not groups:
        return []
    last = groups[-1]
    if "'" in last:
        return [item.strip().strip("'") for item in last.split("', '")]
    return last.split(", ")


def matches(clean: str, gold: str, options: list[str]) -> bool:
    if clean == gold:
        return True
    if gold in clean and gold in options:
        rest = list(options)
        rest.remove(gold)
        return not any(option in clean for option in rest)
    return False


def general(samples: list[Sample]) -> tuple[int, float, float, float]:
    n = right = obey = 0
    for sample in samples:
        for question, gold, reply in zip(sample["questions"], sample["reference"], sample["prediction"], strict=True):
            n += 1
            asked = question.lower()
            clean = strip_edges(tidy(reply)).lower()
            if len(clean.split("', '")) != 1:
                continue
            obey += clean in asked
            right += matches(clean, str(gold).lower(), option_list(asked))
    return n, right / n, obey / n, 0


BOX = re.compile(
    r"\[\s*([^\],]*\d+[^\],]*)\s*,\s*([^\],]*\d+[^\],]*)\s*,\s*([^\],]*\d+[^\],]*)\s*,\s*([^\],]*\d+[^\],]*)\s*\]"
)


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    a_i, b_i = [int(v) for v in a], [int(v) for v in b]
    width = min(a_i[2], b_i[2]) - max(a_i[0], b_i[0]) + 1
    height = min(a_i[3], b_i[3]) - max(a_i[1], b_i[1]) + 1
    overlap = max(0, width) * max(0, height)
    size_a = (a_i[2] - a_i[0] + 1) * (a_i[3] - a_i[1] + 1)
    size_b = (b_i[2] - b_i[0] + 1) * (b_i[3] - b_i[1] + 1)
    return overlap / float(size_a + size_b - overlap)


def grounding(samples: list[Sample], box_format: str) -> tuple[int, float, float, float]:
    n = right = obey = 0
    ious: list[float] = []
    for sample in samples:
        for k, reply in enumerate(sample["prediction"]):
            n += 1
            asked = sample["questions"][k].lower()
            gold = sample["reference"][k]
            if "located in the image?" not in asked:
                clean = strip_edges(tidy(reply)).lower()
                if len(clean.split("', '")) == 1:
                    obey += clean in asked
                    right += matches(clean, str(gold).lower(), option_list(asked))
                continue
            found = BOX.findall(reply)  # TypeError on NaN, as officially
            numbers = [[float(re.sub(r"[^0-9.]", "", part)) for part in box] for box in found]  # ValueError on 1.2.3
            box = numbers[0] if len(found) == 1 else [0.0, 0.0, 0.0, 0.0]
            obey += len(found) == 1
            gold_box = [int(v) for v in str(gold).strip("[]").split(",")]
            if box_format == "norm1000":
                if sum(box) < 4:
                    box = [v * 1000 for v in box]
                w, h = (float(v) for v in sample["dimension"][k])
                gold_box = [int(1000 * gold_box[0] / w), int(1000 * gold_box[1] / h),
                            int(1000 * gold_box[2] / w), int(1000 * gold_box[3] / h)]  # fmt: skip
            value = iou(box, gold_box)
            right += value > 0.5
            ious.append(value)
    return n, right / n, obey / n, sum(ious) / len(ious)


def pair_count(scores: list[float]) -> int:
    half = len(scores) // 2
    count = 0
    for tipped, plain in zip(scores[half:], scores[:half], strict=False):
        count += (tipped == 1 and plain == 1) + (tipped > plain)
    return count


def relation(samples: list[Sample]) -> tuple[int, float, float, float]:
    n = obey = pairs = 0
    total = 0.0
    for sample in samples:
        scores: list[float] = []
        for reply, gold in zip(sample["prediction"], sample["reference"], strict=True):
            n += 1
            if "corresponds to" in reply:  # TypeError on NaN
                hit = re.search(r"corresponds to No.([+-]?\d+|[+-]?\d+/\d+)", reply)
                ids = hit.group(1).split("/") if hit else []
            elif "corresponding to" in reply:
                hit = re.search(r"corresponding to.*is\s+(-?\d+(?:/\d+)*)", reply)
                ids = hit.group(1).split("/") if hit else []
            else:
                every = re.findall(r"(-?\d+(?:/\d+)*)", reply)
                obey += bool(every)
                ids = every[-1].split("/") if every else []
            wanted = gold.split("/")
            if any(i not in wanted for i in ids):
                scores.append(0)
                continue
            credit = 0.0
            for _ in ids:
                credit += 1 / len(wanted)
                total += 1 / len(wanted)
            scores.append(credit)
        pairs += pair_count(scores)
    return n, total / n, obey / n, pairs * 2 / n


def road_change(samples: list[Sample]) -> tuple[int, float, float, float]:
    n = right = obey = pairs = 0
    for sample in samples:
        scores: list[float] = []
        for question, gold, reply in zip(sample["questions"], sample["reference"], sample["prediction"], strict=True):
            n += 1
            asked = question.lower()
            clean = strip_edges(tidy(reply)).lower()
            if len(clean.split("', '")) != 1:
                continue  # nothing appended: later pairs shift
            obey += clean in asked
            ok = matches(clean, str(gold).lower(), option_list(asked))
            right += ok
            scores.append(1 if ok else 0)
        pairs += pair_count(scores)
    return n, right / n, obey / n, pairs * 2 / n


def road_speed(samples: list[Sample]) -> tuple[int, float, float, float]:
    pattern = r"\[\s*(-?\d+)\s*,\s*(-?\d+)\s*\]"
    n = obey = pairs = 0
    right = 0.0
    for sample in samples:
        scores: list[float] = []
        for reply, gold in zip(sample["prediction"], sample["reference"], strict=True):
            n += 1
            found = re.findall(pattern, reply)  # TypeError on NaN
            expected = re.findall(pattern, gold)[0]
            credit = 0.0
            if len(found) == 1:
                obey += 1
                credit = 0.5 * (expected[0] == found[0][0]) + 0.5 * (expected[1] == found[0][1])
            right += credit
            scores.append(credit)
        pairs += pair_count(scores)
    return n, right / n, obey / n, pairs * 2 / n


def judge(samples: list[Sample], strip_question_semicolons: bool = False) -> tuple[int, float, float, float]:
    judged = described = judged_right = described_right = obey = 0
    for sample in samples:
        for question, gold, reply in zip(sample["questions"], sample["reference"], sample["prediction"], strict=True):
            asked = question.lower().replace(";", "") if strip_question_semicolons else question.lower()
            clean = strip_edges(tidy(reply)).lower()
            target = strip_edges(str(gold)).lower()
            yes_no = target in ("yes", "no")
            judged += yes_no
            described += not yes_no
            if len(clean.split("', '")) != 1:
                continue
            obey += clean.replace(";", "") in asked
            if matches(clean, target, option_list(asked)):
                judged_right += yes_no
                described_right += not yes_no
    n = judged + described
    accuracy = described_right / described if described else described_right
    return n, accuracy, obey / n, judged_right / judged


def composite(result: tuple[int, float, float, float], weights: tuple[float, float, float]) -> float:
    _, accuracy, obey, others = result
    return 100 * others * weights[0] + 100 * accuracy * weights[1] + 100 * obey * weights[2]
