"""`referee calibrate deck --scenes DIR`, and the deck store's fast search.

The labelled folders are rendered here (tmp_path) with the project's renderer;
nothing is read from ../shared/data.
"""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from referee.vision import neighbour_search
from referee.vision.deck_reader import NOT_INDEX
from referee.vision.deck_store import DeckStore
from referee.vision.index_features import N_FEATURES
from referee.vision.neighbour_search import EXACT_UP_TO, PROBES, SHORTLIST, NeighbourIndex, principal_axes
from referee.vision.store_rows import embed

from .test_labelled_scenes import DECK, ROOT, make_folder


def calibrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee", "calibrate", "deck", "--yes", *args],
                          capture_output=True, text=True, cwd=ROOT, check=False)


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_folder(tmp_path_factory.mktemp("scenes") / "deck", 8)


def test_scenes_learns_a_usable_deck_into_the_profile(scenes: Path, tmp_path: Path) -> None:
    done = calibrate("--scenes", str(scenes), "--deck", ",".join(DECK), "--profile-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = [ln for ln in done.stdout.splitlines() if ln.startswith("learned ")]
    assert len(summary) == 1 and "learned 4 cards from 8 photos" in summary[0], done.stdout
    assert "precision 1.000" in summary[0], summary
    assert "adapting the reader" in done.stdout and "4 of 4 parts" in done.stdout, done.stdout   # progress said
    profile = (tmp_path / "table.toml").read_text()
    assert "usable = true" in profile and 'model = "table.deck.npz"' in profile, profile
    store = DeckStore.load(tmp_path / "table.deck.npz")
    assert sorted(store.cards) == sorted(DECK) and store.reader is not None
    scene = sorted(scenes.glob("*.png"))[1]
    import cv2
    assert sorted(str(d.card) for d in store(cv2.imread(str(scene)))) == sorted(DECK[1:3])


def test_scenes_cards_missing_from_the_deck_make_it_not_usable(scenes: Path, tmp_path: Path) -> None:
    done = calibrate("--scenes", str(scenes), "--deck", ",".join(DECK + ["AS"]), "--profile-dir", str(tmp_path))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "never shown: AS" in done.stdout and "NOT usable" in done.stdout
    assert "usable = false" in (tmp_path / "table.toml").read_text()


def _copy(src: Path, dest: Path) -> Path:
    dest.mkdir()
    for f in src.iterdir():
        (dest / f.name).write_bytes(f.read_bytes())
    return dest


@pytest.mark.parametrize("damage, says", [
    ("no folder", "no such folder"),
    ("no corner_boxes.csv", "no corner_boxes.csv"),
    ("labels.csv without a suit column", "needs the columns"),
    ("corner box not a number", "must be numbers"),
    ("unknown card", "labels.csv line 2"),
    ("binary labels.csv", "not a CSV table"),
    ("unreadable image", "not a readable image"),
    ("empty labels.csv", "no labelled images"),
])
def test_scenes_bad_input_is_one_line_exit_2(scenes: Path, tmp_path: Path, damage: str, says: str) -> None:
    folder = tmp_path / "missing" if damage == "no folder" else _copy(scenes, tmp_path / "deck")
    if damage == "no corner_boxes.csv":
        (folder / "corner_boxes.csv").unlink()
    elif damage == "labels.csv without a suit column":
        (folder / "labels.csv").write_text("file,rank\ns000.png,K\n")
    elif damage == "corner box not a number":
        (folder / "corner_boxes.csv").write_text("file,rank,suit,x1,y1,x2,y2\ns000.png,K,H,1,2,three,4\n")
    elif damage == "unknown card":
        (folder / "labels.csv").write_text("file,rank,suit\ns000.png,K,X\n")
    elif damage == "binary labels.csv":
        (folder / "labels.csv").write_bytes(b"\xff\xfe\x00\x81garbage")
    elif damage == "unreadable image":
        (folder / "s003.png").write_bytes(b"not a png")
    elif damage == "empty labels.csv":
        (folder / "labels.csv").write_text("file,rank,suit\n")
    done = calibrate("--scenes", str(folder), "--deck", ",".join(DECK), "--profile-dir", str(tmp_path / "prof"))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert len(lines) == 1 and says in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "prof" / "table.deck.npz").exists()


# -- the search ---------------------------------------------------------------------------------
def clustered_store(seed: int = 0, per_card: int = 40, negatives: int = 3000
                    ) -> tuple[DeckStore, np.ndarray, np.ndarray]:
    """A store larger than `EXACT_UP_TO` of feature rows scattered around 20 card and 60 "-" centres,
    and queries drawn around the same centres: (store, query rows, the centre label of each query).
    The scatter spans few directions (as real index rows do), so the principal axes hold nearly all of it."""
    rng = np.random.default_rng(seed)
    cards = [f"{r}{s}" for r in ("2", "3", "4", "5", "6") for s in "SHDC"]
    centres = rng.random((len(cards) + 60, N_FEATURES)).astype(np.float32)
    spread = rng.standard_normal((20, N_FEATURES)).astype(np.float32)

    def around(which: np.ndarray) -> np.ndarray:
        return centres[which] + 0.012 * rng.standard_normal((len(which), 20)).astype(np.float32) @ spread

    names = np.array(cards + [NOT_INDEX] * 60, dtype=object)
    which = np.concatenate([np.repeat(np.arange(len(cards)), per_card),
                            rng.integers(len(cards), len(names), negatives)])
    vectors = embed(around(which))
    mean, basis = principal_axes(vectors)
    store = DeckStore(vectors, names[which], cards, d_ok=0.02, min_conf=0.5, mean=mean, basis=basis)
    q_which = rng.integers(0, len(names), 300)
    return store, around(q_which), names[q_which]


def test_fast_search_names_as_the_exact_search() -> None:
    store, queries, truth = clustered_store()
    assert len(store.vectors) > EXACT_UP_TO and store.basis is not None
    assert not store.index().exact
    exact = DeckStore(store.vectors, store.labels, store.cards, store.d_ok)
    exact._index = NeighbourIndex(exact.vectors, exact.labels, None, None)
    names, conf, dist = store.vote(queries)
    want_names, want_conf, want_dist = exact.vote(queries)
    assert names == want_names
    # the fast search re-ranks float16 rows: distances agree to float16 precision
    assert np.abs(conf - want_conf).max() < 0.02, np.abs(conf - want_conf).max()
    assert np.array_equal(np.isinf(dist), np.isinf(want_dist))
    named = np.isfinite(dist)
    assert np.abs(dist[named] - want_dist[named]).max() < 5e-3
    assert names == list(truth)                        # and it is right: the test can tell a broken search
    # a floor skips rows that cannot reach it, and changes nothing for those that do
    floored, fconf, _ = store.vote(queries, floor=0.95)
    sure = want_conf >= 0.95
    assert sure.any() and (~sure).any()
    assert [n for n, s in zip(floored, sure) if s] == [n for n, s in zip(want_names, sure) if s]
    assert (fconf[~sure] < 0.95 + 0.02).all()


def test_inverted_file_shortlists_each_query_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A query's shortlist comes from its own nearest lists, whoever it is searched with; probing every list is
    the full ranking on the search axes."""
    store, queries, _ = clustered_store(seed=2)
    index = store.index()
    e = embed(queries)
    q = ((e - index.mean) @ index.basis)[:, :index.ranked.shape[1] - 1]
    together = index._shortlist(q)
    alone = np.vstack([index._shortlist(q[i:i + 1]) for i in range(0, len(q), 37)])
    assert np.array_equal(together[::37], alone)
    n_lists = len(index.starts) - 1
    assert n_lists > PROBES   # the test store is big enough to have lists left unprobed
    assert sorted(index.order.tolist()) == list(range(len(store.vectors)))   # every row in exactly one list
    monkeypatch.setattr(neighbour_search, "PROBES", n_lists)
    full = ((q @ index.ranked[:, :-1].T) + index.ranked[:, -1])   # |q - z|^2 - |q|^2, every row
    want = index.order[np.argsort(full, axis=1, kind="stable")[:, :SHORTLIST]]
    got = index._shortlist(q)
    dist = np.take_along_axis(full, np.argsort(index.order)[got], axis=1)
    assert np.allclose(dist, np.take_along_axis(full, np.argsort(index.order)[want], axis=1), atol=1e-5)


def test_store_file_keeps_the_search_axes_and_reads_version_1(tmp_path: Path) -> None:
    store, queries, _ = clustered_store(seed=1)
    path = tmp_path / "deck.npz"
    store.save(path)
    again = DeckStore.load(path)
    assert again.basis is not None and np.allclose(again.basis, store.basis)
    assert again.vote(queries)[0] == store.vote(queries)[0]
    assert again.marks  # learned with lone marks (Jokers), as every store is
    # a version 1 store (no axes, no marks) still loads; its axes are fitted on first use, and it is not
    # offered lone marks it never learned
    buf = io.BytesIO()
    np.savez_compressed(buf, version=np.int32(1), vectors=store.vectors.astype(np.float16),
                        labels=np.array(store.labels, dtype="U8"), cards=np.array(store.cards, dtype="U8"),
                        d_ok=np.float32(store.d_ok), min_conf=np.float32(store.min_conf))
    (tmp_path / "v1.npz").write_bytes(buf.getvalue())
    old = DeckStore.load(tmp_path / "v1.npz")
    assert old.basis is None and old.vote(queries)[0] == store.vote(queries)[0] and old.basis is not None
    assert not old.marks
    buf = io.BytesIO()
    np.savez_compressed(buf, version=np.int32(99), vectors=store.vectors[:2], labels=np.array(["-", "-"]))
    (tmp_path / "v99.npz").write_bytes(buf.getvalue())
    with pytest.raises(ValueError, match="version 99 is not supported"):
        DeckStore.load(tmp_path / "v99.npz")
