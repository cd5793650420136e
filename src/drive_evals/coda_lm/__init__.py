"""CODA-LM (Chen, Li, Zhang et al., WACV 2025, arXiv 2404.10595): self-driving corner cases from CODA2022, three
free-text tasks rated 1-10 by a text-only judge against references, as `github.com/DLUT-LYZ/CODA-LM` judges them.

docs/coda_lm.md is the account of the protocol and of every difference from the official code.
"""
