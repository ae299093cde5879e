"""Training the index MLPs with numpy: from scratch on rendered cards (tools/train_index_classifier.py) or
adapted to one deck at calibration (`deck_reader`). Numpy only, so a Pi can adapt a deck without extra
packages."""
from __future__ import annotations

from typing import Callable

import numpy as np

from .classifier import RANK_CLASSES, SUIT_CLASSES, IndexMLP

Augment = Callable[[np.ndarray, np.random.Generator], np.ndarray]   # feature rows in, changed copies out


def train(X: np.ndarray, yr: np.ndarray, ys: np.ndarray, epochs: int, seed: int,
          hidden: tuple[int, int] = (256, 128), noise: float = 0.3, drop: float = 0.15,
          decay: float = 5e-4, init: IndexMLP | None = None, lr: float = 2e-3, augment: Augment | None = None,
          log: Callable[[str], None] | None = print) -> IndexMLP:
    """Adam on the summed cross-entropy of both heads (suit loss only where a suit exists).
    With `init`, training starts from that model's weights and input scaling (fine-tuning);
    `augment` changes each batch's rows before scaling (all but the last two epochs)."""
    g = np.random.default_rng(seed)
    n, d = X.shape
    if init is not None:
        mean, std = init.mean, init.std
    else:
        mean, std = X.mean(0), X.std(0) + 0.05
    Xn = ((X - mean) / std).astype(np.float32)
    h1, h2 = hidden
    if init is not None:
        P = {k: getattr(init, k).copy() for k in ("w1", "b1", "w2", "b2", "wr", "br", "ws", "bs")}
    else:
        P = {"w1": g.normal(0, np.sqrt(2 / d), (d, h1)), "b1": np.zeros(h1), "w2": g.normal(0, np.sqrt(2 / h1), (h1, h2)),
             "b2": np.zeros(h2), "wr": g.normal(0, np.sqrt(1 / h2), (h2, len(RANK_CLASSES))),
             "br": np.zeros(len(RANK_CLASSES)), "ws": g.normal(0, np.sqrt(1 / h2), (h2, len(SUIT_CLASSES))),
             "bs": np.zeros(len(SUIT_CLASSES))}
    P = {k: v.astype(np.float32) for k, v in P.items()}
    M = {k: np.zeros_like(v) for k, v in P.items()}
    V = {k: np.zeros_like(v) for k, v in P.items()}
    step, bs = 0, 256
    Yr = np.eye(len(RANK_CLASSES), dtype=np.float32)[yr]
    Ys = np.eye(len(SUIT_CLASSES), dtype=np.float32)[ys]
    for ep in range(epochs):
        order = g.permutation(n)
        tot = 0.0
        for s in range(0, n, bs):
            b = order[s:s + bs]
            late = ep >= epochs - 2
            x = ((augment(X[b], g) - mean) / std).astype(np.float32) if augment is not None and not late else Xn[b]
            if not late:  # input noise and dropout against memorising the training faces
                x = x + g.normal(0, noise, x.shape).astype(np.float32)
                x = x * (g.random(x.shape) > drop).astype(np.float32)
            a1 = np.maximum(x @ P["w1"] + P["b1"], 0)
            a2 = np.maximum(a1 @ P["w2"] + P["b2"], 0)
            zr = a2 @ P["wr"] + P["br"]
            zs = a2 @ P["ws"] + P["bs"]
            pr = np.exp(zr - zr.max(1, keepdims=True)); pr /= pr.sum(1, keepdims=True)
            psu = np.exp(zs - zs.max(1, keepdims=True)); psu /= psu.sum(1, keepdims=True)
            tot += -np.log(pr[np.arange(len(b)), yr[b]] + 1e-9).sum()
            dzr = (pr - Yr[b]) / len(b)
            dzs = (psu - Ys[b]) / len(b)
            G = {"wr": a2.T @ dzr, "br": dzr.sum(0), "ws": a2.T @ dzs, "bs": dzs.sum(0)}
            da2 = (dzr @ P["wr"].T + dzs @ P["ws"].T) * (a2 > 0)
            G["w2"], G["b2"] = a1.T @ da2, da2.sum(0)
            da1 = (da2 @ P["w2"].T) * (a1 > 0)
            G["w1"], G["b1"] = x.T @ da1, da1.sum(0)
            step += 1
            rate = lr * (0.5 * (1 + np.cos(np.pi * ep / epochs)))
            for k in P:
                G[k] = G[k] + (decay * P[k] if k.startswith("w") else 0)
                M[k] = 0.9 * M[k] + 0.1 * G[k]
                V[k] = 0.999 * V[k] + 0.001 * G[k] ** 2
                P[k] -= rate * (M[k] / (1 - 0.9 ** step)) / (np.sqrt(V[k] / (1 - 0.999 ** step)) + 1e-8)
        if log is not None:
            log(f"epoch {ep} rank-loss {tot / n:.4f}")
    return IndexMLP(mean=mean.astype(np.float32), std=std.astype(np.float32), **P)
