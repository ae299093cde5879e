"""The index classifiers: small two-headed MLPs run with numpy, and a CNN on cv2.dnn.

All read the same feature rows (`index_features.features`) and return (rank, suit)
probabilities. The default is an agreeing pair (`AgreeingPair`): the MLP
(`models/index_mlp.npz`, `tools/train_index_classifier.py`) and its twin trained on
width-filled rank patches (`models/index_mlp_fill.npz`, `--fill-width`), a card named
only where both read it. Measured alternatives: the MLP alone (`--method index-mlp`:
fewer real cards named at the same precision) and the CNN (`models/index_cnn.onnx`,
`tools/train_index_cnn.py`, `--method index-cnn`: read no better and cost more). All
are trained on project-rendered cards only; nothing is downloaded at run time.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

RANK_CLASSES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JOKER", "-")
SUIT_CLASSES: tuple[str, ...] = ("S", "H", "D", "C", "-")
JOKER_CLASS, NO_INDEX = RANK_CLASSES.index("JOKER"), RANK_CLASSES.index("-")
MODEL_PATH = Path(__file__).resolve().parent / "models" / "index_mlp.npz"
FILL_MODEL_PATH = Path(__file__).resolve().parent / "models" / "index_mlp_fill.npz"
CNN_PATH = Path(__file__).resolve().parent / "models" / "index_cnn.onnx"


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b in float32 (numpy's matmul: far quicker than cv2.gemm for these shapes)."""
    return np.ascontiguousarray(a, np.float32) @ b


def _softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax, shifted by each row's maximum so exp cannot overflow."""
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
    fill_width: bool = False  # trained on width-filled rank patches (rank_width_fill.fill_rank_width)

    NAMES = ("mean", "std", "w1", "b1", "w2", "b2", "wr", "br", "ws", "bs")

    def hidden(self, x: np.ndarray) -> np.ndarray:
        """The second hidden layer's activations for feature rows `x` (standardised first)."""
        h = np.maximum(_mm((x - self.mean) / self.std, self.w1) + self.b1, 0)
        return np.maximum(_mm(h, self.w2) + self.b2, 0)

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities, one row per feature row (as `index_features.features` draws it)."""
        if len(x) == 0:
            return np.zeros((0, len(RANK_CLASSES))), np.zeros((0, len(SUIT_CLASSES)))
        if self.fill_width:
            from .rank_width_fill import fill_rank_widths   # needs OpenCV: not imported just to load a model

            x = fill_rank_widths(x)
        h = self.hidden(x.astype(np.float32))
        t = self.temperature
        return _softmax((_mm(h, self.wr) + self.br) / t), _softmax((_mm(h, self.ws) + self.bs) / t)

    def arrays(self, prefix: str = "") -> dict[str, Any]:
        """The model as named arrays (weights in float16), `prefix` before each name: for an npz of its own
        (`save`) or inside another file (a deck store keeps its adapted pair)."""
        out = {prefix + n: getattr(self, n).astype(np.float16 if n.startswith("w") else np.float32) for n in self.NAMES}
        out[prefix + "temperature"] = np.float32(self.temperature)
        out[prefix + "fill_width"] = np.bool_(self.fill_width)
        return out

    @classmethod
    def from_arrays(cls, z: Mapping[str, np.ndarray], prefix: str = "") -> "IndexMLP":
        """The model `arrays` wrote (KeyError when one is missing)."""
        weights = {n: np.asarray(z[prefix + n], np.float32) for n in cls.NAMES}
        fill = bool(z[prefix + "fill_width"]) if prefix + "fill_width" in z else False
        return cls(temperature=float(z[prefix + "temperature"]), fill_width=fill, **weights)

    def save(self, path: Path) -> None:
        """Write the model to an npz file of its own."""
        np.savez_compressed(path, **self.arrays())

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> "IndexMLP":
        """The model an npz file holds (the committed MLP by default)."""
        with np.load(path) as z:
            return cls.from_arrays({k: z[k] for k in z.files})


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


@dataclass
class AgreeingPair:
    """Two index MLPs read every row; a name stands only where both give it.

    One reads rank patches as drawn, the other width-filled (`rank_width_fill.fill_rank_width`):
    they fail on different real faces (narrow J and 7 vs wide 3, 6 and 10), so where both name
    the same rank and suit the surer one's probabilities are kept; elsewhere the row gets the
    average of the two, which is unsure."""

    drawn: IndexMLP
    filled: IndexMLP

    JUNK_SURE = 0.99   # a row the drawn reader calls no index this surely is not read by the twin (see `predict`)

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank and suit probabilities, one row per feature row.

        Rows the drawn reader calls no index at `JUNK_SURE` or more keep its reading, which saves the twin about
        half its rows: the twin could make one a card only by naming it surer than 0.98, and then at about half
        that (the average of the two), under every cut but the corner-pairing floor."""
        pr_a, ps_a = self.drawn.predict(x)
        if len(x) == 0:
            return pr_a, ps_a
        pr_b, ps_b = pr_a.copy(), ps_a.copy()
        look = np.flatnonzero(pr_a[:, NO_INDEX] < self.JUNK_SURE)
        if len(look):
            pr_b[look], ps_b[look] = self.filled.predict(x[look])
        rows = np.arange(len(x))
        ra, rb = pr_a.argmax(1), pr_b.argmax(1)
        sa, sb = ps_a[:, :4].argmax(1), ps_b[:, :4].argmax(1)
        suitless = (ra == JOKER_CLASS) | (ra == NO_INDEX)
        agree = (ra == rb) & (suitless | (sa == sb))
        conf_a = pr_a[rows, ra] * np.where(suitless, 1.0, ps_a[rows, sa])
        conf_b = pr_b[rows, rb] * np.where(suitless, 1.0, ps_b[rows, sb])
        take_b = (agree & (conf_b > conf_a))[:, None]
        pr = np.where(agree[:, None], np.where(take_b, pr_b, pr_a), (pr_a + pr_b) / 2)
        ps = np.where(agree[:, None], np.where(take_b, ps_b, ps_a), (ps_a + ps_b) / 2)
        return pr, ps


IndexModel = IndexMLP | IndexCNN | AgreeingPair


@functools.cache
def load_model(path: Path) -> IndexModel:
    """An index model file, `.onnx` (CNN) or `.npz` (MLP), loaded once per path."""
    return IndexCNN(path) if path.suffix == ".onnx" else IndexMLP.load(path)


@functools.cache
def load_pair(drawn: Path, filled: Path) -> AgreeingPair:
    """Two MLP files read as an `AgreeingPair`, loaded once per pair of paths."""
    first, second = IndexMLP.load(drawn), IndexMLP.load(filled)
    if first.fill_width or not second.fill_width:
        raise ValueError(f"{filled.name} must be trained on width-filled patches and {drawn.name} not")
    return AgreeingPair(first, second)


def default_model() -> IndexModel:
    """The committed default reader: the MLP and its width-filled twin as an agreeing pair."""
    return pair_model()


def pair_model() -> AgreeingPair:
    """The committed MLP and its width-filled twin as an agreeing pair."""
    return load_pair(MODEL_PATH, FILL_MODEL_PATH)


def mlp_model() -> IndexModel:
    """The committed MLP alone (the measured alternative `--method index-mlp`)."""
    return load_model(MODEL_PATH)


def cnn_model() -> IndexModel:
    """The committed CNN."""
    return load_model(CNN_PATH)
