"""IR -> torch: run, train and write back any imported model (the ``torch`` extra).

``GraphModule(graph)`` is the trainable module; ``write_back(module, graph)`` returns the trained
values to the IR; ``trainable_graph(model)`` loads a model to the IR level slim trains and prunes
at (slim/torch_ir/trainable.py).
"""

from slim.torch_ir.module import GraphModule, TorchExecutorError, trainable_constants, write_back
from slim.torch_ir.trainable import load_trainable, trainable_graph

__all__ = ["GraphModule", "TorchExecutorError", "load_trainable", "trainable_constants", "trainable_graph",
           "write_back"]
