"""Default sample-list columns in `inspect view` for this package's tasks: the id, the answer, the key scores.

How Inspect 0.3.285 builds the list: one column per key of the dict score values found in the log, plus the
built-in columns. `TaskSamplesView.columns` orders them and sets their default visibility; any score key it does
not name is appended after them, visible. So every score key a task can emit is named here: the ones a user needs
to judge a unit are shown, diagnostics are listed hidden (still one click away in the "Columns" picker).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.viewer import TaskSamplesColumn, TaskSamplesView, ViewerConfig


def sample_list_view(
    name: str,
    scorer: str,
    scores: Sequence[str],
    hidden: Sequence[str] = (),
    labels: Mapping[str, str] | None = None,
    show_target: bool = True,
) -> ViewerConfig:
    """Sample id, the question (the sample input), target (optional), answer, the named score keys of `scorer`,
    tokens and errors; then the `hidden` score keys, hidden by default. `labels` renames score columns."""
    leading = ["sampleId", "input", "target", "answer"] if show_target else ["sampleId", "input", "answer"]
    columns = [
        *(TaskSamplesColumn(id=column) for column in leading),
        *(TaskSamplesColumn.score(scorer, key) for key in scores),
        TaskSamplesColumn(id="tokens"),
        TaskSamplesColumn(id="error"),
        *(TaskSamplesColumn.score(scorer, key, visible=False) for key in hidden),
    ]
    view = TaskSamplesView(name=name, columns=columns, score_labels=dict(labels) if labels else None)
    return ViewerConfig(task_samples_view=view)
