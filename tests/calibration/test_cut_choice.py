"""Choosing a learned deck's cut-offs (`calibration.cut_choice`): its own and the stock reader's."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from calibration.cut_choice import CUTS, TARGET_PRECISION, check, choose_cuts, describe


@dataclass
class _Look:
    """A stand-in photo of one card: the store names it at `own` and a wrong 2C at `other`; the stock reader
    reads `stock_card` at `stock` (and its reading comes first, claiming the glyphs the store read)."""

    card: str
    own: float
    other: float = 0.0
    stock: float = 0.0
    stock_card: str = ""

    @property
    def want(self) -> Counter[str]:
        return Counter({self.card: 1})

    def names(self, cut: float, stock_cut: float | None, mark_cut: float | None = None) -> list[str]:
        out = []
        if stock_cut is not None and self.stock >= stock_cut:
            out.append(self.stock_card or self.card)
        elif self.own >= cut:
            out.append(self.card)
        if self.other >= cut:
            out.append("2C")
        return out


def test_every_name_counts_so_the_cut_rises_above_a_second_card() -> None:
    looks = [_Look("KS", 0.99, other=0.8), _Look("QH", 0.99, other=0.8)]
    chosen = choose_cuts(looks)
    assert chosen.cut == 0.9 and chosen.precision == 1.0 and chosen.recall == 1.0   # the lowest cut above 0.8
    assert chosen.stock_cut is None   # the stock reader adds nothing here: left out


def test_without_a_precise_enough_cut_the_most_precise_is_taken() -> None:
    looks = [_Look("KS", 0.99, other=0.995), _Look("QH", 0.6)]
    chosen = choose_cuts(looks)
    assert chosen.precision < TARGET_PRECISION
    assert chosen.precision == max(check(looks, c, sc).precision for c in CUTS for sc in (None, 0.97, 0.99))


def test_the_stock_reader_comes_first_where_it_is_sure_and_right() -> None:
    # the store is unsure of half the cards; the stock reader reads those at 0.985
    looks = [_Look("KS", 0.99), _Look("QH", 0.6, stock=0.985), _Look("9D", 0.3, stock=0.985),
             _Look("AC", 0.99, stock=0.5)]
    chosen = choose_cuts(looks)
    assert chosen.stock_cut == 0.98 and chosen.recall == 1.0 and chosen.precision == 1.0


def test_a_stock_reader_the_deck_fools_is_left_out() -> None:
    # on this deck the stock reader is sure of a wrong card: only leaving it out keeps every name right
    looks = [_Look("KS", 0.99), _Look("QH", 0.99, stock=0.995, stock_card="QD"), _Look("9D", 0.99)]
    chosen = choose_cuts(looks)
    assert chosen.stock_cut is None and chosen.precision == 1.0 and chosen.recall == 1.0


def test_a_deck_the_stock_reader_reads_well_lowers_its_cut() -> None:
    # the stock reader is right at 0.96 on this deck's photos: its cut comes down to name those cards too
    looks = [_Look("KS", 0.99), _Look("QH", 0.3, stock=0.96), _Look("9D", 0.3, stock=0.96), _Look("AC", 0.99)]
    chosen = choose_cuts(looks)
    assert chosen.stock_cut == 0.95 and chosen.recall == 1.0 and chosen.precision == 1.0


def test_one_more_card_named_is_not_worth_a_wrong_name_in_150() -> None:
    # at 0.90 the stock reader names two cards the store misses but misreads a third: 148 right of 149 named
    # (0.993, enough for a 0.99 target); the chooser keeps the 0.995 target and a cut with no wrong name
    looks = ([_Look("KS", 0.99)] * 146 + [_Look("QH", 0.3, stock=0.92)] * 2
             + [_Look("9D", 0.99, stock=0.92, stock_card="9C")])
    assert 0.99 < check(looks, 0.99, 0.9).precision < 0.995
    chosen = choose_cuts(looks)
    assert chosen.stock_cut != 0.9 and chosen.precision == 1.0


@dataclass
class _MarkLook:
    """A stand-in photo: its card named at `own`, and a lone mark (court art, table print) voted a Joker at
    `false_joker`, named where it reaches both the store's cut and the mark cut."""

    card: str
    own: float
    false_joker: float = 0.0

    @property
    def want(self) -> Counter[str]:
        return Counter({self.card: 1})

    def names(self, cut: float, stock_cut: float | None, mark_cut: float | None = None) -> list[str]:
        out = [self.card] if self.own >= cut else []
        return out + (["JOKER"] if self.false_joker >= max(cut, mark_cut or 0.0) else [])


def test_false_joker_marks_raise_the_mark_cut_not_the_stores() -> None:
    # cards named at 0.92 and a false Joker mark at 0.98 in one photo of six: only the mark's cut goes up
    looks = [_MarkLook("KS", 0.92), _MarkLook("QH", 0.92, false_joker=0.98)] + [_MarkLook("9D", 0.92)] * 4
    chosen = choose_cuts(looks)
    assert chosen.cut <= 0.9 and chosen.mark_cut == 0.99 and chosen.precision == 1.0 and chosen.recall == 1.0
    assert describe(chosen.cut, chosen.stock_cut, chosen.mark_cut).endswith("Joker marks at 0.99")
    assert check(looks, 0.9, None).precision < TARGET_PRECISION    # without the mark cut: the false Joker
