"""DriveBench protocol strings, reproduced exactly from the official toolkit, and the prompts built from them.

Source: github.com/worldbench/drivebench at commit 723908f2affe1d1602c51b748525c4fcd0904bc7 (Xie et al., "Are VLMs
Ready for Autonomous Driving? An Empirical Study from the Reliability, Data, and Metric Perspectives", arXiv
2501.04003, ICCV 2025; Apache-2.0): `prompt.txt` (the model's system prompt), `inference/utils.py` L7-71 (its
per-question camera sentence), `inference/llava1.5.py` L68-111 (prompt assembly), `evaluate/request.py` L76-114
(the judge message and score pattern) and `evaluate/prompts.py` (the rubrics).

These are benchmark protocol data: every string keeps its exact whitespace (trailing spaces included), because a
changed byte changes what the model and the judge see. `tests/drivebench/data/drivebench-prompts.json` holds the
reference copy the tests compare against.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

SYSTEM_PROMPT = (
    "You are a smart autonomous driving assistant responsible for analyzing and responding to driving "
    "scenarios. You are provided with up to six camera images in the sequence [CAM_FRONT, "
    "CAM_FRONT_LEFT, CAM_FRONT_RIGHT, CAM_BACK, CAM_BACK_LEFT, CAM_BACK_RIGHT]. Each image has "
    "normalized coordinates from [0, 1], with (0,0) at the top left and (1,1) at the bottom right.\n"
    "\n"
    "Instructions:\n"
    "1. Answer Requirements:\n"
    "- For multiple-choice questions, provide the selected answer choice along with an explanation.\n"
    "- For “is” or “is not” questions, respond with a “Yes” or “No”, along with an explanation.\n"
    "- For open-ended perception and prediction questions, related objects to which the camera.\n"
    "\n"
    "2. Key Information for Driving Context:\n"
    "- When answering, focus on object attributes (e.g., categories, statuses, visual descriptions) and "
    "motions (e.g., speed, action, acceleration) relevant to driving safety and decision-making.\n"
    "\n"
    "Use the images and coordinate information to respond accurately to questions related to perception, "
    "prediction, planning, or behavior, based on the question requirements.\n"
)
"""`prompt.txt` (L1-12): its curly quotes, its ungrammatical open-ended line and its final newline kept."""

PERCEPTION_MCQ_PROMPT = (
    "Please evaluate the multiple-choice answer on a scale from 0 to 100, where a higher score reflects "
    "precise alignment with the correct answer and well-supported reasoning. Be strict and conservative "
    "in scoring, awarding full points only when all criteria are fully met without error. Deduct points "
    "for minor inaccuracies, omissions, or lack of clarity. Distribute the Total Score across the "
    "following criteria:\n"
    "\n"
    "1. Answer Correctness (50 points):\n"
    "- Exact Match (50 points): Assign 50 points if the predicted answer exactly matches the correct "
    "answer.\n"
    "- No Match (0 points): Assign 0 points if the predicted answer does not match the correct answer, "
    "regardless of explanation quality.\n"
    "        \n"
    "2. Object Recognition (10 points):\n"
    "- Award up to 5 points for accurately identifying all relevant object(s) in the scene.\n"
    "- Award up to 5 points for correct descriptions of the identified object(s), including attributes "
    "like colors, materials, sizes, or shapes.\n"
    "- Guideline: Deduct points for any missing, misidentified, or irrelevant objects, particularly if "
    "they are crucial to the driving context. Deduct points if any important visual details are missing, "
    "incorrect, or overly generalized, especially if they affect comprehension or recognition.\n"
    "        \n"
    "3. Object Location and Orientation (15 points):\n"
    "- Score up to 5 points for precise description of the object's location, orientation, or position "
    "relative to the ego vehicle.\n"
    "- Award up to 5 points for acknowledging environmental factors, such as lighting, visibility, and "
    "other conditions that influence perception.\n"
    "- Score up to 5 points based on how well the answer reflects an understanding of situational "
    "context, such as obstacles, traffic flow, or potential hazards.\n"
    "- Guideline: Deduct points for inaccuracies or omissions in spatial information that could affect "
    "scene understanding. Deduct points if the answer fails to consider factors impacting object "
    "visibility or situational awareness. Deduct points for overlooked or misinterpreted contextual "
    "factors that may impact driving decisions.\n"
    "\n"
    "4. Environmental Condition Awareness (15 points):\n"
    "- Award up to 15 points if the explanation considers environmental conditions (e.g., weather or "
    "sensor limitations) that could impact perception.\n"
    "- Guideline: Deduct points if relevant environmental conditions are ignored or inadequately "
    "addressed.\n"
    "\n"
    "5. Clarity of Reasoning (10 points):\n"
    "- Award up to 5 points for clear, logically structured reasoning that is easy to understand.\n"
    "- Assign up to 5 points for grammatical accuracy and coherent structure.\n"
    "- Guideline: Deduct points for vague or confusing explanations that hinder comprehension. Deduct "
    "points for grammar or syntax issues that impact clarity or logical flow.\n"
    "\n"
    "Assign 0 points from criteria 2 to 5 if no explanation is provided.\n"
    "\n"
    'Here is the multiple-choice question: "{QUESTION}"\n'
    "\n"
    'Here is the ground truth object visual description: "{DESC}"\n'
    "\n"
    'Here is the correct answer: "{GT}"\n'
    "\n"
    'Here is the predicted answer and explanation (if any): "{PRED}"\n'
    "\n"
    "Please fill in the following scoring sheet, and then provide a brief summary supporting the score:\n"
    "1. Answer Correctness (50 points): \n"
    "2. Object Recognition (10 points):\n"
    "3. Object Location and Orientation (15 points):\n"
    "4. Environmental Condition Awareness (15 points):\n"
    "5. Clarity of Reasoning (10 points): \n"
    "Total Score: \n"
    "\n"
    "Brief Summary: "
)
"""`evaluate/prompts.py` L1-45: perception MCQ (tag 0); fills {QUESTION}, {DESC}, {GT}, {PRED}."""

PERCEPTION_VQA_PROMPT = (
    "Please evaluate the predicted answer on a scale from 0 to 100, where a higher score reflects "
    "precise alignment with the correct answer and well-supported reasoning. Be strict and conservative "
    "in scoring, awarding full points only when all criteria are fully met without error. Deduct points "
    "for minor inaccuracies, omissions, or lack of clarity. Distribute the Total Score across the "
    "following criteria:\n"
    "\n"
    "1. Action Alignment (20 points):\n"
    "- Assign up to 20 points based on how accurately the predicted action (e.g., forward, turn left, "
    "turn right) matches the correct answer.\n"
    "- Guideline: Award full points only for exact matches or highly similar actions. Deduct points for "
    "any inaccuracies or missing elements. Assign 0 points if no action prediction is provided.\n"
    "\n"
    "2. Motion Precision (20 points):\n"
    "- Award up to 20 points based on how closely the predicted motion (e.g., speed up, decelerate) "
    "aligns with the correct motion in the answer.\n"
    "- Guideline: Deduct points if the predicted motion fails to match the type or intensity of the "
    "correct answer. Ensure that the intended speed or deceleration aligns accurately with the driving "
    "context. Assign 0 points if no motion prediction is provided.\n"
    "  \n"
    "3. Driving Context Appropriateness (15 points):\n"
    "- Score up to 15 points for the relevance of the predicted answer to the driving context implied by "
    "the correct answer, emphasizing logical alignment with the situation.\n"
    "- Guideline: Award higher scores only if the answer fully reflects an accurate understanding of the "
    "driving context. Deduct points if the action or motion is illogical or does not align with the "
    "scenario's requirements.\n"
    "\n"
    "4. Situational Awareness (15 points):\n"
    "- Award up to 15 points for demonstrated awareness of environmental factors (e.g., traffic "
    "participants, obstacles) relevant to the action or motion.\n"
    "- Guideline: Deduct points if the answer misses key situational details that may lead to unsafe or "
    "incorrect predictions.\n"
    "\n"
    "5. Conciseness and Clarity (20 points):\n"
    "- Assess the clarity and brevity of the predicted answer. Answers should be concise, clear, and "
    "easy to understand, effectively communicating the intended actions and motions.\n"
    "- Guideline: Deduct points for verbosity, ambiguity, or lack of focus that could hinder quick "
    "comprehension.\n"
    "\n"
    "6. Grammar (10 points):\n"
    "- Evaluate the grammatical accuracy and structure of the answer. Assign up to 5 points for clarity "
    "and logical flow, and up to 5 points for grammatical accuracy.\n"
    "- Guideline: Deduct points for grammar or syntax issues that reduce readability or coherence.\n"
    "\n"
    'Here is the question: "{QUESTION}"\n'
    "\n"
    'Here is the predicted answer: "{PRED}"\n'
    "\n"
    'Here is the correct answer: "{GT}"\n'
    "\n"
    "Please fill in the following scoring sheet, and then provide a brief summary supporting the score:\n"
    "1. Action Alignment (20 points): \n"
    "2. Motion Precision (20 points):\n"
    "3. Driving Context Appropriateness (15 points):\n"
    "4. Situational Awareness (15 points):\n"
    "5. Conciseness and Clarity (20 points): \n"
    "6. Grammar (10 points):\n"
    "Total Score: \n"
    "\n"
    "Brief Summary: "
)
"""`evaluate/prompts.py` L48-89: perception VQA (tag 2); fills {QUESTION}, {PRED}, {GT}."""

PREDICTION_MCQ_PROMPT = (
    "Please evaluate the predicted answer for the Yes/No question on a scale from 0 to 100, where a "
    "higher score reflects precise alignment with the correct answer and a well-supported explanation. "
    "Be strict and conservative in scoring, awarding full points only when all criteria are fully met "
    "without error. Deduct points for minor inaccuracies, omissions, or lack of clarity. Distribute the "
    "Total Score across the following criteria:\n"
    "\n"
    "1. Answer Correctness (40 points):\n"
    "- Exact Match (40 points): Assign 40 points if the predicted Yes/No answer exactly matches the "
    "correct answer.\n"
    "- No Match (0 points): Assign 0 points if the predicted answer does not match the correct answer, "
    "regardless of explanation quality.\n"
    "        \n"
    "2. Object Category Identification (15 points):\n"
    "- Score up to 15 points for accurately identifying the object's category.\n"
    "- Guideline: Deduct points for any inaccuracies or missing elements in the category identification, "
    "particularly if they affect understanding or recognition of the object’s role in the scene.\n"
    "        \n"
    "3. Object Visual Appearance (15 points):\n"
    "- Score up to 15 points for an accurate description of the object's visual appearance (e.g., "
    "colors, materials, size, or shape) as relevant to the question.\n"
    "- Guideline: Deduct points if any important visual details are missing, incorrect, or overly "
    "generalized, especially if they impact the explanation or perception of the object’s function.\n"
    "\n"
    "4. Object Position and Motion (15 points):\n"
    "- Score up to 15 points for correctly identifying the object's location, orientation, and motion "
    "(if applicable) relative to the ego vehicle.\n"
    "- Guideline: Deduct points for inaccuracies in spatial information, positioning, or motion. Include "
    "deductions if relevant motion or orientation details are omitted or incorrect.\n"
    "\n"
    "5. Explanation Clarity and Justification (15 points):\n"
    "- Score up to 15 points for the clarity, logical structure, and justification of the explanation "
    "provided.\n"
    "- Guideline: Deduct points for vague, confusing, or insufficient explanations that fail to justify "
    "the Yes/No answer clearly and logically.\n"
    "\n"
    "Assign 0 points from criteria 2 to 5 if no explanation is provided.\n"
    "\n"
    'Here is the multiple-choice question: "{QUESTION}"\n'
    "\n"
    'Here is the correct answer: "{GT}"\n'
    "\n"
    'Here is the predicted answer and explanation (if any): "{PRED}"\n'
    "\n"
    "Please fill in the following scoring sheet, and then provide a brief summary supporting the score:\n"
    "1. Answer Correctness (40 points):\n"
    "2. Object Category Identification (15 points):\n"
    "3. Object Visual Appearance (15 points):\n"
    "4. Object Position and Motion (15 points):\n"
    "5. Explanation Clarity and Justification (15 points):\n"
    "Total Score: \n"
    "\n"
    "Brief Summary: "
)
"""`evaluate/prompts.py` L92-130: the yes/no rubric, imported but never used by `eval.py`; here it
judges the prediction yes/no questions, which are reported apart from the official numbers."""

PREDICTION_VQA_PROMPT = (
    "Please evaluate the predicted answer on a scale from 0 to 100, where a higher score reflects "
    "precise alignment with the correct answer and well-supported reasoning. Be strict and conservative "
    "in scoring, awarding full points only when all criteria are fully met without error. Deduct points "
    "for minor inaccuracies, omissions, or lack of clarity. Distribute the Total Score across the "
    "following criteria:\n"
    "\n"
    "1. Object Identification and Priority Order (20 points):\n"
    "- Score up to 20 points for accurately identifying the correct objects in the correct priority "
    "order (e.g., first, second, third) as indicated in the question.\n"
    "- Guideline: Deduct points for any missed, misidentified, or out-of-sequence objects, particularly "
    "if this affects the logic of the driving prediction.\n"
    "\n"
    "2. Object Category and Visual Description Accuracy (20 points):\n"
    "- Score up to 20 points for accurately describing each object’s category (e.g., traffic sign, "
    "vehicle) and relevant visual attributes (e.g., color, type, size) as necessary for the scene.\n"
    "- Guideline: Deduct points for incorrect or overly generalized descriptions of categories or visual "
    "attributes, especially if they impact scene comprehension or recognition.\n"
    "  \n"
    "3. State of the Object (15 points):\n"
    "- Score up to 15 points based on the accuracy of the object’s state (e.g., moving, stationary) and "
    "alignment with the correct answer.\n"
    "- Guideline: Deduct points if the predicted state does not match the correct state or if critical "
    "details of the object’s status are omitted.\n"
    "\n"
    "4. Recommended Action for Ego Vehicle (15 points):\n"
    "- Score up to 15 points for accurately identifying the action the ego vehicle should take in "
    "response to each object (e.g., continue ahead, slow down).\n"
    "- Guideline: Deduct points for actions that are inappropriate, unclear, or lacking necessary "
    "detail, especially if they contradict the driving context.\n"
    "\n"
    "5. Logical Flow and Reasonableness of Prediction (20 points):\n"
    "- Score up to 20 points for the logical consistency and reasonableness of the entire response. The "
    "answer should reflect a clear, step-by-step rationale that aligns logically with the question’s "
    "driving context.\n"
    "- Guideline: Deduct points for inconsistencies, contradictions, or illogical reasoning that "
    "undermine the reliability of the prediction.\n"
    "\n"
    "6. Clarity and Grammar (10 points):\n"
    "- Score up to 10 points for clarity, coherence, and grammatical accuracy. Assign up to 5 points for "
    "logical structure and readability, and up to 5 points for grammatical accuracy.\n"
    "- Guideline: Deduct points for ambiguous explanations, unclear reasoning, or grammatical errors "
    "that reduce clarity.\n"
    "\n"
    'Here is the question: "{QUESTION}"\n'
    "\n"
    'Here is the correct answer: "{GT}"\n'
    "\n"
    'Here is the predicted answer: "{PRED}"\n'
    "\n"
    "Please fill in the following scoring sheet, and then provide a brief summary supporting the score:\n"
    "1. Object Identification and Priority Order (20 points):\n"
    "2. Object Category and Visual Description Accuracy (20 points):\n"
    "3. State of the Object (15 points):\n"
    "4. Recommended Action for Ego Vehicle (15 points):\n"
    "5. Logical Flow and Reasonableness of Prediction (20 points):\n"
    "6. Clarity and Grammar (10 points):\n"
    "Total Score: \n"
    "\n"
    "Brief Summary: "
)
"""`evaluate/prompts.py` L133-174: prediction VQA (tag 3); fills {QUESTION}, {GT}, {PRED}."""

PLANNING_VQA_PROMPT = (
    "Please evaluate the predicted answer on a scale from 0 to 100, where a higher score reflects "
    "precise alignment with the correct answer and well-supported reasoning. Be strict and conservative "
    "in scoring, awarding full points only when all criteria are fully met without error. Deduct points "
    "for minor inaccuracies, omissions, or lack of clarity. Distribute the Total Score across the "
    "following criteria:\n"
    "\n"
    "1. Action Prediction Accuracy (40 points):\n"
    "- Score up to 40 points based on the accuracy of the predicted action for the ego vehicle (e.g., "
    "keep going, turn left, turn right, accelerate, decelerate) in response to the contextual "
    "information.\n"
    "- Guideline: Award full points only for exact or highly similar action matches. Deduct points for "
    "inaccuracies or actions that do not match the correct answer, especially if they could compromise "
    "safety or appropriateness in context.\n"
    "\n"
    "2. Reasoning and Justification (20 points):\n"
    "- Score up to 20 points for a clear and logical explanation of why the action is chosen, ensuring "
    "that the reason aligns with safety, environmental factors, or other relevant considerations.\n"
    "- Guideline: Deduct points if the reasoning lacks clarity, omits relevant details, or includes "
    "contradictions. The explanation should justify the action in a way that is suitable for the "
    "scenario provided.\n"
    "  \n"
    "3. Probability or Confidence Level (15 points):\n"
    "- Score up to 15 points for accurately predicting the probability or confidence level of the action "
    "being safe or feasible (e.g., high probability if no obstacles are present).\n"
    "- Guideline: Deduct points if the probability level is missing, implausible, or does not align with "
    "the action or reasoning provided.\n"
    "\n"
    "4. Contextual Awareness and Safety Considerations (15 points):\n"
    "- Score up to 15 points for reflecting an awareness of the driving context, including potential "
    "obstacles, traffic participants, and safety implications.\n"
    "- Guideline: Deduct points for failing to consider contextual factors that may impact the ego "
    "vehicle's decision, especially if they could lead to unsafe actions.\n"
    "\n"
    "5. Conciseness and Clarity (10 points):\n"
    "- Assess the clarity and brevity of the answer. Answers should be concise and easy to understand, "
    "effectively communicating the intended actions and rationale.\n"
    "- Guideline: Deduct points for verbosity, ambiguity, or lack of focus that could hinder quick "
    "comprehension. Assign 0 points if no explanation is provided.\n"
    "\n"
    'Here is the question: "{QUESTION}"\n'
    "\n"
    'Here is the ground truth object visual description: "{DESC}"\n'
    "\n"
    'Here is the correct answer: "{GT}"\n'
    "\n"
    'Here is the predicted answer: "{PRED}"\n'
    "\n"
    "Please fill in the following scoring sheet, and then provide a brief summary supporting the score:\n"
    "1. Action Prediction Accuracy (40 points):\n"
    "2. Reasoning and Justification (20 points):\n"
    "3. Probability or Confidence Level (15 points):\n"
    "4. Contextual Awareness and Safety Considerations (15 points):\n"
    "5. Conciseness and Clarity (10 points):\n"
    "Total Score: \n"
    "\n"
    "Brief Summary: "
)
"""`evaluate/prompts.py` L177-215: planning VQA (tag 1); fills {QUESTION}, {DESC}, {GT}, {PRED}."""

BEHAVIOR_MCQ_PROMPT = (
    "Please evaluate the predicted answer on a scale from 0 to 100, where a higher score reflects "
    "precise alignment with the correct answer and well-supported reasoning. Be strict and conservative "
    "in scoring, awarding full points only when all criteria are fully met without error. Deduct points "
    "for minor inaccuracies, omissions, or lack of clarity. Distribute the Total Score across the "
    "following criteria:\n"
    "\n"
    "1. Answer Correctness (50 points):\n"
    "- Exact Match (50 points): Assign 50 points if the predicted answer exactly matches the correct "
    "answer from the options.\n"
    "- No Match (0 points): Assign 0 points if the predicted answer does not match the correct answer, "
    "regardless of explanation quality.\n"
    "\n"
    "2. Behavioral Understanding and Detail (15 points):\n"
    "- Score up to 15 points for accurately capturing the behavior details of the ego vehicle (e.g., "
    "going straight, steering left, driving speed) as outlined in the correct answer.\n"
    "- Guideline: Deduct points if the explanation misses key behavioral aspects (e.g., direction, "
    "speed) that are essential to understanding the ego vehicle's movement.\n"
    "  \n"
    "3. Reasoning and Justification (15 points):\n"
    "- Score up to 15 points for a clear and logical explanation justifying the chosen answer. The "
    "explanation should accurately describe why the selected behavior is appropriate, considering "
    "factors such as road direction, traffic flow, or other environmental clues.\n"
    "- Guideline: Deduct points if the reasoning lacks clarity, includes irrelevant details, or "
    "contradicts the behavior of the ego vehicle as described in the correct answer.\n"
    "\n"
    "4. Contextual Relevance (10 points):\n"
    "- Score up to 10 points for the relevance of the explanation to the driving context, ensuring that "
    "it considers any environmental or situational factors that may influence the ego vehicle’s "
    "behavior.\n"
    "- Guideline: Deduct points if the explanation fails to consider context, such as road conditions or "
    "nearby objects, that might impact the vehicle’s behavior.\n"
    "\n"
    "5. Clarity and Grammar (10 points):\n"
    "- Score up to 10 points for clarity, coherence, and grammatical accuracy of the explanation. The "
    "response should be concise and easy to understand.\n"
    "- Guideline: Deduct points for confusing language, vague statements, or grammatical errors that "
    "hinder comprehension.\n"
    "\n"
    "Assign 0 points from criteria 2 to 5 if no explanation is provided.\n"
    "\n"
    'Here is the question: "{QUESTION}"\n'
    "\n"
    'Here is the correct answer: "{GT}"\n'
    "\n"
    'Here is the predicted answer: "{PRED}"\n'
    "\n"
    "Please fill in the following scoring sheet, and then provide a brief summary supporting the score:\n"
    "1. Answer Correctness (50 points):\n"
    "2. Behavioral Understanding and Detail (15 points):\n"
    "3. Reasoning and Justification (15 points):\n"
    "4. Contextual Relevance (10 points):\n"
    "5. Clarity and Grammar (10 points):\n"
    "Total Score: \n"
    "\n"
    "Brief Summary: "
)
"""`evaluate/prompts.py` L218-256: behavior MCQ (tag 0); fills {QUESTION}, {GT}, {PRED}."""

CAMERA_SENTENCE = re.compile(
    r"You are provided with up to six camera images in the sequence \[CAM_FRONT, CAM_FRONT_LEFT, CAM_FRONT_RIGHT, "
    r"CAM_BACK, CAM_BACK_LEFT, CAM_BACK_RIGHT\]\."
)
"""`inference/utils.py` L65: the sentence of `prompt.txt` rewritten for each question."""
LLAVA_USER, LLAVA_IMAGE, LLAVA_ASSISTANT = "USER: ", "<image>\n", "\nASSISTANT:"
"""The LLaVA-1.5 chat template pieces of `inference/llava1.5.py` L97-111 (a chat API applies its own template)."""

MODEL_TEMPERATURE = 0.2
MODEL_TOP_P = 0.2
MODEL_MAX_TOKENS = 512
"""`inference/llava1.5.py` L45-50: the official sampling (no seed is set)."""


def system_prompt(cameras: Sequence[str]) -> str:
    """`replace_system_prompt`: the camera sentence for the question's cameras (already de-duplicated, ordered)."""
    if not cameras:
        raise ValueError("No valid camera images provided.")
    listed = ", ".join(cameras)
    if len(cameras) == 1:
        sentence = f"You are provided with a single camera image: [{listed}]."
    else:
        sentence = f"You are provided with {len(cameras)} camera images in the sequence [{listed}]."
    return CAMERA_SENTENCE.sub(lambda _: sentence, SYSTEM_PROMPT)


def prompt_text(cameras: Sequence[str], question: str) -> str:
    """The text after the images: the rewritten system prompt, then the question with nothing between them."""
    return system_prompt(cameras) + question


def llava_prompt(cameras: Sequence[str], images: int, question: str) -> str:
    """The whole official LLaVA-1.5 prompt string (`inference/llava1.5.py` L104-111), for comparison."""
    return LLAVA_USER + LLAVA_IMAGE * images + prompt_text(cameras, question) + LLAVA_ASSISTANT


JUDGE_MODEL = "gpt-3.5-turbo"
"""`evaluate/request.py` L33: the official judge, an alias that moves (the default grader pins a snapshot)."""
JUDGE_SYSTEM_SENTENCE = "You are an evaluator who rates answers based on their closeness to the correct answer."
"""`evaluate/request.py` L96: sent in the user message, joined to the rubric by one newline (L82)."""
JUDGE_TEMPERATURE = 0.0
JUDGE_MAX_TOKENS = 3000
"""`evaluate/request.py` L26-27, L34-35: what the payload sends (the CLI's values never reach it; the
`max_tokens=512` of L154 is an argument `call_chatgpt` does not take)."""
SCORE_PATTERN = re.compile(r"Total Score:\s*(\d{1,3})\b")
"""`evaluate/request.py` L108, searched in the stripped reply; case-sensitive, 0-999."""
NO_DESCRIPTION = "No visual description needed for this question."
"""`evaluate/eval.py` L66: the description the safe-actions planning question gets."""

RUBRICS: dict[tuple[str, str], str] = {
    ("perception", "MCQ"): PERCEPTION_MCQ_PROMPT,
    ("perception", "VQA"): PERCEPTION_VQA_PROMPT,
    ("prediction", "VQA"): PREDICTION_VQA_PROMPT,
    ("prediction", "yes/no"): PREDICTION_MCQ_PROMPT,
    ("planning", "VQA"): PLANNING_VQA_PROMPT,
    ("behavior", "MCQ"): BEHAVIOR_MCQ_PROMPT,
}
"""The rubric per task and question kind (`evaluate/eval.py` L101-142; yes/no is this suite's addition)."""


def rubric_prompt(task: str, kind: str, question: str, answer: str, pred: str, desc: str | None) -> str:
    """`GPTEvaluation.forward` (`request.py` L147-150): `str.format` with DESC only when the description is truthy.

    A template that needs {DESC} never goes without it here: the dataset fills `NO_DESCRIPTION` where the official
    code would raise `KeyError` (a falsy description on the perception-MCQ or planning template).
    """
    template = RUBRICS[(task, kind)]
    if not desc:
        return template.format(GT=answer, PRED=pred, QUESTION=question)
    return template.format(GT=answer, PRED=pred, QUESTION=question, DESC=desc)


def judge_message(task: str, kind: str, question: str, answer: str, pred: str, desc: str | None) -> str:
    """The judge's one user message, byte for byte: the evaluator sentence, a newline, the filled rubric."""
    return JUDGE_SYSTEM_SENTENCE + "\n" + rubric_prompt(task, kind, question, answer, pred, desc)


def needs_description(task: str, kind: str) -> bool:
    """The two rubrics with an object-description slot (perception MCQ, planning VQA)."""
    return "{DESC}" in RUBRICS[(task, kind)]
