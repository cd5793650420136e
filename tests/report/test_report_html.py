"""The report's files: a self-contained HTML page that renders in headless Chromium cleanly, PNG plots, the CLI."""

from __future__ import annotations

import io
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from drive_evals.cli import main

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LOCAL_SCHEMES = ("file:", "data:")
BREAKDOWN_DIMENSIONS = {
    "surds": (
        "camera",
        "object-category",
        "object-depth",
        "box-area",
        "pair-categories",
        "pair-depth-gap",
        "pair-x-gap",
        "pair-distance-gap",
        "outcome",
    ),
    "drivelmm_o1": ("question-number", "city", "judge-outcome", "mcq-outcome"),
}
EXPECTED_PLOTS = {"surds-scores.png", "drivelmm_o1-headline.png", "drivelmm_o1-rubric-criteria.png"} | {
    f"{benchmark}-breakdown-{dimension}.png"
    for benchmark, dimensions in BREAKDOWN_DIMENSIONS.items()
    for dimension in dimensions
}
BREAKDOWN_SECTION = "SURDS: where models fail"


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_SIGNATURE)
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.slow  # subprocess runs and a browser
def test_html_renders_without_errors_or_network(report_run: Any, load_page: Any) -> None:
    page = report_run.out_dir / "report.html"
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"(?!data:)", text), "the page must not reference other files or hosts"
    assert text.count('src="data:image/png;base64,') == len(EXPECTED_PLOTS)
    loaded = load_page(page)
    assert loaded.errors() == []
    assert all(url.startswith(LOCAL_SCHEMES) for url in loaded.requested_urls()), loaded.requested_urls()
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "report-html.png").write_bytes(loaded.screenshot)
    width, height = png_size(loaded.screenshot)
    assert width > 500 and height > 2000, "the whole page, tables and plots, is in the screenshot"
    assert loaded.content_width <= loaded.window_width, "every table fits the window without sideways scrolling"
    headings = [text for text, _ in loaded.headings]
    assert headings == ["At a glance", "SURDS", BREAKDOWN_SECTION, "DriveLMM-o1", "DriveLMM-o1: where models fail"]
    top, bottom = (top for text, top in loaded.headings[2:4])
    with Image.open(io.BytesIO(loaded.screenshot)) as page_image:
        section = page_image.crop((0, int(top), page_image.width, int(bottom)))
        section.save(ARTIFACTS / "report-html-breakdown.png")
    assert section.height > 1500, "the SURDS breakdown section holds its table and nine plots"


@pytest.mark.slow  # a browser
def test_the_page_checker_sees_errors(tmp_path: Path, load_page: Any) -> None:
    """The check above is only worth something if a broken page fails it."""
    page = tmp_path / "broken.html"
    page.write_text('<!doctype html><script>console.error("boom")</script><img src="missing.png">', encoding="utf-8")
    loaded = load_page(page)
    assert any("boom" in error for error in loaded.errors())
    assert any("missing.png" in url for url in loaded.requested_urls())


@pytest.mark.slow  # reads the session's `inspect` subprocess runs
def test_plots_and_files(report_run: Any) -> None:
    out = report_run.out_dir
    assert {p.name for p in (out / "images").iterdir()} == EXPECTED_PLOTS
    for name in EXPECTED_PLOTS:
        width, height = png_size((out / "images" / name).read_bytes())
        assert width > 400 and height > 200
    report = (out / "report.md").read_text(encoding="utf-8")
    assert all(f"](images/{name})" in report for name in EXPECTED_PLOTS)
    assert {p.name for p in out.glob("*.csv")} == {
        "surds-scores.csv",
        "surds-paired.csv",
        "surds-breakdown.csv",
        "surds-breakdown-paired.csv",
        "drivelmm_o1-scores.csv",
        "drivelmm_o1-paired.csv",
        "drivelmm_o1-breakdown.csv",
        "drivelmm_o1-breakdown-paired.csv",
        "all-metrics.csv",
    }
    assert "wrote" in report_run.stdout


def test_cli_reports_an_empty_directory(tmp_path: Path, capsys: Any) -> None:
    assert main(["report", str(tmp_path), "--out", str(tmp_path / "out")]) == 1
    assert "no finished logs of SURDS, DriveLMM-o1, DriveBench, VLADBench" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing")]) == 1
