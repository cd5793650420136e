"""Comparison reports over Inspect logs of the drive_evals tasks: tables, paired tests, plots (`drive-evals report`).

Plots use matplotlib, part of the base install, so the report works right after `pip install -e .`.
"""

from drive_evals.report.write import NoRunsError, ReportFiles, write_report

__all__ = ["NoRunsError", "ReportFiles", "write_report"]
