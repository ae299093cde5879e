"""The index classifiers: a small two-headed MLP run with numpy (the default), and a CNN on cv2.dnn.

Both read the same feature rows (`index_detect.features`) and return (rank, suit)
probabilities. The MLP (`models/index_mlp.npz`, `tools/train_index_classifier.py`)
is the default: on the real-photo benchmark the CNN (`models/index_cnn.onnx`,
`tools/train_index_cnn.py`) read no better and cost more, so it is kept as the
measured alternative (`referee recognize --method index-cnn`). Both are trained on
project-rendered cards only; nothing is downloaded at run time.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

RANK_CLASSES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JOKER", "-")
SUIT_CLASSES: tuple[str, ...] = ("S", "H", "D", "C", "-")
MODEL_PATH = Path(__file__).resolve().parent / "models" / "index_mlp.npz"
CNN_PATH = Path(__file__).resolve().parent / "models" / "index_cnn.onnx"


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # numpy's matmul: about 15x faster than cv2.gemm for these shapes (54x704 @ 704x256: 0.25 vs 3.8 ms)
    return np.ascontiguousarray(a, np.float32) @ b


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


@dataclass
class IndexMLP:
    """x -> relu(x W1 + b1) -> relu(. W2 + b2) -> (rank softmax, suit softmax)."""

    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    wr: np.ndarray
    br: np.ndarray
    ws: np.ndarray
    bs: np.ndarray
    temperature: float = 1.0

    NAMES = ("mean", "std", "w1", "b1", "w2", "b2", "wr", "br", "ws", "bs")

    def hidden(self, x: np.ndarray) -> np.ndarray:
        h = np.maximum(_mm((x - self.mean) / self.std, self.w1) + self.b1, 0)
        return np.maximum(_mm(h, self.w2) + self.b2, 0)

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities, one row per feature row."""
        if len(x) == 0:
            return np.zeros((0, len(RANK_CLASSES))), np.zeros((0, len(SUIT_CLASSES)))
        h = self.hidden(x.astype(np.float32))
        t = self.temperature
        return _softmax((_mm(h, self.wr) + self.br) / t), _softmax((_mm(h, self.ws) + self.bs) / t)

    def save(self, path: Path) -> None:
        arrays = {n: getattr(self, n).astype(np.float16 if n.startswith("w") else np.float32) for n in self.NAMES}
        np.savez_compressed(path, temperature=np.float32(self.temperature), **arrays)

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> "IndexMLP":
        with np.load(path) as z:
            arrays = {n: z[n].astype(np.float32) for n in cls.NAMES}
            return cls(temperature=float(z["temperature"]), **arrays)


class IndexCNN:
    """The ONNX index CNN on cv2.dnn: feature rows in, (rank, suit) probabilities out."""

    def __init__(self, path: Path = CNN_PATH) -> None:
        import cv2  # the rules never need OpenCV; vision does

        self.path = path
        self.net = cv2.dnn.readNetFromONNX(str(path))
        self.outputs = self.net.getUnconnectedOutLayersNames()

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities, one row per feature row."""
        if len(x) == 0:
            return np.zeros((0, len(RANK_CLASSES))), np.zeros((0, len(SUIT_CLASSES)))
        self.net.setInput(np.ascontiguousarray(x, np.float32))
        out = dict(zip(self.outputs, self.net.forward(self.outputs)))
        return out["rank"], out["suit"]


IndexModel = IndexMLP | IndexCNN


@functools.cache
def load_model(path: Path) -> IndexModel:
    """An index model file, `.onnx` (CNN) or `.npz` (MLP), loaded once per path."""
    return IndexCNN(path) if path.suffix == ".onnx" else IndexMLP.load(path)


def default_model() -> IndexModel:
    """The committed default model (the MLP)."""
    return load_model(MODEL_PATH)


def cnn_model() -> IndexModel:
    """The committed CNN."""
    return load_model(CNN_PATH)
