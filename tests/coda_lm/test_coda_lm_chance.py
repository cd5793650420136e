"""The chance answers and the outcome rule: the judge side in the official `[[N]]` format, uniform on 1-10; the
outcome of each item as the official rule treats it."""

from __future__ import annotations

import math
import random
from collections import Counter

from drive_evals.coda_lm.chance import chance_answer
from drive_evals.coda_lm.metrics import COUNTED, JUDGED, OUT_OF_RANGE, RATING, STRICT
from drive_evals.coda_lm.outcomes import JUDGE_FAILED, OUT_OF_SCALE, RATED, UNMAPPED_RATED, UNPARSED, outcome
from drive_evals.coda_lm.prompts import MODEL_PROMPTS, TASKS, judge_messages
from drive_evals.coda_lm.rating import Rating, official_rating
from drive_evals.coda_lm.scorer import explain, item_values, reason
from drive_evals.kit import JudgeResult


def user_text(task: str) -> str:
    return "\n".join(m.text for m in judge_messages(task, "ref", "pred") if m.role == "user")  # type: ignore[arg-type]


def test_judge_ratings_are_uniform_and_parse() -> None:
    rng = random.Random(0)
    ratings = Counter(official_rating(chance_answer(user_text(t), rng) or "") for t in TASKS for _ in range(1000))
    assert set(ratings) == set(range(1, 11)) and min(ratings.values()) > 200


def test_model_answers_and_other_prompts() -> None:
    rng = random.Random(0)
    answers = {chance_answer(MODEL_PROMPTS[t], rng) for t in TASKS}
    assert len(answers) == 3 and None not in answers
    assert chance_answer("Answer 'yes' or 'no'.", rng) is None


def test_outcomes() -> None:
    def value(rating: float, counted: float = 1.0, judged: float = 1.0, out: float = 0.0) -> dict[str, float]:
        return {RATING: rating, COUNTED: counted, JUDGED: judged, OUT_OF_RANGE: out}

    assert outcome(value(0.7)) == RATED
    assert outcome(value(1.1, out=1.0)) == OUT_OF_SCALE
    assert outcome(value(0.4, counted=0.0)) == UNMAPPED_RATED
    assert outcome(value(math.nan, counted=0.0)) == UNPARSED
    assert outcome(value(math.nan, counted=0.0, judged=0.0)) == JUDGE_FAILED
    assert outcome({}) == JUDGE_FAILED  # an errored sample


def test_scorer_values_for_each_case() -> None:
    ok = JudgeResult[int]("j", verdict=7, raw_replies=["Rating: [[7]]"])
    dropped = JudgeResult[int]("j", raw_replies=["no"], failure="no rating the official parser reads")
    failed = JudgeResult[int]("j", failure="judge call failed: APIError: 500")
    high = JudgeResult[int]("j", verdict=11, raw_replies=["Rating: [[11]]"])
    assert item_values(ok, Rating(7), False, False)[STRICT] == 0.7
    values = item_values(dropped, Rating(None), False, False)
    assert math.isnan(values[RATING]) and values[COUNTED] == 0.0 and values[JUDGED] == 1.0
    assert item_values(failed, Rating(None), False, False)[JUDGED] == 0.0
    values = item_values(high, Rating(11), False, True)
    assert (values[RATING], values[STRICT], values[OUT_OF_RANGE], values["truncated"]) == (1.1, 0.0, 1.0, 1.0)
    assert item_values(ok, Rating(7), True, False)[COUNTED] == 0.0  # unmapped
    assert reason(failed, Rating(None), False) == "grader_failed" and reason(dropped, Rating(None), False)
    assert reason(ok, Rating(7), True) == "truncated" and reason(ok, Rating(7), False) is None
    assert "official mean drops" in explain(failed, Rating(None), False)
    assert explain(high, Rating(11), False).startswith("**Judge j**: rating 11, outside 1-10")
