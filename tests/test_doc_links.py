"""Every relative link in the README, CHANGELOG.md, CONTRIBUTING.md and docs/ reaches a file, and every #anchor a
heading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {github_anchor(h) for h in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8")))}


def broken_links(document: Path) -> list[str]:
    broken = []
    for target in LINK.findall(FENCE.sub("", document.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):  # http(s), mailto: not checked offline
            continue
        name, _, anchor = target.partition("#")
        path = (document.parent / name).resolve() if name else document
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading with that anchor")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(document: Path) -> None:
    assert broken_links(document) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n[ok](#title) [gone](missing.md) [bad](#nowhere)\n")
    assert broken_links(page) == ["missing.md: no such file", "#nowhere: no heading with that anchor"]


def test_the_comparing_page_quotes_the_example_report_as_it_is() -> None:
    """docs/comparing.md shows rows of docs/example-report.md; regenerating the example must carry them along."""
    example = (ROOT / "docs" / "example-report.md").read_text(encoding="utf-8").splitlines()
    quoted = (ROOT / "docs" / "comparing.md").read_text(encoding="utf-8").splitlines()
    rows = [line for line in quoted if line.startswith("| chance/random")]
    assert rows, "docs/comparing.md quotes no example row"
    assert [row for row in rows if row not in example] == []
