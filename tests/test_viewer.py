"""What `inspect view` shows for our tasks: sample-list columns, explanations, ids, the log's model and run labels."""

from __future__ import annotations

import contextvars
import math
from pathlib import Path

from inspect_ai import eval_set
from inspect_ai._cli.util import parse_model_spec_cli_args
from inspect_ai.log import read_eval_log
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.model._model import init_active_model
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.viewer import TaskSamplesColumn, ViewerConfig

from drive_evals.chance import DEFAULT_SEED, effective_model_args
from drive_evals.data import open_snapshot
from drive_evals.drivelmm_o1.judge import Judgement
from drive_evals.drivelmm_o1.mcq import MCQResult
from drive_evals.drivelmm_o1.metrics import drivelmm_o1_stderr, reasoning_metrics
from drive_evals.drivelmm_o1.rubric import RubricParse
from drive_evals.drivelmm_o1.scorer import (
    mcq_values,
    panel_entry,
    rubric_values,
    shown_answer,
    verbatim,
)
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.surds.dataset import load_surds, question_text
from drive_evals.surds.scorer import PAIR_SEPARATOR, explain, score_unit
from drive_evals.surds.task import surds
from drive_evals.surds.units import SUBSETS
from drive_evals.viewer import replicate_tags


def _columns(config: ViewerConfig | None) -> dict[str, bool]:
    assert config is not None and config.task_samples_view is not None
    view = config.task_samples_view
    assert not isinstance(view, list) and view.columns is not None
    return {column.id: column.visible for column in view.columns}


def _score_id(scorer: str, key: str) -> str:
    return TaskSamplesColumn.score(scorer, key).id


def test_surds_list_names_every_score_key() -> None:
    """The viewer makes every score-value key a visible column, whatever the view says: the xy2d diagnostic
    lives in Score.metadata, so the value holds only the two keys a user needs."""
    columns = _columns(surds(data="demo").viewer)
    assert columns[_score_id("surds_scorer", "score")] and columns[_score_id("surds_scorer", "valid")]
    assert columns["input"], "the input column shows the question"
    completions = ["<answer>[800, 450]</answer>"]
    value, per_prompt = score_unit("xy2d", ["[800, 450]"], [], [700, 400, 900, 500], completions)
    assert value == 1.0 and per_prompt[0].point == (800.0, 450.0)


def test_drivelmm_list_leads_with_the_score_once() -> None:
    """Each score-value key is one column (a rounded copy of the reasoning score made it two), the headline first."""
    columns = _columns(drivelmm_o1(data="demo", judge=False).viewer)
    nothing = MCQResult(final_answer="", model_letter="A", gt_letter="A", correct=True, none_quirk=False)
    emitted = {**rubric_values([]), **mcq_values(True, nothing, nothing)}
    scorer = "drivelmm_o1_scorer"
    assert {_score_id(scorer, key) for key in emitted} <= set(columns)
    assert [key for key in emitted if key.startswith("reasoning")] == ["reasoning_score"]
    order = list(columns)
    assert len(order) == len(set(order))
    first = [order.index(_score_id(scorer, key)) for key in ("reasoning_score", "mcq_correct", "judged")]
    assert first == sorted(first) and max(first) < order.index("error") < order.index(
        _score_id(scorer, "judge_overall")
    )


def test_surds_input_is_the_question_and_the_model_still_gets_the_full_prompt() -> None:
    dataset = load_surds(open_snapshot("demo", "surds"), list(SUBSETS), "metadata").dataset
    for sample in dataset:
        meta = sample.metadata or {}
        text = sample.input[0].content[0].text  # type: ignore[union-attr]
        assert "Task Description" not in text
        prompts = meta["prompts"]
        assert all(question_text(p).split(" (camera")[0] in text for p in prompts)
        assert all(p.startswith("Task Description") for p in prompts), "the solver sends these, unchanged"
    yaw = next(s for s in dataset if (s.metadata or {})["subset"] == "yaw")
    assert "1/2:" in yaw.input[0].content[0].text and "(camera facing" in yaw.input[0].content[0].text  # type: ignore[union-attr]


def test_surds_explanation_numbers_prompts_like_the_transcript() -> None:
    value, per_prompt = score_unit(
        "left_right", ["left", "right"], ["left", "right"], None, ["<answer>left</answer>", None]
    )
    text = explain("left_right", ["left", "right"], None, per_prompt)
    lines = text.splitlines()
    assert lines[0].startswith("- **Prompt 1/2**: answer `left` · gold `left` · valid · score 1 · correct")
    assert lines[1].startswith("- **Prompt 2/2**: answer none") and "invalid" in lines[1]
    assert "|" not in text and value == 0.0
    assert PAIR_SEPARATOR == ", ", "the viewer joins a list target with ', '"


def test_drivelmm_answer_loses_the_marker_colon() -> None:
    assert shown_answer(": Proceed with caution.") == "Proceed with caution."
    assert shown_answer("  :  B) Left") == "B) Left"
    assert shown_answer("") is None


def test_verbatim_fences_text_that_holds_fences() -> None:
    text = "Final Answer: x\n```\nLLM Response: y"
    block = verbatim(text)
    fence = block.splitlines()[0].removesuffix("text")
    assert len(fence) == 4 and block.endswith("\n" + fence) and text in block


def test_panel_entry_keeps_raw_replies_only_for_failures() -> None:
    scores = {"Faithfulness-Step": 7.0}
    good = Judgement(judge="a/b", parse=RubricParse(scores=scores, reported_overall=7.0))
    good.raw_replies.append("{...}")
    assert panel_entry(good, with_scores=False) == {"judge": "a/b", "failure": None}
    assert panel_entry(good, with_scores=True)["scores"] == scores
    bad = Judgement(judge="a/b", failure="invalid judge reply: x")
    bad.raw_replies.append("{not json")
    assert panel_entry(bad, with_scores=False)["raw_replies"] == ["{not json"]


def test_log_metrics_are_the_headline_set() -> None:
    """The headline numbers and coverage; counts of anomalies only when there are some; standard errors only where
    the report prints an informative interval (one frame: none)."""
    scores = [
        SampleScore(score=Score(value={"reasoning_score": 0.5, "judge_overall": 0.5, "judged": 1.0}), sample_id=1)
    ]
    assert set(reasoning_metrics()(scores)) == {"reasoning_score", "judge_overall", "judge_coverage"}  # type: ignore[arg-type]
    assert drivelmm_o1_stderr()(scores) == {}  # type: ignore[arg-type]
    many = [
        SampleScore(
            score=Score(value={"reasoning_score": 0.4 + 0.001 * n, "judge_overall": 0.5, "judged": 1.0}),
            sample_id=n,
            sample_metadata={"frame": f"f{n // 2}"},
        )
        for n in range(400)
    ]
    stderrs = drivelmm_o1_stderr()(many)  # type: ignore[arg-type]
    assert isinstance(stderrs, dict) and set(stderrs) == {"reasoning_score_stderr", "judge_overall_stderr"}, (
        "no MCQ items: no MCQ interval"
    )


def test_the_default_chance_seed_is_named() -> None:
    assert effective_model_args("chance/random", {}) == {"seed": DEFAULT_SEED}
    assert effective_model_args("chance/random", {"seed": 3}) == {"seed": 3}
    assert effective_model_args("openai/gpt-4o", {}) == {}


def test_judge_meta_log_names_the_bound_judge_as_its_model_without_the_role() -> None:
    """The bound judge becomes the run's model (the log list names it), on the same client, without the role."""
    from inspect_ai.model._model import init_model_roles

    from drive_evals.drivelmm_o1.judge_meta.task import judge_as_model

    init_model_roles({})  # an earlier in-process eval may have left its roles bound, which get_model would return
    judge = get_model("chance/random", role="grader", memoize=False)
    init_model_roles({"grader": judge})
    try:
        model = judge_as_model()
    finally:
        init_model_roles({})
    assert judge.role == "grader" and str(model) == "chance/random"
    assert model.role is None and model.api is judge.api and model.config == judge.config
    assert math.isnan(rubric_values([])["reasoning_score"])


def test_without_the_judge_mcq_accuracy_is_the_headline() -> None:
    """`-T judge=false` leaves no reasoning score (NaN); the headline is the official number that is left."""
    unjudged, judged = drivelmm_o1(data="demo", judge=False), surds(data="demo")
    assert unjudged.headline_metric is not None and unjudged.headline_metric.metric == "mcq_accuracy"
    assert judged.headline_metric is not None and judged.headline_metric.metric == "overall"


OFFLINE_MODELS = Path(__file__).parents[1] / "examples" / "compare" / "models-offline.txt"


def test_replicates_are_told_apart_by_their_tags(tmp_path: Path) -> None:
    """The comparison recipe's three chance seeds, as `run.sh` passes them (`--model-spec` lines), each log tagged
    with its seed: the log list's Tags column is what tells them apart (they share task and model)."""
    lines = [line for line in OFFLINE_MODELS.read_text(encoding="utf-8").splitlines() if line.startswith("{")]
    models = parse_model_spec_cli_args(tuple(lines))
    assert models is not None and len(models) == 3
    done, logs = eval_set(
        ["drive_evals/surds"],
        model=models,
        task_args={"data": "demo", "subsets": "yaw"},
        limit=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert done
    tags = sorted((log.eval.model_args["seed"], log.eval.tags) for log in logs)
    assert tags == [(1, ["seed=1"]), (2, ["seed=2"]), (3, ["seed=3"])]
    assert {str(log.eval.model) for log in logs} == {"chance/random"}, "one model: only the tags differ"
    assert all(read_eval_log(log.location, header_only=True).tags == log.eval.tags for log in logs)


def test_replicate_tags_name_numbers_only() -> None:
    """Numbers and booleans of the model args and the generate seed; text args (a key, a token) never."""
    model = get_model("chance/random", config=GenerateConfig(seed=7), memoize=False, seed=2, api_note="secret")

    def built_for(active: Model) -> list[str]:
        init_active_model(active, GenerateConfig())
        return replicate_tags()

    assert contextvars.copy_context().run(built_for, model) == ["seed=2"], "the model arg wins over the config"
    plain = get_model("chance/random", config=GenerateConfig(seed=7), memoize=False)
    assert contextvars.copy_context().run(built_for, plain) == ["seed=7"]
    assert contextvars.Context().run(replicate_tags) == [], "built outside an evaluation"
