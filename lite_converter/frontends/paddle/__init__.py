"""Paddle inference models (ProgramDesc ``.pdmodel``, PIR ``.json``; ``.pdiparams``), read natively."""

from lite_converter.frontends.paddle.model_files import find_model_files, is_paddle_model
from lite_converter.frontends.paddle.paddle_frontend import load_paddle

__all__ = ["find_model_files", "is_paddle_model", "load_paddle"]
