"""The 17 input settings of DriveBench: clean images, 15 corruptions, text-only (`script/llava1.5-7b.sh` L4-42).

Every setting asks the same questions (the official script always passes `drivebench-test-final.json`); only the
images change. A corrupted image has the clean image's nuScenes file name under `corruption/<Folder>/<CAMERA>/`
(`inference/llava1.5.py` L84-86). Text-only sends one black 224x224 image per kept camera with the unchanged
prompt (L87-89). The category of each corruption is read off the official figure `docs/figs/bench.png`.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from drive_evals.errors import ParameterError

CLEAN = "clean"
TEXT_ONLY = "text_only"


@dataclass(frozen=True)
class Setting:
    """One input setting: its name here (the official output name), the image folder, and its category."""

    name: str
    folder: str | None
    """`--corruption` value and folder under the corruption root; None for clean and text-only."""
    category: str | None = None

    @property
    def corrupted(self) -> bool:
        return self.folder is not None


CORRUPTIONS: tuple[Setting, ...] = (
    Setting("biterror", "BitError", "Transmission"),
    Setting("cameracrash", "CameraCrash", "Sensor"),
    Setting("fog", "Fog", "Weather"),
    Setting("h256", "H256ABRCompression", "Transmission"),
    Setting("lowlight", "LowLight", "Weather"),
    Setting("rain", "Rain", "Weather"),
    Setting("snow", "Snow", "Weather"),
    Setting("bright", "Brightness", "Weather"),
    Setting("colorquant", "ColorQuant", "Transmission"),
    Setting("framelost", "FrameLost", "Sensor"),
    Setting("lens", "LensObstacleCorruption", "External"),
    Setting("motion", "MotionBlur", "Motion"),
    Setting("saturate", "Saturate", "Sensor"),
    Setting("zoom", "ZoomBlur", "Motion"),
    Setting("water", "WaterSplashCorruption", "External"),
)
"""In the official script's order; names are its output names (L24-42), folders its `--corruption` values."""
SETTINGS: tuple[Setting, ...] = (Setting(CLEAN, None), Setting(TEXT_ONLY, None), *CORRUPTIONS)
ALL_CORRUPTIONS = "corruptions"
"""`setting=corruptions` selects the 15 corruptions; `setting=all` all 17 settings."""
ALL = "all"

BLACK_SIZE = (224, 224)
"""The official text-only image: `np.zeros((224, 224, 3), dtype=np.uint8)`."""


def find_setting(name: str) -> Setting | None:
    """A setting by its name or its official folder / `--corruption` value, case-insensitively."""
    wanted = name.strip().lower().replace("-", "_")
    aliases = {"noimage": TEXT_ONLY, "text-only": TEXT_ONLY}
    wanted = aliases.get(wanted, wanted)
    return next((s for s in SETTINGS if wanted in (s.name, (s.folder or "").lower())), None)


NAMES = (*(s.name for s in SETTINGS), ALL_CORRUPTIONS, ALL)
"""Every value `-T setting` takes, for the error message and its did-you-mean."""


def parse_settings(value: object) -> tuple[Setting, ...]:
    """The `setting` parameter: one name, a comma-separated list or a list (a paired design), `corruptions`, `all`.

    Order is kept, repeats dropped; an unknown name is an error listing the valid ones.
    """
    if isinstance(value, str):
        names: Sequence[object] = [part for part in value.split(",") if part.strip()]
    elif isinstance(value, (list, tuple)):
        names = value
    else:
        names = []
    chosen: list[Setting] = []
    unknown: list[str] = []
    for name in names:
        if not isinstance(name, str):
            unknown.append(repr(name))
        elif name.strip().lower() == ALL:
            chosen.extend(SETTINGS)
        elif name.strip().lower() == ALL_CORRUPTIONS:
            chosen.extend(CORRUPTIONS)
        elif (found := find_setting(name)) is not None:
            chosen.append(found)
        else:
            close = difflib.get_close_matches(name.strip().lower(), NAMES, n=1)
            unknown.append(repr(name) + (f" (did you mean '{close[0]}'?)" if close else ""))
    if unknown or not chosen:
        valid = ", ".join(NAMES)
        shown = ", ".join(unknown) if unknown else repr(value)
        raise ParameterError(f"setting={shown}: valid values are {valid} (or several, comma-separated)")
    return tuple(dict.fromkeys(chosen))
