"""drive_evals: Inspect AI evaluations of how vision-language models understand driving scenes."""

__version__ = "0.1.0"
