"""The stop parameters: parsed before any call, each bad value named; the decisions each rule reads."""

from __future__ import annotations

import pytest

from drive_evals.errors import ParameterError
from drive_evals.stopping.rule import FULL, UNDECIDED, parse_plan


def test_no_rule_no_plan() -> None:
    assert parse_plan(None) is None


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"stop": "precision"}, "stop="),
        ({"stop": "median:0.5"}, "unknown rule 'median'"),
        ({"stop": "above:60"}, "stop=60.0"),
        ({"stop": "above:x"}, "'x' is not a number"),
        ({"stop": "vs:"}, "name the finished log"),
        ({"stop": "above:0.6", "alpha": 0.7}, "stop_alpha"),
        ({"stop": "above:0.6", "seed": -1}, "stop_seed"),
        ({"stop": "above:0.6", "min_clusters": 0}, "stop_min_clusters"),
        ({"stop": "above:0.6", "budget": "120%"}, "stop_budget"),
        ({"stop": "above:0.6", "margin": 0.02}, "stop_margin"),
        ({"stop": "above:0.6", "shadow": "yes"}, "stop_shadow"),
        ({"stop": None, "shadow": True}, "stop_shadow"),
    ],
)
def test_bad_values_name_their_parameter(arguments: dict[str, object], named: str) -> None:
    with pytest.raises(ParameterError, match=named):
        parse_plan(**arguments)


def test_gate_decisions_and_the_minimum() -> None:
    plan = parse_plan("above:0.6", min_clusters=10)
    assert plan is not None
    assert plan.decide(0.61, 0.9, seen=9, population=100) is None  # before the minimum
    assert plan.decide(0.61, 0.9, seen=10, population=100) == "above 0.6"
    assert plan.decide(0.2, 0.59, seen=10, population=100) == "below 0.6"
    assert plan.decide(0.5, 0.7, seen=10, population=100) is None


def test_paired_decisions_budget_and_margin() -> None:
    plan = parse_plan("vs:other.eval", margin=0.02, budget="50%")
    assert plan is not None and plan.paired
    assert plan.decide(0.01, 0.2, 20, 100) == "better"
    assert plan.decide(-0.2, -0.01, 20, 100) == "worse"
    assert plan.decide(-0.015, 0.01, 20, 100) == "equivalent within +-0.02"
    assert plan.decide(-0.1, 0.1, 49, 100) is None
    assert plan.decide(-0.1, 0.1, 50, 100) == UNDECIDED
    whole = parse_plan("vs:other.eval")
    assert whole is not None and whole.decide(-0.1, 0.1, 100, 100) == FULL


def test_precision() -> None:
    plan = parse_plan("precision:0.05")
    assert plan is not None
    assert plan.decide(0.40, 0.50, 10, 100) == "half-width at most 0.05"
    assert plan.decide(0.40, 0.51, 10, 100) is None
