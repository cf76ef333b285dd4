"""Sparse .tflite constants (the schema's SparsityParameters) are densified at import: checked against
LiteRT, which runs the same models through its DENSIFY kernel; unreadable formats are refused with
the tensor's name and the reason, never an internal error.

The sparse encodings below are written out per case, from the schema's description of the format
(CSR segments + indices per sparse dim, block dims after the original ones), not with our decoder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from lite_converter.convert import convert_tflite  # noqa: E402
from lite_converter.ir import ConversionError  # noqa: E402
from tests.tflite_builder import TfliteModel, assert_matches_litert, options  # noqa: E402

_VECTORS = {
    np.int32: (s.SparseIndexVector.Int32Vector, s.Int32VectorT),
    np.uint16: (s.SparseIndexVector.Uint16Vector, s.Uint16VectorT),
    np.uint8: (s.SparseIndexVector.Uint8Vector, s.Uint8VectorT),
}


def _dense_dim(size: int) -> Any:  # noqa: ANN401
    return options(s.DimensionMetadataT(), format=s.DimensionType.DENSE, denseSize=size)


def _csr_dim(segments: list[int], indices: list[int], index_type: Any = np.int32) -> Any:  # noqa: ANN401
    kind, vector = _VECTORS[index_type]
    return options(
        s.DimensionMetadataT(),
        format=s.DimensionType.SPARSE_CSR,
        arraySegmentsType=kind,
        arraySegments=options(vector(), values=list(segments)),
        arrayIndicesType=kind,
        arrayIndices=options(vector(), values=list(indices)),
    )


def _sparsity(order: list[int], dims: list[Any], block_map: list[int] | None = None) -> Any:  # noqa: ANN401
    return options(s.SparsityParametersT(), traversalOrder=order, blockMap=block_map, dimMetadata=dims)


def _sparse_weights(rng: np.random.Generator, shape: tuple[int, ...], density: float = 0.3) -> np.ndarray:
    values = rng.standard_normal(shape).astype(np.float32)
    return np.where(rng.random(shape) < density, values, 0.0).astype(np.float32)


def row_csr(dense: np.ndarray, index_type: Any) -> tuple[Any, np.ndarray]:  # noqa: ANN401
    """[R, C]: rows dense, columns CSR."""
    segments, indices, values = [0], [], []
    for row in dense:
        (cols,) = np.nonzero(row)
        indices += cols.tolist()
        values += row[cols].tolist()
        segments.append(len(indices))
    dims = [_dense_dim(dense.shape[0]), _csr_dim(segments, indices, index_type)]
    return _sparsity([0, 1], dims), np.array(values, np.float32)


def column_major_csr(dense: np.ndarray) -> tuple[Any, np.ndarray]:  # noqa: ANN401
    """[R, C] traversed columns first: columns dense, rows CSR."""
    segments, indices, values = [0], [], []
    for col in dense.T:
        (rows,) = np.nonzero(col)
        indices += rows.tolist()
        values += col[rows].tolist()
        segments.append(len(indices))
    dims = [_dense_dim(dense.shape[1]), _csr_dim(segments, indices, np.uint16)]
    return _sparsity([1, 0], dims), np.array(values, np.float32)


def block_csr(dense: np.ndarray, block: int) -> tuple[Any, np.ndarray]:  # noqa: ANN401
    """[R, C] with C cut into 1 x ``block`` blocks: rows dense, blocks CSR, each kept block dense."""
    rows, cols = dense.shape
    blocks = dense.reshape(rows, cols // block, block)
    segments, indices, values = [0], [], []
    for r in range(rows):
        (kept,) = np.nonzero(np.abs(blocks[r]).sum(axis=1))
        indices += kept.tolist()
        values += blocks[r, kept].reshape(-1).tolist()
        segments.append(len(indices))
    dims = [_dense_dim(rows), _csr_dim(segments, indices, np.uint8), _dense_dim(block)]
    return _sparsity([0, 1, 2], dims, block_map=[1]), np.array(values, np.float32)


def last_dim_csr(dense: np.ndarray) -> tuple[Any, np.ndarray]:  # noqa: ANN401
    """Rank 4 [O, KH, KW, I]: the first three dims dense, the last CSR (a conv filter)."""
    flat = dense.reshape(-1, dense.shape[-1])
    segments, indices, values = [0], [], []
    for row in flat:
        (cols,) = np.nonzero(row)
        indices += cols.tolist()
        values += row[cols].tolist()
        segments.append(len(indices))
    dims = [_dense_dim(d) for d in dense.shape[:3]] + [_csr_dim(segments, indices)]
    return _sparsity([0, 1, 2, 3], dims), np.array(values, np.float32)


def _fc_model(weights: np.ndarray, sparsity: Any, values: np.ndarray, densify_op: bool = True) -> bytes:  # noqa: ANN401
    m = TfliteModel()
    n, k = weights.shape
    x, y = m.tensor("x", [3, k]), m.tensor("y", [3, n])
    sparse = m.tensor("w_sparse", [n, k], data=values, sparsity=sparsity)
    if densify_op:
        dense = m.tensor("w", [n, k])
        m.op("DENSIFY", [sparse], [dense])
    else:
        dense = sparse
    bias = m.constant("b", np.linspace(-1, 1, n).astype(np.float32))
    m.op("FULLY_CONNECTED", [x, dense, bias], [y], options(s.FullyConnectedOptionsT()))
    return m.finish([x], [y])


@pytest.mark.parametrize("encoding", ["row_csr_int32", "row_csr_uint8", "column_major_uint16", "block_1x4"])
def test_sparse_fully_connected_matches_litert(encoding: str, tmp_path: Path) -> None:
    """Through a DENSIFY op; 1x4 blocks straight into FULLY_CONNECTED (LiteRT's sparse FC kernel)."""
    rng = np.random.default_rng(20)
    weights = _sparse_weights(rng, (8, 32))
    if encoding == "block_1x4":
        blocks = weights.reshape(8, 8, 4)
        blocks[rng.random((8, 8)) < 0.5] = 0.0  # whole blocks empty as well
        sparsity, values = block_csr(weights, 4)
    elif encoding == "column_major_uint16":
        sparsity, values = column_major_csr(weights)
    else:
        sparsity, values = row_csr(weights, np.int32 if encoding.endswith("int32") else np.uint8)
    data = _fc_model(weights, sparsity, values, densify_op=encoding != "block_1x4")
    x = rng.standard_normal((3, 32)).astype(np.float32)
    assert_matches_litert(data, [x], tmp_path)
    # independent of LiteRT too: the stored values in their dense places
    expected = x.astype(np.float64) @ weights.T.astype(np.float64) + np.linspace(-1, 1, 8)
    from tests.tflite_builder import run_ours

    np.testing.assert_allclose(run_ours(data, [x])[0], expected, rtol=1e-5, atol=1e-5)


def test_sparse_conv_filter_matches_litert(tmp_path: Path) -> None:
    """A 4-D filter [8, 1, 1, 32] stored sparse (77 values: the shape of the issue's real model)."""
    rng = np.random.default_rng(21)
    weights = _sparse_weights(rng, (8, 1, 1, 32), density=0.45)
    keep = np.flatnonzero(weights)
    weights.reshape(-1)[keep[77:]] = 0.0
    sparsity, values = last_dim_csr(weights)
    assert values.size == 77
    m = TfliteModel()
    x, y = m.tensor("x", [1, 5, 5, 32]), m.tensor("y", [1, 5, 5, 8])
    sparse = m.tensor("filter_sparse", [8, 1, 1, 32], data=values, sparsity=sparsity)
    dense = m.tensor("filter", [8, 1, 1, 32])
    m.op("DENSIFY", [sparse], [dense])
    conv = options(
        s.Conv2DOptionsT(), padding=s.Padding.SAME, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1
    )
    m.op("CONV_2D", [x, dense, m.constant("bias", np.zeros(8, np.float32))], [y], conv)
    assert_matches_litert(
        m.finish([x], [y]), [rng.standard_normal((1, 5, 5, 32)).astype(np.float32)], tmp_path
    )


def _refusal(sparsity: Any, values: np.ndarray) -> str:  # noqa: ANN401
    with pytest.raises(ConversionError) as error:
        convert_tflite(_fc_model(np.zeros((8, 32), np.float32), sparsity, values))
    return str(error.value)


def test_malformed_sparsity_is_refused_by_tensor_name() -> None:
    weights = _sparse_weights(np.random.default_rng(22), (8, 32))
    sparsity, values = row_csr(weights, np.int32)
    cases = {
        "index past the dim": lambda sp: setattr(
            sp.dimMetadata[1].arrayIndices, "values", [40] + list(sp.dimMetadata[1].arrayIndices.values[1:])
        ),
        "segments past the indices": lambda sp: setattr(
            sp.dimMetadata[1].arraySegments,
            "values",
            list(sp.dimMetadata[1].arraySegments.values[:-1]) + [999],
        ),
        "too few segments": lambda sp: setattr(sp.dimMetadata[1].arraySegments, "values", [0, 1]),
        "no index vector": lambda sp: setattr(sp.dimMetadata[1], "arrayIndicesType", 0),
        "wrong dense size": lambda sp: setattr(sp.dimMetadata[0], "denseSize", 7),
        "bad traversal order": lambda sp: setattr(sp, "traversalOrder", [0, 0]),
        "block not dividing": lambda sp: (
            setattr(sp, "blockMap", [1]),
            setattr(sp, "traversalOrder", [0, 1, 2]),
            sp.dimMetadata.append(_dense_dim(5)),
        ),
    }
    for what, damage in cases.items():
        broken, _ = row_csr(weights, np.int32)
        damage(broken)
        message = _refusal(broken, values)
        assert "tensor 'w_sparse'" in message and "sparse format cannot be read" in message, (what, message)
    message = _refusal(sparsity, values[:10])  # the tree addresses values that are not stored
    assert "tensor 'w_sparse'" in message and "of 10 stored" in message, message


def test_dense_buffer_of_the_wrong_size_is_refused() -> None:
    m = TfliteModel()
    x, y = m.tensor("x", [3, 32]), m.tensor("y", [3, 8])
    w = m.tensor("w", [8, 32], data=np.ones(77, np.float32))
    m.op("FULLY_CONNECTED", [x, w], [y], options(s.FullyConnectedOptionsT()))
    with pytest.raises(ConversionError, match=r"tensor 'w': 77 values stored for shape \[8, 32\]"):
        convert_tflite(m.finish([x], [y]))


def _with_offset_buffer(weights: np.ndarray, truncate: int = 0) -> bytes:
    """An FC model whose weight buffer follows the flatbuffer (Buffer.offset / size, as TFLite writes
    models over 2 GB); ``truncate`` cuts that many bytes off the end of the file."""
    m = TfliteModel()
    x, y = m.tensor("x", [2, weights.shape[1]]), m.tensor("y", [2, weights.shape[0]])
    w = m.tensor("w", list(weights.shape))
    m.tensors[w].buffer = len(m.buffers)
    m.buffers.append(options(s.BufferT(), offset=1 << 30, size=weights.nbytes))
    m.op("FULLY_CONNECTED", [x, w], [y], options(s.FullyConnectedOptionsT()))
    m.end_subgraph([x], [y])
    size = len(m.finish())
    offset = (size + 63) // 64 * 64
    m.buffers[-1].offset = offset
    body = m.finish()
    assert len(body) == size
    blob = body + bytes(offset - size) + weights.tobytes()
    return blob[: len(blob) - truncate] if truncate else blob


def test_buffer_stored_after_the_flatbuffer(tmp_path: Path) -> None:
    weights = np.random.default_rng(23).standard_normal((5, 7)).astype(np.float32)
    data = _with_offset_buffer(weights)
    x = np.random.default_rng(24).standard_normal((2, 7)).astype(np.float32)
    assert_matches_litert(data, [x], tmp_path)
    with pytest.raises(
        ConversionError, match=r"tensor 'w': its data \(140 bytes at offset \d+\) lies past the end"
    ):
        convert_tflite(_with_offset_buffer(weights, truncate=8))
