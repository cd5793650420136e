"""DriveBench language metrics equal the official `language_evaluation` (Java PTBTokenizer, COCO scorers) on fixed
inputs: tests/drivebench/data/language-official.json, written by tools/drivebench_language_reference.py with the
official package at 8e9e03f and Stanford CoreNLP 3.4.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drive_evals.drivebench.language import bleu, cider, language_scores, language_scores_of_buckets, rouge_l
from drive_evals.drivebench.ptb import tokenize

OFFICIAL = json.loads((Path(__file__).parent / "data" / "language-official.json").read_text(encoding="utf-8"))
KEYS = {"Bleu_1": "bleu_1", "Bleu_2": "bleu_2", "Bleu_3": "bleu_3", "Bleu_4": "bleu_4", "ROUGE_L": "rouge_l",
        "CIDEr": "cider"}  # fmt: skip


def test_tokenisation_equals_the_java_ptb_tokenizer() -> None:
    texts = sorted(OFFICIAL["tokens"])
    assert tokenize(texts) == [OFFICIAL["tokens"][text] for text in texts]


@pytest.mark.parametrize("bucket", sorted(OFFICIAL["buckets"]))
def test_scores_equal_the_official_evaluator(bucket: str) -> None:
    case = OFFICIAL["buckets"][bucket]
    mine = language_scores(case["predictions"], case["answers"])
    for official_key, key in KEYS.items():
        assert mine[key] == pytest.approx(case["scores"][official_key], rel=1e-12, abs=1e-15), key


def test_kept_quirks() -> None:
    assert tokenize(["A car (moving) at <c1,CAM_BACK,0.5073,0.5778>.", "It can't, cannot."]) == [
        "a car -lrb- moving -rrb- at < c1 cam_back ,0.5073,0.5778 >",
        "it ca n't can not",
    ]


def test_buckets_in_one_jvm_equal_bucket_by_bucket() -> None:
    """Golds `_UNK` -> `_UNKNOWN` as officially; an empty bucket has no numbers, the others keep their own."""
    buckets = [(case["predictions"], case["answers"]) for case in OFFICIAL["buckets"].values()]
    together = language_scores_of_buckets([*buckets, ([], [])])
    assert together == [*(language_scores(p, a) for p, a in buckets), {}]
    unk = language_scores(["the _UNKNOWN car"], ["the _UNK car"])
    assert unk["bleu_1"] == pytest.approx(1.0)


def test_corpus_not_per_sample() -> None:
    """BLEU is one corpus number, not the mean of per-question BLEU."""
    candidates, references = ["a b c d", "x y"], ["a b c d", "x z"]
    per_question = sum(bleu([c], [r])[3] for c, r in zip(candidates, references, strict=True)) / 2
    assert bleu(candidates, references)[3] != pytest.approx(per_question)
    assert rouge_l(["a b"], ["a b"]) == pytest.approx(1.0) and cider(["a b"], ["a b"]) == 0.0  # log(1) idf


def test_no_replies_no_numbers() -> None:
    assert language_scores([], []) == {}
