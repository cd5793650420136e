"""The non-official xy2d coordinate-convention diagnostic: readings, classification, and that it never raises."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drive_evals.surds.conventions import (
    CONVENTIONS,
    DIAGNOSTIC_KEYS,
    NAMES,
    SHARE_NAMES,
    classify,
    convention_point,
    convention_scores,
    describe,
    diagnose,
    read_numbers,
    score_key,
    share_key,
)
from drive_evals.surds.rules import parse_point, score_point

BOX = (700.0, 400.0, 900.0, 500.0)
"""Centre (800, 450): the image centre, where every reading of the centre coincides."""
RIGHT_BOX = (1100.0, 200.0, 1300.0, 400.0)
"""Centre (1200, 300): on a 0-1000 grid that is [750, 333]; read as pixels, [750, 333] misses the box."""
CONVENTION = {c.name: c for c in CONVENTIONS}


def official(answer: str | None) -> tuple[float, float] | None:
    return parse_point(answer) if answer is not None else None


def diagnosed(answer: str | None, box: tuple[float, ...] = RIGHT_BOX) -> dict[str, float]:
    return diagnose(answer, official(answer), box)


def looks_like(answer: str, box: tuple[float, ...] = RIGHT_BOX) -> str:
    values = read_numbers(answer)
    return classify(values, official(answer), convention_scores(values, official(answer), box))


def test_reads_the_bracket_the_official_rule_reads_without_rescaling() -> None:
    assert read_numbers("[750, 333]") == (750.0, 333.0)
    assert read_numbers("point [0.1, 0.2, 0.3, 0.4] then [5, 5]") == (0.1, 0.2, 0.3, 0.4)
    assert read_numbers("(750, 333)") is None, "parentheses are not a point, as officially"
    assert read_numbers("[1, 2, 3]") is None
    assert read_numbers(None) is None


def test_each_convention_rescales_to_the_1600x900_frame() -> None:
    assert convention_point((500, 500), CONVENTION["grid1000"]) == (800.0, 450.0)
    assert convention_point((500, 250), CONVENTION["grid1000_yx"]) == (400.0, 450.0)
    assert convention_point((0.25, 0.5, 0.75, 0.5), CONVENTION["unit"]) == (800.0, 450.0)
    assert convention_point((728, 409.5), CONVENTION["anthropic"]) == pytest.approx((800.0, 450.0))
    assert convention_point((658, 364), CONVENTION["qwen25vl"]) == pytest.approx((800.0, 450.0))
    assert convention_point((500, 1001), CONVENTION["grid1000"]) is None
    assert convention_point((-1, 5), CONVENTION["anthropic"]) is None


def test_resized_frames_follow_the_documented_rules() -> None:
    anthropic, qwen = CONVENTION["anthropic"], CONVENTION["qwen25vl"]
    assert max(anthropic.width, anthropic.height) <= 1568 and anthropic.width * anthropic.height <= 1.2e6
    assert anthropic.width / anthropic.height == pytest.approx(16 / 9, rel=0.01)
    assert qwen.width % 28 == 0 and qwen.height % 28 == 0 and qwen.width * qwen.height <= 1280 * 28 * 28
    assert qwen.width / qwen.height == pytest.approx(16 / 9, rel=0.03)


def test_grid_answer_scores_zero_officially_and_well_as_a_grid() -> None:
    values = diagnosed("[750, 333]")
    assert values[score_key("official")] == 0.0
    assert values[score_key("grid1000")] == pytest.approx(1.0, abs=0.01)
    assert values[share_key("grid1000")] == 1.0
    assert sum(values[share_key(name)] for name in SHARE_NAMES) == 1.0


def test_grid_answer_outside_the_pixel_frame_is_a_grid_even_when_wrong() -> None:
    assert looks_like("[500, 950]") == "grid1000", "y in (900, 1000]: invalid as pixels, fine as a grid"


def test_a_plain_pixel_miss_counts_as_official() -> None:
    assert looks_like("[1500, 100]") == "official"


def test_normalised_box_is_unit_and_keeps_its_centre() -> None:
    answer = "[0.6875, 0.2222, 0.8125, 0.4444]"
    values = diagnosed(answer)
    assert values[score_key("official")] == 0.0, "the official rule floors the box centre to (0, 0)"
    assert values[score_key("unit")] > 0.99
    assert looks_like(answer) == "unit"


def test_gemini_order_and_resized_pixels_are_recognised() -> None:
    assert looks_like("[333, 750]") == "grid1000_yx"
    assert looks_like(f"[{1200 * 1456 / 1600:.0f}, {300 * 819 / 900:.0f}]") == "anthropic"
    assert looks_like(f"[{1200 * 1316 / 1600:.0f}, {300 * 728 / 900:.0f}]") == "qwen25vl"


def test_ties_go_to_the_official_reading() -> None:
    assert looks_like("[800, 450]", BOX) == "official"


def test_no_point_at_all() -> None:
    values = diagnosed(None)
    assert values[share_key("none")] == 1.0
    assert all(values[score_key(name)] == 0.0 for name in NAMES)
    assert looks_like("[1700, 2000]") == "none"


def test_keys_are_flat_floats_in_report_order() -> None:
    values = diagnosed("[750, 333]")
    assert tuple(values) == DIAGNOSTIC_KEYS
    assert all(isinstance(v, float) for v in values.values())
    assert "looks like `grid1000`" in describe(values)
    assert describe({}) == ""


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="[]0123456789.,- \n()abc", max_size=40))
def test_never_raises_and_reads_the_bracket_the_official_rule_reads(text: str) -> None:
    completion = f"<answer>{text}</answer>"
    verdict = score_point(completion, RIGHT_BOX)
    values = diagnose(verdict.answer, verdict.point, RIGHT_BOX)
    expected = verdict.score if verdict.valid else 0.0
    assert math.isclose(values[score_key("official")], expected)
    assert sum(values[share_key(name)] for name in SHARE_NAMES) == 1.0


LONG_BRACKET_BOUND_SECONDS = 30.0


def test_bracket_reading_stays_fast_on_a_long_unclosed_bracket() -> None:
    started = time.perf_counter()
    assert read_numbers("[" + " " * 200_000) is None
    # A bound far from both sides (milliseconds here, minutes for the official pattern), not a speed target.
    assert time.perf_counter() - started < LONG_BRACKET_BOUND_SECONDS, "the official pattern takes minutes on this"
