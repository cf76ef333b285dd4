"""TFLite resource variables -> .lite variable tensors (state kept across invokes).

A streaming TFLite model keeps its state in resource variables: VAR_HANDLE names a variable (by
container and shared name), READ_VARIABLE reads it, ASSIGN_VARIABLE writes it, and a CALL_ONCE at the
start of the main graph runs an init subgraph that assigns the first values. In .lite a variable is a
tensor flagged ``variable`` whose buffer is its initial value: the runtime copies that value into
memory of its own, every op reads the tensor directly, ASSIGN_VARIABLE writes it, and
``lite_interpreter_reset_variables`` copies the initial value back.

The init subgraph is evaluated here, at conversion, when it only assigns constants (what TFLite's
converter writes: zeros of the state's shape); anything else is refused. READ_VARIABLE becomes the
variable tensor itself, which is exact as long as no ASSIGN_VARIABLE of that variable runs between a
READ_VARIABLE and a reader of its value (checked; such a model is refused).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder

RESOURCE_OPS = ("VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE")


def _ints(values: Any) -> list[int]:  # noqa: ANN401 - a list or numpy array of the object API, or None
    return [] if values is None else [int(v) for v in values]


def _text(raw: Any) -> str:  # noqa: ANN401 - bytes or str of the object API
    return raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw or "")


def variable_key(operator: Any) -> str:  # noqa: ANN401 - a VAR_HANDLE OperatorT
    """The variable a VAR_HANDLE names: LiteRT identifies it by container and shared name."""
    options = operator.builtinOptions
    container = _text(getattr(options, "container", b"")) if options is not None else ""
    shared = _text(getattr(options, "sharedName", b"")) if options is not None else ""
    return f"{container}/{shared}" if container else shared


class VariableImport:
    """The variables of one TFLite model: initial values from the CALL_ONCE init subgraph, and which
    resource tensor of the main graph names which variable."""

    def __init__(self, builder: TfliteGraphBuilder) -> None:
        self.b = builder
        self.initial: dict[str, np.ndarray] = {}  # variable key -> its initial value
        self.handles: dict[int, str] = {}  # main-graph resource tensor index -> variable key
        self.tensor_of: dict[str, str] = {}  # variable key -> IR tensor name

    # -- before conversion: the init subgraph and the order check ----------------------------------
    def prepare(self) -> list[str]:
        """Problems of the main graph's variables (empty when they import); evaluates every CALL_ONCE
        init subgraph."""
        problems: list[str] = []
        main = self.b.model.subgraphs[0]
        for operator in main.operators or []:
            opcode = self.b.opcode_name(operator)
            if opcode == "CALL_ONCE":
                problems += self._evaluate_init(operator)
            elif opcode == "VAR_HANDLE" and _ints(operator.outputs):
                self.handles[_ints(operator.outputs)[0]] = variable_key(operator)
        if problems:
            return problems
        problems += self._stale_reads(main)
        for key in sorted(set(self.handles.values()) - set(self.initial)):
            problems.append(f"variable '{key}' is used but no CALL_ONCE init subgraph assigns it a value")
        return problems

    def _evaluate_init(self, call: Any) -> list[str]:  # noqa: ANN401
        index = int(getattr(call.builtinOptions, "initSubgraphIndex", -1)) if call.builtinOptions else -1
        subgraphs = self.b.model.subgraphs
        if not 0 < index < len(subgraphs):
            return [f"CALL_ONCE names init subgraph {index} of {len(subgraphs)}"]
        init = subgraphs[index]
        where = f"the CALL_ONCE init subgraph {index} '{_text(init.name) or 'unnamed'}'"
        tensors = init.tensors or []
        handles: dict[int, str] = {}
        problems: list[str] = []
        for position, operator in enumerate(init.operators or []):
            opcode = self.b.opcode_name(operator)
            inputs, outputs = _ints(operator.inputs), _ints(operator.outputs)
            if opcode == "VAR_HANDLE" and len(outputs) == 1:
                handles[outputs[0]] = variable_key(operator)
                continue
            if opcode == "ASSIGN_VARIABLE" and len(inputs) == 2 and inputs[0] in handles:
                value = self._constant(tensors, inputs[1])
                if value is not None:
                    self.initial[handles[inputs[0]]] = value
                    continue
                problems.append(f"{where}: ASSIGN_VARIABLE (operator {position}) assigns a computed value; "
                                "only constants are evaluated at conversion")
                continue
            problems.append(f"{where} runs {opcode} (operator {position}); only VAR_HANDLE and "
                            "ASSIGN_VARIABLE of constants are evaluated at conversion")
        return problems

    def _constant(self, tensors: list[Any], index: int) -> np.ndarray | None:
        return self.b.constant_value(tensors[index]) if 0 <= index < len(tensors) else None

    def _stale_reads(self, main: Any) -> list[str]:  # noqa: ANN401
        """A READ_VARIABLE's value must be used before the next ASSIGN_VARIABLE of its variable (the
        import reads the variable itself), and must not be a graph output if one follows."""
        operators = list(main.operators or [])
        reads: dict[int, tuple[str, int]] = {}  # READ_VARIABLE output -> (variable, assigns seen)
        assigns: dict[str, int] = {}
        problems: list[str] = []
        for operator in operators:
            opcode = self.b.opcode_name(operator)
            inputs, outputs = _ints(operator.inputs), _ints(operator.outputs)
            for index in inputs:
                if index in reads and assigns.get(reads[index][0], 0) != reads[index][1]:
                    problems.append(f"variable '{reads[index][0]}' is read, then assigned, then the value "
                                    f"read before is used by {opcode}: not imported")
            if opcode == "READ_VARIABLE" and inputs and outputs and inputs[0] in self.handles:
                key = self.handles[inputs[0]]
                reads[outputs[0]] = (key, assigns.get(key, 0))
            elif opcode == "ASSIGN_VARIABLE" and inputs and inputs[0] in self.handles:
                key = self.handles[inputs[0]]
                assigns[key] = assigns.get(key, 0) + 1
        for index in _ints(main.outputs):
            if index in reads:
                problems.append(f"graph output {self.b.name(index)!r} is the value of variable "
                                f"'{reads[index][0]}' read by READ_VARIABLE: not imported (output the "
                                "value that is assigned)")
        return problems

    # -- the converters ----------------------------------------------------------------------------
    def var_handle(self, operator: Any) -> None:  # noqa: ANN401
        key = variable_key(operator)
        if key in self.tensor_of:
            return
        value = self.initial[key]
        graph = self.b.graph
        name = graph.unique_name(f"variable_{key or 'unnamed'}")
        tensor = graph.tensor(name)
        tensor.dtype, tensor.shape, tensor.data, tensor.variable = value.dtype, list(value.shape), value, True
        graph.tensors[name] = tensor
        self.tensor_of[key] = name

    def read_variable(self, operator: Any) -> None:  # noqa: ANN401
        """Later ops name the variable tensor where the file names READ_VARIABLE's output."""
        handle, output = _ints(operator.inputs)[0], _ints(operator.outputs)[0]
        name = self.tensor_of[self.handles[handle]]
        declared = self.b.graph.tensors[self.b.name(output)]
        variable = self.b.graph.tensors[name]
        if declared.dtype != variable.dtype or list(declared.shape or []) != list(variable.shape or []):
            raise ValueError(f"READ_VARIABLE output {declared.dtype} {declared.shape} differs from the "
                             f"variable's initial value {variable.dtype} {variable.shape}")
        # the variable holds raw values: an int8 one means what its READ_VARIABLE's scales say
        if variable.quant is None:
            variable.quant = declared.quant
        elif declared.quant is not None and not _same_quant(variable.quant, declared.quant):
            raise ValueError("two READ_VARIABLEs of one int8 variable give it different scales")
        self.b.names[output] = name

    def assign_variable(self, operator: Any, value: str) -> None:  # noqa: ANN401
        name = self.tensor_of[self.handles[_ints(operator.inputs)[0]]]
        variable, source = self.b.graph.tensors[name], self.b.graph.tensors[value]
        dtype = source.data.dtype if source.data is not None else source.dtype
        shape = list(source.data.shape) if source.data is not None else list(source.shape or [])
        if dtype != variable.dtype or shape != list(variable.shape or []):
            raise ValueError(f"the value {dtype} {shape} does not fit the variable "
                             f"{variable.dtype} {variable.shape}")
        self.b.add_node("ASSIGN_VARIABLE", f"{name}_assign", [name, value], [])


def _same_quant(a: Any, b: Any) -> bool:  # noqa: ANN401 - QuantParams
    return (np.array_equal(a.scale, b.scale) and np.array_equal(a.zero_point, b.zero_point)
            and a.axis == b.axis)


def _var_handle(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    b.variables.var_handle(op)


def _read_variable(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    b.variables.read_variable(op)


def _assign_variable(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    b.variables.assign_variable(op, inputs[1])


def _call_once(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    """Nothing at run time: the init subgraph's values are the variables' initial values."""


CONVERTERS = {
    "VAR_HANDLE": _var_handle,
    "READ_VARIABLE": _read_variable,
    "ASSIGN_VARIABLE": _assign_variable,
    "CALL_ONCE": _call_once,
}
