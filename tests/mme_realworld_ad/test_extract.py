"""drive_evals' official reading equals the official script's, per reply: on the protocol's 47 probes and a seeded
fuzz. The peers' readings (stated independently in `harnesses`) reproduce the protocol's table, so the comparison
in docs/mme_realworld_ad.md (which published numbers compare with ours) rests on tested statements."""

from __future__ import annotations

import random

import pytest

from drive_evals.mme_realworld_ad.extract import corrected_letter, official_letter
from mme_realworld_ad.harnesses import FIXED_PREFIXES, SCRIPT_PREFIXES, lmms_eval, official_script, vlmevalkit
from mme_realworld_ad.probes import CORRECTED, OPTIONS, PROBES, TRUTH

FUZZ_CASES = 4000
FUZZ_SEED = 45


def test_the_probe_table_has_the_protocols_47_rows() -> None:
    assert len(PROBES) == 47
    assert len({reply for reply, *_ in PROBES}) == 47


@pytest.mark.parametrize(("reply", "official", "lmms", "vlmeval", "vlmeval_before"), PROBES)
def test_each_harness_statement_reproduces_the_protocol_table(
    reply: str, official: str, lmms: str, vlmeval: str, vlmeval_before: str
) -> None:
    assert official_script(reply, OPTIONS) == official
    assert lmms_eval(reply) == lmms
    assert vlmevalkit(reply) == vlmeval
    assert vlmevalkit(reply, defective=True) == vlmeval_before


@pytest.mark.parametrize(("reply", "official"), [(p[0], p[1]) for p in PROBES])
def test_drive_evals_official_reading_equals_the_script_on_every_probe(reply: str, official: str) -> None:
    assert official_letter(reply, OPTIONS) == official_script(reply, OPTIONS) == official


@pytest.mark.parametrize(("reply", "official"), [(p[0], p[1]) for p in PROBES])
def test_corrected_reading_of_each_probe(reply: str, official: str) -> None:
    expected = CORRECTED.get(reply, official or None)
    assert corrected_letter(reply, OPTIONS) == expected


def test_the_prefix_lists_differ_exactly_by_the_two_commas() -> None:
    assert len(SCRIPT_PREFIXES) == 6 and len(FIXED_PREFIXES) == 8
    assert "".join(SCRIPT_PREFIXES) == "".join(FIXED_PREFIXES)


PIECES = [
    *"ABCDEabcde", "(A)", "(d)", "（B）", "**C**", "E.", "D)", "", " ", "\n", "\t", "  ",
    *SCRIPT_PREFIXES, *FIXED_PREFIXES, "The Answer is", "ANSWER:", "Answer:", "answer is", "Option", "option",
    "Based on the image,", "After looking,", "so", "the", "i think", "many cars", "one truck", "truck", "and",
    "there are many cars and one truck.", "All the above answers are wrong.", "<think>", "</think>", "<answer>",
    "</answer>", "\\boxed{", "}", "答案是", "最佳答案为：", "sorry", "cannot", "see", "the image is blurry", "x" * 3,
]  # fmt: skip
OPTION_WORDS = ["cars", "truck", "pedestrians", "red", "green", "stop", "yield", "one", "two", "and", "the", "light"]


def _fuzz_case(rng: random.Random) -> tuple[str, list[str]]:
    reply = "".join(rng.choice(PIECES) + rng.choice(["", " ", "  ", "\n"]) for _ in range(rng.randrange(0, 16)))
    options = [
        f"({letter}) " + " ".join(rng.choice(OPTION_WORDS) for _ in range(rng.randrange(1, 6))) for letter in "ABCDE"
    ]
    if rng.random() < 0.2:
        reply = rng.choice(options)[rng.randrange(0, 6) :]  # an option, whole or from a cut point
    return reply, options


def test_drive_evals_official_reading_equals_the_script_on_a_seeded_fuzz() -> None:
    rng = random.Random(FUZZ_SEED)
    branches = {"letter": 0, "long no letter": 0, "option fallback": 0, "nothing": 0, "prefix removed": 0}
    for _ in range(FUZZ_CASES):
        reply, options = _fuzz_case(rng)
        expected = official_script(reply, options)
        assert official_letter(reply, options) == expected, (reply, options)
        stripped = reply.strip()
        if any(prefix in stripped for prefix in SCRIPT_PREFIXES):
            branches["prefix removed"] += 1
        if expected == "":
            branches["long no letter" if len(stripped.split()) > 10 else "nothing"] += 1
        elif any(expected == option[1] and stripped.lower() in option.lower() for option in options) and not any(
            c in "ABCDE" for c in stripped
        ):
            branches["option fallback"] += 1
        else:
            branches["letter"] += 1
    assert all(count >= 50 for count in branches.values()), branches  # the fuzz reaches every branch of the rule


def test_corrected_reading_never_crashes_on_the_fuzz() -> None:
    rng = random.Random(FUZZ_SEED + 1)
    for _ in range(FUZZ_CASES):
        reply, options = _fuzz_case(rng)
        assert corrected_letter(reply, options) in (None, *"ABCDE")


def test_probe_scores_by_harness() -> None:
    """The counts docs/mme_realworld_ad.md quotes: how many of the 47 probes (truth D) each reading scores right."""
    right = {
        "official": sum(official_letter(r, OPTIONS) == TRUTH for r, *_ in PROBES),
        "lmms_eval": sum(lmms_eval(r) == TRUTH for r, *_ in PROBES),
        "vlmevalkit": sum(vlmevalkit(r) == TRUTH for r, *_ in PROBES),
        "vlmevalkit_before_fix": sum(vlmevalkit(r, defective=True) == TRUTH for r, *_ in PROBES),
        "corrected": sum(corrected_letter(r, OPTIONS) == TRUTH for r, *_ in PROBES),
    }
    assert right == PROBE_RIGHT


PROBE_RIGHT = {"official": 18, "lmms_eval": 20, "vlmevalkit": 22, "vlmevalkit_before_fix": 20, "corrected": 29}


def test_probe_replies_where_each_harness_reads_another_letter_than_the_official_script() -> None:
    """The counts docs/mme_realworld_ad.md quotes for its comparability table."""
    readers = {
        "lmms_eval": lmms_eval,
        "lmms_eval_before_fix": lambda r: lmms_eval(r, defective=True),
        "vlmevalkit": vlmevalkit,
        "vlmevalkit_before_fix": lambda r: vlmevalkit(r, defective=True),
    }
    differ = {name: sum(read(r) != official_script(r, OPTIONS) for r, *_ in PROBES) for name, read in readers.items()}
    assert differ == {"lmms_eval": 8, "lmms_eval_before_fix": 6, "vlmevalkit": 10, "vlmevalkit_before_fix": 8}
    assert all(lmms_eval(r, defective=True) == vlmevalkit(r, defective=True) for r, *_ in PROBES if "answer>" not in r)
