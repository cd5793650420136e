"""The suite's statistics: clustered standard errors (`clustered`), the t and beta distributions
(`distributions`), interval estimates (`intervals`, `betting`), paired comparisons (`paired`) and their score test
(`score_test`). docs/statistics.md says which the report uses where, and the coverage measured."""
