"""Red or black against the card's own paper (referee/vision/ink_colour.py), on rendered cards under camera casts."""
from __future__ import annotations

import random

import numpy as np
import pytest

from referee.core.cards import Card
from referee.vision import casts, ink_colour, render
from referee.vision.ink_blobs import find_blobs, glyph_contrasts
from referee.vision.recognize import recognize
from referee.vision.working_size import prepare

NEUTRAL = casts.Cast((1.0, 1.0, 1.0), 1.0, (0.0, 0.0, 0.0), 0.0, 92)
CASTS = {
    "neutral": NEUTRAL,
    "kitchen-2700K": casts.Cast(casts.lamp_gains(2700), 1.0, (0.0, 0.0, 0.0), 2.0, 85),
    "shade-7500K": casts.Cast(casts.lamp_gains(7500), 1.0, (0.0, 0.0, 0.0), 2.0, 85),
    "white-balance-off": casts.Cast((1.25, 1.0, 0.8), 1.0, (0.0, 0.0, 0.0), 2.0, 85),
    "dull-sensor": casts.Cast((1.0, 1.0, 1.0), 0.55, (0.0, 0.0, 0.0), 3.0, 70),
    "warm-and-dull": casts.Cast(casts.lamp_gains(3200), 0.65, (0.0, 0.0, 0.0), 3.0, 70),
    "pink-veil": casts.Cast((1.0, 1.0, 1.0), 1.0, (0.0, 10.0, 40.0), 2.0, 85),
    "noisy": casts.Cast((1.0, 1.0, 1.0), 0.9, (0.0, 0.0, 0.0), 7.0, 60),
}
MAROON = (35, 25, 135)   # BGR: a dull red as a webcam sees a USPCC deck's
# overexposed: the paper clips at 255 in every channel (a bright table), or in red only under a warm lamp
OVEREXPOSED = {
    "overexposed": casts.Cast((1.0, 1.0, 1.0), 1.0, (0.0, 0.0, 0.0), 2.0, 85, 1.3),
    "warm-overexposed": casts.Cast(casts.lamp_gains(3000), 1.0, (0.0, 0.0, 0.0), 2.0, 85, 1.25),
}


def _card_photo(card: str, cast: casts.Cast, red: tuple[int, int, int] = render.RED, seed: int = 3) -> np.ndarray:
    """One card on a grey-green table, webcam size, seen through `cast`."""
    rng = random.Random(seed)
    img = np.full((600, 800, 3), (95, 120, 110), np.uint8)
    style = render.CardStyle(red=red, frame=False)
    render.composite(img, render.Placement(Card.parse(card), (400.0, 300.0), 230.0, 20.0, style), rng=rng)
    return casts.apply_cast(img, cast, seed)


def _suit_colours(img: np.ndarray) -> list[int]:
    """`ink_colour` codes of the glyph-sized parts the size of an index pip or bigger."""
    small, _ = prepare(img)
    _, areas, contrast, paper = glyph_contrasts(small)
    return ink_colour.ink_colour(contrast, paper)[areas >= 40].tolist()


@pytest.mark.parametrize("cast", list(CASTS), ids=list(CASTS))
@pytest.mark.parametrize("card, red", [("7H", render.RED), ("4D", MAROON), ("9S", None), ("3C", None)])
def test_no_glyph_is_read_the_other_colour_under_a_cast(cast: str, card: str, red: tuple[int, int, int] | None
                                                        ) -> None:
    colours = _suit_colours(_card_photo(card, CASTS[cast], red or render.RED))
    want, other = (ink_colour.RED, ink_colour.BLACK) if red else (ink_colour.BLACK, ink_colour.RED)
    assert colours.count(want) >= 0.8 * len(colours) > 0, colours
    assert other not in colours, colours


def _swaps_and_reads(seed: int, photos: int, envelope: casts.CastRange = casts.CastRange()) -> tuple[int, int]:
    """Glyphs read the other colour, and glyphs read right, over `photos` casts drawn from `envelope`."""
    rng = random.Random(seed)
    swapped = read = 0
    for k in range(photos):
        card = rng.choice(("5H", "8D", "5S", "8C"))
        red = card[-1] in "HD"
        colours = _suit_colours(_card_photo(card, casts.draw_cast(rng, envelope), MAROON if k % 2 else render.RED, seed=k))
        swapped += colours.count(ink_colour.BLACK if red else ink_colour.RED)
        read += colours.count(ink_colour.RED if red else ink_colour.BLACK)
    return swapped, read


def test_random_casts_never_swap_red_and_black() -> None:
    # 40 casts drawn from the whole envelope (lamp 2700-7500 K, white balance off by 15%, saturation 0.5-1.3, a
    # veil, noise, JPEG): a glyph may go unread, never the other colour
    swapped, read = _swaps_and_reads(17, 40)
    assert swapped == 0
    assert read >= 0.9 * 40 * 8


@pytest.mark.parametrize("cast", list(OVEREXPOSED), ids=list(OVEREXPOSED))
@pytest.mark.parametrize("card, red", [("7H", render.RED), ("4D", MAROON), ("9S", None), ("3C", None)])
def test_paper_clipped_in_red_keeps_red_ink_red(cast: str, card: str, red: tuple[int, int, int] | None) -> None:
    # the landing bench's bright tables clip the paper: red ink there darkens red by 0.05-0.2 of green
    # (render.RED), this maroon by 0.39; the clipped-paper cut of 0.15 read such pips dull, and they went unread
    img = _card_photo(card, OVEREXPOSED[cast], red or render.RED)
    small, _ = prepare(img)
    _, areas, contrast, paper = glyph_contrasts(small)
    assert np.all(paper[areas >= 40, 2] >= ink_colour.CLIPPED)
    colours = ink_colour.ink_colour(contrast, paper)[areas >= 40].tolist()
    want, other = (ink_colour.RED, ink_colour.BLACK) if red else (ink_colour.BLACK, ink_colour.RED)
    assert colours.count(want) >= 0.8 * len(colours) > 0, colours
    assert other not in colours, colours


def test_random_overexposed_casts_never_swap_red_and_black() -> None:
    swapped, read = _swaps_and_reads(23, 30, casts.OVEREXPOSED)
    assert swapped == 0
    assert read >= 0.85 * 30 * 8


def test_the_paper_white_is_balanced_to_grey() -> None:
    img = _card_photo("9S", CASTS["kitchen-2700K"])
    small, _ = prepare(img)
    gains = ink_colour.paper_gains(small)
    assert gains[0] > 1.2 and gains[2] < 0.95, gains   # a warm photo: blue raised, red lowered
    balanced = ink_colour.balance(small, gains)
    white = balanced[small.min(2) >= np.percentile(small.min(2), 97)]
    b, g, r = np.median(white, 0)
    assert abs(b - g) <= 0.06 * g and abs(r - g) <= 0.06 * g


def test_a_red_glyph_is_red_both_ways_and_a_black_one_neutral_either_way() -> None:
    paper = np.array([[200.0, 180.0, 150.0]])                # a warm paper (B, G, R)
    black_mult = np.array([[160.0, 144.0, 120.0]]) * 100      # black ink under the lamp: contrast scales with paper
    black_add = np.array([[130.0, 130.0, 130.0]]) * 100       # black ink under a veil: contrast alike in each channel
    red = np.array([[150.0, 140.0, 30.0]]) * 100              # red ink darkens green and blue, not red
    assert ink_colour.ink_colour(black_mult, paper).tolist() == [ink_colour.BLACK]
    assert ink_colour.ink_colour(black_add, paper).tolist() == [ink_colour.BLACK]
    assert ink_colour.ink_colour(red, paper).tolist() == [ink_colour.RED]
    # red read only normalised (the raw differences say neutral): a veil may explain it, so not red
    assert ink_colour.ink_colour(np.array([[130.0, 130.0, 112.0]]) * 100, np.array([[200.0, 200.0, 250.0]])
                                 ).tolist() != [ink_colour.RED]


@pytest.mark.parametrize("cast", ["kitchen-2700K", "dull-sensor", "warm-and-dull", "pink-veil"])
@pytest.mark.parametrize("card, red", [("4D", MAROON), ("QH", MAROON), ("10S", None), ("6C", None)])
def test_the_recognizer_names_the_card_under_a_cast(cast: str, card: str, red: tuple[int, int, int] | None) -> None:
    found = [d.card for d in recognize(_card_photo(card, CASTS[cast], red or render.RED))]
    assert found == [Card.parse(card)] or found == [], found    # never another card
    assert Card.parse(card) in found


def test_dull_red_ranks_take_their_suits_colour() -> None:
    # a thin maroon rank whose colour the sensor smeared reads dull or even neutral; its index is red by its pip
    frame = find_blobs(prepare(_card_photo("4D", CASTS["warm-and-dull"], MAROON))[0])
    assert any(b.is_red for b in frame.blobs)
    assert all(b.may_be_red for b in frame.blobs if b.area >= 40)
