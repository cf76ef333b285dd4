"""Reading Clip's bounds, which moved from attributes (opset < 11) to optional inputs."""

from __future__ import annotations

from lite_converter.ir import Graph, Node
from lite_converter.passes.graph_queries import scalar_value

FLOAT_MAX = 3.4028234663852886e38  # float32 max: the bound of an absent min/max


def clip_bounds(graph: Graph, node: Node) -> tuple[float, float] | None:
    """(min, max) of a Clip with constant bounds (absent ones are -/+FLOAT_MAX), else None."""
    if graph.opset < 11 or len(node.inputs) == 1 and ("min" in node.attrs or "max" in node.attrs):
        return float(node.attrs.get("min", -FLOAT_MAX)), float(node.attrs.get("max", FLOAT_MAX))
    bounds = []
    for index, default in ((1, -FLOAT_MAX), (2, FLOAT_MAX)):
        name = node.inputs[index] if len(node.inputs) > index else ""
        if not name:
            bounds.append(default)
            continue
        value = scalar_value(graph, name)
        if value is None:
            return None
        bounds.append(value)
    return bounds[0], bounds[1]
