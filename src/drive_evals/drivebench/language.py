"""BLEU-1..4, ROUGE-L and CIDEr as the official evaluation computes them (scorers in Python, tokenizer in Java).

Official: `language_evaluation.CocoEvaluator(coco_types=["BLEU", "ROUGE_L", "CIDEr"]).run_evaluation(preds, golds)`
once per open-question bucket (`evaluate/eval.py` L163-171), i.e. the COCO caption scorers of
github.com/bckim92/language-evaluation at 8e9e03f: every text through Stanford's PTBTokenizer 3.4.1
(`-preserveLines -lowerCase`, newlines as spaces) with the tokens `'' ' `` ` -LRB- -RRB- -LCB- -RCB- . ? ! , : -
-- ... ;` dropped; corpus BLEU (n <= 4, the reference length closest to each reply, the scorer's tiny/small
constants); ROUGE-L (LCS F-measure, beta 1.2, mean over questions); CIDEr (n <= 4, document frequencies from the
bucket's golds, log(questions) as the reference length, clipped tf-idf, a Gaussian penalty sigma 6 on the bigram
count difference, x10, mean over questions). All three are bucket-level numbers, not means of per-question scores.

The tokens are the official tokenizer's own: `ptb.py` runs the same Stanford jar the same way, one JVM for all the
texts of a computation.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from drive_evals.drivebench.ptb import tokenize_calls

NGRAMS = 4
ROUGE_BETA = 1.2
CIDER_SIGMA = 6.0
CIDER_SCALE = 10.0
BLEU_TINY, BLEU_SMALL = 1e-15, 1e-9
"""`bleu_scorer.py`: added to the matches and to the guesses so an empty order gives 0, not a division by 0."""


def _ngrams(words: Sequence[str], n: int = NGRAMS) -> Counter[tuple[str, ...]]:
    counts: Counter[tuple[str, ...]] = Counter()
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            counts[tuple(words[i : i + k])] += 1
    return counts


def bleu(candidates: Sequence[str], references: Sequence[str]) -> list[float]:
    """Corpus BLEU-1..4 of tokenised texts (one reference each), the reference length closest to each candidate."""
    matches, guesses = [0] * NGRAMS, [0] * NGRAMS
    candidate_length = reference_length = 0
    for candidate, reference in zip(candidates, references, strict=True):
        words, gold = candidate.split(), reference.split()
        candidate_length += len(words)
        reference_length += len(gold)  # one reference: the closest is that one
        gold_counts = _ngrams(gold)
        for ngram, count in _ngrams(words).items():
            matches[len(ngram) - 1] += min(gold_counts.get(ngram, 0), count)
        for k in range(NGRAMS):
            guesses[k] += max(0, len(words) - k)
    scores, product = [], 1.0
    for k in range(NGRAMS):
        product *= (matches[k] + BLEU_TINY) / (guesses[k] + BLEU_SMALL)
        scores.append(product ** (1.0 / (k + 1)))
    ratio = (candidate_length + BLEU_TINY) / (reference_length + BLEU_SMALL)
    if ratio < 1:
        scores = [score * math.exp(1 - 1 / ratio) for score in scores]
    return scores


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def rouge_l(candidates: Sequence[str], references: Sequence[str]) -> float:
    """Mean ROUGE-L F (beta 1.2). Texts are split on single spaces, as officially (an empty text is one empty
    token)."""
    scores = []
    for candidate, reference in zip(candidates, references, strict=True):
        words, gold = candidate.split(" "), reference.split(" ")
        common = _lcs(gold, words)
        precision, recall = common / len(words), common / len(gold)
        if precision and recall:
            scores.append((1 + ROUGE_BETA**2) * precision * recall / (recall + ROUGE_BETA**2 * precision))
        else:
            scores.append(0.0)
    return sum(scores) / len(scores)


def _tfidf(
    counts: Counter[tuple[str, ...]], frequency: Counter[tuple[str, ...]], log_size: float
) -> tuple[list[dict[tuple[str, ...], float]], list[float], int]:
    """Per order: n-gram -> tf x idf, its norm, and the bigram count (the official scorer's 'length')."""
    vectors: list[dict[tuple[str, ...], float]] = [{} for _ in range(NGRAMS)]
    norms = [0.0] * NGRAMS
    bigrams = 0
    for ngram, count in counts.items():
        order = len(ngram) - 1
        weight = count * (log_size - math.log(max(1.0, frequency[ngram])))
        vectors[order][ngram] = weight
        norms[order] += weight * weight
        if order == 1:
            bigrams += count
    return vectors, [math.sqrt(n) for n in norms], bigrams


def cider(candidates: Sequence[str], references: Sequence[str]) -> float:
    """Mean CIDEr (the COCO scorer's, with clipping and the length penalty), idf from these references."""
    frequency: Counter[tuple[str, ...]] = Counter()
    gold_counts = [_ngrams(reference.split()) for reference in references]
    for counts in gold_counts:
        frequency.update(set(counts))
    log_size = math.log(float(len(references)))
    scores = []
    for candidate, counts in zip(candidates, gold_counts, strict=True):
        vector, norm, length = _tfidf(_ngrams(candidate.split()), frequency, log_size)
        gold_vector, gold_norm, gold_length = _tfidf(counts, frequency, log_size)
        penalty = math.exp(-((length - gold_length) ** 2) / (2 * CIDER_SIGMA**2))
        total = 0.0
        for k in range(NGRAMS):
            value = sum(min(w, gold_vector[k].get(g, 0.0)) * gold_vector[k].get(g, 0.0) for g, w in vector[k].items())
            if norm[k] != 0 and gold_norm[k] != 0:
                value /= norm[k] * gold_norm[k]
            total += value * penalty
        scores.append(total / NGRAMS * CIDER_SCALE)
    return sum(scores) / len(scores)


LANGUAGE_METRICS = ("bleu_1", "bleu_2", "bleu_3", "bleu_4", "rouge_l", "cider")


UNK, UNK_REPLACEMENT = "_UNK", "_UNKNOWN"
"""`language_evaluation` L100: the golds' `_UNK` is rewritten before tokenisation (the replies' is not)."""


def language_scores_of_buckets(buckets: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[dict[str, float]]:
    """The official `run_evaluation(pred_list, GT_list)` of each (replies, golds) bucket, tokenised through one
    JVM (each bucket's golds and replies are separate tokenizer calls, as officially); an empty bucket gives no
    numbers."""
    kept = [(list(p), list(a)) for p, a in buckets if p]
    calls: list[list[str]] = []
    for predictions, answers in kept:
        calls += [[a.replace(UNK, UNK_REPLACEMENT) for a in answers], predictions]
    tokens = iter(tokenize_calls(calls))
    scored: list[dict[str, float]] = []
    for _ in kept:
        references, candidates = next(tokens), next(tokens)
        values = [*bleu(candidates, references), rouge_l(candidates, references), cider(candidates, references)]
        scored.append(dict(zip(LANGUAGE_METRICS, values, strict=True)))
    results = iter(scored)
    return [next(results) if p else {} for p, _ in buckets]


def language_scores(predictions: Sequence[str], answers: Sequence[str]) -> dict[str, float]:
    """The official `run_evaluation(pred_list, GT_list)` of one bucket; empty input gives no numbers."""
    return language_scores_of_buckets([(predictions, answers)])[0]
