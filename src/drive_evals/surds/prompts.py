"""The six SURDS prompt templates: benchmark protocol data, reproduced verbatim.

Source: github.com/XiandaGuo/Drive-MLLM at commit 7895f99d8157abb8f58f2d52e53d932670b8b1eb,
`prompt/prompts_reasoning/00_yaw_vqa.txt` to `05_fb_vqa.txt` (read in text mode, so LF line endings). They are
byte-identical to the constants of evalscope 1.14.1's `surds` benchmark. Each template is filled with
`str.format` and positional `{}` fields; trailing spaces are part of the protocol and are kept.
"""

YAW_TEMPLATE = (
    "Task Description: \n"
    "The primary goal of this task is to identify the direction that the specified object is facing in the given image. The camera in the image is facing {}, and you need to analyze the object's orientation based on this reference.\n"
    "\n"
    "Question: \n"
    "Which direction is {} facing in the image?\n"
    "\n"
    "Options: \n"
    "- {}\n"
    "- {}\n"
    "- {}\n"
    "- {}\n"
    "\n"
    "\n"
    "Reason carefully and step-by-step under the <think> tag to ensure logical accuracy and robustness, including any relevant error checks.\n"
    "Finally, provide a concise and definitive response in the <answer> tag. Use the following format:\n"
    "<think>[Step-by-step reasoning with attention to detail and potential error checks]</think>\n"
    "<answer>[Final answer]</answer>\n"
)

XY2D_TEMPLATE = (
    "Task Description:\n"
    "The primary goal of this task is to accurately identify and provide the coordinates of a specified object within a given image. Your task is to analyze the image, locate the object, and return its position in the form of coordinates [x, y].\n"
    "\n"
    "Question:\n"
    "Where is {} located in the image?\n"
    "\n"
    "Reason carefully and step-by-step under the <think> tag to ensure logical accuracy and robustness, including any relevant error checks.\n"
    "Finally, provide a concise and definitive response in the <answer> tag. Use the following format:\n"
    "<think>[Step-by-step reasoning with attention to detail and potential error checks]</think>\n"
    "<answer>[Final answer]</answer>\n"
)

DEPTH_TEMPLATE = (
    "Task Description:\n"
    "The primary goal of this task is to estimate the vertical distance of the specified object in the image from the camera, which is positioned at the origin. You need to analyze the image and choose the correct range of distance from the camera based on the visual cues provided.\n"
    "\n"
    "Question:\n"
    "How far is the vertical distance of {} in the picture from the camera?\n"
    "\n"
    "Options:\n"
    "- {}\n"
    "- {}\n"
    "- {}\n"
    "\n"
    "Reason carefully and step-by-step under the <think> tag to ensure logical accuracy and robustness, including any relevant error checks.\n"
    "Finally, provide a concise and definitive response in the <answer> tag. Use the following format:\n"
    "<think>[Step-by-step reasoning with attention to detail and potential error checks]</think>\n"
    "<answer>[Final answer]</answer>\n"
)

DISTANCE_TEMPLATE = (
    "Task Description: \n"
    "The primary goal of this task is to determine which of the two objects is closer to the camera that captured the image below. You need to assess the relative distance between the two objects based on the camera's perspective.\n"
    "\n"
    "Question: \n"
    "Which object, {} or {}, is {} to the camera?\n"
    "\n"
    "Options:\n"
    "- {}\n"
    "- {}\n"
    "- Almost the same\n"
    "\n"
    "Reason carefully and step-by-step under the <think> tag to ensure logical accuracy and robustness, including any relevant error checks.\n"
    "Finally, provide a concise and definitive response in the <answer> tag. Use the following format:\n"
    "<think>[Step-by-step reasoning with attention to detail and potential error checks]</think>\n"
    "<answer>[Final answer]</answer>\n"
)

LEFT_RIGHT_TEMPLATE = (
    "Task Description:\n"
    "The primary goal of this task is to determine the relative left-right positioning of the two objects from the camera's perspective.\n"
    "\n"
    "Question:\n"
    "Which is further {}, {} or {}?\n"
    "\n"
    "Options:\n"
    "- {}\n"
    "- {}\n"
    "- Almost the same\n"
    "\n"
    "Reason carefully and step-by-step under the <think> tag to ensure logical accuracy and robustness, including any relevant error checks.\n"
    "Finally, provide a concise and definitive response in the <answer> tag. Use the following format:\n"
    "<think>[Step-by-step reasoning with attention to detail and potential error checks]</think>\n"
    "<answer>[Final answer]</answer>\n"
)

FRONT_BEHIND_TEMPLATE = (
    "Task Description:\n"
    "The primary goal of this task is to determine the relative front-back positioning of the two objects from the camera's perspective, where the object farther from the camera is considered to be more forward.\n"
    "\n"
    "Question:\n"
    "Is {} {} {}?\n"
    "\n"
    "Options:\n"
    "- Yes\n"
    "- No\n"
    "- Almost the same in terms of front-back position\n"
    "\n"
    "Reason carefully and step-by-step under the <think> tag to ensure logical accuracy and robustness, including any relevant error checks.\n"
    "Finally, provide a concise and definitive response in the <answer> tag. Use the following format:\n"
    "<think>[Step-by-step reasoning with attention to detail and potential error checks]</think>\n"
    "<answer>[Final answer]</answer>\n"
)

TEMPLATES: dict[str, str] = {
    "yaw": YAW_TEMPLATE,
    "xy2d": XY2D_TEMPLATE,
    "depth": DEPTH_TEMPLATE,
    "distance": DISTANCE_TEMPLATE,
    "left_right": LEFT_RIGHT_TEMPLATE,
    "front_behind": FRONT_BEHIND_TEMPLATE,
}
"""Template per subset name, in the official task order."""
