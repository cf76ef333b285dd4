"""First-order Taylor importance with data: how much removing a unit would move the loss.

Removing a unit sets its weight slices w to zero, which changes the loss by about -g.w (g the
gradient). With labels and a task loss that is the classic criterion (Molchanov et al.): |sum of
g.w| over the unit's slices, averaged over batches. Without labels there is no loss to move, so the
change of the model's *outputs* is estimated instead: with a random Gaussian projection r per
batch, the gradient of <r, f(x)> dotted with w has expectation of its square equal to the squared
output change ||J w||^2; the score is the root mean square over batches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import numpy as np
import torch

from slim.pruning.groups import DependencyGraph, Group
from slim.pruning.importance import unit_sums
from slim.pruning.weights import IN, OUT, PARAM
from slim.torch_ir.module import GraphModule

Batch = tuple[Mapping[str, np.ndarray], object]
TaskLoss = Callable[[tuple[torch.Tensor, ...], object], torch.Tensor]


class Taylor:
    """``Taylor(batches, task_loss=None)``: a criterion computing its gradients once per graph."""

    def __init__(self, batches: Iterable[Batch], task_loss: TaskLoss | None = None, seed: int = 0) -> None:
        self.batches = list(batches)
        self.task_loss = task_loss
        self.seed = seed
        self._products: dict[str, list[np.ndarray]] | None = None
        self._graph_id: int | None = None

    def _gradients(self, dep: DependencyGraph) -> dict[str, list[np.ndarray]]:
        """Per trainable constant: g * w for each batch."""
        if self._products is not None and self._graph_id == id(dep.view.graph):
            return self._products
        module = GraphModule(dep.view.graph).eval()
        parameters = module.parameter_names()
        generator = torch.Generator().manual_seed(self.seed)
        products: dict[str, list[np.ndarray]] = {name: [] for name in parameters}
        for feeds, labels in self.batches:
            module.zero_grad()
            outputs = module(**{k: torch.from_numpy(np.asarray(v)) for k, v in feeds.items()})
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            if self.task_loss is not None and labels is not None:
                loss = self.task_loss(outputs, labels)
            else:
                loss = sum((torch.randn(o.shape, generator=generator, dtype=o.dtype) * o).sum()
                           for o in outputs)
            loss.backward()
            for name, parameter in parameters.items():
                grad = parameter.grad
                product = np.zeros(parameter.shape) if grad is None else (grad * parameter).detach().numpy()
                products[name].append(product.astype(np.float64))
        self._products, self._graph_id = products, id(dep.view.graph)
        return products

    def __call__(self, dep: DependencyGraph, group: Group) -> np.ndarray:
        products = self._gradients(dep)
        axes = set(group.axes)
        per_batch = np.zeros((len(self.batches), len(group.units)))
        for node in dep.view.graph.nodes:
            for wa in dep.weight_axes(node):
                name = node.inputs[wa.input_index]
                if wa.axis not in axes or wa.role not in (OUT, IN, PARAM) or name not in products:
                    continue
                for b, product in enumerate(products[name]):
                    rows = np.moveaxis(product, wa.const_axis, 0).reshape(product.shape[wa.const_axis], -1)
                    per_batch[b] += unit_sums(group, [(wa, rows.sum(axis=1))], normalize=False)
        if self.task_loss is not None:
            return np.abs(per_batch).mean(axis=0)
        return np.sqrt(np.square(per_batch).mean(axis=0))
