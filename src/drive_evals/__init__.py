"""drive_evals: Inspect AI evaluations of how vision-language models understand driving scenes."""

from drive_evals.drivelmm_o1.judge_meta import drivelmm_o1_judge
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.surds.task import surds

__version__ = "0.1.0"

__all__ = ["__version__", "drivelmm_o1", "drivelmm_o1_judge", "surds"]
