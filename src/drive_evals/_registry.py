"""What Inspect loads through the `inspect_ai` entry point: tasks, scorers and the chance model provider."""

from drive_evals.baseline import ChanceModel
from drive_evals.drivelmm_o1.judge_meta import drivelmm_o1_judge
from drive_evals.drivelmm_o1.scorer import drivelmm_o1_scorer
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.errors import route_errors_to_stderr
from drive_evals.surds.scorer import surds_scorer
from drive_evals.surds.task import surds
from drive_evals.vladbench.scorer import vladbench_scorer
from drive_evals.vladbench.task import vladbench

route_errors_to_stderr()  # Inspect has installed its exception hook by now; its console misses `--display none`

__all__ = [
    "ChanceModel",
    "drivelmm_o1",
    "drivelmm_o1_judge",
    "drivelmm_o1_scorer",
    "surds",
    "surds_scorer",
    "vladbench",
    "vladbench_scorer",
]
