"""The seed-42 construction: evalscope's golden vector, official rules, determinism and counts."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from surds_fixtures import golden_lines, record

from drive_evals.surds.records import parse_metadata_lines, sort_by_file_name
from drive_evals.surds.units import SUBSETS, build_units, depth_ranges, format_depth_range, option_text


def test_golden_vector() -> None:
    units = build_units(parse_metadata_lines(golden_lines()))
    yaw, xy2d, depth = units["yaw"][0], units["xy2d"][0], units["depth"][0]
    assert (yaw.unit_id, yaw.targets, yaw.options) == ("yaw-0", ("North", "South"), ("South", "East", "West", "North"))
    assert (xy2d.unit_id, xy2d.targets, xy2d.bbox) == ("xy2d-0", ("[400, 450]",), (350, 400, 450, 500))
    assert depth.unit_id == "depth-0"
    assert depth.targets == ("Between 2 meters and 8 meters",)
    assert depth.options == (
        "Between 2 meters and 8 meters",
        "Between 13 meters and 16 meters",
        "Between 9 meters and 12 meters",
    )
    pair = ("The white car", "The adult wearing red clothes")
    assert (units["distance"][0].unit_id, units["distance"][0].targets) == ("distance-2-0-1", pair)
    assert (units["left_right"][0].unit_id, units["left_right"][0].targets) == ("left-right-2-0-1", pair)
    assert (units["front_behind"][0].unit_id, units["front_behind"][0].targets) == ("front-behind-2-0-1", ("No", "Yes"))


def test_prompts_are_filled_in_official_order() -> None:
    units = build_units(parse_metadata_lines(golden_lines()))
    yaw = units["yaw"][0]
    assert "The camera in the image is facing North," in yaw.prompts[0]
    assert "The camera in the image is facing South," in yaw.prompts[1]
    assert "Which direction is the white car facing" in yaw.prompts[0]
    assert "- South\n- East\n- West\n- North\n" in yaw.prompts[0]
    distance = units["distance"][0]
    assert "Which object, the white car or the adult wearing red clothes, is closer to" in distance.prompts[0]
    assert "is farther to the camera" in distance.prompts[1]
    assert "- The white car\n- The adult wearing red clothes\n- Almost the same\n" in distance.prompts[0]
    assert "Which is further right, the white car or" in units["left_right"][0].prompts[1]
    assert "Is the white car behind the adult wearing red clothes?" in units["front_behind"][0].prompts[1]


def test_capitalize_lowers_the_rest() -> None:
    assert option_text("the White VW van") == "The white vw van"


def test_ties_give_almost_the_same() -> None:
    multi = record("multi", ["car", "bus"], [0, 0])
    multi["distances"] = [10.0, 11.0]  # diff 1: inclusive tie
    multi["xy2Ds"] = [[400, 450], [499, 450]]  # diff 99 < 100
    multi["depths"] = [10.0, 10.49]  # diff < 0.5
    lines = [json.dumps(multi), json.dumps(record("s", ["truck"], [0]))]
    units = build_units(parse_metadata_lines(lines))
    assert units["distance"][0].targets == ("Almost the same", "Almost the same")
    assert units["left_right"][0].targets == ("Almost the same", "Almost the same")
    assert units["front_behind"][0].targets == ("Almost the same in terms of front-back position",) * 2


def test_not_quite_ties() -> None:
    multi = record("multi", ["car", "bus"], [0, 0])
    multi["distances"] = [12.0, 10.9]
    multi["xy2Ds"] = [[500, 450], [400, 450]]  # diff exactly 100: not a tie
    multi["depths"] = [10.5, 10.0]  # diff exactly 0.5: not a tie; first is farther = in front
    lines = [json.dumps(multi), json.dumps(record("s", ["truck"], [0]))]
    units = build_units(parse_metadata_lines(lines))
    assert units["distance"][0].targets == ("The bus", "The car")
    assert units["left_right"][0].targets == ("The bus", "The car")
    assert units["front_behind"][0].targets == ("Yes", "No")


def test_depth_range_branches() -> None:
    near_gold, near2, near3 = depth_ranges(3.0, random.Random(0))
    assert near2[0] > near_gold[1] and near3[0] > near2[1]
    far_gold, far2, far3 = depth_ranges(40.0, random.Random(0))
    assert far2[1] < far_gold[0] and far3[1] < far2[0]
    mid_gold, mid2, mid3 = depth_ranges(10.0, random.Random(0))
    assert mid2[1] < mid_gold[0] and mid3[0] > mid_gold[1]
    assert depth_ranges(0.5, random.Random(0))[0][0] == 1
    assert format_depth_range([1, 7]) == "Between 1 meter and 7 meters"


def test_yaw_family_follows_gold() -> None:
    singles = [record("s", ["car"], [0], yaw="Southwest"), record("t", ["bus"], [1], yaw="Northeast")]
    lines = [json.dumps(r) for r in [*singles, record("m", ["a", "b"], [0, 1])]]
    yaw = build_units(parse_metadata_lines(lines))["yaw"][0]
    assert set(yaw.options) == {"Northeast", "Southeast", "Northwest", "Southwest"}
    assert yaw.targets in {("Southwest", "Northeast"), ("Northeast", "Southwest")}


def test_sorted_order_changes_selection() -> None:
    lines = [json.dumps(record(f"s{9 - i}", [f"obj{i}"], [i % 3])) for i in range(8)]
    lines.append(json.dumps(record("m0", ["a", "b", "c"], [0, 1, 2])))
    records = parse_metadata_lines(lines)
    by_line = {u.image for u in build_units(records)["yaw"]}
    by_name = {u.image for u in build_units(sort_by_file_name(records))["yaw"]}
    assert by_line != by_name
    assert len(by_line) == len(by_name) == 3


objects = st.integers(min_value=1, max_value=4)


@settings(max_examples=40, deadline=None)
@given(st.lists(objects, min_size=2, max_size=14), st.integers(min_value=0, max_value=6))
def test_counts_and_determinism(object_counts: list[int], extra_singles: int) -> None:
    lines = []
    for index, count in enumerate(object_counts):
        ks = list(range(count))
        lines.append(json.dumps(record(f"r{index}", [f"object {k}" for k in ks], ks, camera="CAM_BACK")))
    pairs = sum(n * (n - 1) // 2 for n in object_counts)
    singles = max(pairs, 1) + extra_singles
    lines += [json.dumps(record(f"single{i}", [f"thing {i}"], [i % 4])) for i in range(singles)]
    records = parse_metadata_lines(lines)
    first, second = build_units(records), build_units(records)
    assert first == second
    for subset in SUBSETS:
        assert len(first[subset]) == pairs
    assert len({u.unit_id for subset in SUBSETS for u in first[subset]}) == 6 * pairs
    assert len({u.record_index for u in first["yaw"]}) == pairs
