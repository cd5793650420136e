"""One line for the common data slips that would otherwise print a list of missing files.

`-T nuscenes_root=/data/nuscenes/samples` (the `samples/` folder instead of the folder holding it) made every image
of a run "not found": 120 lines and "... and 70 more" for the DriveLMM-o1 demo, with no word of why. So before the
files are checked one by one, each top-level folder the run reads under a root (`samples/`, a corruption's `Fog/`)
is looked for once; a missing one is one problem naming the slip, and its files are not listed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SHOWN_ENTRIES = 8
"""Entries of a root named when a folder is missing from it."""


def top_folder(relative: str) -> str | None:
    """The first folder of a relative path (`samples` of `samples/CAM_FRONT/x.jpg`); None for a bare file name."""
    parts = Path(relative).parts
    return parts[0] if len(parts) > 1 else None


def missing_folders(root: Path, relatives: Iterable[str], option: str) -> dict[str, str]:
    """The top-level folders of `relatives` that `root` lacks -> one line saying so and what `option` should be."""
    slips: dict[str, str] = {}
    for top in dict.fromkeys(filter(None, map(top_folder, relatives))):
        if (root / top).is_dir():
            continue
        if root.name == top:
            slips[top] = (
                f"{option}={root} is the {top}/ folder itself: pass the folder that holds it, {option}={root.parent}"
            )
        elif (root / top.lower()).is_dir() or (root / top.upper()).is_dir():
            slips[top] = f"{option}={root} has no {top}/ folder (the name is case-sensitive)"
        else:
            slips[top] = f"{option}={root} has no {top}/ folder; it holds: {_entries(root)}"
    return slips


def _entries(root: Path) -> str:
    try:
        names = sorted(entry.name + ("/" if entry.is_dir() else "") for entry in root.iterdir())
    except OSError as error:
        return f"nothing readable ({error.strerror})"
    more = len(names) - SHOWN_ENTRIES
    return ", ".join(names[:SHOWN_ENTRIES]) + (f" and {more} more" if more > 0 else "") if names else "nothing"
