"""Comparison reports over Inspect logs of the drive_evals tasks: tables, paired tests, plots (`drive-evals report`).

Needs matplotlib (the `report` extra).
"""

from drive_evals.report.write import NoRunsError, ReportFiles, write_report

__all__ = ["NoRunsError", "ReportFiles", "write_report"]
