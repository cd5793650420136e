"""DriveLMM-o1 protocol strings, reproduced exactly from the official evaluation code.

Source: github.com/ayesha-ishaq/DriveLMM-o1 at commit 338d6b3815cb0dae0924b2eb0cd45d5f194e96cd (identical in
mbzuai-oryx/DriveLMM-o1 at d18285c38972590e9293c035814dcf072e1825ab): `evaluation/inference.py` line 244 (the model
prompt) and `evaluation/evaluation_script.py` lines 22-217 (the judge system prompt, the judge schema, the
final-answer splitters and the option pattern). Ishaq et al., "DriveLMM-o1: A Step-by-Step Reasoning Dataset and
Large Multimodal Model for Driving Scenario Understanding", arXiv 2503.10621.

These are benchmark protocol data: every string keeps its exact whitespace (trailing spaces included), because
changing a byte changes what the model and the judge see. They are written out here rather than loaded, so the
package carries them; `tests/data/drivelmm-o1-prompts.json` holds the reference copy the tests compare against.
"""

from __future__ import annotations

# The instruction before the image; the official layout is `MODEL_PROMPT + "\n<image>\n" + question.strip()`.
MODEL_PROMPT = (
    "When answering the question based on the provided image, follow a structured and "
    "logical reasoning process. Organize your response using the format, ensuring each "
    "step builds upon the previous one and clearly explains how the image(s) contribute to "
    "the solution. Your answer should be structured as Reasoning Steps: (step by step "
    "reasoning) Final Answer: (final answer) \n"
    " Question: "
)
"""Instruction to the evaluated model; ends with `Question: ` (the image, then the question, follow it)."""

MODEL_TEMPERATURE = 0.0
MODEL_MAX_TOKENS = 2000
"""Official generation for the evaluated model: greedy, at most 2000 new tokens."""

JUDGE_SYSTEM_PROMPT = (
    "\n"
    "You are an autonomous driving reasoning evaluator. Your task is to assess the "
    "alignment, coherence, and quality of reasoning steps in text responses for "
    "safety-critical driving scenarios.  \n"
    "\n"
    "You will evaluate the model-generated reasoning using the following metrics: \n"
    "\n"
    "1. Faithfulness-Step (1-10)  \n"
    "Measures how well the model's reasoning steps align with the ground truth.  \n"
    "9-10: All steps correctly match or closely reflect the reference.  \n"
    "7-8: Most steps align, with minor deviations.  \n"
    "5-6: Some steps align, but several are incorrect or missing.  \n"
    "3-4: Few steps align; most are inaccurate or missing.  \n"
    "1-2: Majority of steps are incorrect. \n"
    "\n"
    "2.  Informativeness-Step (1-10)  \n"
    "Measures completeness of reasoning:  \n"
    "9-10: Captures almost all critical information.  \n"
    "7-8: Covers most key points, with minor omissions.  \n"
    "5-6: Missing significant details.  \n"
    "3-4: Only partial reasoning present.  \n"
    "1-2: Poor extraction of relevant reasoning. \n"
    "\n"
    "3.  Risk Assessment Accuracy (1-10)  \n"
    "Evaluates if the model correctly prioritizes high-risk objects or scenarios.  \n"
    "9-10: Correctly identifies and prioritizes key dangers.  \n"
    "7-8: Mostly accurate, with minor misprioritizations.  \n"
    "5-6: Some important risks are overlooked.  \n"
    "3-4: Significant misjudgments in risk prioritization.  \n"
    "1-2: Misidentifies key risks or misses them entirely. \n"
    "\n"
    "4. Traffic Rule Adherence (1-10)  \n"
    "Evaluates whether the response follows traffic laws and driving best practices.  \n"
    "9-10: Fully compliant with legal and safe driving practices.  \n"
    "7-8: Minor deviations, but mostly correct.  \n"
    "5-6: Some inaccuracies in legal/safe driving recommendations.  \n"
    "3-4: Several rule violations or unsafe suggestions.  \n"
    "1-2: Promotes highly unsafe driving behavior. \n"
    "\n"
    "5.  Scene Awareness & Object Understanding (1-10)  \n"
    "Measures how well the response interprets objects, their positions, and actions.  \n"
    "9-10: Clearly understands all relevant objects and their relationships.  \n"
    "7-8: Minor misinterpretations but mostly correct.  \n"
    "5-6: Some key objects misunderstood or ignored.  \n"
    "3-4: Many errors in object recognition and reasoning.  \n"
    "1-2: Misidentifies or ignores key objects. \n"
    "\n"
    "6.  Repetition-Token (1-10)  \n"
    "Identifies unnecessary repetition in reasoning.  \n"
    "9-10: No redundancy, very concise.  \n"
    "7-8: Minor repetition but still clear.  \n"
    "5-6: Noticeable redundancy.  \n"
    "3-4: Frequent repetition that disrupts reasoning.  \n"
    "1-2: Excessive redundancy, making reasoning unclear. \n"
    "\n"
    "7.  Hallucination (1-10)  \n"
    "Detects irrelevant or invented reasoning steps not aligned with ground truth.  \n"
    "9-10: No hallucinations, all reasoning is grounded.  \n"
    "7-8: One or two minor hallucinations.  \n"
    "5-6: Some fabricated details.  \n"
    "3-4: Frequent hallucinations.  \n"
    "1-2: Majority of reasoning is hallucinated. \n"
    "\n"
    "8.  Semantic Coverage-Step (1-10)  \n"
    "Checks if the response fully covers the critical reasoning elements.  \n"
    "9-10: Nearly complete semantic coverage.  \n"
    "7-8: Good coverage, some minor omissions.  \n"
    "5-6: Partial coverage with key gaps.  \n"
    "3-4: Major gaps in reasoning.  \n"
    "1-2: Very poor semantic coverage.\n"
    "\n"
    "9. Commonsense Reasoning (1-10)  \n"
    "Assesses the use of intuitive driving logic in reasoning.  \n"
    "9-10: Displays strong commonsense understanding.  \n"
    "7-8: Mostly correct, with minor gaps.  \n"
    "5-6: Some commonsense errors.  \n"
    "3-4: Frequent commonsense mistakes.  \n"
    "1-2: Lacks basic driving commonsense. \n"
    "\n"
    "10. Missing Step (1-10)  \n"
    "Evaluates if any necessary reasoning steps are missing.  \n"
    "9-10: No critical steps missing.  \n"
    "7-8: Minor missing steps, but answer is mostly intact.  \n"
    "5-6: Some important steps missing.  \n"
    "3-4: Many critical reasoning gaps.  \n"
    "1-2: Response is highly incomplete. \n"
    "\n"
    "11. Relevance (1-10)\n"
    "Measures how well the response is specific to the given scenario and ground truth. "
    "This includes whether the answer is too general or vague instead of directly "
    "addressing the key aspects of the scenario.\n"
    "9-10: Highly specific and directly relevant to the driving scenario. Captures "
    "critical elements precisely, with no unnecessary generalization.\n"
    "7-8: Mostly relevant, but some minor parts may be overly generic or slightly off-focus.\n"
    "5-6: Somewhat relevant but lacks precision; response contains vague or general "
    "reasoning without clear scenario-based details.\n"
    "3-4: Mostly generic or off-topic reasoning, with significant irrelevant content.\n"
    "1-2: Largely irrelevant, missing key aspects of the scenario and failing to align "
    "with the ground truth.\n"
    "\n"
    "12. Missing Details (1-10)\n"
    "Evaluates the extent to which critical information is missing from the response, "
    "impacting the reasoning quality.\n"
    "9-10: No significant details are missing; response is comprehensive and complete.\n"
    "7-8: Covers most important details, with minor omissions that do not severely impact "
    "reasoning.\n"
    "5-6: Some essential details are missing, affecting the completeness of reasoning.\n"
    "3-4: Many critical reasoning steps or contextual details are absent, making the "
    "response incomplete.\n"
    "1-2: Response is highly lacking in necessary details, leaving major gaps in understanding.\n"
    "\n"
    "Final Evaluation:  \n"
    "\n"
    "Compute the Overall Score as the average of all metric scores.  \n"
    "\n"
    "Avoid subjective interpretation and adhere to the given thresholds. \n"
    "\n"
    "Always strictly follow these scoring guidelines.  \n"
    "\n"
    "Do not add any additional explanations beyond the structured JSON output. \n"
    "\n"
    "Example output format:  \n"
    "\n"
    "{\n"
    '  "Faithfulness-Step": 6.0,\n'
    '  "Informativeness-Step": 6.5,\n'
    '  "Risk Assessment Accuracy": 7.0,\n'
    '  "Traffic Rule Adherence": 7.5,\n'
    '  "Scene Awareness & Object Understanding": 8.0,\n'
    '  "Repetition-Token": 7.0,\n'
    '  "Hallucination": 8.5,\n'
    '  "Semantic Coverage-Step": 7.5,\n'
    '  "Commonsense Reasoning": 7.0,\n'
    '  "Missing Step": 8.5,\n'
    '  "Relevance": 8.5,\n'
    '  "Missing Details": 7.0,\n'
    '  "Overall Score": 7.42\n'
    "}\n"
    "\n"
)
"""Judge system message, with its leading newline and trailing blank line. It names criterion 9 `Commonsense
Reasoning` while the schema key is `Commonsense` (see `CRITERION_ALIASES`)."""

JUDGE_USER_TEMPLATE = "Question: {question}\nGround Truth: {ground_truth}\nLLM Response: {llm_response}"
"""Judge user message; `llm_response` is the evaluated model's full raw output."""

JUDGE_GROUND_TRUTH_TEMPLATE = "**Step-by-Step Reasoning**: {steps} **Final Answer**: {final_answer}"
"""How the dataset's `steps` and `final_answer` are joined into the judge's `Ground Truth`."""

JUDGE_SCHEMA_NAME = "EvaluationScores"
"""Name of the strict JSON schema the judge answers in."""

CRITERIA: tuple[str, ...] = (
    "Faithfulness-Step",
    "Informativeness-Step",
    "Risk Assessment Accuracy",
    "Traffic Rule Adherence",
    "Scene Awareness & Object Understanding",
    "Repetition-Token",
    "Hallucination",
    "Semantic Coverage-Step",
    "Commonsense",
    "Missing Step",
    "Relevance",
    "Missing Details",
)
"""The twelve rubric criteria, as the judge schema spells them, in schema order."""

OVERALL_SCORE_KEY = "Overall Score"
"""The judge's own average of the twelve criteria (official headline; never checked by the official code)."""

JUDGE_SCHEMA_KEYS: tuple[str, ...] = (*CRITERIA, OVERALL_SCORE_KEY)
"""The 13 required number properties of the judge schema, in order."""

CRITERION_ALIASES: dict[str, str] = {"Commonsense Reasoning": "Commonsense"}
"""Names the judge may use (the prompt's wording) mapped to the schema key."""

CRITERION_MIN = 1.0
CRITERION_MAX = 10.0
"""Every criterion is scored on a 1-10 scale (floats allowed)."""

JUDGE_TEMPERATURE = 0.0
JUDGE_MAX_TOKENS = 500
"""Official judge generation settings."""

OFFICIAL_SCRIPT_JUDGE_MODEL = "gpt-4o-mini"
"""The judge the released script calls (an unpinned alias)."""

PAPER_JUDGE_MODEL = "gpt-4o"
"""The judge the paper's text names."""

FINAL_ANSWER_SPLITTERS: tuple[str, ...] = (
    "The final answer is:",
    "**Final Answer:**",
    "Final Answer",
    "Answer",
    "Why take this action?:",
    "**Final Answer**",
    "**Final Decision**:",
    "Final Step:",
    "<CONCLUSION>",
)
"""Final-answer markers, tried in this order (case-sensitive); the first one present wins."""

OPTION_PATTERN = r"([A-F])\)\s*(.+)"
"""Official option pattern: a capital letter A-F, `)`, then at least one more character on the line."""

MCQ_QUESTION_NUMBERS: frozenset[int] = frozenset({2, 3, 4, 5, 8})
"""Question numbers (the last `_` field of `idx`) that the official code scores as multiple choice."""


def judge_ground_truth(steps: str, final_answer: str) -> str:
    """The judge's `Ground Truth` text, built from the raw dataset fields as the official script does."""
    return JUDGE_GROUND_TRUTH_TEMPLATE.format(steps=steps, final_answer=final_answer)


def judge_user_message(question: str, steps: str, final_answer: str, llm_response: str) -> str:
    """The judge's user message for one sample (the raw dataset question, not the instruction prompt)."""
    return JUDGE_USER_TEMPLATE.format(
        question=question,
        ground_truth=judge_ground_truth(steps, final_answer),
        llm_response=llm_response,
    )
