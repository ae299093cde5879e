"""Which cards make up a deck: the lists calibration checks a deck against."""
from __future__ import annotations

from referee.core.cards import JOKER, RANKS, SUITS, Card


def _ranks(ranks: tuple[str, ...]) -> list[str]:
    return [f"{r}{s}" for s in SUITS for r in ranks]


DECKS: dict[str, list[str]] = {
    "52": _ranks(RANKS),
    "54": _ranks(RANKS) + [JOKER],           # both Jokers share one label
    "36": _ranks(("6", "7", "8", "9", "10", "J", "Q", "K", "A")),
    "32": _ranks(("7", "8", "9", "10", "J", "Q", "K", "A")),
    "24": _ranks(("9", "10", "J", "Q", "K", "A")),   # e.g. Piatnik "Vienna" 24
}


def deck_cards(spec: str) -> list[str]:
    """A named deck ("52", "54", "36", "32", "24") or a comma list of cards ("9S,10S,...")."""
    spec = spec.strip()
    if spec in DECKS:
        return list(DECKS[spec])
    cards = [str(Card.parse(part)) for part in spec.split(",") if part.strip()]
    if not cards:
        raise ValueError(f"no cards in deck spec {spec!r}")
    return sorted(set(cards), key=cards.index)
