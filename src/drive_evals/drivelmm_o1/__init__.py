"""DriveLMM-o1 (arXiv 2503.10621): rubric-judged driving reasoning and multiple-choice accuracy."""

from drive_evals.drivelmm_o1.judge_meta import drivelmm_o1_judge
from drive_evals.drivelmm_o1.task import drivelmm_o1

__all__ = ["drivelmm_o1", "drivelmm_o1_judge"]
