"""Deterministic, realistic inputs for the corpus: photographs, rendered text, speech-like audio, and
the features the audio front ends make of it (never plain noise: networks' activations only spread
over the ranges they were trained for on data that looks like their data).

A source string (corpus.InputSpec.source) names the generator:
``photo:<nchw|nhwc>:<01|pm1|255|imagenet>``, ``ocr:<det|rec|page|gray>``, ``speech:<samples>``
(float in [-1, 1]), ``speech_int16:<samples>`` (int16-scaled float, as openWakeWord feeds it),
``mel`` / ``embedding`` (openWakeWord's melspectrogram and embedding models run by onnxruntime on
that speech), ``zeros``, ``const:<value>``.
"""

from __future__ import annotations

import numpy as np

from benchmarks.model_zoo.corpus import InputSpec
from lite_converter.app.demo import ocr_input
from tests.datasets.photos import IMAGENET_MEAN, IMAGENET_STD, photograph

SAMPLE_RATE = 16000
SEED = 15


def speech(samples: int, seed: int = SEED) -> np.ndarray:
    """A voiced, speech-like signal: a gliding pitch (110-180 Hz) whose harmonics are shaped by three
    formants, in 4 Hz syllables, over faint noise; peak about 0.5."""
    rng = np.random.default_rng(seed)
    t = np.arange(samples) / SAMPLE_RATE
    pitch = 145.0 + 35.0 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(pitch) / SAMPLE_RATE
    signal = np.zeros(samples)
    for harmonic in range(1, 30):
        frequency = harmonic * 145.0
        gain = sum(np.exp(-(((frequency - f) / 180.0) ** 2)) for f in (700.0, 1220.0, 2600.0)) + 0.05
        signal += gain / harmonic * np.sin(harmonic * phase)
    syllables = 0.5 * (1 - np.cos(2 * np.pi * 4.0 * t)) ** 1.5
    signal = signal * syllables + 0.01 * rng.standard_normal(samples)
    return (0.5 * signal / np.abs(signal).max()).astype(np.float32)


def _photo(layout: str, scale: str, shape: tuple[int, ...]) -> np.ndarray:
    nchw_shape = shape if layout == "nchw" else (shape[0], shape[3], shape[1], shape[2])
    normalized = photograph(nchw_shape)
    pixels = normalized * IMAGENET_STD[:, None, None] + IMAGENET_MEAN[:, None, None]  # back to [0, 1]
    scaled = {"01": pixels, "pm1": pixels * 2 - 1, "255": pixels * 255, "imagenet": normalized}[scale]
    return scaled if layout == "nchw" else scaled.transpose(0, 2, 3, 1)


def _ocr(kind: str, shape: tuple[int, ...]) -> np.ndarray:
    if kind == "gray":
        rendered, _ = ocr_input("rec", (shape[0], 3, *shape[2:]), SEED)
        return rendered.mean(axis=1, keepdims=True)
    rendered, _ = ocr_input("det" if kind in ("det", "page") else "rec", shape, SEED)
    return rendered


def _oww_features(stage: str, shape: tuple[int, ...]) -> np.ndarray:
    """openWakeWord's own pipeline: mel frames (x / 10 + 2) of speech, then 96-d embeddings of
    76-frame windows 8 frames apart, both by onnxruntime on the corpus' ONNX front ends."""
    from benchmarks.model_zoo.fetch import fetch
    from tests.models.oracle import onnxruntime_outputs

    paths = fetch(["oww_melspec_onnx", "oww_embedding_onnx"])
    windows = shape[1] if stage == "embedding" else 1
    frames_needed = 76 + 8 * (windows - 1)
    audio = speech(160 * (frames_needed + 3) + 480) * 32767
    mel = next(iter(onnxruntime_outputs(paths["oww_melspec_onnx"], {"input": audio[None]}).values()))
    mel = np.squeeze(mel) / 10 + 2  # [frames, 32]
    stacked = np.stack([mel[8 * w : 8 * w + 76] for w in range(windows)])[..., None].astype(np.float32)
    if stage == "mel":
        return stacked.reshape(shape)
    embeddings = next(iter(onnxruntime_outputs(paths["oww_embedding_onnx"], {"input_1": stacked}).values()))
    return embeddings.reshape(shape).astype(np.float32)


def make_input(spec: InputSpec, chunk: int = 0, chunks: int = 1) -> np.ndarray:
    """The array for one input of a corpus model; for a stream of ``chunks`` calls, the audio inputs
    are consecutive pieces of one signal (``chunk`` is the call) and the others repeat."""
    kind, _, argument = spec.source.partition(":")
    if kind in ("speech", "speech_int16") and chunks > 1:
        samples = int(argument)
        signal = speech(samples * chunks)[chunk * samples:(chunk + 1) * samples]
        value = signal * 32767 if kind == "speech_int16" else signal
        return np.ascontiguousarray(value.reshape(spec.shape), dtype=spec.dtype)
    if kind == "photo":
        layout, scale = argument.split(":")
        value = _photo(layout, scale, spec.shape)
    elif kind == "ocr":
        value = _ocr(argument, spec.shape)
    elif kind == "speech":
        value = speech(int(argument)).reshape(spec.shape)
    elif kind == "speech_int16":
        value = (speech(int(argument)) * 32767).reshape(spec.shape)
    elif kind in ("mel", "embedding"):
        value = _oww_features(kind, spec.shape)
    elif kind == "zeros":
        value = np.zeros(spec.shape)
    elif kind == "const":
        value = np.full(spec.shape, float(argument))
    else:
        raise ValueError(f"unknown input source {spec.source!r}")
    return np.ascontiguousarray(value, dtype=spec.dtype)
