"""Nearest stored rows of a deck store, found fast: principal axes, a lower bound, and k-means lists.

A store learned from a few hundred photos holds ~50k unit rows of 604 numbers, and naming must fit in a few
milliseconds. A small store is searched exactly. A large one is projected on its principal axes (fitted at
calibration and saved in the store); a query that no card row can be near enough to name is skipped (a lower
bound, so no nameable query is lost), the rest rank the rows of their nearest lists on the first `SEARCH_DIMS`
axes and re-rank a short list at full dimension. docs/vision.md ("A learned deck") has the measurements.
"""
from __future__ import annotations

import numpy as np

from .deck_reader import NOT_INDEX

K = 3                 # stored rows that vote on each query
SEARCH_DIMS = 48      # principal axes every row is ranked in
GATE_DIMS = 128       # principal axes of the lower bound that skips queries near no card row
SHORTLIST = 8         # rows per query re-ranked at full dimension
LIST_ROWS = 256       # rows per list of the ranking's inverted file (k-means cells on the search axes)
PROBES = 3            # lists a query ranks the rows of (its nearest cells)
EXACT_UP_TO = 2048    # stores this small are searched exactly


def principal_axes(v: np.ndarray, dims: int = GATE_DIMS, chunk: int = 8192
                   ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(mean, (d, k) principal axes) of the rows, for the search; (None, None) for a store small
    enough to search exactly."""
    if len(v) <= EXACT_UP_TO:
        return None, None
    mean = v.mean(axis=0, dtype=np.float64)
    cov = np.zeros((v.shape[1], v.shape[1]))
    for s in range(0, len(v), chunk):
        c = v[s:s + chunk].astype(np.float64) - mean
        cov += c.T @ c
    _, vecs = np.linalg.eigh(cov)                         # ascending eigenvalues
    k = min(dims, v.shape[1])
    return mean.astype(np.float32), np.ascontiguousarray(vecs[:, ::-1][:, :k].astype(np.float32))


class NeighbourIndex:
    """Stored rows as `DeckStore.vote` searches them: exactly for a small store, else through principal axes.

    Squared distances between unit rows are twice their cosine distances, and a projection onto orthonormal
    axes never lengthens a difference: a query whose projected distance to every card row exceeds the radius
    is surely that far, and is skipped. The others are ranked on the first `SEARCH_DIMS` axes against the rows
    of their `PROBES` nearest lists (an inverted file: the rows in k-means cells of ~`LIST_ROWS`, made when the
    index is built, ~0.4 s for 64k rows); the `SHORTLIST` nearest are re-ranked exactly. Three lists read
    about an eightieth of the rows that ranking every row reads.
    """

    def __init__(self, vectors: np.ndarray, labels: np.ndarray, mean: np.ndarray | None,
                 basis: np.ndarray | None, chunk: int = 8192) -> None:
        self.names = [NOT_INDEX] + sorted({str(x) for x in labels} - {NOT_INDEX})
        ids = {name: i for i, name in enumerate(self.names)}
        self.label_ids = np.array([ids[str(x)] for x in labels], dtype=np.int64)
        card = self.label_ids > 0
        self.exact = basis is None or mean is None
        if basis is None or mean is None:
            self.rows = np.ascontiguousarray(vectors, dtype=np.float32)
            self.card_rows = self.rows[card]
            return
        self.rows = np.ascontiguousarray(vectors, dtype=np.float16)   # re-ranking reads only a few rows
        self.mean, self.basis = mean, basis
        z = np.vstack([(vectors[s:s + chunk].astype(np.float32) - mean) @ basis for s in range(0, len(vectors), chunk)])
        zs = z[:, :min(SEARCH_DIMS, z.shape[1])]
        cells, centres = _cells(zs, max(1, len(zs) // LIST_ROWS))
        self.order = np.argsort(cells, kind="stable")          # rows list by list
        self.starts = np.searchsorted(cells[self.order], np.arange(len(centres) + 1))
        self.ranked = np.ascontiguousarray(_ranker(zs[self.order]).T)   # (n, d + 1), one row per stored row
        self.centres_t = _ranker(centres)
        zc = z[card]
        # a coarse bound, then the tight one; by card row, so the rows a bound still looks at are gathered fast
        self.gate = [np.ascontiguousarray(_ranker(zc[:, :min(32, z.shape[1])]).T), np.ascontiguousarray(_ranker(zc).T)]

    def nearest(self, e: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For unit rows `e`: (which rows have a card row within `radius`, their `K` nearest stored rows
        (m, K), those rows' cosine distances, nearest first)."""
        if self.exact:
            d = 1.0 - e @ self.rows.T
            keep = np.nonzero((1.0 - e @ self.card_rows.T).min(axis=1, initial=np.inf) <= radius)[0]
            d = d[keep]
            k = min(K, d.shape[1])
            near = np.argpartition(d, k - 1, axis=1)[:, :k] if len(keep) else np.zeros((0, k), np.int64)
        else:
            q = (e - self.mean) @ self.basis
            keep = np.arange(len(e))
            cols = np.arange(len(self.gate[0]))   # the card rows a bound still has to look at
            bound = 2.0 * radius + 2e-3   # + float16 rows off unit length
            for n, by_row in enumerate(self.gate, 1):
                qg = q[keep, :by_row.shape[1] - 1]
                sq = (qg ** 2).sum(axis=1)
                # the rows still looked at, gathered as rows (faster than gathering matrix columns)
                lo = _with_one(qg) @ (by_row if len(cols) == len(by_row) else by_row[cols]).T
                ok = lo.min(axis=1, initial=np.inf) + sq <= bound
                keep = keep[ok]
                if not len(keep) or n == len(self.gate):
                    break
                # a card row beyond the bound in the first dimensions is beyond it in all: the next bound
                # reads only the columns a kept row came near (1e-3 for rounding)
                lo[~ok] = np.inf   # dropped rows count nowhere (in place: most rows are kept, a copy costs more)
                lo += sq[:, None]
                cols = cols[lo.min(axis=0) <= bound + 1e-3]
            short = self._shortlist(q[keep, :self.ranked.shape[1] - 1])
            d = 1.0 - np.einsum("ij,ikj->ik", e[keep], self.rows[short].astype(np.float32))
            near = short
        order = np.argsort(np.take_along_axis(d, near, axis=1) if self.exact else d, axis=1)[:, :K]
        near = np.take_along_axis(near, order, axis=1)
        dist = np.take_along_axis(d, near, axis=1) if self.exact else np.take_along_axis(d, order, axis=1)
        return keep, near, dist

    def _shortlist(self, q: np.ndarray) -> np.ndarray:
        """Row numbers of the `SHORTLIST` rows nearest each projected query on the search axes, among the rows of
        its own `PROBES` nearest lists (so a query's shortlist never depends on what is searched with it)."""
        k = min(SHORTLIST, len(self.order))
        out = np.empty((len(q), k), np.int64)
        if not len(q):
            return out
        qq = _with_one(q)
        n_lists = len(self.starts) - 1
        probes = min(PROBES, n_lists)
        if len(self.order) <= EXACT_UP_TO:   # a small index (a deck's Joker-mark rows): every row, all queries
            # at once (faster than query by query through its lists)
            return self.order[_smallest(qq @ self.ranked.T, k)]
        near = np.sort(np.argpartition(qq @ self.centres_t, probes - 1, axis=1)[:, :probes], axis=1)
        starts, sizes = self.starts[:-1].tolist(), np.diff(self.starts).tolist()
        for i, lists in enumerate(near.tolist()):
            spans = [(starts[j], sizes[j]) for j in lists]
            if sum(n for _, n in spans) < k:   # its lists are too small: all rows
                spans = [(0, len(self.order))]
            # list by list: each list's rows are one block of `ranked`, read in place (plain Python numbers:
            # one numpy call fewer per query)
            d = np.empty(sum(n for _, n in spans), np.float32)
            at = 0
            for a, n in spans:
                np.matmul(self.ranked[a:a + n], qq[i], out=d[at:at + n])
                at += n
            # the k smallest (ties: the earlier row): sorting all ~1000 numbers for the k-th is faster here
            # than argpartition
            best = np.flatnonzero(d <= np.sort(d)[k - 1])
            best = best[np.lexsort((best, d[best]))[:k]]
            out[i] = np.concatenate([self.order[a:a + n] for a, n in spans])[best]
        return out


def _cells(z: np.ndarray, n: int, rounds: int = 8, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """(each row's cell, the cells' centres, each the mean of its rows): `rounds` of k-means from `n` rows drawn
    with a fixed seed, so the same store always gets the same cells; empty cells are dropped."""
    rng = np.random.default_rng(0)
    centres = z[rng.choice(len(z), size=min(n, len(z)), replace=False)].astype(np.float32)
    cells = np.zeros(len(z), np.int64)
    for _ in range(rounds + 1):
        ranker = _ranker(centres)
        cells = np.concatenate([(_with_one(z[s:s + chunk]) @ ranker).argmin(axis=1) for s in range(0, len(z), chunk)])
        counts = np.bincount(cells, minlength=len(centres))
        used = counts > 0
        order = np.argsort(cells, kind="stable")
        sums = np.add.reduceat(z[order].astype(np.float64), np.cumsum(counts)[used] - counts[used], axis=0)
        centres = (sums / counts[used, None]).astype(np.float32)
        cells = (np.cumsum(used) - 1)[cells]
    return cells, centres


def _ranker(z: np.ndarray) -> np.ndarray:
    """(k + 1, n) such that `_with_one(q) @ it` is |q - z|^2 - |q|^2 for every row of `z`: one
    matrix product ranks the rows, with no second pass over the (m, n) result."""
    return np.ascontiguousarray(np.vstack([-2.0 * z.T, (z ** 2).sum(axis=1)[None, :]]).astype(np.float32))


def _with_one(q: np.ndarray) -> np.ndarray:
    """The rows with a 1 appended, to be multiplied with a `_ranker` matrix."""
    return np.hstack([q, np.ones((len(q), 1), np.float32)])


def _smallest(d: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the `k` smallest entries per row, smallest first (overwrites `d`): k passes of argmin,
    on these rows far faster than argpartition."""
    out = np.empty((len(d), k), np.int64)
    r = np.arange(len(d))
    for j in range(k):
        out[:, j] = d.argmin(axis=1)
        d[r, out[:, j]] = np.inf
    return out
