"""The protocol's 47 probe replies (section 3.6) with the letter each implementation read [ran there]: official
@11af66f, lmms-eval @75571cf, VLMEvalKit @e8e78f0, VLMEvalKit before 1445ec4f. Ground truth D; the options are the
template's AD record (`OPTIONS`)."""

from __future__ import annotations

QUESTION = "This image shows the front view of the ego car. What are objects to the front of the ego car?"
OPTIONS = [
    "(A) There are many cars, one pedestrian, one bicycle, one motorcycle, two trucks, and one trailer.",
    "(B) There are many pedestrians, many barriers, one car, and one truck.",
    "(C) There are many cars, one truck, and three pedestrians.",
    "(D) There are many cars and one truck.",
    "(E) All the above answers are wrong.",
]
TRUTH = "D"

# (reply, official, lmms-eval, VLMEvalKit, VLMEvalKit before the comma fix)
PROBES: list[tuple[str, str, str, str, str]] = [
    ("D", "D", "D", "D", "D"),
    ("(D)", "D", "D", "D", "D"),
    ("D.", "D", "D", "D", "D"),
    ("**D**", "D", "D", "D", "D"),
    ("D) There are many cars and one truck.", "D", "D", "D", "D"),
    ("D\n\nExplanation: A truck and many cars are visible.", "D", "D", "D", "D"),
    ("The answer is D.", "D", "D", "D", "D"),
    ("The best answer is: D", "D", "D", "D", "D"),
    ("The correct answer is (D).", "D", "D", "D", "D"),
    ("The correct answer is: **D**", "D", "D", "D", "D"),
    ("Answer: D", "A", "A", "A", "A"),
    ("Best answer: D", "B", "D", "D", "B"),
    ("Best option: D", "B", "D", "D", "B"),
    ("The best option is D", "D", "D", "D", "D"),
    ("The Answer is D", "A", "A", "A", "A"),
    ("ANSWER: D", "A", "A", "A", "A"),
    ("Option D", "D", "D", "D", "D"),
    ("d", "A", "D", "D", "D"),
    ("b", "A", "B", "B", "B"),
    ("e", "A", "E", "E", "E"),
    ("(b)", "B", "B", "B", "B"),
    ("", "A", "A", "A", "A"),
    ("   ", "A", "A", "A", "A"),
    ("E", "E", "E", "E", "E"),
    ("E. All the above answers are wrong.", "E", "E", "E", "E"),
    ("All the above answers are wrong.", "A", "A", "A", "A"),
    ("There are many cars and one truck.", "D", "", "", ""),
    ("truck", "A", "", "", ""),
    ("one truck", "B", "", "", ""),
    ("A and D", "A", "A", "A", "A"),
    ("C or D", "C", "C", "C", "C"),
    ("Based on the image, the answer is D.", "B", "B", "B", "B"),
    ("After examining the image, I see many cars and one truck, so the answer is D.", "A", "A", "A", "A"),
    ("Looking at the front view there are many cars and a single truck, so the answer is D.", "D", "D", "D", "D"),
    ("I think the answer is D, not C.", "D", "D", "D", "D"),
    ("<think>Counting vehicles: many cars, one truck.</think>\nD", "C", "C", "C", "C"),
    ("<think>Counting vehicles: many cars, one truck.</think><answer>D</answer>", "C", "C", "D", "D"),
    ("<answer>d</answer>", "", "", "D", "D"),
    ("\\boxed{D}", "D", "D", "D", "D"),
    ("I cannot determine this from the image.", "", "", "", ""),
    ("sorry, i am unable to answer this question because the image is far too blurry to see", "", "", "", ""),
    ("yes", "", "", "", ""),
    ("None of the above", "", "", "", ""),
    ("Failed to obtain answer via API.", "A", "A", "A", "A"),
    ("[LMMS_EVAL_REQUEST_FAILED after 5 retries] Error code: 429", "E", "E", "E", "E"),
    ("答案是D", "D", "D", "D", "D"),
    ("（D）", "D", "D", "D", "D"),
]
CORRECTED = {
    "Answer: D": "D", "Best answer: D": "D", "Best option: D": "D", "The Answer is D": "D", "ANSWER: D": "D",
    "d": "D", "b": "B", "e": "E", "": None, "   ": None, "All the above answers are wrong.": "E", "truck": None,
    "one truck": None, "Based on the image, the answer is D.": "D",
    "After examining the image, I see many cars and one truck, so the answer is D.": "D",
    "<think>Counting vehicles: many cars, one truck.</think>\nD": "D",
    "<think>Counting vehicles: many cars, one truck.</think><answer>D</answer>": "D", "<answer>d</answer>": "D",
    "I cannot determine this from the image.": None, "yes": None, "None of the above": None,
    "sorry, i am unable to answer this question because the image is far too blurry to see": None,
    "Failed to obtain answer via API.": None, "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Error code: 429": None,
}  # fmt: skip
"""The corrected reading where it differs from the official one (the protocol's D2/D3/D11 proposal)."""
