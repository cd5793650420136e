"""What Inspect loads through the `inspect_ai` entry point: tasks, scorers and the chance model provider."""

from drive_evals.baseline import ChanceModel
from drive_evals.surds.scorer import surds_scorer
from drive_evals.surds.task import surds

__all__ = ["ChanceModel", "surds", "surds_scorer"]
