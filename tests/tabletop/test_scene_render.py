"""The pile as a camera sees it: cards the recognizer reads, newest on top, landing smear, hands, light, speed."""
from __future__ import annotations

import time

import cv2
import numpy as np

from referee.vision.pipeline import CardPipeline
from referee.vision.recognize import recognize
from tabletop.scene_render import LANDING_NS, HandOver, Look, PileCard, SceneRenderer, pile_from

STILL = Look(noise=0)


def names(img: np.ndarray) -> set[str]:
    return {str(d.card) for d in recognize(img)}


def test_rendered_cards_are_read_by_the_recognizer_newest_on_top() -> None:
    r = SceneRenderer((640, 480))
    assert names(r.render([PileCard("JH", 0.5, 0.5, 10)])) == {"JH"}
    covered = r.render([PileCard("7D", 0.5, 0.5, 0), PileCard("KC", 0.5, 0.5, 0)])   # KC lies exactly over 7D
    assert names(covered) == {"KC"}


def test_the_static_pile_is_drawn_once_and_grown_card_by_card() -> None:
    r = SceneRenderer((320, 240))
    two = [PileCard("2C", 0.4, 0.5, 10), PileCard("QS", 0.6, 0.5, -10)]
    first = r.render(two, look=STILL)
    base = r.static_pile(two)
    assert np.array_equal(r.render(two, look=STILL), first) and r.static_pile(two) is base
    three = two + [PileCard("9H", 0.5, 0.5, 30)]
    grown = r.static_pile(three)
    fresh = SceneRenderer((320, 240)).static_pile(three)
    assert np.array_equal(grown, fresh)                  # growing the cache draws what a fresh pile draws
    assert not np.array_equal(r.render(two[:1], look=STILL), first)


def sharpness(img: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var())


def test_a_landing_card_smears_with_the_exposure_then_rests() -> None:
    r = SceneRenderer((320, 240))
    card = PileCard("10S", 0.5, 0.5, 20, landed_ns=1_000_000_000)
    t = 1_000_000_000 + 20_000_000
    long_, short = (r.render([card], t_ns=t, look=Look(noise=0, exposure_ns=e)) for e in (20_000_000, 2_000_000))
    assert sharpness(long_) < 0.8 * sharpness(short)
    rested = r.render([card], t_ns=1_000_000_000 + LANDING_NS, look=STILL)
    assert np.array_equal(rested, r.render([PileCard("10S", 0.5, 0.5, 20)], look=STILL))
    assert np.array_equal(r.render([card], t_ns=999_000_000, look=STILL), r.render([], look=STILL))  # not yet
    first = r.render([card], t_ns=1_000_000_000, look=STILL)
    assert not np.array_equal(first, rested)             # it slides in from its landing on


def skin(img: np.ndarray) -> float:
    return float(np.count_nonzero(CardPipeline._skin(img))) / CardPipeline._skin(img).size


def test_hands_cover_the_pile_with_skin_from_their_seats() -> None:
    r = SceneRenderer((320, 240), seats=4)
    pile = [PileCard("5H", 0.5, 0.5, 0)]
    bare = skin(r.render(pile))
    near, far = (skin(r.render(pile, [HandOver(0, c)])) for c in (0.8, 0.2))
    both = skin(r.render(pile, [HandOver(0, 0.5), HandOver(2, 0.5)]))
    one = skin(r.render(pile, [HandOver(0, 0.5)]))
    assert bare < 0.01 < far < one < near and both > 1.5 * one
    bottom, top = r.render([], [HandOver(0, 0.3)], look=STILL), r.render([], [HandOver(2, 0.3)], look=STILL)
    assert skin(bottom[120:]) > skin(bottom[:120]) and skin(top[:120]) > skin(top[120:])   # seat 0 reaches from below


def test_exposure_glare_and_focus_change_the_picture() -> None:
    r = SceneRenderer((320, 240))
    pile = [PileCard("AS", 0.5, 0.5, 0)]
    normal = r.render(pile, look=STILL).astype(np.float32)
    dark = r.render(pile, look=Look(noise=0, brightness=0.5)).astype(np.float32)
    assert abs(dark.mean() / normal.mean() - 0.5) < 0.05
    glare = r.render(pile, look=Look(noise=0, glare=0.8)).astype(np.float32)
    assert (glare - normal).max() > 150 and glare.mean() > normal.mean()
    blurred = r.render(pile, look=Look(noise=0, defocus=2.0))
    assert sharpness(blurred) < 0.5 * sharpness(normal.astype(np.uint8))


def test_world_scenes_and_dicts_become_pile_cards() -> None:
    cards, hands = pile_from({"cards": [{"card": "JH", "x": 0.2, "y": 0.3, "angle": 5.0, "t_ns": 7}],
                              "hands": [{"seat": 2, "cover": 0.4}]})
    assert cards == [PileCard("JH", 0.2, 0.3, 5.0, 7)] and hands == [HandOver(2, 0.4)]


def test_a_640x480_frame_renders_in_a_few_milliseconds() -> None:
    r = SceneRenderer((640, 480))
    pile = [PileCard("2C", 0.45, 0.5, 10), PileCard("JH", 0.55, 0.48, -20)]
    landing = pile + [PileCard("10S", 0.5, 0.52, 35, landed_ns=0)]
    r.render(landing, t_ns=30_000_000)
    timings = {}
    for name, kwargs in (("still", {"cards": pile, "hands": [HandOver(0, 0.6), HandOver(1, 0.3)]}),
                         ("landing", {"cards": landing, "t_ns": 30_000_000, "look": Look(glare=0.3)})):
        t0 = time.perf_counter()
        for _ in range(20):
            r.render(**kwargs)  # type: ignore[arg-type]
        timings[name] = (time.perf_counter() - t0) / 20 * 1e3
    assert timings["still"] < 8 and timings["landing"] < 25, timings   # measured ~0.7 and ~5 ms
