"""Run Inspect's own command line with the test-only providers of `fake_models` registered."""

import sys

import fake_models  # noqa: F401  (registers the providers)
from inspect_ai._cli.main import main

if __name__ == "__main__":
    main()
    sys.exit(0)
