"""Default sample-list columns in `inspect view` for this package's tasks: the id, the answer, the key scores."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.viewer import TaskSamplesColumn, TaskSamplesView, ViewerConfig


def sample_list_view(name: str, scorer: str, scores: Sequence[str], show_target: bool = True) -> ViewerConfig:
    """Sample id, target (optional), answer, the named per-sample score keys of `scorer`, tokens and errors."""
    leading = ["sampleId", "target", "answer"] if show_target else ["sampleId", "answer"]
    columns = [
        *(TaskSamplesColumn(id=column) for column in leading),
        *(TaskSamplesColumn.score(scorer, key) for key in scores),
        TaskSamplesColumn(id="tokens"),
        TaskSamplesColumn(id="error"),
    ]
    return ViewerConfig(task_samples_view=TaskSamplesView(name=name, columns=columns))
