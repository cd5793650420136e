"""The docs name only what exists: every relative link in the README, CHANGELOG.md, CONTRIBUTING.md and docs/ reaches a
file and every #anchor a heading; every repository path and test id in a code span exists; no page carries a path of
the machine it was written on.

Which code spans are checked (in README.md, CONTRIBUTING.md, benchmarks/README.md and docs/*.md, outside fenced
blocks; each whitespace-separated word of a span, so `python benchmarks/run_all.py` checks its path):
- a word starting with a top-level folder of this repository (`src/`, `tests/`, `tools/`, `benchmarks/`, `docs/`,
  `examples/`, `.ci/`, `.github/`) names that file or folder;
- `drive_evals/x.py` and a path under one of the package's folders (`cli/merge.py`, `surds/`) name a file or
  folder under src/drive_evals/ (task names such as `drive_evals/surds` are not paths: no `.py`, no trailing `/`);
- a bare `test_*.py` names a file somewhere under tests/;
- `path::name` (`tests/x.py::test_y`, `test_y.py::TestZ::test_w[case]`) also names a test function or class defined
  in that file.
Not checked, on purpose: words holding a placeholder or glob (`<`, `>`, `*`, `?`, `{`, `$`, `~`, `...`:
`logs/<log>.eval`, `tests/<name>/`), other bare file names (`eval_from_json.py`: the official code's files share
these shapes), and a path in another repository, which is written with the repository in front
(`worldbench/drivebench:tools/preprocess.py`).
Absolute paths under /work, /tmp, /root or /home are refused anywhere in those pages, fences included: a page made on
one machine must read the same on another (use a relative path or a placeholder).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
CHECKED_SPANS = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
"""The pages whose code spans name repository paths (CHANGELOG.md is history: it names what existed then)."""
SOURCE = ROOT / "src" / "drive_evals"
TOP_FOLDERS = ("src/", "tests/", "tools/", "benchmarks/", "docs/", "examples/", ".ci/", ".github/")
PACKAGE_FOLDERS = tuple(f"{d.name}/" for d in sorted(SOURCE.iterdir()) if d.is_dir() and not d.name.startswith("_"))
PLACEHOLDER = re.compile(r"[<>*?{}$~]|\.\.\.|…")
SPAN = re.compile(r"`([^`]+)`")
MACHINE_PATH = re.compile(r"(?<![\w.:/~-])/(?:work|tmp|root|home)/[^\s`),;]*")
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


def repository_path(word: str) -> Path | None:
    """The file or folder a code-span word names in this repository, or None when the word is not such a path."""
    if word.startswith(TOP_FOLDERS):
        return ROOT / word
    if word.startswith("drive_evals/") and (word.endswith((".py", "/"))):
        return ROOT / "src" / word
    if word.startswith(PACKAGE_FOLDERS):
        return SOURCE / word
    return None


def files_under_tests(name: str) -> list[Path]:
    """Every file under tests/ of that name (a bare `test_x.py` may name any)."""
    return sorted((ROOT / "tests").rglob(name))


def defines(path: Path, name: str) -> bool:
    """Whether the module defines a function or class of that name (a parametrized id's `[case]` dropped)."""
    bare = name.split("[", 1)[0]
    definition = re.compile(rf"^\s*(?:async def|def|class) {re.escape(bare)}\b", re.MULTILINE)
    return definition.search(path.read_text(encoding="utf-8")) is not None


def stale_spans(text: str) -> list[str]:
    """The code-span words of a page that name a repository path or test that does not exist (rules: module doc)."""
    stale = []
    for span in SPAN.findall(FENCE.sub("", text)):
        for word in span.split():
            if PLACEHOLDER.search(word):
                continue
            word = word.lstrip("('\"").rstrip(",;:.)'\"")  # prose around the word, not a leading `.ci/`
            path_part, *names = word.split("::")
            if re.match(r"test_\w+\.py$", path_part):
                candidates = files_under_tests(path_part)
            elif (path := repository_path(path_part)) is not None:
                candidates = [path] if path.exists() else []
            else:
                continue
            if not candidates:
                stale.append(f"`{word}`: no such file")
            elif names and not any(c.is_file() and all(defines(c, n) for n in names) for c in candidates):
                stale.append(f"`{word}`: no such test")
    return stale


def machine_paths(text: str) -> list[str]:
    return MACHINE_PATH.findall(text)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(document: Path) -> None:
    assert broken_links(document) == []


@pytest.mark.parametrize("document", CHECKED_SPANS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_spans_name_existing_paths_and_tests(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    assert stale_spans(text) == []
    assert machine_paths(text) == [], "absolute paths of one machine: use a relative path or a placeholder"


def test_a_stale_path_a_renamed_test_and_a_machine_path_are_found() -> None:
    page = (
        "See `src/drive_evals/gone.py`, `cli/merge.py`, `cli/nowhere.py`, `drive_evals/merge.py`, `.ci/gone`,"
        " `tests/test_doc_links.py`, `.ci/run` and `python tools/missing.py --x`;"
        " `test_doc_links.py::test_a_broken_link_is_found` passes,"
        " `tests/test_doc_links.py::test_renamed` and `test_gone.py::test_x` do not. Not paths: `drive_evals/surds`,"
        " `logs/<log>.eval`, `tests/<name>/`, `src/drive_evals/*/task.py`, `eval_from_json.py`,"
        " `worldbench/drivebench:tools/preprocess.py`.\n```bash\npython tools/fenced_away.py\n```\n"
        "Made in /work/wt/x/docs and `/tmp/run`; not https://example.org/home/page.\n"
    )
    assert stale_spans(page) == [
        "`src/drive_evals/gone.py`: no such file",
        "`cli/nowhere.py`: no such file",
        "`drive_evals/merge.py`: no such file",
        "`.ci/gone`: no such file",
        "`tools/missing.py`: no such file",
        "`tests/test_doc_links.py::test_renamed`: no such test",
        "`test_gone.py::test_x`: no such file",
    ]
    assert machine_paths(page) == ["/work/wt/x/docs", "/tmp/run"]


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
