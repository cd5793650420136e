"""The judge meta-evaluation `drive_evals/drivelmm_o1_judge`: how far DriveLMM-o1's rubric judge can be trusted."""

from drive_evals.drivelmm_o1.judge_meta.task import drivelmm_o1_judge

__all__ = ["drivelmm_o1_judge"]
