"""ncnn (pip ``ncnn``): the ONNX model converted to .param/.bin by ``pnnx`` (pip, installed --no-deps).

pnnx needs the input shape at conversion, so the model is converted per input shape. ncnn takes
one image per extractor input (no batch axis): batch-1 inputs are fed as C,H,W.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np

from lite_converter.app.peers.base import PeerRequest, PeerUnavailable, set_openmp_spin, source_onnx


def _pnnx_executable() -> Path:
    try:
        import pnnx
    except ImportError:
        raise PeerUnavailable("pnnx (the ONNX -> ncnn converter) is not installed: make bench-deps") from None
    return Path(pnnx.EXEC_PATH)


def convert_to_ncnn(onnx_path: Path, shapes: list[tuple[int, ...]], workdir: Path) -> tuple[Path, Path]:
    """(param, bin) from pnnx, run in its own directory (it writes several side files)."""
    tag = "_".join("x".join(str(d) for d in shape) for shape in shapes)
    folder = workdir / f"pnnx_{onnx_path.stem}_{tag}"
    param, weights = folder / "model.ncnn.param", folder / "model.ncnn.bin"  # named: pnnx mangles stems
    if param.is_file() and weights.is_file():
        return param, weights
    folder.mkdir(parents=True, exist_ok=True)
    for source in [onnx_path, *onnx_path.parent.glob(onnx_path.name + ".data")]:
        shutil.copy(source, folder / source.name)  # external data keeps the name the model refers to
    shape_text = ",".join("[" + ",".join(str(d) for d in shape) + "]" for shape in shapes)
    done = subprocess.run([str(_pnnx_executable()), onnx_path.name, f"inputshape={shape_text}",
                           f"ncnnparam={param.name}", f"ncnnbin={weights.name}"], cwd=folder,
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0 or not param.is_file():
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        raise PeerUnavailable(f"pnnx could not convert the model: {' / '.join(tail)}")
    return param, weights


class NcnnSession:
    def __init__(self, request: PeerRequest) -> None:
        set_openmp_spin()
        try:
            import ncnn
        except ImportError:
            raise PeerUnavailable("not installed (make bench-deps)") from None
        self._ncnn = ncnn
        arrays = list(request.feeds.values())
        if any(a.ndim == 4 and a.shape[0] != 1 for a in arrays):
            raise PeerUnavailable("ncnn runs one image at a time: batch > 1 not benchmarked")
        shapes = [tuple(a.shape) for a in arrays]
        param, weights = convert_to_ncnn(source_onnx(request), shapes, request.workdir)
        self._net = ncnn.Net()
        self._net.opt.use_vulkan_compute = False
        self._net.opt.num_threads = request.threads
        if self._net.load_param(str(param)) != 0 or self._net.load_model(str(weights)) != 0:
            raise PeerUnavailable("ncnn cannot load pnnx's output")
        # pnnx names the blobs in0, in1, ... in the ONNX input order
        self._inputs = [(name, np.ascontiguousarray(a[0] if a.ndim == 4 else a, dtype=np.float32))
                        for name, a in zip(self._net.input_names(), arrays, strict=True)]
        self._outputs = list(self._net.output_names())
        self.version = ncnn.__version__

    def run(self) -> dict[str, np.ndarray]:
        extractor = self._net.create_extractor()
        for name, array in self._inputs:
            extractor.input(name, self._ncnn.Mat(array))
        outputs = {}
        for name in self._outputs:
            status, mat = extractor.extract(name)
            if status != 0:
                raise RuntimeError(f"ncnn extract {name} failed ({status})")
            outputs[name] = np.array(mat, copy=True)
        return outputs
