"""`drive-evals estimate`: image token rules against the providers' worked examples, and counts from real samples."""

from __future__ import annotations

import pytest
from doc_numbers import ChanceRuns
from inspect_ai.log import read_eval_log_sample_summaries

from drive_evals.benchmark import GRADER_ROLE
from drive_evals.cli import main
from drive_evals.cli.estimate import build_task, estimate, parse_task_args
from drive_evals.cli.image_tokens import (
    QWEN_CARD_MAX_PIXELS,
    RULES,
    anthropic_pixels,
    anthropic_resized,
    gemini_tiles,
    openai_tiles,
    qwen_patches,
    qwen_resized,
    rule_for_model,
)
from drive_evals.errors import ParameterError

FRAME = (1600, 900)
"""The size of a SURDS image and of a DriveLMM-o1 view (nuScenes CAM_* keyframes); the demo data has it too."""
GRID = (2400, 900)
"""The DriveLMM-o1 grid: 2x3 cells of 800x450."""


# --- the rules, against the documented worked examples ---------------------------------------------------------


def test_openai_worked_examples() -> None:
    # "A 1024 x 1024 square image in detail: high mode costs 765 tokens"
    assert openai_tiles((1024, 1024), "high") == 765
    # "A 2048 x 4096 image in detail: high mode costs 1105 tokens"
    assert openai_tiles((2048, 4096), "high") == 1105
    # "A 4096 x 8192 image in detail: low most costs 85 tokens"
    assert openai_tiles((4096, 8192), "low") == 85


def test_openai_sizes_this_suite_sends() -> None:
    # 1600x900 -> 1365x768: 3x2 tiles; the grid 2400x900 -> 2048x768: 4x2 tiles
    assert openai_tiles(FRAME) == 85 + 6 * 170
    assert openai_tiles(GRID) == 85 + 8 * 170
    assert RULES["openai-tiles-4o-mini"].tokens(FRAME, "auto") == 2833 + 6 * 5667


def test_anthropic_worked_examples() -> None:
    # the documentation's table: 200x200 ~54 tokens, 1000x1000 ~1334, 1092x1092 ~1590 (not resized)
    assert anthropic_pixels((200, 200)) == 54
    assert anthropic_pixels((1000, 1000)) == 1334
    assert anthropic_pixels((1092, 1092)) == 1590


def test_anthropic_resize_matches_the_documented_maximum_sizes() -> None:
    # the largest 9:16 image sent unresized is 819x1456: a 1600x900 frame is scaled to exactly that
    width, height = anthropic_resized(FRAME)
    assert (round(width), round(height)) == (1456, 819)
    assert anthropic_pixels(FRAME) == 1590
    # a wide image is bound by the 1568-px long edge before the pixel limit
    assert anthropic_resized(GRID) == pytest.approx((1568, 588))


def test_gemini_tiles() -> None:
    # "both dimensions <= 384 pixels are counted as 258 tokens"; larger: 258 per 768x768 tile
    assert gemini_tiles((384, 384)) == 258
    assert gemini_tiles((385, 200)) == 258
    assert gemini_tiles((768, 769)) == 2 * 258
    assert gemini_tiles(FRAME) == 6 * 258
    assert gemini_tiles(GRID) == 8 * 258


def test_qwen_patches_and_max_pixels() -> None:
    # 28-px multiples pass through: 448x448 is 16x16 patches
    assert qwen_patches((448, 448)) == 256
    # 1600x900 rounds to 1596x896 (57x32 patches), under the processor default max_pixels
    assert qwen_resized(FRAME) == (1596, 896)
    assert qwen_patches(FRAME) == 57 * 32
    # the model card's example max_pixels keeps every image within 1280 tokens (its stated range)
    for size in (FRAME, GRID, (4000, 3000)):
        assert qwen_patches(size, QWEN_CARD_MAX_PIXELS) <= 1280
    assert qwen_patches(FRAME, QWEN_CARD_MAX_PIXELS) == 47 * 26
    # tiny images are scaled up to min_pixels (4 tokens)
    assert qwen_patches((10, 10)) == 4


def test_rule_for_model() -> None:
    assert rule_for_model("openai/gpt-4o") is RULES["openai-tiles"]
    assert rule_for_model("openai/gpt-4o-mini-2024-07-18") is RULES["openai-tiles-4o-mini"]
    assert rule_for_model("anthropic/claude-sonnet-4-5") is RULES["anthropic-pixels"]
    assert rule_for_model("google/gemini-2.5-flash") is RULES["gemini-tiles"]
    assert rule_for_model("vllm/Qwen/Qwen2.5-VL-7B-Instruct") is RULES["qwen2.5-vl"]
    assert rule_for_model("vllm/some/other-model") is None


# --- counts from the samples the tasks build -------------------------------------------------------------------


def test_task_args_parse_as_inspect_parses_them() -> None:
    assert parse_task_args(["subsets=yaw,depth", "blind=true", "data=demo"]) == {
        "subsets": ["yaw", "depth"],
        "blind": True,
        "data": "demo",
    }
    with pytest.raises(ParameterError, match="NAME=VALUE"):
        parse_task_args(["subsets"])


def test_surds_counts_one_request_per_prompt_each_with_the_frame() -> None:
    _, task = build_task("drive_evals/surds", {"data": "demo", "subsets": ["yaw"]})
    prompts = sum(len((s.metadata or {})["prompts"]) for s in task.dataset)
    result = estimate("surds", {"data": "demo", "subsets": ["yaw"]}, RULES["openai-tiles"])
    assert result.judge is None
    assert result.model.requests == prompts > len(task.dataset)
    assert result.model.image_tokens == prompts * openai_tiles(FRAME)
    assert result.model.output_tokens == prompts * 4096
    everything = estimate("surds", {"data": "demo"}, RULES["openai-tiles"])
    assert everything.model.requests > result.model.requests


def test_drivelmm_grid_views_and_judge() -> None:
    grid = estimate("drive_evals/drivelmm_o1", {"data": "demo"}, RULES["anthropic-pixels"])
    samples = grid.samples
    assert grid.model.requests == samples
    assert grid.model.image_tokens == samples * anthropic_pixels(GRID)
    assert grid.judge is not None and grid.judge.requests == samples and grid.judge.image_tokens == 0
    views = estimate("drivelmm_o1", {"data": "demo", "image_mode": "views"}, RULES["anthropic-pixels"], judges=2)
    assert views.model.image_tokens == samples * 6 * anthropic_pixels(FRAME)
    assert views.model.text_tokens > grid.model.text_tokens  # the six camera labels
    assert views.judge is not None and views.judge.requests == 2 * samples
    unjudged = estimate("drivelmm_o1", {"data": "demo", "judge": False}, RULES["anthropic-pixels"], epochs=3)
    assert unjudged.judge is None and unjudged.model.requests == 3 * samples


def test_unknown_task_or_parameter_is_a_clear_error() -> None:
    with pytest.raises(ParameterError, match="unknown task"):
        estimate("drive_evals/nope", {}, RULES["openai-tiles"])
    with pytest.raises(ParameterError, match="subset"):
        estimate("surds", {"data": "demo", "subset": "yaw"}, RULES["openai-tiles"])


@pytest.mark.slow  # reads the session's chance run of DriveLMM-o1 (shared with the docs' numbers check)
def test_output_tokens_from_a_log(chance_logs: ChanceRuns) -> None:
    log = chance_logs.drivelmm_o1_normal  # on an empty cache: a cached call records no usage
    summaries = read_eval_log_sample_summaries(log.location)
    judge_out = sum(s.role_usage[GRADER_ROLE].output_tokens for s in summaries)
    model_out = sum(sum(u.output_tokens for u in s.model_usage.values()) for s in summaries) - judge_out
    params: dict[str, object] = {"data": "demo"}
    result = estimate("drivelmm_o1", params, RULES["openai-tiles"], from_log=log.location)
    assert result.model.output_tokens == pytest.approx(model_out / len(summaries) * result.model.requests)
    assert result.judge is not None
    assert result.judge.output_tokens == pytest.approx(judge_out / len(summaries) * result.judge.requests)
    assert f"{len(summaries)} requests" in result.model.output_basis
    with pytest.raises(ParameterError, match="no sample of this run"):
        estimate("surds", {"data": "demo"}, RULES["openai-tiles"], from_log=log.location)


def test_cli_prints_rule_rows_and_cost(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["estimate", "drive_evals/surds", "--model", "google/gemini-2.5-flash", "-T", "data=demo", "-T",
         "subsets=yaw", "--price-in", "1", "--price-out", "2"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "gemini-tiles" in out and "ai.google.dev" in out
    result = estimate("surds", {"data": "demo", "subsets": "yaw"}, RULES["gemini-tiles"])
    cost = (result.model.input_tokens * 1 + result.model.output_tokens * 2) / 1e6
    assert f"model cost: ${cost:,.2f}" in out


def test_cli_refuses_an_unknown_rule_and_half_a_price(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "surds", "--model", "vllm/my-model", "-T", "data=demo"]) == 1
    assert "--image-rule" in capsys.readouterr().err
    assert main(["estimate", "surds", "--model", "openai/gpt-4o", "--price-in", "1", "-T", "data=demo"]) == 1
    assert "give both" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("model", "says"),
    [
        ("foo/bar", "unknown provider 'foo'; the providers are: "),
        ("opnai/gpt-4o", "unknown provider 'opnai' (did you mean 'openai'?)"),
        ("gpt-4o", "a model is named <provider>/<model>"),
    ],
)
def test_cli_answers_a_wrong_model_name_with_the_providers(
    model: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["estimate", "surds", "--model", model, "--image-rule", "openai-tiles", "-T", "data=demo"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"drive-evals estimate: --model {model}: ") and says in err, err
    assert "Traceback" not in err and all(p in err for p in ("anthropic, ", "google, ", "openai, ", "chance, "))
