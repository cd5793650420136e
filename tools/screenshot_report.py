"""Screenshot the first screen of `drive-evals report`'s HTML page: from the top to the first benchmark's section.

    python tools/screenshot_report.py REPORT_DIR/report.html OUT.png [--width 1400] [--full]

Drives a headless Chromium over the DevTools pipe (tests/devtools.py; `.ci/browser` finds or installs one), as the
report's HTML test does, and clips the page at the second h2 (the first is "At a glance"), or with --full takes the
whole page. Look at the result.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from devtools import CHROMIUM_NAMES, find_chromium, headless_chromium  # tests/devtools.py

LOAD_SECONDS = 120
WINDOW_HEIGHT = 900
SECOND_HEADING = (
    "(() => { const h = document.querySelectorAll('h2'); "
    "return h.length > 1 ? h[1].getBoundingClientRect().top + window.scrollY : document.body.scrollHeight; })()"
)
PAGE_HEIGHT = "document.documentElement.scrollHeight"


def first_screen(page: Path, width: int, full: bool = False) -> bytes:
    """PNG of `page` from its top to its second h2 (or its end), `width` CSS pixels wide."""
    with headless_chromium(find_chromium() or CHROMIUM_NAMES[0], LOAD_SECONDS) as pipe:
        session = pipe.open_tab(width, WINDOW_HEIGHT)
        pipe.call("Page.enable", session=session)
        pipe.call("Page.navigate", {"url": page.resolve().as_uri()}, session)
        pipe.wait_for("Page.loadEventFired", time.monotonic() + LOAD_SECONDS)
        found = pipe.call(
            "Runtime.evaluate", {"expression": PAGE_HEIGHT if full else SECOND_HEADING, "returnByValue": True}, session
        )
        bottom = float(found["result"]["value"])
        clip = {"x": 0, "y": 0, "width": width, "height": bottom, "scale": 1}
        shot = pipe.call(
            "Page.captureScreenshot", {"format": "png", "clip": clip, "captureBeyondViewport": True}, session
        )
    return base64.b64decode(shot["data"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--full", action="store_true", help="the whole page, not only the first screen")
    args = parser.parse_args()
    args.out.write_bytes(first_screen(args.page, args.width, args.full))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
