"""VLADBench (arXiv 2503.21505, ICCV 2025): fine-grained driving knowledge in 28 tasks, scored by VLMEvalKit's rules."""
