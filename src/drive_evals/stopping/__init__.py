"""Early stopping (issue 47): stop rules fixed before a run, applied cluster by cluster with an interval that holds
at every look.

- `rule`: the rules (`precision:W`, `above:X`, `below:X`, `vs:LOG`) and their `stop_*` parameters;
- `order`: the committed, seeded cluster order the dataset is put in;
- `forms`, `statistic`: which headlines are sums over clusters, and their per-cluster contributions;
- `tracker`: the confidence sequence (`stats.sequence`) fed in the committed order, and the rule's decision;
- `manager`: Inspect's early-stopping hook; `attach`: gives a built task its rule;
- `logs`, `replay`: finished runs replayed under a rule (`drive-evals replay`); `guarantee`: what a run records.

docs/early-stopping.md says how to use it; docs/statistics.md why it holds and what it was measured to do.
"""
