"""The tests' fake OpenAI-compatible server, made instant for benchmarks.

The benchmark runs the fake server from `tests/fakeserver` in the benchmark's own process (the harness under test
runs in a subprocess, so the two never share CPU accounting). Two changes suit a benchmark of 9,250 requests:
- images are checked from their header only: the tests' server decodes each distinct image fully (~80 ms a
  1600x900 WebP, 1,850 images in a SURDS run), CPU the harness under test would compete with on 2 cores;
- received requests are counted, not kept: the tests keep every request body for assertions (1.3 GB here).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from PIL import Image, UnidentifiedImageError

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests"))

import fakeserver.openai_api  # noqa: E402  (the tests' package, importable once tests/ is on the path)
from fake_models import valid_reply  # noqa: E402
from fakeserver import DecodedImage, FakeModelServer, FakeRequest  # noqa: E402
from fakeserver.records import BadRequest  # noqa: E402

MEMORY_MARKS = (0.1, 0.5, 1.0)
"""Shares of a run's requests at which the harness's peak memory so far is recorded."""

SURDS_ANSWER = "<think>The two objects look alike.</think>\n<answer>Almost the same</answer>"
DRIVELMM_O1_ANSWER = (
    "Reasoning Steps:\n1. **Scan the views**: The top middle image shows the road ahead.\n"
    "2. **Conclude**: The ego vehicle should keep its lane.\nFinal Answer: A) Keep the lane."
)
JUDGE_REPLY = valid_reply()


def header_only_image(uri: str) -> DecodedImage:
    """`decode_data_uri` without the full decode: base64 and the image header are still checked."""
    header, separator, data = uri.partition(",")
    if not (separator and header.startswith("data:") and header.endswith(";base64")):
        raise BadRequest("Only base64 data URIs are accepted for images by this fake server")
    try:
        raw = base64.b64decode(data, validate=True)
        with Image.open(io.BytesIO(raw)) as image:
            return DecodedImage(image.width, image.height, image.format or "unknown", hashlib.sha256(raw).hexdigest())
    except (binascii.Error, ValueError, UnidentifiedImageError, OSError) as error:
        raise BadRequest(f"Could not process image ({type(error).__name__})") from error


fakeserver.openai_api.decode_data_uri = header_only_image


def instant_policy(request: FakeRequest) -> str:
    """A SURDS-style answer, a DriveLMM-o1-style answer, or (for a structured-output request) a judge reply."""
    if request.config.response_format is not None:
        return JUDGE_REPLY
    return DRIVELMM_O1_ANSWER if "Final Answer" in "".join(request.texts) else SURDS_ANSWER


class InstantServer(FakeModelServer):
    """The fake server answering `instant_policy` at once, counting requests instead of keeping them."""

    def __init__(self) -> None:
        super().__init__(policy=instant_policy)
        self._received = 0
        self._count_lock = threading.Lock()

    def _admit(self, request: FakeRequest) -> None:
        with self._count_lock:
            self._received += 1
        return None

    def _record_answered(self, key: str) -> None:
        """Nothing to record: only the total is kept."""

    @property
    def received(self) -> int:
        """Generation requests received so far."""
        with self._count_lock:
            return self._received


def memory_marks(server: InstantServer, start: int, total: int) -> Callable[[], str | None]:
    """For `measure(mark=...)`: names the latest of 10%, 50%, 100% of `total` requests received since `start`."""

    def mark() -> str | None:
        received = server.received - start
        reached = [f"{share:.0%}" for share in MEMORY_MARKS if received >= share * total]
        return reached[-1] if reached else None

    return mark


def marks_text(marks: Mapping[str, float]) -> str:
    """`437 MiB / 456 MiB / 478 MiB` for the 10% / 50% / 100% marks."""
    return " / ".join(f"{marks.get(f'{share:.0%}', float('nan')):.0f} MiB" for share in MEMORY_MARKS)
