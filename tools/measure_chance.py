"""Measure the chance baseline on a SURDS data source over several seeds, beside its expected values.

    python tools/measure_chance.py --data demo --seeds 20

Expected values are those of the official random baseline (the protocol's reference numbers): yaw 1/16, depth
1/3, the three pair tasks 1/9, xy2d a small mean centerness. Each seed is one `chance/random -M seed=N` model, all
in one eval. The runs and the table are `tests/doc_numbers.py`'s, which checks the demo's table in the SURDS docs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from doc_numbers import chance_seed_runs, chance_table  # tests/doc_numbers.py


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="demo")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        runs = chance_seed_runs(args.data, range(args.seeds), Path(log_dir))
    print(f"chance/random on data={args.data}, {args.seeds} seeds")
    print("\n".join(chance_table(runs)))


if __name__ == "__main__":
    main()
