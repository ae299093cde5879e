#!/usr/bin/env python3
"""Train the corner-index CNN on project-rendered index features; export ONNX for cv2.dnn.

Reads feature caches written by `train_index_classifier.py --build-only --cache FILE`
(rendered scenes only, never the photographs), trains a small two-branch CNN in
PyTorch (training time only: `pip install .[train] onnx` and a CPU build of torch) with augmentation
done on the patches themselves (small rotations and scale changes, thinner and
bolder strokes, blur, dropped pixels), so that index faces the renderer never
drew still read right. The exported model takes the same 704-value feature rows
as the MLP and returns (rank probabilities, suit probabilities).

usage: nice python tools/train_index_cnn.py CACHE.npz [CACHE.npz ...] [--epochs 12] [--out PATH]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.vision.classifier import CNN_PATH, RANK_CLASSES, SUIT_CLASSES  # noqa: E402
from referee.vision.index_features import CTX_PATCH, N_GEOM, RANK_PATCH, SUIT_PATCH  # noqa: E402

R_END = RANK_PATCH * RANK_PATCH
S_END = R_END + SUIT_PATCH * SUIT_PATCH
C_END = S_END + CTX_PATCH * CTX_PATCH


class IndexNet(nn.Module):
    """Rank patch and suit patch through small conv stacks, joined with context and geometry."""

    def __init__(self) -> None:
        super().__init__()
        self.r1 = nn.Conv2d(1, 12, 3, padding=1)
        self.r2 = nn.Conv2d(12, 24, 3, padding=1)
        self.s1 = nn.Conv2d(1, 8, 3, padding=1)
        self.s2 = nn.Conv2d(8, 16, 3, padding=1)
        n_in = 24 * 5 * 5 + 16 * 3 * 3 + CTX_PATCH * CTX_PATCH + N_GEOM
        self.fc = nn.Linear(n_in, 128)
        self.rank = nn.Linear(128, len(RANK_CLASSES))
        self.suit = nn.Linear(128, len(SUIT_CLASSES))
        self.drop = nn.Dropout(0.3)

    def logits(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = x.shape[0]
        r = x[:, :R_END].reshape(n, 1, RANK_PATCH, RANK_PATCH)
        s = x[:, R_END:S_END].reshape(n, 1, SUIT_PATCH, SUIT_PATCH)
        rest = x[:, S_END:]
        r = F.max_pool2d(F.relu(self.r1(r)), 2)          # 10x10
        r = F.max_pool2d(F.relu(self.r2(r)), 2)          # 5x5
        s = F.max_pool2d(F.relu(self.s1(s)), 2)          # 7x7
        s = F.max_pool2d(F.relu(self.s2(s)), 2)          # 3x3
        h = torch.cat([r.reshape(n, -1), s.reshape(n, -1), rest], 1)
        h = self.drop(F.relu(self.fc(h)))
        return self.rank(h), self.suit(h)


class Exported(nn.Module):
    """What ships: feature rows in, softmax probabilities (temperature applied) out."""

    def __init__(self, net: IndexNet, temperature: float) -> None:
        super().__init__()
        self.net = net
        self.t = temperature

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        zr, zs = self.net.logits(x)
        return F.softmax(zr / self.t, 1), F.softmax(zs / self.t, 1)


def _warp(p: torch.Tensor, g: torch.Generator, rot: float, scale: float) -> torch.Tensor:
    """Small random rotation, scale and shear of a batch of (n, 1, s, s) patches."""
    n = p.shape[0]
    a = (torch.rand(n, generator=g) * 2 - 1) * rot
    k = 1 + (torch.rand(n, generator=g) * 2 - 1) * scale
    kx = k * (1 + (torch.rand(n, generator=g) * 2 - 1) * 0.12)  # narrower or wider faces
    sh = (torch.rand(n, generator=g) * 2 - 1) * 0.12
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = torch.cos(a) / kx
    theta[:, 0, 1] = -torch.sin(a) / kx + sh
    theta[:, 1, 0] = torch.sin(a) / k
    theta[:, 1, 1] = torch.cos(a) / k
    theta[:, :, 2] = (torch.rand(n, 2, generator=g) * 2 - 1) * 0.06
    grid = F.affine_grid(theta, list(p.shape), align_corners=False)
    return F.grid_sample(p, grid, align_corners=False, padding_mode="zeros")


def _stroke(p: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Thin (erode) a third of the patches, embolden (dilate) a third, by one pixel."""
    n = p.shape[0]
    u = torch.rand(n, 1, 1, 1, generator=g)
    dil = F.max_pool2d(p, 3, 1, 1)
    ero = -F.max_pool2d(-p, 3, 1, 1)
    return torch.where(u < 1 / 3, ero, torch.where(u < 2 / 3, dil, p))


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Patch-level damage: geometry, stroke width, blur, dropped and added pixels."""
    n = x.shape[0]
    r = x[:, :R_END].reshape(n, 1, RANK_PATCH, RANK_PATCH)
    s = x[:, R_END:S_END].reshape(n, 1, SUIT_PATCH, SUIT_PATCH)
    r = _stroke(_warp(r, g, 0.15, 0.1), g)
    s = _warp(s, g, 0.15, 0.1)
    blur = torch.tensor([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=torch.float32).reshape(1, 1, 3, 3) / 16
    soft = torch.rand(n, 1, 1, 1, generator=g) < 0.3
    r = torch.where(soft, F.conv2d(r, blur, padding=1), r)
    r = r * (torch.rand(r.shape, generator=g) > 0.04)
    rest = x[:, S_END:].clone()
    rest[:, :CTX_PATCH * CTX_PATCH] *= 1 + (torch.rand(n, 1, generator=g) * 2 - 1) * 0.2  # lighting
    rest[:, CTX_PATCH * CTX_PATCH:] *= 1 + (torch.rand(n, N_GEOM, generator=g) * 2 - 1) * 0.1
    return torch.cat([r.reshape(n, -1), s.reshape(n, -1), rest], 1)


def load(caches: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Xs, Rs, Ss = [], [], []
    for c in caches:
        with np.load(c) as z:
            Xs.append(z["X"].astype(np.float32))
            Rs.append(z["yr"].astype(np.int64))
            Ss.append(z["ys"].astype(np.int64))
    return np.concatenate(Xs), np.concatenate(Rs), np.concatenate(Ss)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("caches", type=Path, nargs="+")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=CNN_PATH)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    g = torch.Generator().manual_seed(args.seed)
    X, yr, ys = load(args.caches)
    perm = np.random.default_rng(args.seed).permutation(len(X))
    X, yr, ys = X[perm], yr[perm], ys[perm]
    n_val = min(20000, len(X) // 10)
    Xv, yrv = torch.from_numpy(X[:n_val]), torch.from_numpy(yr[:n_val])
    Xt, yrt, yst = torch.from_numpy(X[n_val:]), torch.from_numpy(yr[n_val:]), torch.from_numpy(ys[n_val:])
    print(f"{len(Xt)} training rows ({int((yrt != len(RANK_CLASSES) - 1).sum())} indices), {n_val} held out", flush=True)
    net = IndexNet()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    bs = 512
    steps = args.epochs * ((len(Xt) + bs - 1) // bs)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps)
    t0 = time.time()
    for ep in range(args.epochs):
        net.train()
        order = torch.randperm(len(Xt), generator=g)
        tot = 0.0
        for s in range(0, len(Xt), bs):
            b = order[s:s + bs]
            zr, zs = net.logits(augment(Xt[b], g))
            loss = F.cross_entropy(zr, yrt[b]) + F.cross_entropy(zs, yst[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(b)
        net.eval()
        with torch.no_grad():
            zr, _ = net.logits(Xv)
            acc = float((zr.argmax(1) == yrv).float().mean())
        print(f"epoch {ep} loss {tot / len(Xt):.4f} held-out rank accuracy {acc:.4f} ({time.time() - t0:.0f}s)", flush=True)
    with torch.no_grad():
        zr, _ = net.logits(Xv)
    best = min((float(F.cross_entropy(zr / t, yrv)), t) for t in (0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 2.0))
    print(f"temperature {best[1]} held-out nll {best[0]:.4f}")
    model = Exported(net, best[1]).eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (torch.zeros(1, X.shape[1]),), str(args.out), input_names=["features"],
                      output_names=["rank", "suit"], dynamic_axes={"features": {0: "n"}, "rank": {0: "n"}, "suit": {0: "n"}},
                      opset_version=13, dynamo=False)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
