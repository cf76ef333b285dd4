"""Paddle's quantization ops (PaddleSlim / paddle.quantization output) as ONNX Q/DQ nodes."""

from __future__ import annotations
