"""A run on the demo: the logged official numbers are the script's reading of the logged replies, per question;
the corrected reading, the parser rates, the verdict line, the chance answers and the prompts as documented."""

from __future__ import annotations

import hashlib
import math
import random
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage
from inspect_ai.scorer import Score
from inspect_runs import eval_in_process, mockllm

from drive_evals.mme_realworld_ad.chance import answer as chance_answer
from drive_evals.mme_realworld_ad.extract import corrected_letter
from drive_evals.mme_realworld_ad.metrics import MISSING_VALUE, ad_numbers
from drive_evals.mme_realworld_ad.prompts import prompt_text
from mme_realworld_ad.harnesses import official_script
from mme_realworld_ad.probes import OPTIONS, PROBES, QUESTION

SCORER = "mme_realworld_ad_scorer"
RUN = pytest.mark.slow
"""Whole in-process runs on the demo (a few seconds each): the slow tier."""


def _score(sample: EvalSample) -> Score:
    assert sample.scores is not None
    return sample.scores[SCORER]


def _value(sample: EvalSample, key: str) -> object:
    value = _score(sample).value
    assert isinstance(value, dict)
    return value[key]


def _probe_reply(messages: list[ChatMessage]) -> str:
    """One of the protocol's probes, chosen by the question text (stable whatever the order of calls)."""
    digest = hashlib.sha256(messages[-1].text.encode()).digest()
    return PROBES[digest[0] % len(PROBES)][0]


@pytest.fixture(scope="module")
def probe_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    log_dir = tmp_path_factory.mktemp("mme_logs")
    env = {"DRIVE_EVALS_CACHE": str(log_dir / "cache")}
    return eval_in_process("drive_evals/mme_realworld_ad", log_dir, env, model=mockllm(_probe_reply),
                           task_args={"data": "demo"})  # fmt: skip


@RUN
def test_logged_official_numbers_are_the_scripts_reading_of_the_logged_replies(probe_log: EvalLog) -> None:
    assert probe_log.samples and probe_log.results
    by_task: dict[str, list[float]] = {"Perception": [], "Reasoning": []}
    for sample in probe_log.samples:
        letter = official_script(str(_score(sample).answer), sample.metadata["choices"])
        assert _value(sample, "official") == float(letter == sample.target), sample.id
        by_task[sample.metadata["task"]].append(float(letter == sample.target))
    metrics = {name: m.value for name, m in probe_log.results.scores[0].metrics.items()}
    assert metrics["perception"] == pytest.approx(sum(by_task["Perception"]) / len(by_task["Perception"]))
    assert metrics["reasoning"] == pytest.approx(sum(by_task["Reasoning"]) / len(by_task["Reasoning"]))
    assert len(by_task["Perception"]) == 14 and len(by_task["Reasoning"]) == 16


@RUN
def test_corrected_reading_rates_and_verdict_line(probe_log: EvalLog) -> None:
    assert probe_log.samples and probe_log.results
    samples = probe_log.samples
    metrics = {name: m.value for name, m in probe_log.results.scores[0].metrics.items()}
    empty = [s for s in samples if not str(_score(s).answer).strip()]
    assert metrics["empty_as_a_rate"] == pytest.approx(len(empty) / len(samples))
    unparsed = [s for s in samples if official_script(str(_score(s).answer), s.metadata["choices"]) == ""]
    assert metrics["unparsed_rate"] == pytest.approx(len(unparsed) / len(samples))
    for sample in samples:
        score = _score(sample)
        fixed = corrected_letter(str(score.answer), sample.metadata["choices"])
        assert _value(sample, "corrected") == float(fixed == sample.target)
        assert score.explanation and score.explanation.startswith("official reads ")
        assert f"answer {sample.target}" in score.explanation
    assert probe_log.eval.metadata and probe_log.eval.metadata["prompt"] == "vlmevalkit"


def test_metrics_count_missing_questions_as_wrong_and_unparsed() -> None:
    rows = [({"official": 1.0, "corrected": 1.0}, "Perception"), (MISSING_VALUE, "Perception"),
            ({"official": 0.0, "corrected": 1.0, "empty_as_a": 1.0}, "Reasoning")]  # fmt: skip
    numbers = ad_numbers(rows)
    assert numbers["perception"] == 0.5 and numbers["reasoning"] == 0.0 and numbers["reasoning_corrected"] == 1.0
    assert numbers["unparsed_rate"] == pytest.approx(1 / 3) and numbers["empty_as_a_rate"] == pytest.approx(1 / 3)
    assert math.isnan(ad_numbers([])["perception"])


EXPECTED_PROMPTS = {
    "vlmevalkit": "{q} The choices are listed below:\n{o}\nSelect the best answer to the above multiple-choice "
    "question based on the image. Respond with only the letter (A, B, C, D, or E) of the correct option. \n"
    "The best answer is:",
    "lmms_eval": "{q} The choices are listed below:\n{o}\nSelect the best answer to the above multiple-choice "
    "question based on the image. Respond with only the letter (A, B, C, D, or E) of the correct option.\n"
    "The best answer is: ",
    "llava_script": "{q} The choices are listed below: \n{o}\nSelect the best answer to the above multiple-choice "
    "question based on the image. Respond with only the letter (A, B, C, D, or E) of the correct option.\n"
    "The best answer is:",
}
"""Protocol 2.1 (b), (c) and (d) without the `<image>\\n` token, written out here rather than imported."""


@pytest.mark.parametrize("variant", list(EXPECTED_PROMPTS))
def test_prompts_are_byte_identical_to_the_protocols(variant: str) -> None:
    expected = EXPECTED_PROMPTS[variant].format(q=QUESTION, o="\n".join(OPTIONS))
    assert prompt_text(QUESTION, OPTIONS, variant) == expected  # type: ignore[arg-type]


def test_chinese_prompts() -> None:
    text = prompt_text("问题", ["(A) 一", "(B) 二"], "vlmevalkit", chinese=True)
    instruction = "根据图像选择上述多项选择题的最佳答案。只需回答正确选项的字母（A, B, C, D 或 E）。"
    assert text == f"问题 选项如下所示:\n(A) 一\n(B) 二\n{instruction}\n最佳答案为："
    assert prompt_text("问题", ["(A) 一"], "lmms_eval", chinese=True).endswith("最佳答案为： ")


def test_chance_answers_only_mme_prompts_uniformly() -> None:
    rng = random.Random(0)
    prompt = prompt_text(QUESTION, OPTIONS)
    letters = [chance_answer(prompt, rng) for _ in range(500)]
    assert set(letters) == set("ABCDE")
    assert chance_answer("Answer 'yes' or 'no'.", rng) is None


def test_paper_cells_are_whole_counts_of_the_real_item_numbers() -> None:
    """Protocol 3.5: every EN perception cell is k/3660 and every reasoning cell k/1344 (not the header's 1334), to
    the two decimals printed: a check on the transcription of the 28 rows."""
    from drive_evals.mme_realworld_ad.benchmark import PAPER_EN, PAPER_ROWS

    def fits(percent: float, items: int) -> bool:
        return abs(round(percent / 100 * items) / items * 100 - percent) < 0.005 + 1e-9

    assert len(PAPER_EN) == 28
    assert all(fits(p, 3660) and fits(r, 1344) for p, r in PAPER_EN.values())
    assert sum(fits(r, 1334) for _, r in PAPER_EN.values()) < 28
    assert {row.model for row in PAPER_ROWS} <= set(PAPER_EN)


@RUN
def test_the_docs_page_states_the_chance_demo_numbers(tmp_path: Path) -> None:
    env = {"DRIVE_EVALS_CACHE": str(tmp_path / "cache")}
    log = eval_in_process("drive_evals/mme_realworld_ad", tmp_path / "logs", env, model="chance/random",
                          task_args={"data": "demo"})  # fmt: skip
    assert log.results
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    page = " ".join((Path(__file__).parents[2] / "docs" / "mme_realworld_ad.md").read_text(encoding="utf-8").split())
    for name, shown in (("perception", "perception"), ("reasoning", "reasoning"), ("e_rate", "e")):
        assert f"{shown} {100 * metrics[name]:.1f}" in page, name
    assert metrics["perception_corrected"] == metrics["perception"]  # "the same under the corrected reading"
    assert metrics["reasoning_corrected"] == metrics["reasoning"]


@RUN
def test_an_errored_question_stays_in_its_denominator_as_wrong(tmp_path: Path) -> None:
    """A failed call is never parsed (the peers read failure texts as A or E): the sample errors, and the metric
    counts it wrong and unparsed (`missing_units`)."""
    failing = "How many cars are visible"

    def reply(messages: list[ChatMessage]) -> str:
        if failing in messages[-1].text and "second view" not in messages[-1].text:
            raise RuntimeError("simulated provider failure")
        return "D"

    env = {"DRIVE_EVALS_CACHE": str(tmp_path / "cache")}
    log = eval_in_process("drive_evals/mme_realworld_ad", tmp_path / "logs", env, model=mockllm(reply),
                          task_args={"data": "demo"}, fail_on_error=False)  # fmt: skip
    assert log.results and log.samples
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    scored = [s for s in log.samples if s.scores]
    perception = [s for s in scored if s.metadata["task"] == "Perception"]
    assert metrics["missing_units"] == 1 and len(perception) == 13
    assert metrics["perception"] == pytest.approx(sum(s.target == "D" for s in perception) / 14)
    assert metrics["unparsed_rate"] == pytest.approx(1 / 30)


@RUN
def test_a_reply_cut_at_the_token_limit_is_scored_as_it_stands_and_marked(tmp_path: Path) -> None:
    from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model
    from inspect_ai.tool import ToolChoice, ToolInfo

    def outputs(
        messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm/model", content="Based on the image", stop_reason="max_tokens")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    env = {"DRIVE_EVALS_CACHE": str(tmp_path / "cache")}
    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    log = eval_in_process("drive_evals/mme_realworld_ad", tmp_path / "logs", env, model=model,
                          task_args={"data": "demo", "subsets": "Object_Count"})  # fmt: skip
    assert log.results and log.samples
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["truncated_rate"] == 1.0
    assert all(_score(s).reason == "truncated" and _value(s, "official") == float(s.target == "B") for s in log.samples)


def test_blind_control_sends_grey_images_with_the_same_ids(tmp_path: Path) -> None:
    from drive_evals.data import open_snapshot
    from drive_evals.mme_realworld_ad.dataset import load_ad
    from drive_evals.mme_realworld_ad.records import ImageCache
    from drive_evals.mme_realworld_ad.taxonomy import parse_subsets

    def build(blind: bool) -> list[tuple[str, str]]:
        data = load_ad(open_snapshot("demo", "mme_realworld_ad"), "en", parse_subsets(None, "en"), blind=blind,
                       images=ImageCache(tmp_path))  # fmt: skip
        return [(str(s.id), s.input[0].content[0].image) for s in data.dataset]  # type: ignore[union-attr]

    seeing, blind = build(False), build(True)
    assert [i for i, _ in seeing] == [i for i, _ in blind]
    assert all(image.startswith("data:image/png") for _, image in blind)
    assert not any(image.startswith("data:") for _, image in seeing)
