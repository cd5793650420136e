"""DriveBench (Xie et al., arXiv 2501.04003, ICCV 2025): DriveLM-nuScenes questions under clean, corrupted and
text-only inputs, scored as the official toolkit (`worldbench/drivebench` at 723908f) scores them."""

from drive_evals.drivebench.task import drivebench

__all__ = ["drivebench"]
