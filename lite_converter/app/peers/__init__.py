"""Peer runtimes that `lite bench --compare` runs beside ours on the same model and inputs."""

from __future__ import annotations

from collections.abc import Callable

from lite_converter.app.peers.base import PeerRequest, PeerSession, PeerUnavailable
from lite_converter.app.peers.litert_peer import LiteRtSession
from lite_converter.app.peers.mnn_peer import MnnSession
from lite_converter.app.peers.ncnn_peer import NcnnSession
from lite_converter.app.peers.onnxruntime_peer import OnnxRuntimeSession

PEERS: dict[str, Callable[[PeerRequest], PeerSession]] = {
    "onnxruntime": OnnxRuntimeSession,
    "litert": LiteRtSession,
    "ncnn": NcnnSession,
    "mnn": MnnSession,
}
ALIASES = {"ort": "onnxruntime", "tflite": "litert"}


def open_peer(name: str, request: PeerRequest) -> PeerSession:
    """The loaded peer, or PeerUnavailable saying why it cannot run (not installed, cannot convert...)."""
    key = ALIASES.get(name, name)
    if key not in PEERS:
        raise PeerUnavailable(f"unknown peer {name!r} (known: {', '.join(PEERS)})")
    return PEERS[key](request)


__all__ = ["PEERS", "PeerRequest", "PeerSession", "PeerUnavailable", "open_peer"]
