"""Measure the official DriveBench language metrics on fixed inputs, for tests/drivebench/data/language-official.json.

Why: DriveBench's BLEU/ROUGE-L/CIDEr come from `language_evaluation` (github.com/bckim92/language-evaluation at
8e9e03f), which needs Java and Stanford CoreNLP 3.4.1; the suite computes the scores in Python
(`drive_evals.drivebench.language`, its tokens from the same jar) and its test compares with the numbers this
script writes.

Run where the official package can be imported (its jars in place) and Java is installed:
    PYTHONPATH=/path/to/language-evaluation python tools/drivebench_language_reference.py
It writes the inputs, each text's PTB tokenisation and the official scores per bucket.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
OUT = REPO_ROOT / "tests" / "drivebench" / "data" / "language-official.json"
DEMO = REPO_ROOT / "src" / "drive_evals" / "demo" / "drivebench" / "drivebench-test.json"

REPLIES = [
    "The ego vehicle should keep going at the same speed, since there's no obstacle ahead.",
    "There is a gray sedan to the back of the ego vehicle (moving) and a black SUV in front.",
    "Firstly, notice the black SUV at <c3,CAM_FRONT,0.6058,0.5769>. It's stationary; so the ego vehicle can't "
    "accelerate -- it should slow down...",
    "Stop!\nThe light is red: wait for it to turn green.",
    "",
    "Keep going at the same speed, accelerate, and continue ahead.",
    "The action is to brake gently [high probability] {safe} because a pedestrian (man in a red jacket) is crossing.",
    "Back up.",
    "Turn left while the pedestrian crosses, or back up into the bus. I'd say that's unsafe, e.g. in the U.S.",
    "\"Keep lane\" -- 'slow down' ... 50% chance & x=y; A/B test #1 @ego",
    "It cannot turn, gonna wait; it's the car's right-of-way at 12:30 and 3.5 m/s, 1,000 m ahead.",
    "The correct answer is C. Turn right.",
]


def official_tokens(texts: list[str], jar: Path) -> list[str]:
    """The official tokenizer's output per text (one call, as `ptbtokenizer.py` makes it)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as handle:
        handle.write("\n".join(t.replace("\n", " ") for t in texts))
    command = ["java", "-cp", str(jar), "edu.stanford.nlp.process.PTBTokenizer", "-preserveLines", "-lowerCase"]
    lines = subprocess.run([*command, handle.name], capture_output=True, text=True, check=True).stdout.split("\n")
    Path(handle.name).unlink()
    dropped = ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
    return [" ".join(w for w in line.rstrip().split(" ") if w not in dropped) for line in lines[: len(texts)]]


def main() -> None:
    import language_evaluation  # the official package (not a dependency of the suite)

    jar = (
        Path(language_evaluation.__file__).parent
        / "coco_caption_py3/pycocoevalcap/tokenizer/stanford-corenlp-3.4.1.jar"
    )
    records = json.loads(DEMO.read_text(encoding="utf-8"))
    golds = [r["answer"] for r in records if r["question_type"] != "behavior" and r["tag"] != [0]]
    buckets = {
        "demo_golds_vs_replies": (REPLIES[: len(golds)], golds),
        "replies_vs_shifted": (REPLIES, REPLIES[1:] + REPLIES[:1]),
        "identical": (golds, golds),
    }
    evaluator = language_evaluation.CocoEvaluator(coco_types=["BLEU", "ROUGE_L", "CIDEr"], verbose=False)
    out = {
        "source": "language_evaluation @ 8e9e03feb7f5e605f20fc0c8dba0e24532a26216, Stanford CoreNLP 3.4.1",
        "tokens": dict(zip(REPLIES + golds, official_tokens(REPLIES + golds, jar), strict=True)),
        "buckets": {
            name: {
                "predictions": preds,
                "answers": answers,
                "scores": {k: float(v) for k, v in evaluator.run_evaluation(preds, answers).items()},
            }
            for name, (preds, answers) in buckets.items()
        },
    }
    OUT.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
