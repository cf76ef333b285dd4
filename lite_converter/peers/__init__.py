"""Peer runtimes that `lite bench --compare` runs beside ours on the same model and inputs."""

from __future__ import annotations

from collections.abc import Callable

from lite_converter.peers.base import PeerRequest, PeerSession, PeerUnavailable


def _onnxruntime(request: PeerRequest) -> PeerSession:
    from lite_converter.peers.onnxruntime_peer import OnnxRuntimeSession

    return OnnxRuntimeSession(request)


def _litert(request: PeerRequest) -> PeerSession:
    from lite_converter.peers.litert_peer import LiteRtSession

    return LiteRtSession(request)


def _ncnn(request: PeerRequest) -> PeerSession:
    from lite_converter.peers.ncnn_peer import NcnnSession

    return NcnnSession(request)


def _mnn(request: PeerRequest) -> PeerSession:
    from lite_converter.peers.mnn_peer import MnnSession

    return MnnSession(request)


PEERS: dict[str, Callable[[PeerRequest], PeerSession]] = {
    "onnxruntime": _onnxruntime,
    "litert": _litert,
    "ncnn": _ncnn,
    "mnn": _mnn,
}
ALIASES = {"ort": "onnxruntime", "tflite": "litert"}


def open_peer(name: str, request: PeerRequest) -> PeerSession:
    """The loaded peer, or PeerUnavailable saying why it cannot run (not installed, cannot convert...)."""
    key = ALIASES.get(name, name)
    if key not in PEERS:
        raise PeerUnavailable(f"unknown peer {name!r} (known: {', '.join(PEERS)})")
    return PEERS[key](request)


__all__ = ["PEERS", "PeerRequest", "PeerSession", "PeerUnavailable", "open_peer"]
