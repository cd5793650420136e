"""Judge-reply parsing never raises and is never stricter than the official `ast.literal_eval` parser: twelve
finite numbers, as JSON or as a Python literal, a value outside [1, 10] counted as given and flagged."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.util import json_schema
from pydantic import ValidationError

from drive_evals.drivelmm_o1.prompts import CRITERIA, JUDGE_SCHEMA_KEYS, OVERALL_SCORE_KEY
from drive_evals.drivelmm_o1.rubric import (
    EMPTY,
    INVALID_JSON,
    MISSING_KEYS,
    NON_NUMERIC,
    EvaluationScores,
    criterion_fractions,
    find_json_object,
    judge_overall,
    parse_judge_reply,
    reasoning_score,
    rubric_table,
)

SCORES = [6.0, 6.5, 7.0, 7.5, 8.0, 7.0, 8.5, 7.5, 7.0, 8.5, 8.5, 7.0]

LINEAR_TIME_BOUND_S = 10.0
"""A parser that backtracks or rescans takes minutes on these inputs; the honest parse of the slower one took
0.29 s at load average 13 on 2 cores (the megabyte of garbage 0.01 s), so this fails only on a real regression."""


def reply(**overrides: Any) -> dict[str, Any]:
    """The protocol's example reply, with some keys replaced (None removes a key)."""
    values: dict[str, Any] = dict(zip(CRITERIA, SCORES, strict=True))
    values[OVERALL_SCORE_KEY] = 7.42
    for key, value in overrides.items():
        name = key.replace("_", " ")
        if value is None:
            values.pop(name, None)
        else:
            values[name] = value
    return values


def test_valid_reply() -> None:
    parsed = parse_judge_reply(json.dumps(reply()))
    assert parsed.ok
    assert parsed.error is None
    assert parsed.scores == dict(zip(CRITERIA, SCORES, strict=True))
    assert list(parsed.scores) == list(CRITERIA)
    assert parsed.reported_overall == 7.42


def test_prose_around_json() -> None:
    text = "Here is my evaluation.\n" + json.dumps(reply(), indent=2) + "\nThe response was decent."
    assert parse_judge_reply(text).ok


def test_fenced_json() -> None:
    text = "```json\n" + json.dumps(reply(), indent=2) + "\n```"
    assert parse_judge_reply(text).scores["Hallucination"] == 8.5


def test_alias_key_is_mapped() -> None:
    values = reply(Commonsense=None)
    values["Commonsense Reasoning"] = 4.0
    parsed = parse_judge_reply(json.dumps(values))
    assert parsed.ok
    assert parsed.scores["Commonsense"] == 4.0


def test_schema_key_wins_over_alias() -> None:
    values = reply(Commonsense=5.0)
    values["Commonsense Reasoning"] = 99
    parsed = parse_judge_reply(json.dumps(values))
    assert parsed.ok
    assert parsed.scores["Commonsense"] == 5.0


def test_integers_accepted_and_extra_keys_ignored() -> None:
    values = {key: 7 for key in CRITERIA} | {"Comment": "fine", OVERALL_SCORE_KEY: 7}
    parsed = parse_judge_reply(json.dumps(values))
    assert parsed.ok
    assert all(isinstance(score, float) for score in parsed.scores.values())
    assert parsed.reported_overall == 7.0


def test_missing_keys_are_listed_in_schema_order() -> None:
    parsed = parse_judge_reply(json.dumps(reply(Relevance=None, Hallucination=None)))
    assert not parsed.ok
    assert parsed.scores == {}
    assert parsed.error == f"{MISSING_KEYS}: ['Hallucination', 'Relevance']"


@pytest.mark.parametrize("value", [0, 0.99, 10.01, 11, -3, 100])
def test_out_of_range_counts_as_given_and_is_flagged(value: float) -> None:
    """The official script averages what the judge gave: 0 and 11 included."""
    parsed = parse_judge_reply(json.dumps(reply(Relevance=value)))
    assert parsed.ok
    assert parsed.scores["Relevance"] == value
    assert parsed.out_of_range == {"Relevance": value}


def test_python_literal_dict_is_read_as_the_official_parser_reads_it() -> None:
    literal = repr(reply())  # single quotes: not JSON
    with pytest.raises(json.JSONDecodeError):
        json.loads(literal)
    parsed = parse_judge_reply(literal)
    assert parsed.ok and parsed.scores == dict(zip(CRITERIA, SCORES, strict=True))
    assert parsed.reported_overall == 7.42 and parsed.out_of_range == {}


@pytest.mark.parametrize("text", ["{'Relevance': 7", "{'a': undefined_name}", "print('x')", "{'a': 1} trailing"])
def test_what_literal_eval_rejects_is_still_invalid(text: str) -> None:
    assert parse_judge_reply(text).error == INVALID_JSON


@pytest.mark.parametrize("value", [1, 1.0, 10, 10.0])
def test_range_is_inclusive(value: float) -> None:
    assert parse_judge_reply(json.dumps(reply(Relevance=value))).ok


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "true", "false", "null", '"7.5"', "[7]", "{}"])
def test_non_numeric_values(literal: str) -> None:
    text = json.dumps(reply(Relevance=123456)).replace("123456", literal)
    parsed = parse_judge_reply(text)
    assert not parsed.ok
    assert parsed.error is not None
    assert parsed.error.startswith(f"{NON_NUMERIC}: {{'Relevance': ")


def test_huge_integer_is_non_numeric() -> None:
    text = json.dumps(reply(Relevance=123456)).replace("123456", "9" * 400)
    assert parse_judge_reply(text).error == f"{NON_NUMERIC}: {{'Relevance': '{'9' * 37}...'}}"


def test_several_problems_are_joined() -> None:
    parsed = parse_judge_reply(json.dumps(reply(Relevance=None, Hallucination="high", Commonsense=12)))
    assert parsed.error == f"{MISSING_KEYS}: ['Relevance']; {NON_NUMERIC}: {{'Hallucination': \"'high'\"}}"


def test_long_bogus_value_is_truncated_in_reason() -> None:
    parsed = parse_judge_reply(json.dumps(reply(Relevance="x" * 10_000)))
    assert parsed.error is not None
    assert len(parsed.error) < 100


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_empty(text: str) -> None:
    assert parse_judge_reply(text).error == EMPTY


@pytest.mark.parametrize("text", ["no json here", "{not json}", "[1, 2, 3]", '{"unterminated": 1', "}{"])
def test_invalid_json(text: str) -> None:
    assert parse_judge_reply(text).error == INVALID_JSON


def test_overall_score_is_optional_and_unchecked() -> None:
    parsed = parse_judge_reply(json.dumps(reply(Overall_Score=None)))
    assert parsed.ok
    assert parsed.reported_overall is None
    odd = parse_judge_reply(json.dumps(reply(Overall_Score=42)))
    assert odd.ok
    assert odd.reported_overall == 42.0 and odd.out_of_range == {OVERALL_SCORE_KEY: 42.0}
    assert judge_overall(odd.reported_overall) == 4.2, "counted as given, as the official script does"
    assert parse_judge_reply(json.dumps(reply(Overall_Score="7"))).reported_overall is None


def test_braces_inside_strings_and_prose() -> None:
    values = reply()
    values["note"] = "scores use {curly} braces } {"
    text = "Template {placeholder} first, then: " + json.dumps(values)
    parsed = parse_judge_reply(text)
    assert parsed.ok
    assert parsed.reported_overall == 7.42


def test_nested_object_is_not_searched() -> None:
    """The first object that decodes is the outer one; its criteria are required at the top level."""
    parsed = parse_judge_reply(json.dumps({"scores": reply()}))
    assert parsed.error is not None
    assert parsed.error.startswith(MISSING_KEYS)


def test_first_of_two_objects_wins() -> None:
    first, second = reply(Relevance=2.0), reply(Relevance=9.0)
    assert parse_judge_reply(json.dumps(first) + "\n" + json.dumps(second)).scores["Relevance"] == 2.0
    partial = parse_judge_reply('{"draft": true}\n' + json.dumps(second))
    assert partial.error is not None
    assert partial.error.startswith(MISSING_KEYS)


def test_megabyte_of_garbage_is_fast_and_safe() -> None:
    rng = random.Random(0)
    garbage = "".join(rng.choice('{}[]":,0123456789abc \n') for _ in range(1_000_000))
    start = time.perf_counter()
    parsed = parse_judge_reply(garbage)
    assert time.perf_counter() - start < LINEAR_TIME_BOUND_S
    assert not parsed.ok


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deep_nesting_does_not_raise(opener: str) -> None:
    assert parse_judge_reply("{" + '"a":' + opener * 200_000).error == INVALID_JSON


def test_many_unterminated_objects_stay_bounded() -> None:
    text = '{"a": [' * 50_000 + json.dumps(reply())
    start = time.perf_counter()
    assert not parse_judge_reply(text).ok
    assert time.perf_counter() - start < LINEAR_TIME_BOUND_S


def test_find_json_object() -> None:
    assert find_json_object('x {"a": {"b": 1}} y') == {"a": {"b": 1}}
    assert find_json_object("{bad} {}") == {}
    assert find_json_object("nothing") is None


@given(st.text())
def test_parser_never_raises(text: str) -> None:
    parsed = parse_judge_reply(text)
    assert parsed.ok == (parsed.error is None)


@given(
    st.dictionaries(
        st.sampled_from([*JUDGE_SCHEMA_KEYS, "Commonsense Reasoning", "x"]),
        st.one_of(st.floats(), st.integers(), st.booleans(), st.none(), st.text(max_size=5)),
    )
)
def test_parser_on_arbitrary_score_objects(values: dict[str, Any]) -> None:
    parsed = parse_judge_reply(json.dumps(values))
    if parsed.ok:
        assert set(parsed.scores) == set(CRITERIA)
        outside = {k: v for k, v in parsed.scores.items() if not 1.0 <= v <= 10.0}
        assert outside.items() <= parsed.out_of_range.items()
    else:
        assert parsed.scores == {}
        assert parsed.reported_overall is None


def test_reasoning_score_and_fractions() -> None:
    scores = dict(zip(CRITERIA, SCORES, strict=True))
    assert reasoning_score(scores) == pytest.approx(sum(SCORES) / 12 / 10)
    assert reasoning_score(dict.fromkeys(CRITERIA, 1.0)) == pytest.approx(0.1)
    assert reasoning_score(dict.fromkeys(CRITERIA, 10.0)) == pytest.approx(1.0)
    fractions = criterion_fractions(scores)
    assert list(fractions) == list(CRITERIA)
    assert fractions["Faithfulness-Step"] == pytest.approx(0.6)


@pytest.mark.parametrize(("reported", "expected"), [(7.42, 0.742), (1.0, 0.1), (10.0, 1.0), (0.5, 0.05), (None, None)])
def test_judge_overall(reported: float | None, expected: float | None) -> None:
    assert judge_overall(reported) == expected


@pytest.mark.parametrize(("given", "stored"), [(9.4, 0.94), (2.3, 0.23), (7.42, 0.742), (0.3, 0.03), (11, 1.1)])
def test_fractions_are_the_judges_numbers_exactly(given: float, stored: float) -> None:
    """9.4 / 10 in binary floats is 0.9400000000000001; the stored value reads as the judge's 9.4 does."""
    fractions = criterion_fractions(dict.fromkeys(CRITERIA, given))
    assert repr(fractions["Relevance"]) == repr(stored)
    assert repr(judge_overall(given)) == repr(stored)


def test_rubric_table() -> None:
    scores = dict(zip(CRITERIA, SCORES, strict=True))
    table = rubric_table(scores, 7.42)
    lines = table.splitlines()
    assert lines[:2] == ["| Criterion | Score (1-10) |", "|---|---|"]
    assert lines[2] == "| Faithfulness-Step | 6 |"
    assert "| Scene Awareness & Object Understanding | 8 |" in lines
    assert lines[-2] == f"| **Mean of the 12 (computed)** | {sum(SCORES) / 12:.2f} |"
    assert lines[-1] == "| Overall Score (judge) | 7.42 |"
    assert len(lines) == 2 + 12 + 2
    assert rubric_table(scores, None).endswith("| Overall Score (judge) | not reported |")


def test_evaluation_scores_schema_is_strict() -> None:
    schema = json_schema(EvaluationScores)
    assert schema.type == "object"
    assert schema.properties is not None
    assert list(schema.properties) == list(JUDGE_SCHEMA_KEYS)
    assert all(prop.type == "number" for prop in schema.properties.values())
    assert schema.required == list(JUDGE_SCHEMA_KEYS)
    assert schema.additionalProperties is False


def test_evaluation_scores_model_validates_by_alias() -> None:
    model = EvaluationScores.model_validate(reply())
    assert model.commonsense == 7.0
    assert model.overall_score == 7.42
    assert list(model.model_dump(by_alias=True)) == list(JUDGE_SCHEMA_KEYS)
    with pytest.raises(ValidationError):
        EvaluationScores.model_validate(reply(extra=1.0))
    with pytest.raises(ValidationError):
        EvaluationScores.model_validate(reply(Relevance=None))
