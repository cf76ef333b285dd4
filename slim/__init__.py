"""Model compression on the converter IR: quantization, pruning, distillation (see issue 4)."""
