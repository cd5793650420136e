"""SURDS (arXiv 2411.13112): fine-grained spatial reasoning in nuScenes driving images."""
