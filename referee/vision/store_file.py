"""A deck store's file: a compressed npz of its rows, distance scale, cuts, search axes and adapted reader.

Versions: 1 holds the rows alone; 2 adds the search axes (a version-1 store fits them on first use); 3 the lone
marks (off for 1-2); 4 the adapted reader (optional). The optional `stock_cut` and `mark_conf` need no new
version: older readers ignore them.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .classifier import AgreeingPair
from .deck_reader import pair_arrays, pair_from_arrays
from .index_features import N_FEATURES

STORE_VERSION = 4
READER_PREFIX = "reader_"   # the adapted pair's arrays in a store file


class StoreContents(Protocol):
    """What a store file holds (`DeckStore`'s fields)."""

    vectors: np.ndarray
    labels: np.ndarray
    cards: list[str]
    d_ok: float
    min_conf: float
    mean: np.ndarray | None
    basis: np.ndarray | None
    marks: bool
    stock_cut: float | None
    reader: AgreeingPair | None
    mark_conf: float | None


def store_bytes(store: StoreContents) -> bytes:
    """The store as file contents (rows as float16)."""
    arrays: dict[str, Any] = {
        "version": np.int32(STORE_VERSION), "vectors": store.vectors.astype(np.float16),
        "labels": np.array(store.labels, dtype="U8"), "cards": np.array(store.cards, dtype="U8"),
        "d_ok": np.float32(store.d_ok), "min_conf": np.float32(store.min_conf), "marks": np.bool_(store.marks)}
    if store.basis is not None and store.mean is not None:
        arrays.update(mean=store.mean.astype(np.float32), basis=store.basis.astype(np.float32))
    if store.stock_cut is not None:
        arrays.update(stock_cut=np.float32(store.stock_cut))
    if store.reader is not None:
        arrays.update(pair_arrays(store.reader, READER_PREFIX))
    if store.mark_conf is not None:
        arrays.update(mark_conf=np.float32(store.mark_conf))
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def store_fields(data: bytes, path: str | Path) -> dict[str, Any]:
    """A store file's contents as `DeckStore` keyword arguments. Raises ValueError (one line naming `path`) for a
    file that is no deck store, a version this referee cannot read, or parts that do not fit together."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            version = int(z["version"])
            if version not in (1, 2, 3, STORE_VERSION):
                raise ValueError(f"{path}: deck store version {version} is not supported (this referee reads "
                                 f"1 to {STORE_VERSION}; recalibrate the deck)")
            axes = (z["mean"].astype(np.float32), z["basis"].astype(np.float32)) if "basis" in z.files else (None, None)
            fields: dict[str, Any] = dict(
                vectors=z["vectors"], labels=z["labels"].astype(object), cards=[str(c) for c in z["cards"]],
                d_ok=float(z["d_ok"]), min_conf=float(z["min_conf"]), mean=axes[0], basis=axes[1],
                marks=bool(z["marks"]) if "marks" in z.files else False,
                stock_cut=round(float(z["stock_cut"]), 4) if "stock_cut" in z.files else None,
                mark_conf=round(float(z["mark_conf"]), 4) if "mark_conf" in z.files else None,
                reader=pair_from_arrays({k: z[k] for k in z.files if k.startswith(READER_PREFIX)}, READER_PREFIX))
    except (KeyError, EOFError, OSError, zipfile.BadZipFile, TypeError) as exc:
        raise ValueError(f"{path}: not a deck store ({type(exc).__name__})") from None
    except ValueError as exc:
        if "not supported" in str(exc):
            raise
        raise ValueError(f"{path}: not a deck store (unreadable npz)") from None
    vectors, reader, mean, basis = fields["vectors"], fields["reader"], fields["mean"], fields["basis"]
    if vectors.ndim != 2 or len(vectors) != len(fields["labels"]):
        raise ValueError(f"{path}: not a deck store (vectors and labels disagree)")
    if reader is not None and any(m.w1.shape[0] != N_FEATURES or m.mean.shape != (N_FEATURES,)
                                  for m in (reader.drawn, reader.filled)):
        raise ValueError(f"{path}: not a deck store (its adapted reader does not read this referee's features)")
    dim = vectors.shape[1]
    if basis is not None and (basis.ndim != 2 or basis.shape[0] != dim or mean is None or mean.shape != (dim,)):
        raise ValueError(f"{path}: not a deck store (search axes and vectors disagree)")
    return fields
