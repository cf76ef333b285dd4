"""`python -m lite_converter ...` is the `lite` command."""

import sys

from lite_converter.cli import main

sys.exit(main())
