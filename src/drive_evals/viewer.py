"""Default sample-list columns in `inspect view` for this package's tasks: the id, the answer, the key scores.

How Inspect 0.3.285 builds the list: the built-in columns plus one column per key of the dict score values found
in the samples. `TaskSamplesView.columns` orders them; `visible=False` is honoured for built-in columns only: score
columns follow the "Scorers" selection, which starts with every key. So a key that should not widen every row
must not be in the score value at all (SURDS keeps its xy2d diagnostic in Score.metadata); the keys a user needs
come first and the others are listed `trailing`, after the error column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.viewer import TaskSamplesColumn, TaskSamplesView, ViewerConfig


def sample_list_view(
    name: str,
    scorer: str,
    scores: Sequence[str],
    trailing: Sequence[str] = (),
    labels: Mapping[str, str] | None = None,
    show_target: bool = True,
) -> ViewerConfig:
    """Sample id, the question (the sample input), target (optional), answer, the named score keys of `scorer`,
    tokens and errors; then the `trailing` score keys. `labels` renames score columns."""
    leading = ["sampleId", "input", "target", "answer"] if show_target else ["sampleId", "input", "answer"]
    columns = [
        *(TaskSamplesColumn(id=column) for column in leading),
        *(TaskSamplesColumn.score(scorer, key) for key in scores),
        TaskSamplesColumn(id="tokens"),
        TaskSamplesColumn(id="error"),
        *(TaskSamplesColumn.score(scorer, key) for key in trailing),
        *([] if show_target else [TaskSamplesColumn(id="target", visible=False)]),
    ]
    view = TaskSamplesView(name=name, columns=columns, score_labels=dict(labels) if labels else None)
    return ViewerConfig(task_samples_view=view)
