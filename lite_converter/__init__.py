"""Converts trained models (ONNX, TFLite, Paddle) into the .lite format run by runtime_arm."""

__version__ = "0.1.0"
