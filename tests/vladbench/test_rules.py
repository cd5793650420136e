"""The six scorers equal VLMEvalKit's rule: the protocol reference's probe cases, then a property-based fuzz.

`vladbench_official` states each official function task-at-a-time; the package scores question by question and sums
(`rules.score_question`, `aggregate.task_result`). Where the official function is defined they must agree to the
last bits; where it raises, the package must not, and gives the documented value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import pytest
import vladbench_official as vk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drive_evals.vladbench.aggregate import task_result
from drive_evals.vladbench.rules import BoxFormat, ObeySemicolons, Verdict, parse_box, score_question
from drive_evals.vladbench.taxonomy import BY_NAME

LIGHT_QUESTION = (
    "In the image, the traffic lights are within the blue box.What is the state of the Arrow Light in the blue box?"
    "Choose the most appropriate one from the following answers: ['Right Turn Red Light', 'Left Turn Red Light', "
    "' Left Turn Yellow Light', 'Straight Yellow Light', 'Straight Green Light', 'Left Turn Green Light', 'U-turn Red "
    "Light', 'Straight and Left Turn Green Light', 'Right Turn Green Light', 'Right Turn Yellow Light', 'Straight Red "
    "Light']. Note that no explantion is needed."
)
LANE_QUESTION = (
    "What type of lane is the ego vehicle in? Choose the most appropriate one from the following answers: "
    "['left turn lane', 'straight and left turn lane', 'straight lane']. Note that no explantion is needed."
)
LOCATE = (
    "The width and height of the image are 1920 and 1020. Where is the construction vehicle located in the image? "
    "The output format should be [top-left X, top-left Y, bottom-right X, bottom-right Y]."
)
CLASSIFY = (
    "What is the object within the red box in the image? Please select the appropriate one from the following "
    "phrases: ['bus', 'sanitation vehicle', 'construction vehicle', 'car', 'truck']. Note that no explantion is needed."
)
GT_BOX = "[1478, 360, 1916, 992]"
DIMENSION = [1920.0, 1020.0]
RELATION = (
    "In the image, lanes are indicated by red lines, with the closest red numbers representing lane numbers. "
    "Analyze which lane corresponds to No.0 traffic sign. If there are multiple corresponding lanes, separate them "
    "with the '/' symbol, such as 2/3/4. Note that only answer the lane number and no expaination is needed."
)
SPEED = (
    "Please analyze the low-speed limit and high-speed limit for No.0 Lane. The response format should be '[X,Y]', "
    "where X is the low-speed limit and Y is the high-speed limit."
)
CHANGE = (
    "Legally, can the vehicle in No.0 Lane change lanes to No.1 Lane in the image? Choose one answer from the "
    "following list: ['True','False']. Note that no explaination needed."
)
RISK_YES_NO = (
    "Based on the given sequence of images, assess whether there are any significant potential risks present in the "
    "environment. Answer 'yes' or 'no', note no explaination needed."
)
RISK = "There is a construction area on the left side of the roadway; the autonomous vehicle should proceed slowly."
RISK_REASON = f"What is the main risk? Choose from the following phrases: ['{RISK}', 'The road ahead is clear.']."

Question = tuple[str, str]
"""(question, reference)"""


def ours(
    task: str,
    samples: Sequence[Sequence[Question]],
    replies: Sequence[Sequence[str]],
    box_format: BoxFormat = "norm1000",
    semicolons: ObeySemicolons = "vlmevalkit",
) -> tuple[int, float, float, float]:
    info = BY_NAME[task]
    verdicts: list[list[Verdict]] = [
        [
            score_question(info.scorer, q, ref, DIMENSION, reply, box_format, semicolons)
            for (q, ref), reply in zip(sample, sample_replies, strict=True)
        ]
        for sample, sample_replies in zip(samples, replies, strict=True)
    ]
    result = task_result(info, verdicts)
    return result.n, result.accuracy, result.obey, result.others


def official(
    function: Callable[..., tuple[int, float, float, float]],
    samples: Sequence[Sequence[Question]],
    replies: Sequence[Sequence[str]],
    **options: Any,
) -> tuple[int, float, float, float]:
    """The restated official function; an empty reply goes in as NaN, as VLMEvalKit reads it back."""
    packed = [
        {
            "questions": [q for q, _ in sample],
            "reference": [ref for _, ref in sample],
            "prediction": [reply if reply != "" else math.nan for reply in sample_replies],
            "dimension": [DIMENSION] * len(sample),
        }
        for sample, sample_replies in zip(samples, replies, strict=True)
    ]
    return function(packed, **options)


def close(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-12) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize(
    ("reply", "accuracy", "obey"),
    [
        ("Left Turn Green Light", 1.0, 1.0),
        ("['Left Turn Green Light']", 1.0, 1.0),
        ("The answer is Left Turn Green Light", 1.0, 0.0),
        ("Straight and Left Turn Green Light", 0.0, 1.0),
        ("the", 0.0, 1.0),
        ("'Left Turn Green Light', 'Straight Green Light'", 0.0, 0.0),
        ("The correct answer is: Left Turn Green Light", 1.0, 1.0),
        ("", 0.0, 0.0),  # read back as `nan`, not a substring of this question (VLMEvalKit's xlsx round trip)
    ],
)
def test_general_probes(reply: str, accuracy: float, obey: float) -> None:
    samples = [[(LIGHT_QUESTION, "Left Turn Green Light")]]
    expected = (1, accuracy, obey, 0)
    assert ours("Traffic_Light", samples, [[reply]]) == pytest.approx(expected)
    assert official(vk.general, samples, [[reply]]) == pytest.approx(expected)


def test_general_nested_options_defeat_the_substring_rule() -> None:
    samples = [[(LANE_QUESTION, "straight and left turn lane")]]
    assert ours("Lane_Recognition", samples, [["It is a straight and left turn lane"]]) == (1, 0.0, 0.0, 0)


def test_lane_change_options_without_space_allow_exact_answers_only() -> None:
    samples = [[(CHANGE, "True"), (CHANGE, "True")]]
    replies = [["True.", "The answer is True"]]
    assert ours("Lane_Change_Relation", samples, replies)[1:3] == (0.5, 0.5)
    assert close(ours("Lane_Change_Relation", samples, replies), official(vk.road_change, samples, replies))


@pytest.mark.parametrize(
    ("reply", "accuracy", "obey", "iou"),
    [
        ("[770, 353, 997, 972]", 1.0, 1.0, 0.994),
        ("[1478, 360, 1916, 992]", 0.0, 1.0, 0.0),  # pixels read on the 0-1000 grid
        ("[0.77, 0.353, 0.997, 0.972]", 1.0, 1.0, 0.994),
        ("[x1: 770, y1: 353, x2: 997, y2: 972]", 0.0, 1.0, 0.0),  # labels glue onto the numbers: 1770, ...
        ("[770, 353, 997, 972] or [0, 0, 10, 10]", 0.0, 0.0, 0.0),
    ],
)
def test_grounding_probes_norm1000(reply: str, accuracy: float, obey: float, iou: float) -> None:
    samples = [[(LOCATE, GT_BOX)]]
    result = ours("Vehicle_Recognition", samples, [[reply]])
    assert result == pytest.approx((1, accuracy, obey, iou), abs=5e-4)
    assert close(result, official(vk.grounding, samples, [[reply]], box_format="norm1000"))


def test_grounding_pixel_format_reads_pixels() -> None:
    samples = [[(LOCATE, GT_BOX), (CLASSIFY, "construction vehicle")]]
    replies = [["[1478, 360, 1916, 992]", "construction vehicle"]]
    assert ours("Vehicle_Recognition", samples, replies, box_format="pixel") == (2, 1.0, 1.0, 1.0)
    assert close(
        ours("Vehicle_Recognition", samples, replies, "pixel"),
        official(vk.grounding, samples, replies, box_format="pixel"),
    )


def test_grounding_unreadable_number_leaves_the_box_unread() -> None:
    """`1.2.3` makes the official `float()` raise; here the box is unread: IoU 0, no obey."""
    samples = [[(LOCATE, GT_BOX)]]
    with pytest.raises(ValueError):
        official(vk.grounding, samples, [["[1.2.3, 353, 997, 972]"]], box_format="norm1000")
    assert ours("Vehicle_Recognition", samples, [["[1.2.3, 353, 997, 972]"]]) == (1, 0.0, 0.0, 0.0)
    assert parse_box("[1" + "0" * 400 + ", 1, 2, 3]") is None  # not finite: `int()` would overflow


@pytest.mark.parametrize(
    ("reply", "accuracy", "obey", "others"),
    [
        ("1/2", 0.5, 0.5, 1.0),
        ("1", 0.25, 0.5, 1.0),
        ("1/1", 0.5, 0.5, 1.0),  # repeated ids are not de-duplicated: full credit
        ("1/1/1", 0.75, 0.5, 1.0),  # the question scores 1.5
        ("Lane 0 corresponds to No.1 traffic sign", 0.25, 0.0, 1.0),  # the sign's number is read
        ("3", 0.0, 0.5, 0.0),
        ("-1", 0.0, 0.5, 0.0),
    ],
)
def test_relation_probes(reply: str, accuracy: float, obey: float, others: float) -> None:
    samples = [[(RELATION, "1/2"), (RELATION, "1/2")]]
    replies = [["x", reply]]
    assert ours("Sign_Lane_Relation", samples, replies) == pytest.approx((2, accuracy, obey, others))
    assert close(ours("Sign_Lane_Relation", samples, replies), official(vk.relation, samples, replies))


def test_relation_empty_reply_scores_zero_where_the_official_code_crashes() -> None:
    samples = [[(RELATION, "1/2"), (RELATION, "1/2")]]
    with pytest.raises(TypeError):
        official(vk.relation, samples, [["1/2", ""]])
    assert ours("Sign_Lane_Relation", samples, [["1/2", ""]]) == (2, 0.5, 0.5, 0.0)


@pytest.mark.parametrize(
    ("reference", "reply", "accuracy"),
    [("[60,80]", "[060, 80]", 0.5), ("[60,80]", "[0,0]", 0.0), ("[0,80]", "[0,0]", 0.5), ("[60,80]", "[60, 80]", 1.0)],
)
def test_lane_speed_compares_text(reference: str, reply: str, accuracy: float) -> None:
    samples = [[(SPEED, reference)]]
    assert ours("Lane_Speed_Relation", samples, [[reply]])[1] == accuracy
    assert close(ours("Lane_Speed_Relation", samples, [[reply]]), official(vk.road_speed, samples, [[reply]]))


def test_judge_yes_no_exact_only() -> None:
    samples = [[(RISK_YES_NO, "yes"), (RISK_YES_NO, "yes")]]
    assert ours("Risk_Prediction", samples, [["Yes.", "Yes, it does."]])[3] == 0.5


def test_judge_semicolons_in_options() -> None:
    """A verbatim option holding `;` fails VLMEvalKit's obey check (the question keeps its `;`), passes the
    authors' (`obey_semicolons=strip`)."""
    samples = [[(RISK_YES_NO, "yes"), (RISK_REASON, RISK)]]
    replies = [["yes", RISK]]
    assert ours("Risk_Prediction", samples, replies)[2] == 0.5
    assert ours("Risk_Prediction", samples, replies, semicolons="strip")[2] == 1.0
    assert close(ours("Risk_Prediction", samples, replies), official(vk.judge, samples, replies))
    stripped = official(vk.judge, samples, replies, strip_question_semicolons=True)
    assert close(ours("Risk_Prediction", samples, replies, semicolons="strip"), stripped)


def test_road_change_reply_listing_options_shifts_the_pairs() -> None:
    """A reply holding `', '` appends nothing to the sample's pair list, so later pairs shift (as officially)."""
    samples = [[(CHANGE, "True"), (CHANGE, "False"), (CHANGE, "True"), (CHANGE, "False")]]
    replies = [["'True', 'False'", "False", "True", "False"]]
    result = ours("Lane_Change_Relation", samples, replies)
    assert close(result, official(vk.road_change, samples, replies))
    assert result[3] == 0.5  # pairs ([False] vs [True]): 1 (not 2 as without the shift) * 2 / 4


# Property-based: any reply text, every scorer, the package equals the restatement wherever that is defined.

NUMBER = st.one_of(
    st.integers(-50, 2500).map(str),
    st.floats(0, 1, allow_nan=False).map(lambda x: f"{x:.3f}"),
    st.sampled_from(["1.2.3", "x1: 770", "-5", "1e3", "0", ""]),
)
BOX_TEXT = st.lists(NUMBER, min_size=4, max_size=4).map(lambda parts: "[" + ", ".join(parts) + "]")
IDS = st.lists(st.sampled_from(["-1", "0", "1", "2", "3"]), min_size=1, max_size=4).map("/".join)
HOSTILE = st.sampled_from(
    ["", " ", "nan", "'", "', '", "[", "]", ";", "correct answer is:", "\n", '"', "*", "yes;", "No.", "the", "é"]
)
WORDS = st.sampled_from(
    [
        "Left Turn Green Light", "Straight and Left Turn Green Light", "True", "False", "yes", "no", "Yes.",
        "corresponds to No.", "corresponding to lane is ", "Lane 0 corresponds to No.1", RISK, "construction vehicle",
        "[60,80]", "[0, 0]", "car", "truck",
    ]
)  # fmt: skip
REPLY = st.lists(st.one_of(WORDS, HOSTILE, IDS, BOX_TEXT, st.text(max_size=8)), max_size=4).map("".join)

KINDS: dict[str, tuple[str, list[Question], Callable[..., tuple[int, float, float, float]], dict[str, Any]]] = {
    "general": (
        "Traffic_Light",
        [(LIGHT_QUESTION, "Left Turn Green Light"), (LANE_QUESTION, "left turn lane")],
        vk.general,
        {},
    ),
    "grounding": (
        "Obstruction_Recognition",
        [(LOCATE, GT_BOX), (CLASSIFY, "construction vehicle")],
        vk.grounding,
        {"box_format": "norm1000"},
    ),
    "relation": ("Sign_Sign_Relation", [(RELATION, "1/2"), (RELATION, "-1"), (RELATION, "0")], vk.relation, {}),
    "road_speed": ("Lane_Speed_Relation", [(SPEED, "[60,80]"), (SPEED, "[0,120]")], vk.road_speed, {}),
    "road_change": ("Lane_Change_Relation", [(CHANGE, "True"), (CHANGE, "False")], vk.road_change, {}),
    "judge": ("Risk_Prediction", [(RISK_YES_NO, "yes"), (RISK_REASON, RISK), (RISK_YES_NO, "no")], vk.judge, {}),
}


@st.composite
def task_case(draw: st.DrawFn, kind: str) -> tuple[list[list[Question]], list[list[str]]]:
    """One to three samples of two to six questions drawn from the kind's templates, each with a drawn reply."""
    _, templates, _, _ = KINDS[kind]
    samples = [
        draw(st.lists(st.sampled_from(templates), min_size=2, max_size=6)) for _ in range(draw(st.integers(1, 3)))
    ]
    if kind == "grounding":
        samples[0][0] = templates[0]  # the official mean IoU needs a box question
    if kind == "judge":
        samples[0][0] = templates[0]  # ... and the yes/no accuracy a yes/no question
    replies = [[draw(REPLY) for _ in sample] for sample in samples]
    return samples, replies


@pytest.mark.parametrize("kind", list(KINDS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_equals_official_where_defined(kind: str, data: st.DataObject) -> None:
    task, _, function, options = KINDS[kind]
    samples, replies = data.draw(task_case(kind))
    mine = ours(task, samples, replies)  # never raises
    assert all(math.isfinite(value) for value in mine)
    try:
        theirs = official(function, samples, replies, **options)
    except (TypeError, ValueError, ZeroDivisionError):
        return  # the official code crashes on this reply; the package's decision is pinned by the tests above
    assert close(mine, theirs), (mine, theirs)


OWN_QUESTION = {
    "Traffic_Light": (LIGHT_QUESTION, "Left Turn Green Light"),
    "Vehicle_Recognition": (LOCATE, GT_BOX),
    "Sign_Lane_Relation": (RELATION, "1/2"),
    "Lane_Speed_Relation": (SPEED, "[60,80]"),
    "Lane_Change_Relation": (CHANGE, "True"),
    "VRU_Cutin": (RISK_YES_NO, "yes"),
}


@given(reply=REPLY)
@settings(max_examples=300, deadline=None)
def test_no_reply_crashes_any_scorer(reply: str) -> None:
    formats: tuple[BoxFormat, ...] = ("norm1000", "pixel")
    for task, (question, reference) in OWN_QUESTION.items():
        for box_format in formats:
            verdict = score_question(BY_NAME[task].scorer, question, reference, DIMENSION, reply, box_format)
            assert math.isfinite(verdict.correct) and math.isfinite(verdict.iou)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_judge_with_the_authors_semicolon_reading(data: st.DataObject) -> None:
    samples, replies = data.draw(task_case("judge"))
    mine = ours("Risk_Prediction", samples, replies, semicolons="strip")
    theirs = official(vk.judge, samples, replies, strip_question_semicolons=True)
    assert close(mine, theirs), (mine, theirs)
