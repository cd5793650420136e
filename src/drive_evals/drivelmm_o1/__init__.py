"""DriveLMM-o1 (arXiv 2503.10621): rubric-judged driving reasoning and multiple-choice accuracy."""
