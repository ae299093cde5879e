"""A named card is stamped when it came to lie where it lies, not when a sweep or a hand opened the landing."""
from __future__ import annotations

import numpy as np

from referee.vision.landing_stamp import LandingFrames

SHAPE = (90, 120)
TABLE, PAPER = 60, 220


def view(*cards: tuple[int, int], hand: tuple[slice, slice] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A watch thumbnail of a dark cloth with white cards (top-left corners, 30x40 px) and a hand mask."""
    thumb = np.full(SHAPE, TABLE, np.uint8)
    for y, x in cards:
        thumb[y:y + 40, x:x + 30] = PAPER
    hands = np.zeros(SHAPE, np.uint8)
    if hand is not None:
        hands[hand] = 255
        thumb[hand] = 150
    return thumb, hands


def area(y: int, x: int) -> np.ndarray:
    m = np.zeros(SHAPE, np.uint8)
    m[y:y + 40, x:x + 30] = 255
    return m


def frames(*views: tuple[np.ndarray, np.ndarray]) -> LandingFrames:
    kept = LandingFrames(still_share=0.003)
    for i, (thumb, hands) in enumerate(views):
        kept.add(1000 + 33 * i, thumb, hands)
    return kept


def test_a_card_that_slid_into_place_keeps_the_landings_opening_stamp() -> None:
    kept = frames(view((12, 52)), view((22, 46)), view((25, 45)), view((25, 45)))   # 13 px from rest, then still
    assert kept.card_since(area(25, 45)) is None


def test_a_card_dealt_after_a_sweep_is_stamped_when_it_lands_not_at_the_sweep() -> None:
    # the old card (same place) still there, swept away (bare cloth for two frames), then the new card
    kept = frames(view((24, 44)), view(), view(), view((25, 45)), view((25, 45)))
    assert kept.card_since(area(25, 45)) == 1000 + 33 * 3


def test_a_sweep_under_a_hand_then_the_new_card_is_still_found() -> None:
    over = (slice(0, 90), slice(40, 80))                                  # a hand over the whole card's place
    kept = frames(view((24, 44)), view(hand=over), view(), view(), view((25, 45)), view((25, 45)))
    assert kept.card_since(area(25, 45)) == 1000 + 33 * 4


def test_a_card_nudged_where_it_lay_keeps_its_landings_stamp() -> None:
    kept = frames(view(), view((25, 45)), view((25, 45)), view((25, 45)), view((27, 46)), view((27, 46)))
    assert kept.card_since(area(27, 46)) is None


def test_no_frames_no_stamp() -> None:
    assert LandingFrames(0.003).card_since(area(25, 45)) is None


def test_a_card_sliding_in_from_across_the_view_keeps_the_landings_opening_stamp() -> None:
    kept = frames(view(), view(), view((5, 5)), view((15, 25)), view((25, 45)), view((25, 45)))
    assert kept.card_since(area(25, 45)) is None
