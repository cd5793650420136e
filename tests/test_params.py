"""Every task parameter is checked before anything is downloaded or a model is called; errors name it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from fakeserver.offline import refuse_other_hosts

from drive_evals.drivelmm_o1.judge_meta import drivelmm_o1_judge
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.errors import ParameterError
from drive_evals.params import choice, flag, optional_text, positive, reject_unknown, text, whole
from drive_evals.surds.task import surds


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A check that ran after a download would fail on name resolution instead of with a ParameterError."""
    refuse_other_hosts(monkeypatch)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")


def task_of(name: str, **values: Any) -> None:
    """A task function that takes **kwargs and refuses what it does not declare, as the three tasks do."""

    def surds_like(data: str = "demo", subsets: str | None = None, **kwargs: object) -> None:
        reject_unknown(surds_like, kwargs)

    surds_like.__name__ = name
    surds_like(**values)


def test_unknown_name_lists_valid_names_and_a_close_match() -> None:
    with pytest.raises(ParameterError) as raised:
        task_of("surds", subset="yaw")
    message = str(raised.value)
    assert message.startswith("surds: unknown parameter 'subset' (did you mean 'subsets'?)")
    assert message.endswith("valid parameters are data, subsets")


def test_unknown_names_without_a_close_match() -> None:
    with pytest.raises(ParameterError, match=r"unknown parameter 'zzz', 'qqq'; valid parameters are data, subsets"):
        task_of("surds", zzz=1, qqq=2)


def test_known_names_pass() -> None:
    task_of("surds", data="demo", subsets="yaw")


@pytest.mark.parametrize(
    ("check", "value", "message"),
    [
        (lambda v: choice("record_order", v, ("metadata", "sorted")), "random", "valid values are metadata, sorted"),
        (lambda v: choice("record_order", v, ("metadata", "sorted")), 3, "record_order=3: valid values"),
        (lambda v: flag("blind", v), "maybe", "blind='maybe': valid values are true, false"),
        (lambda v: flag("blind", v), 1, "blind=1: valid values are true, false"),
        (lambda v: whole("records", v, 1), 0, "records=0: expected a whole number of at least 1"),
        (lambda v: whole("records", v, 1), "ten", "records='ten'"),
        (lambda v: whole("records", v, 1), True, "records=True"),
        (lambda v: whole("records", v, 1), 2.5, "records=2.5"),
        (lambda v: positive("lidar_range_m", v), 0, "lidar_range_m=0: expected a finite number above 0"),
        (lambda v: positive("lidar_range_m", v), float("inf"), "lidar_range_m=inf"),
        (lambda v: positive("lidar_range_m", v), "far", "lidar_range_m='far'"),
        (lambda v: text("data", v), 5, "data=5: expected a non-empty string"),
        (lambda v: text("data", v), " ", "data=' '"),
        (lambda v: optional_text("revision", v), 1234, "revision=1234"),
    ],
)
def test_value_checks_name_the_parameter(check: Callable[[object], object], value: object, message: str) -> None:
    with pytest.raises(ParameterError) as raised:
        check(value)
    assert message in str(raised.value)


def test_value_checks_pass_valid_values() -> None:
    assert choice("record_order", "sorted", ("metadata", "sorted")) == "sorted"
    assert flag("blind", False) is False
    assert whole("records", 3, 1) == 3
    assert positive("lidar_range_m", 50) == 50.0
    assert optional_text("revision", None) is None


# Each case runs against the default hub source: a check made after the download would fail offline instead.
SURDS_CASES: list[tuple[dict[str, Any], str]] = [
    ({"subset": "yaw"}, "did you mean 'subsets'"),
    ({"subsets": "yaw,height"}, "subsets: unknown subset(s) ['height']; valid subsets are yaw, xy2d"),
    ({"subsets": 5}, "subsets=5: valid subsets are yaw"),
    ({"record_order": "random"}, "record_order='random': valid values are metadata, sorted"),
    ({"blind": "maybe"}, "blind='maybe'"),
    ({"data": 7}, "data=7"),
    ({"revision": 20240101}, "revision=20240101"),
]
DRIVELMM_O1_CASES: list[tuple[dict[str, Any], str]] = [
    ({"judge_atempts": 2}, "did you mean 'judge_attempts'"),
    ({"image_mode": "mosaic"}, "image_mode='mosaic': valid values are grid, views"),
    ({"cell_size": 800}, "cell_size=800: expected WIDTHxHEIGHT"),
    ({"cell_size": "800x"}, "cell_size='800x'"),
    ({"lidar": "yes please"}, "lidar='yes please'"),
    ({"lidar_range_m": -5}, "lidar_range_m=-5"),
    ({"lidar_resolution_m": "fine"}, "lidar_resolution_m='fine'"),
    ({"lidar_range_m": 100, "lidar_resolution_m": 0.001}, "200000 px per side (min 1, max 8192)"),
    ({"judge": "on please"}, "judge='on please'"),
    ({"judge_attempts": 0}, "judge_attempts=0: expected a whole number of at least 1"),
    ({"judge_error_limit": 0}, "judge_error_limit=0"),
    ({"blind": 2}, "blind=2"),
    ({"nuscenes_root": "/no/such/folder", "judge": False}, "nuscenes_root='/no/such/folder' is not a directory"),
]
JUDGE_CASES: list[tuple[dict[str, Any], str]] = [
    ({"record": 5}, "did you mean 'records'"),
    ({"records": 0}, "records=0: expected a whole number of at least 1"),
    ({"records": "all"}, "records='all'"),
    ({"judge_attempts": -1}, "judge_attempts=-1"),
    ({"judge_error_limit": "never"}, "judge_error_limit='never'"),
]


@pytest.mark.parametrize(("args", "message"), SURDS_CASES)
def test_surds_parameters(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError) as raised:
        surds(**args)
    assert message in str(raised.value)


@pytest.mark.parametrize(("args", "message"), DRIVELMM_O1_CASES)
def test_drivelmm_o1_parameters(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError) as raised:
        drivelmm_o1(**args)
    assert message in str(raised.value)


@pytest.mark.parametrize(("args", "message"), JUDGE_CASES)
def test_drivelmm_o1_judge_parameters(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ParameterError) as raised:
        drivelmm_o1_judge(**args)
    assert message in str(raised.value)


def test_lidar_settings_are_checked_even_with_lidar_off() -> None:
    with pytest.raises(ParameterError, match="lidar_resolution_m=0"):
        drivelmm_o1(data="demo", judge=False, lidar=False, lidar_resolution_m=0)


def test_a_sibling_tasks_parameter_is_a_warning_not_an_error(caplog: pytest.LogCaptureFixture) -> None:
    """Inspect gives every -T of a command to every task: `-T record_order=sorted` with surds and drivelmm_o1."""
    with caplog.at_level(logging.WARNING):
        reject_unknown(drivelmm_o1, {"record_order": "sorted"})
    assert "record_order is a parameter of surds only" in caplog.text
    with pytest.raises(ParameterError, match="unknown parameter 'record_ordr'"):
        reject_unknown(drivelmm_o1, {"record_order": "sorted", "record_ordr": "sorted"})
