"""The prompt constants are the published templates, byte for byte."""

from pathlib import Path

import pytest

from drive_evals.surds.prompts import TEMPLATES

REFERENCE = Path(__file__).parents[1] / "data" / "surds-prompts.txt"
EXPECTED_LENGTHS = {"yaw": 692, "xy2d": 663, "depth": 762, "distance": 699, "left_right": 589, "front_behind": 679}


def reference_templates() -> dict[str, str]:
    templates: dict[str, str] = {}
    task = ""
    body_lines: list[str] | None = None
    for line in REFERENCE.read_text(encoding="utf-8").split("\n"):
        if line.startswith("===== TASK: "):
            task = line.split()[2]
        elif line == "<<<BEGIN>>>":
            body_lines = []
        elif line == "<<<END>>>":
            assert body_lines is not None
            templates[task] = "".join(part + "\n" for part in body_lines)
            body_lines = None
        elif body_lines is not None:
            body_lines.append(line)
    return templates


@pytest.mark.parametrize("subset", list(EXPECTED_LENGTHS))
def test_template_matches_reference(subset: str) -> None:
    assert TEMPLATES[subset] == reference_templates()[subset]
    assert len(TEMPLATES[subset]) == EXPECTED_LENGTHS[subset]


def test_trailing_spaces_kept() -> None:
    assert TEMPLATES["yaw"].startswith("Task Description: \n")
    assert "Options: \n" in TEMPLATES["yaw"]
    assert TEMPLATES["distance"].count("Question: \n") == 1
    assert all(t.endswith("</answer>\n") for t in TEMPLATES.values())
