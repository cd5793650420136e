"""drive_evals: Inspect AI evaluations of how vision-language models understand driving scenes.

The tasks live in their benchmark's subpackage (`drive_evals.surds.surds`, `drive_evals.drivelmm_o1.drivelmm_o1`,
`drive_evals.drivelmm_o1.drivelmm_o1_judge`); Inspect finds them through `drive_evals._registry`. Nothing here binds
a name that a subpackage also has, so `import drive_evals.surds.rules as s` reaches the module.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
