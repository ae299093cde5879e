"""Labelled scene folders as deck-store training data, and `referee recognize --deck`.

Rendered scenes (made here, in tmp_path) check the loader and the CLI; real
photos (../shared/data/scenes-bicycle, skipped when absent) check that a store
learned from a few dozen images beats the stock recognizer on held-out ones.
"""
from __future__ import annotations

import collections
import csv
import dataclasses
import json
import random
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.cut_choice import CUTS
from calibration.labelled_scenes import (SceneError, fit_scenes, label_image, labelled_images, read_scenes,
                                         split_by_name)
from referee.core.cards import Card
from referee.vision import faint_marks, render
from referee.vision.deck_reader import NOT_INDEX
from referee.vision.deck_store import DeckStore, Shot
from referee.vision.faint_marks import closer_marks, faint_blobs
from referee.vision.index_pairing import Candidate
from referee.vision.ink_blobs import Blob, find_blobs
from referee.vision.lone_marks import is_mark
from referee.vision.working_size import prepare
from referee.vision.recognize import recognize
from referee.vision.stock_then_store import (LOOK_FLOOR, NO_INDEX_SURE, VETO, disagreeing, stock_first, stock_read,
                                             store_after)
from referee.vision.store_rows import framed_candidates

from .conftest import DATA

ROOT = Path(__file__).resolve().parents[2]
DECK = ["KH", "7S", "10D", "QC"]


def corner_boxes(p: render.Placement) -> list[tuple[float, float, float, float]]:
    """Scene-pixel boxes around each printed corner index (rank box and suit) of a placed card."""
    src = np.array([[0, 0], [render.CARD_W, 0], [render.CARD_W, render.CARD_H], [0, render.CARD_H]], np.float32)
    h = cv2.getPerspectiveTransform(src, p.quad())
    out = []
    for (x0, y0, x1, y1), (sx, sy), sh in render.index_layout(p.card, p.style):
        pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [sx - sh / 2, sy - sh / 2],
                        [sx + sh / 2, sy + sh / 2], [sx - sh / 2, sy + sh / 2], [sx + sh / 2, sy - sh / 2]],
                       np.float32)
        q = cv2.perspectiveTransform(pts[None], h)[0]
        lo, hi = q.min(0) - 3, q.max(0) + 3
        out.append((float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])))
    return out


def make_folder(folder: Path, n: int, seed: int = 1, deck: list[str] = DECK,
                style: render.CardStyle = render.STYLES["classic"]) -> Path:
    """`n` rendered 480x480 scenes of two cards of `deck` apart, with labels.csv and corner_boxes.csv."""
    rng = random.Random(seed)
    folder.mkdir()
    labels, boxes = [], []
    for i in range(n):
        img = render.random_table(rng, (480, 480))
        cards = [deck[i % len(deck)], deck[(i + 1) % len(deck)]]   # every card on the even (learned) and odd positions
        for card, cx in zip(cards, (130, 350)):
            p = render.Placement(Card.parse(card), (cx, 240 + rng.uniform(-20, 20)), 150, rng.uniform(-25, 25),
                                 style)
            render.composite(img, p, rng=rng)
            c = Card.parse(card)
            labels.append([f"s{i:03d}.png", c.rank, c.suit])
            boxes += [[f"s{i:03d}.png", c.rank, c.suit, *map(round, b)] for b in corner_boxes(p)]
        cv2.imwrite(str(folder / f"s{i:03d}.png"), img)
    for name, head, rows in (("labels.csv", ["file", "rank", "suit"], labels),
                             ("corner_boxes.csv", ["file", "rank", "suit", "x1", "y1", "x2", "y2"], boxes)):
        with (folder / name).open("w", newline="") as f:
            csv.writer(f).writerows([head] + rows)
    return folder


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_folder(tmp_path_factory.mktemp("scenes") / "deck", 10)


@pytest.fixture(scope="module")
def store(rendered: Path) -> DeckStore:
    learn, _ = split_by_name(read_scenes(rendered))
    return fit_scenes(learn)


def test_reads_labels_and_boxes_and_splits_by_name(rendered: Path) -> None:
    scenes = read_scenes(rendered)
    assert [s.name for s in scenes] == [f"s{i:03d}.png" for i in range(10)]
    assert all(len(s.cards) == 2 and len(s.boxes) == 4 for s in scenes)
    assert {b[0] for b in scenes[0].boxes} == set(scenes[0].cards)
    learn, held = split_by_name(list(reversed(scenes)))
    assert [s.name for s in learn] == [f"s{i:03d}.png" for i in range(0, 10, 2)]
    assert [s.name for s in held] == [f"s{i:03d}.png" for i in range(1, 10, 2)]


def test_a_learned_store_keeps_its_adapted_reader_in_its_file(store: DeckStore, tmp_path: Path) -> None:
    assert store.reader is not None
    path = tmp_path / "deck.npz"
    store.save(path)
    again = DeckStore.load(path)
    assert again.reader is not None
    x = np.random.default_rng(2).random((4, 704)).astype(np.float32)
    assert np.allclose(again.reader.predict(x)[0], store.reader.predict(x)[0], atol=2e-3)  # float16 weights
    truncated = DeckStore.load(path)
    assert truncated.reader is not None
    truncated.reader.drawn.w1 = truncated.reader.drawn.w1[:100]
    truncated.reader.drawn.mean = truncated.reader.drawn.mean[:100]
    truncated.save(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="adapted reader"):
        DeckStore.load(tmp_path / "bad.npz")
    store_alone = DeckStore.load(path)
    store_alone.reader = None
    store_alone.save(path)
    assert DeckStore.load(path).reader is None


def test_candidates_in_a_corner_box_get_its_card_the_rest_dash(rendered: Path) -> None:
    for scene in read_scenes(rendered)[:4]:
        rows = label_image(scene.image(), scene.boxes)
        vecs, names = rows.vectors, list(rows.labels)
        assert len(vecs) == len(names)
        assert rows.pair_rows is not None and len(rows.pair_rows) == len(rows.pair_labels) <= len(names)
        assert set(rows.pair_labels) - {NOT_INDEX} == set(scene.cards)  # the adapted reader's rows: rank over suit
        named = collections.Counter(n for n in names if n != NOT_INDEX)
        assert set(named) == set(scene.cards), (scene.name, named)   # every card's indices found, no other
        assert names.count(NOT_INDEX) > 0                              # pips and wrong pairings are "-"


def test_bad_folder_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SceneError, match="corner_boxes.csv"):
        (tmp_path / "labels.csv").write_text("file,rank,suit\na.png,7,H\n")
        read_scenes(tmp_path)
    (tmp_path / "corner_boxes.csv").write_text("file,rank,suit,x1,y1,x2,y2\na.png,7,X,1,2,3,4\n")
    with pytest.raises(SceneError, match="line 2"):
        read_scenes(tmp_path)


def test_store_learned_from_scenes_names_held_out_scenes(rendered: Path, store: DeckStore) -> None:
    _, held = split_by_name(read_scenes(rendered))
    assert sorted(store.cards) == sorted(DECK) and store.min_conf in CUTS
    for scene in held:
        assert sorted(str(d.card) for d in store(scene.image())) == sorted(scene.cards), scene.name


def test_the_stock_readers_sure_readings_claim_their_glyphs_before_the_store(rendered: Path,
                                                                            store: DeckStore) -> None:
    scene = split_by_name(read_scenes(rendered))[1][0]
    frame, cands, x, scale, _ = framed_candidates(scene.image(), marks=store.marks)
    stock, _ = stock_read(frame, cands, x, 0.97)
    assert stock, "the stock reader is sure of some index in a rendered classic scene"
    conf, card, cand = stock[0]
    # a store that reads the same glyphs as a card not on the table, surely
    names, confs, dist = [NOT_INDEX] * len(cands), np.zeros(len(cands)), np.full(len(cands), np.inf)
    at = cands.index(cand)
    names[at], confs[at], dist[at] = "2C", 0.999, 0.0
    alone = [str(d.card) for d in store_after(cands, scale, (names, confs, dist), 0.9, {}, set())]
    both = [str(d.card) for d in store_after(cands, scale, (names, confs, dist), 0.9,
                                             *stock_first(frame, stock, scale))]
    assert alone == ["2C"]
    assert "2C" not in both and str(card) in both and set(both) <= set(scene.cards)


def test_where_the_reader_and_the_store_read_the_same_glyphs_as_different_cards_neither_is_taken(
        rendered: Path, store: DeckStore) -> None:
    scene = split_by_name(read_scenes(rendered))[1][0]
    frame, cands, x, scale, _ = framed_candidates(scene.image(), marks=store.marks)
    stock, _ = stock_read(frame, cands, x, 0.97)
    conf, card, cand = stock[0]
    at = cands.index(cand)

    def votes(name: str, sure: float) -> tuple[list[str], np.ndarray, np.ndarray]:
        names, confs, dist = [NOT_INDEX] * len(cands), np.zeros(len(cands)), np.full(len(cands), np.inf)
        names[at], confs[at], dist[at] = name, sure, 0.0
        return names, confs, dist

    # the store names the reading's glyphs 2C at its cut: a checked reading and the vote both go
    kept, (names, _, _) = disagreeing(cands, stock, votes("2C", 0.96), 0.95, (0.9, 1.01))
    assert (conf, card, cand) not in kept and names[at] == NOT_INDEX
    # a reading above the checked range stays (the reader's own cut); the vote it contradicts still goes
    kept, (names, _, _) = disagreeing(cands, stock, votes("2C", 0.96), 0.95, (0.9, conf))
    assert (conf, card, cand) in kept and names[at] == NOT_INDEX
    # a store unsure of its other card (below its cut) leaves the reading alone
    kept, _ = disagreeing(cands, stock, votes("2C", 0.9), 0.95, (0.9, 1.01))
    assert (conf, card, cand) in kept
    # agreeing, both stay
    kept, (names, _, _) = disagreeing(cands, stock, votes(str(card), 0.99), 0.95, (0.9, 1.01))
    assert (conf, card, cand) in kept and names[at] == str(card)
    # a reader below VETO does not overrule the store
    faint = [(VETO - 0.01, card, cand)]
    _, (names, _, _) = disagreeing(cands, faint, votes("2C", 0.99), 0.95, (0.9, 1.01))
    assert names[at] == "2C"


def test_store_votes_just_short_of_its_cut_get_the_stock_readers_second_look(
        rendered: Path, store: DeckStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store vote from `LOOK_FLOOR` up to the store's cut is sent to the stock reader's second look (model None),
    after the unsure readings' look by the deck's reader; lower votes and lone marks are not, nor any vote of a
    store that left the stock reader out."""
    from referee.vision import deck_store   # patched where `DeckStore.name` looks them up

    scene = split_by_name(read_scenes(rendered))[1][0]
    image = scene.image()
    frame, cands, x, scale, _ = framed_candidates(image, marks=store.marks)
    pairs = [i for i, c in enumerate(cands) if not is_mark(c)]
    short_at, low_at = pairs[0], pairs[1]
    names, conf = [NOT_INDEX] * len(cands), np.zeros(len(cands))
    names[short_at], conf[short_at] = "2C", LOOK_FLOOR + 0.02
    names[low_at], conf[low_at] = "3D", LOOK_FLOOR - 0.05
    looks: list[tuple[list, object]] = []

    def second_look(image, frame, unsure, scale, used, named, min_conf, model):
        looks.append(([(round(c, 3), str(card), cd) for c, card, cd in unsure], model))
        return []

    monkeypatch.setattr(deck_store, "second_look", second_look)
    monkeypatch.setattr(deck_store, "stock_read", lambda frame, cands, *a, **k: ([], np.zeros(len(cands))))
    with_stock = dataclasses.replace(store, stock_cut=0.97, min_conf=0.95)
    seen_floor: list[float] = []

    def vote_rows(x, rows, *, floor=0.0, marks=None):
        seen_floor.append(floor)
        return list(names), conf.copy(), np.where(conf > 0, 0.01, np.inf)

    monkeypatch.setattr(with_stock, "vote_rows", vote_rows)
    with_stock.name(cands, x, scale, frame=frame, image=image)
    assert seen_floor == [LOOK_FLOOR]     # the vote reaches down to the second look's floor
    stock_looks = [unsure for unsure, model in looks if model is None]
    assert stock_looks == [[(round(LOOK_FLOOR + 0.02, 3), "2C", cands[short_at])]]
    looks.clear()
    alone = dataclasses.replace(store, stock_cut=None, min_conf=0.95)
    monkeypatch.setattr(alone, "vote", lambda x, floor=0.0, marks=None, index=None: (list(names), conf.copy(),
                                                                                   np.full(len(names), 0.01)))
    alone.name(cands, x, scale, frame=frame, image=image)
    assert not [unsure for unsure, model in looks if model is None and unsure]


def test_the_store_does_not_search_what_its_reader_is_sure_is_no_index(
        rendered: Path, store: DeckStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """`NO_INDEX_SURE`: a candidate the deck's reader calls no index that surely is left out of the store's vote
    (and of the vote over every row after a veto); one it is less sure of, and a lone mark, are searched."""
    from referee.vision import deck_store   # patched where `DeckStore.name` looks them up

    scene = split_by_name(read_scenes(rendered))[1][0]
    frame, cands, x, scale, _ = framed_candidates(scene.image(), marks=store.marks)
    no_index = np.zeros(len(cands))
    pairs = [i for i, c in enumerate(cands) if not is_mark(c)]
    sure_junk, unsure = pairs[0], pairs[1]
    no_index[sure_junk], no_index[unsure] = NO_INDEX_SURE, NO_INDEX_SURE - 0.01
    monkeypatch.setattr(deck_store, "stock_read", lambda *a, **k: ([], no_index))
    with_stock = dataclasses.replace(store, stock_cut=0.97, min_conf=0.95)
    searched: list[np.ndarray] = []

    def vote_rows(x, rows, *, floor=0.0, marks=None):
        searched.append(rows.copy())
        return [NOT_INDEX] * len(x), np.zeros(len(x)), np.full(len(x), np.inf)

    monkeypatch.setattr(with_stock, "vote_rows", vote_rows)
    with_stock.name(cands, x, scale, frame=frame)
    assert len(searched) == 1 and not searched[0][sure_junk] and searched[0][unsure]
    assert searched[0].sum() == len(cands) - 1


def test_a_store_keeps_its_stock_cut_and_older_stores_have_none(store: DeckStore, tmp_path: Path) -> None:
    chosen = dataclasses.replace(store, stock_cut=0.98)
    again = DeckStore.load(tmp_path / "s.npz", sha256=chosen.save(tmp_path / "s.npz"))
    assert again.stock_cut == 0.98
    digest = dataclasses.replace(store, stock_cut=None).save(tmp_path / "a.npz")   # as every store before it
    assert DeckStore.load(tmp_path / "a.npz", sha256=digest).stock_cut is None


def test_a_store_learns_its_decks_joker_mark_and_names_it_on_held_out_scenes(tmp_path: Path) -> None:
    # a Joker printed with a monogram (one mark, no suit glyph) is never an index candidate for the stock
    # readers; a store shown the deck learns the mark as a lone mark (lone_marks.mark_candidates)
    style = dataclasses.replace(render.STYLES["classic"], joker_mark=True)
    # three cards: each quarter of the scenes (the cut is chosen where halves of the learned half name each
    # other) shows every card; with four, the inner halves of the learned scenes would share none
    folder = make_folder(tmp_path / "jokers", 24, seed=3, deck=["JOKER", "7S", "KH"], style=style)
    learn, held = split_by_name(read_scenes(folder))
    store = fit_scenes(learn)
    assert "JOKER" in store.cards and (store.labels == "JOKER").any()
    for scene in held:
        named = {str(d.card) for d in store(scene.image())}
        assert ("JOKER" in named) == ("JOKER" in scene.cards), (scene.name, named, scene.cards)
        assert "JOKER" not in {str(d.card) for d in recognize(scene.image())}  # the stock readers cannot


def test_a_store_learned_from_card_shots_names_a_monogram_joker() -> None:
    # `referee calibrate deck` learns from photos of single cards: a Joker shot's corner marks are its index
    style = dataclasses.replace(render.STYLES["classic"], joker_mark=True)
    deck = ["JOKER", "7S", "KH", "QC"]

    def shot(card: str, seed: int) -> np.ndarray:
        img = render.render_card(Card.parse(card), style, rng=random.Random(seed)).astype(np.int16)
        img += np.random.default_rng(seed).integers(-12, 13, img.shape, dtype=np.int16)  # sensor noise
        return cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (3, 3), 0.8)

    store = DeckStore.fit([Shot(card, shot(card, k), f"{card}_{k}") for card in deck for k in range(3)])
    assert store.marks and (store.labels == "JOKER").any()
    for card in deck:
        named = [str(d.card) for d in store(shot(card, 7))]
        assert named and named[0] == card and ("JOKER" in named) == (card == "JOKER"), (card, named)


def test_cli_deck_option_keeps_the_json_contract(rendered: Path, store: DeckStore, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from referee.vision import cli

    path = tmp_path / "deck.npz"
    store.save(path)
    image = str(read_scenes(rendered)[1].path)
    assert cli.main(["recognize", "--json", image]) == 0
    stock = json.loads(capsys.readouterr().out)
    assert cli.main(["recognize", "--json", "--deck", str(path), image]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert set(rec) == set(stock) == {"file", "ms", "cards"}
    assert rec["cards"] and all(set(c) == {"rank", "suit", "card", "confidence", "center", "quad"}
                                for c in rec["cards"])
    assert sorted(c["card"] for c in rec["cards"]) == sorted(read_scenes(rendered)[1].cards)


@pytest.mark.parametrize("content", [None, b"not a store", b"PK\x03\x04broken zip"])
def test_cli_missing_or_corrupt_store_is_one_line_exit_2(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / "deck.npz"
    if content is not None:
        path.write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "referee", "recognize", "--deck", str(path), "x.jpg"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "Traceback" not in done.stderr, done.stderr
    assert done.stdout == ""


def _score(fn, scenes) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    hit = want_n = got_n = 0
    for scene in scenes:
        want = collections.Counter(scene.cards)
        got = collections.Counter(str(d.card) for d in fn(scene.image()))
        hit += sum((want & got).values())
        want_n += sum(want.values())
        got_n += sum(got.values())
    return hit / want_n, hit / max(1, got_n)


def test_real_bicycle_store_beats_the_stock_recognizer_on_held_out_photos() -> None:
    """Learn from 300 real photos (even name positions), check on 80 held-out ones (odd positions)."""
    folder = DATA / "scenes-bicycle"
    if not (folder / "corner_boxes.csv").exists():
        pytest.skip(f"real photos not found at {folder} (../shared/data beside the repo)")
    learn, held = split_by_name(read_scenes(folder))
    learned = fit_scenes(learn[:300])
    check = held[:80]
    recall, precision = _score(learned, check)
    stock_recall, stock_precision = _score(recognize, check)
    # the learned store must lead the stock reader on the same held-out photos (docs/vision.md, A learned deck)
    assert recall > stock_recall + 0.02, (recall, stock_recall)
    assert precision >= 0.88, precision


def test_a_lone_mark_names_a_joker_only_at_the_mark_floor() -> None:
    """A store's `mark_conf`: a cut low enough for rank-over-suit rows need not let a mark name a Joker."""
    mark = Blob(1, 0, 0, 9, 9, 40, 4.0, 4.0, 0.0, np.zeros((1, 2), np.float32))
    cand = Candidate((mark,), mark, 0.0, 1.0, 9.0, 4.0, 4.0)
    for conf, floor, named in ((0.97, None, ["JOKER"]), (0.97, 0.99, []), (0.99, 0.99, ["JOKER"])):
        found = store_after([cand], 1.0, (["JOKER"], np.array([conf]), np.array([0.01])), 0.9, {}, set(),
                            mark_floor=floor)
        assert [str(d.card) for d in found] == named, (conf, floor)


FAINT_JOKERS = ["206477313.jpg", "397885050.jpg", "846741185.jpg"]   # held out; marks show 0-2 counters at 384 px


def test_a_faint_joker_mark_is_named_by_its_closer_look() -> None:
    """`DeckStore.faint_joker`: real Bicycle Jokers whose small monogram is no lone mark at the working size are
    named from a full-size look, and photos without a Joker get none."""
    folder = DATA / "scenes-bicycle"
    if not (folder / "corner_boxes.csv").exists():
        pytest.skip(f"real photos not found at {folder} (../shared/data beside the repo)")
    learn, held = split_by_name(read_scenes(folder))
    learned = DeckStore.fit_labelled(labelled_images(learn[:200]), adapt=False)
    by_name = {scene.name: scene for scene in held}
    for name in FAINT_JOKERS:
        image = by_name[name].image()
        assert "JOKER" in {str(d.card) for d in learned(image, min_conf=0.99)}, name
        frame, cands, x, scale, _ = framed_candidates(image)
        plain = learned.name(cands, x, scale, min_conf=0.99)    # no image: no closer look
        assert "JOKER" not in {str(d.card) for d in plain}, name
    without = [s for s in held if "JOKER" not in s.cards][:40]
    assert not [s.name for s in without if "JOKER" in {str(d.card) for d in learned(s.image(), min_conf=0.99)}]


def test_blobs_too_large_to_be_a_faint_mark_get_no_closer_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """Court art and big pips enclose counters at full size too; a mark that large would show them at the working
    size, so the faint-mark look passes over them (`faint_marks.FAINT_MAX_EXTENT`)."""
    path = DATA / "scenes-bicycle" / "017661967.jpg"
    if not path.exists():
        pytest.skip(f"real photo not found at {path} (../shared/data beside the repo)")
    image = cv2.imread(str(path))
    small, scale = prepare(image)
    frame = find_blobs(small)
    with monkeypatch.context() as patched:
        patched.setattr(faint_marks, "FAINT_MAX_EXTENT", 10 ** 6)
        unbounded = faint_blobs(image, frame, scale, set())
    assert [b for b in unbounded if max(b.w, b.h) > faint_marks.FAINT_MAX_EXTENT]   # such blobs pass the counters
    assert all(max(b.w, b.h) <= faint_marks.FAINT_MAX_EXTENT for b in faint_blobs(image, frame, scale, set()))


def test_no_closer_look_where_the_photo_was_read_at_its_own_size(store: DeckStore) -> None:
    """A frame no larger than the working size (a small camera mode) has nothing finer to show: the faint-mark
    look finds nothing and the store reads it as usual."""
    img = render.random_table(random.Random(9), (300, 300))
    render.composite(img, render.Placement(Card.parse("KH"), (150, 150), 120, 10, render.STYLES["classic"]))
    frame, _, _, scale, _ = framed_candidates(img)
    assert scale >= 1.0 and faint_blobs(img, frame, scale, set()) == []
    assert all(str(d.card) in DECK for d in store(img))
    blob = Blob(1, 0, 0, 9, 9, 40, 4.0, 4.0, 0.0, np.zeros((1, 2), np.float32))
    assert closer_marks(np.zeros((0, 0, 3), np.uint8), blob, 0.5) is None    # an empty crop: no look, no error
