"""The slow tier's xdist groups (tests/conftest.py): every test reading a run-paying session fixture is put in that
fixture's group, so that under `--dist loadgroup` the fixture runs on one worker, once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import SLOW_TIER_FIRST, TESTS, XDIST_GROUPS, pytest_collection_modifyitems


@dataclass
class FakeItem:
    """What the hook reads of a collected test, and the markers it adds."""

    fixturenames: tuple[str, ...]
    path: Path = TESTS / "test_x.py"
    nodeid: str = "tests/test_x.py::test_x"
    markers: list[pytest.MarkDecorator] = field(default_factory=list)

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker)


def groups(item: FakeItem) -> list[str]:
    return [marker.args[0] for marker in item.markers]


def test_a_test_joins_the_group_of_the_session_runs_it_reads() -> None:
    chance, plain = FakeItem(("tmp_path", "surds_chance_log")), FakeItem(("tmp_path",))
    outside = FakeItem(("reference",), path=TESTS / "test_x.py")  # `reference` is the reliability folder's fixture
    pytest_collection_modifyitems([chance, plain, outside])  # type: ignore[list-item]
    assert groups(chance) == [XDIST_GROUPS[("", "surds_chance_log")]] and groups(plain) == groups(outside) == []


def test_a_test_reading_the_runs_of_two_groups_is_refused() -> None:
    """Its worker would pay again for the runs of one of the groups."""
    both = FakeItem(("surds_chance_log", "judge_meta_logs"))
    with pytest.raises(pytest.UsageError, match=r"test_x uses the session runs of several xdist groups"):
        pytest_collection_modifyitems([both])  # type: ignore[list-item]


def test_the_slow_tiers_first_units_are_groups_or_test_files() -> None:
    """A renamed group or file would silently lose its place at the front of the slow tier."""
    unknown = [name for name in SLOW_TIER_FIRST if name not in XDIST_GROUPS.values() and not (TESTS / name).is_file()]
    assert not unknown and len(set(SLOW_TIER_FIRST)) == len(SLOW_TIER_FIRST), unknown
