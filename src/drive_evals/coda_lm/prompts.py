"""CODA-LM protocol strings, reproduced exactly from the official repository, and the judge requests built from them.

Source: github.com/DLUT-LYZ/CODA-LM at commit 24544ccdd10181365f12a6e916e382f46810f5f3 (Chen, Li, Zhang et al.,
"Automated Evaluation of Large Vision-Language Models on Self-driving Corner Cases", WACV 2025, arXiv 2404.10595;
Apache-2.0): `convert2vqa.py` (the model's three questions), `evaluation/stage{1,2,3}_eval_batch.py` (the judge's
system prompts, user template, message order and settings) and `evaluation/{scene,suggestion}_few_shot/*.json` (the
four few-shot exchanges). These are benchmark protocol data: typos, doubled sentences and double spaces are kept,
because a changed byte changes what the judge sees. `tests/coda_lm/data/coda-lm-prompts.json` is the reference
copy the tests rebuild the official requests from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

TaskName = Literal["general_perception", "region_perception", "driving_suggestion"]
TASKS: tuple[TaskName, ...] = ("general_perception", "region_perception", "driving_suggestion")
"""The three CODA-LM tasks in the order the paper's tables list them (the official stages are 1, 3, 2)."""
STAGE: dict[TaskName, int] = {"general_perception": 1, "driving_suggestion": 2, "region_perception": 3}
"""The official evaluation script of each task: `evaluation/stage<N>_eval_batch.py`."""

DEFAULT_JUDGE = "openai/gpt-4o-2024-05-13"
"""`evaluation/README.md` L39-50 (`--model_name gpt-4o-2024-05-13`). The scripts' own CLI default is
`gpt-3.5-turbo` (stage1 L170, stage2 L170, stage3 L225): running them without `--model_name` changes the judge."""
JUDGE_TEMPERATURE = 0.0
"""The `GPTBatcher` default (stage1 L28); the scripts set no `max_tokens`, seed or other parameter."""


@dataclass(frozen=True)
class FewShot:
    """One few-shot exchange of the judge: a reference and a prediction (the user turn) and the judge's answer."""

    reference: str
    prediction: str
    response: str


GENERAL_PERCEPTION_PROMPT = (
    "There is an image of traffic captured from the perspective of the ego car. Focus on objects influencing "
    "the ego car's driving behavior: vehicles (cars, trucks, buses, etc.), vulnerable road users (pedestrians, "
    "cyclists, motorcyclists), traffic signs (no parking, warning, directional, etc.), traffic lights (red, "
    "green, yellow), traffic cones, barriers, miscellaneous(debris, dustbin, animals, etc.). You must not "
    "discuss any objects beyond the seven categories above. Please describe each object's appearance, "
    "position, direction, and explain why it affects the ego car's behavior."
)
"""`convert2vqa.py` L45: the general-perception question (asked with the original image)."""

DRIVING_SUGGESTION_PROMPT = (
    "There is an image of traffic captured from the perspective of the ego car. Focus on objects influencing "
    "the ego car's driving behavior: vehicles (cars, trucks, buses, etc.), vulnerable road users (pedestrians, "
    "cyclists, motorcyclists), traffic signs (no parking, warning, directional, etc.), traffic lights (red, "
    "green, yellow), traffic cones, barriers, miscellaneous(debris, dustbin, animals, etc.). You must not "
    "discuss any objects beyond the seven categories above. Please provide driving suggestions for the ego car "
    "based on the current scene."
)
"""`convert2vqa.py` L58: the same first three sentences, then the suggestion request."""

REGION_PERCEPTION_PROMPT = (
    "Please describe the object inside the red rectangle in the image and explain why it affect ego car driving."
)
"""`convert2vqa.py` L87 ("it affect" verbatim): asked with the image carrying one red box."""

JUDGE_USER_TEMPLATE = (
    "[The Start of Reference Text]\n{}\n[The End of Reference Text]\n\n[The Start of Prediction Text]\n{}\n"
    "[The End of Prediction Text]"
)
"""The judge's user message in all three stages (stage1 L61, stage2 L61, stage3 L83), filled by
`str.format(reference, prediction)`."""

GENERAL_JUDGE_SYSTEM_PROMPT = (
    "You are an impartial judge tasked with evaluating the quality of predicted text provided by autonomous "
    "driving AI assistant. You will compare this prediction text to a reference text, focusing on the "
    "description of objects that influence the driving behavior of ego car, and the explanation of why these "
    "objects impact. Your evaluation criteria should include accuracy(checking if the predicted text correctly "
    "identifies objects mentioned the reference text), suppression hallucination(ensuring that objects not "
    "mentioned in the reference text are not erroneously included in the predicted text), correlation(sessing "
    "if the reasons for the objects' impact on the ego car's driving behavior are consistent between the "
    "reference and predicted text). Be as objective as possible. Do not allow the length of the predicted text "
    "to influence your evaluation. Maximize your text comprehension capabilities to freely match objects with "
    "high similarity, appropriately ignoring the relative positions and color attributes of the objects. After "
    "providing your short explanation, you must rate the response on a scale from 1 to 10 by strictly "
    'following this format: "[[rating]]", for example: "Rating: [[10]]".'
)
"""`stage1_eval_batch.py` L36 (the typo "sessing" verbatim)."""

SUGGESTION_JUDGE_SYSTEM_PROMPT = (
    "You are an impartial judge tasked with evaluating the quality of predicted text provided by autonomous "
    "driving AI assistant. You will compare this prediction to a reference text, focusing on the ego car "
    "driving suggestion. Your evaluation should consider rationality, relevance, level of detail of the "
    "response. Predicted text should be specific and actionable, rather than vague or overly broad. Identify "
    "and correct any mistakes. Do not allow the length of the predicted text to influence your evaluation. Do "
    "not allow the length of the predicted text to influence your evaluation. Maximize your text comprehension "
    "capabilities to freely match objects with high similarity, appropriately ignoring the relative positions "
    "and color attributes of the objects. After providing your short explanation, you must rate the response "
    'on a scale from 1 to 10 by strictly following this format: "[[rating]]", for example: "Rating: [[10]]".'
)
"""`stage2_eval_batch.py` L36 (its length sentence twice, verbatim)."""

REGION_JUDGE_SYSTEM_PROMPT = (
    "You are an impartial judge tasked with evaluating text similarity and relevance of the reference text and "
    "autonomous driving AI assistant's predicted text. Be as objective as possible. Do not allow the length of "
    "the predicted text to influence your evaluation. After providing your short explanation, you must rate on "
    'a scale from 1 to 10 by strictly following this format: "[[rating]]", for example: "Rating: [[10]]".'
)
"""`stage3_eval_batch.py` L14 (RegionEval)."""

GENERAL_HIGH_SHOT = FewShot(
    reference=(
        "There is a black SUV in the opposite direction to the ego car in the left lane and  a white van in front "
        "of the ego car in the ego car lane. A motorcyclist wearing yelow hat is visible on the right side of the "
        "ego car, moving through the intersection. Motorcyclists are vulnerable, potentially leading to "
        "safety-critical situations. A directional sign indicating lanes for straight travel, assisting the ego "
        "car in navigating its route.  A green traffic light is visible straight ahead, allowing traffic to "
        "proceed through the intersection. On the side of the road, the orange barrier marks a risky area, "
        "alerting the ego car to potential hazards and the need for caution."
    ),
    prediction=(
        "The green traffic light ahead informs the ego car that it has the right of way to proceed. The presence "
        "of a pedestrian crossing indicates that drivers should be alert for pedestrians. A black sedan and a "
        "sliver car in front of th ego car directly influences the ego car's driving behavior, requiring the "
        "driver to adjust speed and maintain a safe following distance. To the right of the image, there is a "
        "person riding a scooter.  This is a vulnerable road user who may behave unpredictably. There are barriers "
        "set up along the edge of the road on the right side, indicating some form of road work or a closed-off "
        "area. The ego car should stay clear of these barriers to avoid entering a potentially unsafe area."
    ),
    response=(
        "The prediction text correctly identifies the green traffic light, barriers, two vehicles and the person "
        "riding a scooter. Although the colors and types of vehicles are slightly different, silver and white "
        "colors are similar, both the reference text and the prediction text describe small vehicles (SUV, sedan, "
        "van, and car are all equivalent), so SUV is predicted to be sedan, and van is predicted to be car. While "
        "there is no explicit mention of crosswalk markings in the reference text, they usually appear at "
        "intersections, so this is not an illusion. However, it did not mention the directional sign indicating "
        "straight line travel and the relative position of the vehicle was incorrect. So, Rating: [[8]]."
    ),
)
"""`evaluation/scene_few_shot/high.json`."""

GENERAL_LOW_SHOT = FewShot(
    reference=(
        "Numerous cars are parked on both sides of the road, resulting in a narrower space available for driving, "
        "which requires drivers to pay close attention. Ahead, there is a black truck traveling in the same lane "
        "in front of ego car, necessitating the maintenance of a safe driving distance. On the right, there are "
        "motorcyclists and cyclists moving in the same direction as the ego car, with a significant number of "
        "motorcycles and bicycles parked on the road. Traffic cones placed around indicate potentially hazardous "
        "areas. The driver's vehicle should recognize these to avoid obstacles, reducing the possibility of damage "
        "or accidents. A traffic light is visible ahead, but its color is unclear. Traffic lights control the flow "
        "of traffic, and the driver's vehicle must respond correctly to their signals to ensure safe operation. "
        "There is a no-entry sign ahead."
    ),
    prediction=(
        "In this scenario, several objects could influence the driver's behavior. Motorcycles parked along the "
        "road require the driver to be cautious and maintain a safe distance from them to prevent accidents. "
        "Ahead, there is a black truck, and the driver should keep a proper distance. Pedestrians are present on "
        "the sidewalk ahead, and the driver should pay attention to them and be prepared to stop or slow down as "
        "necessary to ensure driving safety. There are many trees and buildings on both sides, which should not "
        "distract the driver's attention. To avoid being late, the driver wants to pass through the traffic light "
        "before it turns red, intending to overtake the vehicles ahead."
    ),
    response=(
        "The prediction text successfully mentions the motorcycles parked by the road and the truck ahead. "
        "However, it completely overlooks the vehicles parked on both sides mentioned in the reference text, the "
        "people riding motorcycles and bicycles on the right side, and ignores the traffic cones and the no-entry "
        "sign. Additionally, the prediction text hallucinates the presence of pedestrians. As for the trees and "
        "buildings, they actually do not have an impact and do not need to be considered. The prediction text "
        "imagines the driver's psychological thoughts, which, although not present in the reference text, are "
        "acceptable if reasonable. So, Rating: [[2]]."
    ),
)
"""`evaluation/scene_few_shot/low.json`."""

SUGGESTION_HIGH_SHOT = FewShot(
    reference=(
        "Maintain the current lane and speed, carefully monitor the motorcyclist to the right, and prepare to "
        "react if the motorcyclist changes lanes or stops suddenly. Stay alert for the vehicles in the left lane "
        "that may enter your lane or affect the flow of traffic."
    ),
    prediction=(
        "The ego car should maintain its current speed and continue straight, while remaining vigilant of the "
        "bicycle rider, ensuring a safe distance to prevent accidents.  Additionally, the car must be ready to "
        "adapt to sudden changes in traffic, such as other vehicles switching lanes."
    ),
    response=(
        'The predictive text only mistakenly substitutes "motorcyclist" for "bicycle rider" . It correctly '
        "suggests maintaining speed and being watchful for lane changes and reflects an understanding of safe "
        "driving. So, Rating: [[8]]"
    ),
)
"""`evaluation/suggestion_few_shot/high.json`."""

SUGGESTION_LOW_SHOT = FewShot(
    reference=(
        "The ego car should maintain a safe distance from the white SUV ahead, and prepare to navigate around the "
        "roadwork or damaged road surface. It should also observe for any instructions from the traffic lights "
        "once they become visible."
    ),
    prediction=(
        "The ego car should maintain a safe distance from the other cars and the truck to avoid collisions. It "
        "should be cautious of pedestrians and cyclists, as they might be crossing the street or sharing the road "
        "and follow the speed limits and any posted road signs to ensure a safe driving experience for all road "
        "users."
    ),
    response=(
        "The prediction text deviates from the reference text by introducing irrelevant elements like pedestrians, "
        "cyclists, road signs, and a truck, while omitting key details like roadwork and traffilc light. It always "
        "describes general safe driving practices, lacking the specific analysis required for the given scenario. "
        "So, Rating: [[2]]"
    ),
)
"""`evaluation/suggestion_few_shot/low.json`."""


FEW_SHOTS: dict[TaskName, tuple[FewShot, ...]] = {
    "general_perception": (GENERAL_HIGH_SHOT, GENERAL_LOW_SHOT),
    "driving_suggestion": (SUGGESTION_HIGH_SHOT, SUGGESTION_LOW_SHOT),
    "region_perception": (),
}
"""High, then low (stage1 L46-87, stage2 likewise); region perception has none (stage3 L75-90)."""
JUDGE_SYSTEM_PROMPTS: dict[TaskName, str] = {
    "general_perception": GENERAL_JUDGE_SYSTEM_PROMPT,
    "driving_suggestion": SUGGESTION_JUDGE_SYSTEM_PROMPT,
    "region_perception": REGION_JUDGE_SYSTEM_PROMPT,
}
MODEL_PROMPTS: dict[TaskName, str] = {
    "general_perception": GENERAL_PERCEPTION_PROMPT,
    "driving_suggestion": DRIVING_SUGGESTION_PROMPT,
    "region_perception": REGION_PERCEPTION_PROMPT,
}


def judge_user_text(reference: str, prediction: str) -> str:
    """The user turn: the reference, then the prediction, in the official template."""
    return JUDGE_USER_TEMPLATE.format(reference, prediction)


def judge_messages(task: TaskName, reference: str, prediction: str) -> list[ChatMessage]:
    """The official judge request of one item: system prompt, the few-shot exchanges, then the item (text only)."""
    messages: list[ChatMessage] = [ChatMessageSystem(content=JUDGE_SYSTEM_PROMPTS[task])]
    for shot in FEW_SHOTS[task]:
        messages.append(ChatMessageUser(content=judge_user_text(shot.reference, shot.prediction)))
        messages.append(ChatMessageAssistant(content=shot.response))
    messages.append(ChatMessageUser(content=judge_user_text(reference, prediction)))
    return messages
