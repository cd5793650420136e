"""Default sample-list columns in `inspect view` for this package's tasks: the id, the answer, the key scores.

How Inspect 0.3.285 builds the list: the built-in columns plus one column per key of the dict score values found
in the samples. `TaskSamplesView.columns` orders them; `visible=False` is honoured for built-in columns only: score
columns follow the "Scorers" selection, which starts with every key. So a key that should not widen every row
must not be in the score value at all (SURDS keeps its xy2d diagnostic in Score.metadata); the keys a user needs
come first and the others are listed `trailing`, after the error column.

The log list shows file name, status, task, model, task args, tags, score, completion time, samples and tokens
(`useLogListColumns` in the bundle), but neither model args nor generate settings: replicates of one model (three
seeds of `chance/random` in one eval-set) all read alike. `replicate_tags` makes the settings that tell them apart
the log's tags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from inspect_ai.model._model import active_model
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


def replicate_tags() -> list[str]:
    """`key=value` tags for the run's model args and generate `seed`, so that the log list tells replicates apart.

    Inspect builds each task once per model with that model active (`eval_resolve_tasks`), so a task built inside
    an evaluation can name its model's settings; built outside one (tests, `drive-evals estimate`) it has none.
    Only numbers and booleans are shown: a text model arg can be a credential, and tags are not redacted.
    """
    model = active_model()
    if model is None:
        return []
    settings = {key: value for key, value in model.model_args.items() if isinstance(value, int | float)}  # bool too
    if model.config.seed is not None:
        settings.setdefault("seed", model.config.seed)
    return [f"{key}={value}" for key, value in sorted(settings.items())]
