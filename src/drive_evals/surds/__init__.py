"""SURDS (arXiv 2411.13112): fine-grained spatial reasoning in nuScenes driving images."""

from drive_evals.surds.task import surds

__all__ = ["surds"]
