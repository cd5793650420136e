"""The chance answers and the outcome rule: the judge side in the official `[[N]]` format, uniform on 1-10; the
outcome of each item as the official rule treats it."""

from __future__ import annotations

import math
import random
from collections import Counter

from drive_evals.coda_lm.chance import chance_answer
from drive_evals.coda_lm.metrics import COUNTED, JUDGED, OUT_OF_RANGE, RATING
from drive_evals.coda_lm.outcomes import JUDGE_FAILED, OUT_OF_SCALE, RATED, UNMAPPED_RATED, UNPARSED, outcome
from drive_evals.coda_lm.prompts import MODEL_PROMPTS, TASKS, judge_messages
from drive_evals.coda_lm.rating import official_rating


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
