"""Cards, decks and dealing: the value types every other module shares.

A card is a rank and a suit (`Card.parse("10H")`, `str(card) == "10H"`); the
Joker has no suit. Dealing follows docs/rules.md: one card at a time clockwise,
starting left of the dealer, as far as the cards go.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterable, Sequence

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKER = "JOKER"
FACE_RANKS: tuple[str, ...] = ("J", "Q", "K")
RANK_VALUE: dict[str, int] = {rank: i + 1 for i, rank in enumerate(RANKS)}  # Ace low
RANK_WORDS: dict[str, str] = {
    "A": "Ace", "2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six",
    "7": "Seven", "8": "Eight", "9": "Nine", "10": "Ten", "J": "Jack",
    "Q": "Queen", "K": "King", JOKER: "Joker",
}
SUIT_WORDS: dict[str, str] = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}


class CardError(ValueError):
    """A card name that is not a card."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card; `suit` is "" for a Joker."""

    rank: str
    suit: str = ""

    def __post_init__(self) -> None:
        if self.rank == JOKER:
            if self.suit:
                raise CardError(f"a Joker has no suit: {self.rank}{self.suit}")
        elif self.rank not in RANK_VALUE or self.suit not in SUITS:
            raise CardError(f"unknown card {self.rank}{self.suit!s}")

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Read "JS", "10H", "TH", "joker"; raise CardError on anything else."""
        if not isinstance(text, str):
            raise CardError(f"a card must be a string like 'JS', not {text!r}")
        name = text.strip().upper()
        if name == JOKER:
            return cls(JOKER)
        if len(name) < 2:
            raise CardError(f"unknown card {text!r}")
        rank, suit = name[:-1], name[-1]
        if rank == "T":
            rank = "10"
        if rank not in RANK_VALUE or suit not in SUITS:
            raise CardError(f"unknown card {text!r}")
        return cls(rank, suit)

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def is_face(self) -> bool:
        return self.rank in FACE_RANKS

    @property
    def value(self) -> int:
        """Ace-low rank value 1..13; 0 for a Joker (it never fits a sequence)."""
        return RANK_VALUE.get(self.rank, 0)

    def spoken(self) -> str:
        if self.is_joker:
            return "Joker"
        return f"{RANK_WORDS[self.rank]} of {SUIT_WORDS[self.suit]}"

    def __str__(self) -> str:
        return self.rank if self.is_joker else f"{self.rank}{self.suit}"


def standard_deck(*, jokers: int = 0, decks: int = 1) -> list[Card]:
    """`decks` full 52-card packs plus `jokers` Jokers, in a fixed new-pack order."""
    cards = [Card(rank, suit) for _ in range(decks) for suit in SUITS for rank in RANKS]
    cards.extend(Card(JOKER) for _ in range(jokers))
    return cards


def shuffled(cards: Iterable[Card], rng: random.Random) -> list[Card]:
    out = list(cards)
    rng.shuffle(out)
    return out


def deal(cards: Sequence[Card], players: int, dealer: int = 0) -> list[list[Card]]:
    """Deal `cards` (top of the pack first) one at a time clockwise from the
    dealer's left. Each card dealt lands on top of that player's face-down
    stack, so a hand's first-dealt card ends up at its bottom. Returns hands top first.
    """
    if players < 1:
        raise ValueError("need at least one player")
    hands: list[list[Card]] = [[] for _ in range(players)]
    for i, card in enumerate(cards):
        hands[(dealer + 1 + i) % players].append(card)
    return [list(reversed(hand)) for hand in hands]


def count_ranks(cards: Iterable[Card]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for card in cards:
        counts[str(card)] = counts.get(str(card), 0) + 1
    return counts
