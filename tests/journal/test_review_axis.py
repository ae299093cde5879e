"""The evidence sheet's slap timeline: an axis in round ms after the card (not '107,673 215,346 us'), and a
box fit to the seats it shows (not half empty)."""
from __future__ import annotations

from pathlib import Path

from referee.journal import evidence_sheet as review
from referee.journal import Journal
from referee.journal.evidence_sheet import Contact, axis_ticks, timeline_layout
from tests.journal.test_replay_cli import dead_heat_game


def test_the_axis_is_round_ms_after_the_card_reaching_past_the_last_contact() -> None:
    assert axis_ticks(215.346) == [0, 50, 100, 150, 200, 250]       # the sheet: its last slap at 215 ms
    assert axis_ticks(450) == [0, 100, 200, 300, 400, 500]
    assert axis_ticks(12.5) == [0, 5, 10, 15]
    assert axis_ticks(0) == axis_ticks(0.3) == [0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2]   # at the card's moment
    for top in (0.7, 3, 42, 99.9, 1999, 2000, 7500):
        ticks = axis_ticks(top)
        steps = {round(b - a, 6) for a, b in zip(ticks, ticks[1:])}
        assert ticks[0] == 0 and ticks[-1] > top and len(steps) == 1 and 3 <= len(ticks) <= 7, (top, ticks)
        assert f"{steps.pop():g}".lstrip("0.").rstrip("0") in ("1", "2", "5"), ticks


def test_the_box_fits_its_seats() -> None:
    contacts = [Contact(0, "slap", 300_000, 1), Contact(3, "slap", 450_000, 2)]
    four = timeline_layout(contacts, 4, 375)
    assert four.height == review.TIMELINE_TOP + 4 * 40 + review.TIMELINE_FOOT < 375 * 0.8
    assert four.span_ms == 500
    for seats in (8, 12):
        assert timeline_layout(contacts, seats, 375).height <= 375


def test_the_drawn_box_ends_below_its_last_row(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    game, win_id = dead_heat_game(path)
    with Journal(path) as journal:
        facts = review.gather(journal, game, win_id)
    image = review.draw_sheet(facts)
    x, y = 560, 70                                               # the timeline box's top left corner
    height = timeline_layout(facts.timeline.contacts, 4, 375).height
    left = image[y:y + 375, x]
    assert (left[:height] < 200).all()                            # its grey border, as tall as its rows need...
    assert (left[height + 2:] == 255).all()                       # ...and white below: no empty half box
    assert (image[y + height, x + 300] < 200).all()              # the bottom edge runs under the rows
