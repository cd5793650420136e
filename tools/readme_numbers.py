"""Recompute the demo numbers quoted in the README and docs, and check them against the text.

    python tools/readme_numbers.py            # print every checked block as it should read
    python tools/readme_numbers.py --check    # exit 1, with a diff, when a document has drifted

The runs, the passages and the check are `tests/doc_numbers.py`'s, which the test suite checks from the runs its
session fixtures make; this script makes the same runs in a fresh cache and log directory.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import doc_numbers  # tests/doc_numbers.py


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the documents; exit 1 on drift")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        expected = doc_numbers.measure(Path(scratch))
    if not args.check:
        for name, want in expected.items():
            print(f"<!-- numbers: {name} -->\n{want.text}\n")
        return 0
    documents = doc_numbers.read_documents()
    problems = doc_numbers.unknown_markers(documents) + doc_numbers.drift(documents, expected)
    print("\n\n".join(problems) if problems else f"all {len(expected)} checked passages match")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
