"""`python -m lite_converter.app ...` is the `lite` command (the console script of pyproject.toml)."""

import sys

from lite_converter.app.cli import main

sys.exit(main())
