"""Imported at interpreter start-up by every Python process of a mutant's test run (PYTHONPATH).

``make install`` installs the repository editable: scikit-build-core's finder on ``sys.meta_path``
maps ``lite_converter``, ``slim`` and ``runtime_arm`` to the work tree the install was made from,
ahead of ``sys.path``, so a mutant applied to the scratch copy would never be imported. This drops
that finder; the scratch copy is on PYTHONPATH after this directory, so its packages are found first
(tests/mutants/run.py checks where they come from before it runs a mutant).
"""

import sys

sys.meta_path[:] = [finder for finder in sys.meta_path
                    if "editable" not in getattr(finder, "__module__", type(finder).__module__).lower()
                    and "editable" not in type(finder).__module__.lower()]
