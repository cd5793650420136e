"""The question as each implementation asks it (protocol 2.1): byte-identical strings, image first, no system prompt.

`vlmevalkit` (the default) is VLMEvalKit's `MMERealWorld.build_prompt` (image_mcq.py, SYS L903-L916), which is the
authors' README format block without its `[Image]` placeholder. `lmms_eval` is lmms-eval's `doc_to_text`
(utils.py L40-L60 @75571cf: no space before the last line, one after it). `llava_script` is the authors' LLaVA-1.5
script (model_vqa_mme_real_world.py L43-L53) without the `<image>` token, which Inspect's image part replaces; it
exists in English only. The three differ only in whitespace. Prompt strings are benchmark protocol data, reproduced
with attribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from drive_evals.kit import ParameterError

PromptVariant = Literal["vlmevalkit", "lmms_eval", "llava_script"]
PROMPTS: tuple[PromptVariant, ...] = ("vlmevalkit", "lmms_eval", "llava_script")

EN_INSTRUCTION = (
    "Select the best answer to the above multiple-choice question based on the image. "
    "Respond with only the letter (A, B, C, D, or E) of the correct option."
)
CN_INSTRUCTION = "根据图像选择上述多项选择题的最佳答案。只需回答正确选项的字母（A, B, C, D 或 E）。"

_TEMPLATES: dict[tuple[PromptVariant, bool], tuple[str, str]] = {
    # (variant, chinese) -> (what follows the question, what follows the options)
    ("vlmevalkit", False): (" The choices are listed below:\n", f"\n{EN_INSTRUCTION} \nThe best answer is:"),
    ("lmms_eval", False): (" The choices are listed below:\n", f"\n{EN_INSTRUCTION}\nThe best answer is: "),
    ("llava_script", False): (" The choices are listed below: \n", f"\n{EN_INSTRUCTION}\nThe best answer is:"),
    ("vlmevalkit", True): (" 选项如下所示:\n", f"\n{CN_INSTRUCTION}\n最佳答案为："),
    ("lmms_eval", True): (" 选项如下所示:\n", f"\n{CN_INSTRUCTION}\n最佳答案为： "),
}
EN_SUFFIXES = tuple(after for (_, chinese), (_, after) in _TEMPLATES.items() if not chinese)
CN_SUFFIXES = tuple(after for (_, chinese), (_, after) in _TEMPLATES.items() if chinese)


def check_prompt(variant: PromptVariant, chinese: bool) -> None:
    if (variant, chinese) not in _TEMPLATES:
        raise ParameterError(f"prompt={variant!r} has no Chinese form (the authors' LLaVA script is English only)")


def prompt_text(
    question: str, options: Sequence[str], variant: PromptVariant = "vlmevalkit", chinese: bool = False
) -> str:
    """The text part of the one user message (the image part comes first)."""
    check_prompt(variant, chinese)
    before, after = _TEMPLATES[(variant, chinese)]
    return question + before + "\n".join(options) + after
