"""The tooling on top of the converter, slim and the runtime: the `lite` command line, `lite bench`
and its peer runtimes, the PaddleOCR demo and model zoo.

Nothing below imports this package (docs/ARCHITECTURE.md "Layers", tests/test_import_layers.py):
library code that tooling needs belongs in lite_converter, slim or runtime_arm.
"""
