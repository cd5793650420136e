"""The rating rule equals the official parser: on the protocol's probe replies and on a seeded fuzz, against an
independent statement of stage1 L210-219 written here as the official code is written (nested try/except)."""

from __future__ import annotations

import random

import pytest

from drive_evals.coda_lm.rating import official_rating, read_rating

PROBES = [  # (reply, what the official parser returned when the protocol's author ran it)
    ("So, Rating: [[8]].", 8),
    ("Rating: [[10]]", 10),
    ("Rating: [[ 7 ]]", 7),
    ("Rating: [[\n7\n]]", 7),
    ("Rating: [[7.5]]", None),
    ("Rating: [[8/10]]", None),
    ("Rating: [[0]]", 0),
    ("Rating: [[11]]", 11),
    ("Rating: [[-3]]", -3),
    ("Rating: [[100]]", 100),
    ("Overall, the rating is: [[6]]", 6),
    ("rating: [[5]]", 5),
    ("Rating:[[7]]", 7),
    ("**Rating: [[6]]**", 6),
    ("Rating: 8", None),
    ("Rating: [8]", None),
    ("Rating: [[7]", None),
    ('Following the "[[rating]]" format, I give [[4]].', None),
    ('Format "[[rating]]". Rating: [[9]]', 9),
    ("Rating: [[8]] ... on reflection Rating: [[3]]", 8),
    ("Rating: [[８]]", 8),
    ("Rating: [[1_0]]", 10),
    ("", None),
    ("I'm sorry, I can't help with that.", None),
]


def statement_of_the_official_parser(output: str) -> int | None:
    """stage1_eval_batch.py L210-219 at 24544cc, as written there (a bare except at each level)."""
    try:
        return int(output.split("Rating: [[")[1].split("]]")[0])
    except Exception:
        try:
            return int(output.split("rating is: [[")[1].split("]]")[0])
        except Exception:
            try:
                return int(output.split("[[")[1].split("]]")[0])
            except Exception:
                return None


@pytest.mark.parametrize(("reply", "expected"), PROBES)
def test_probe_replies(reply: str, expected: int | None) -> None:
    assert official_rating(reply) == expected == statement_of_the_official_parser(reply)


def test_probe_mean_is_the_official_output() -> None:
    """The official scripts printed 12.4375 (= 199/16) for these 24 replies plus one failed call (dropped)."""
    parsed = [r for r in (official_rating(reply) for reply, _ in PROBES) if r is not None]
    assert (len(parsed), sum(parsed)) == (16, 199) and sum(parsed) / len(parsed) == 12.4375


def test_range_flags() -> None:
    assert read_rating("Rating: [[10]]").in_range and not read_rating("Rating: [[0]]").in_range
    assert read_rating("[[11]]").parsed and not read_rating("[[11]]").in_range
    assert not read_rating("none").parsed and not read_rating("none").in_range


PIECES = [
    "Rating: [[",
    "rating is: [[",
    "[[",
    "]]",
    "]",
    "[",
    " ",
    "\n",
    "7",
    "10",
    "-",
    "+",
    "_",
    "８",
    "rating",
    "Rating:",
    ".",
    "0",
    "3.5",
    "x",
    "is: ",
    "١",
    "\t",
]


def test_fuzz_against_the_official_statement() -> None:
    rng = random.Random(46)
    for _ in range(20000):
        reply = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 9)))
        assert official_rating(reply) == statement_of_the_official_parser(reply), repr(reply)
