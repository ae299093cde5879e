"""Learn a deck from one deal of it: read every landing, assign the landings to the deck's cards one to one,
ask the player only where the assignment is unsure, learn, and check on a 20-card re-deal.

The stock reader scores each landing against every card (`support`): its readings, sure and unsure, give
their card their confidence, a card of the same rank or the same suit a share of it (a dull red read as
black, a 3 read as a 5), any other card a floor. The landings take distinct cards at the least total cost
(-log support; `scipy.optimize.linear_sum_assignment`): a diamond read as a spade loses the spade to the
spade's own landing and takes the diamond. A landing is unsure when forcing it off its card costs less
than `UNSURE_NATS` more in total: one landing that reads nothing in a whole deal is sure by elimination,
two are not. The player is asked about the least sure landing, the assignment is solved again with the
answer fixed, and so on until none is unsure (an answer often settles a second landing).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

from referee.core.cards import Card
from referee.vision.deck_store import DeckStore, Shot, upright
from referee.vision.recognize import Detection, recognize

from .cut_choice import CUTS, MARK_CUTS, STOCK_CUTS, TARGET_PRECISION, CutCheck, Looked, StoreLook, apply, check
from .labelled_scenes import Box, Scene, labelled_images

SAME_RANK = 0.1     # a reading's share given to the other suits of its rank (a colour misread)
SAME_SUIT = 0.03    # and to the other ranks of its suit (a glyph misread)
FLOOR = 1e-3        # what any card gets from a landing that did not read it (a landing that reads nothing: all)
UNSURE_NATS = 3.0   # forced off its card, the deal must cost this much more (e^3: 20 times less likely). Set
#                     between one colour misread (-ln SAME_RANK = 2.3: asked) and two sure readings swapped
#                     (4.6: not asked) and checked on rendered deals of five styles (0 wrong after the questions;
#                     0-1 questions where the stock reader reads the style, 14 of 52 for a dull red), never on photos
NOT_A_CARD = "-"    # the player's answer for a landing that is no card of the deck
REDEAL = 20
ADAPT = False       # no fine-tuned stock pair (`DeckStore.fit(adapt=...)`): tuned on one shot per card it read
#                     worse than the stock pair, which the store then reads with (photos-aristocrat, one seed, 120
#                     held-out photos, stock first at 0.9: 0.425 named with it, 0.967 without). Seen on a deck
#                     reported in bench/RESULTS.md; rendered deals do not choose: 52-card dull-red and classic
#                     deals, 80 held-out photos, 0.825 / 0.838 and 1.000 / 1.000 recall with / without, no wrong name
BIG = 1e6     # the cost that keeps an answered landing on its card and every other landing off it

Reader = Callable[..., list[Detection]]
Ask = Callable[[int, str], str]   # (landing number, the referee's guess) -> the card, "" for the guess, or "-"


@dataclass
class Landing:
    """One card landed: what the reader reads, and what is learned from (a flattened card; or, with `boxes`,
    the image whose corner boxes hold the card's indices; None: nothing to learn from)."""

    image: np.ndarray
    name: str = ""
    learn_image: np.ndarray | None = None
    boxes: list[tuple[float, float, float, float]] | None = None


def landing(image: np.ndarray, name: str = "") -> Landing:
    """A landing from a pile crop or a photo of one card: a crop (the image is the card) is learned from as
    `calibrate deck` learns a folder; a photo through the boxes round its card's corners (learned as it will
    be read); an image with no card found is read but not learned from."""
    from .photo_crop import find_card, index_boxes

    found = find_card(image)
    if found is None:
        return Landing(image, name)
    quad, whole = found
    return Landing(image, name, image) if whole else Landing(image, name, image, index_boxes(quad))


@dataclass
class Settled:
    """The deal's assignment once the player has answered: a card (or None) per landing."""

    cards: list[str | None]
    first: list[str | None]                 # the assignment before any question
    asked: list[tuple[int, str, str]] = field(default_factory=list)   # (landing, guess, answer)
    margins: list[float] = field(default_factory=list)              # nats, at the end (inf: answered)


@dataclass
class RedealCheck:
    """The learned deck on the re-deal: each shot named at cut-offs chosen on the other re-deal shots."""

    right: int
    wrong: int
    unread: int
    confused: list[str]
    chosen: CutCheck | None    # the cut-offs chosen on the whole re-deal (the store keeps them)

    @property
    def shots(self) -> int:
        return self.right + self.wrong + self.unread


def read(image: np.ndarray, reader: Reader = recognize) -> dict[str, float]:
    """Every card the stock reader reads in a landing, sure or unsure, at its best confidence."""
    found: dict[str, float] = {}
    img = upright(image)
    for d in list(reader(img, include_unsure=True)) + list(reader(img)):
        found[str(d.card)] = max(found.get(str(d.card), 0.0), float(d.confidence))
    return found


def support(readings: Sequence[dict[str, float]], deck: Sequence[str]) -> np.ndarray:
    """(landings, cards): how well each landing's readings back each card of the deck, FLOOR to 1."""
    parsed = [Card.parse(c) for c in deck]
    out = np.full((len(readings), len(deck)), FLOOR)
    for i, found in enumerate(readings):
        for name, conf in found.items():
            got = Card.parse(name)
            for j, card in enumerate(parsed):
                share = (1.0 if card == got else SAME_RANK if card.rank == got.rank
                         else SAME_SUIT if card.suit == got.suit and not card.is_joker else 0.0)
                out[i, j] = max(out[i, j], conf * share)
    return out


def _solve(cost: np.ndarray) -> tuple[np.ndarray, float]:
    """Column per row (-1 where none) and the total cost of the cheapest one-to-one assignment."""
    rows, cols = linear_sum_assignment(cost)
    at = np.full(cost.shape[0], -1)
    at[rows] = cols
    return at, float(cost[rows, cols].sum())


def _costs(sup: np.ndarray, fixed: dict[int, int]) -> np.ndarray:
    """-log support, with "no card" columns when the deal has more landings than the deck has cards, and
    the answered rows held to their answer's column."""
    n, m = sup.shape
    cost = -np.log(sup)
    if n > m:
        cost = np.hstack([cost, np.full((n, n - m), -math.log(FLOOR))])
    for i, j in fixed.items():
        cost[:, j] = BIG
        cost[i] = BIG
        cost[i, j] = 0.0
    return cost


def margins(cost: np.ndarray, at: np.ndarray, total: float, skip: set[int]) -> list[float]:
    """Per landing: how much more the cheapest deal costs with it forced off its card (inf for `skip`)."""
    out: list[float] = []
    for i in range(cost.shape[0]):
        if i in skip or at[i] < 0:
            out.append(math.inf)
            continue
        forced = cost.copy()
        forced[i, at[i]] = BIG
        out.append(_solve(forced)[1] - total)
    return out


def settle(sup: np.ndarray, deck: Sequence[str], ask: Ask | None, *, unsure: float = UNSURE_NATS,
           max_questions: int | None = None) -> Settled:
    """Assign the landings to the deck's cards, asking `ask` about the least sure landing until none is
    unsure (or `max_questions`); without `ask`, the assignment as it stands. A landing the player calls no
    card of the deck (or a card already answered for another) is left out of the deal."""
    n, m = sup.shape
    fixed: dict[int, int] = {}
    out: set[int] = set()
    asked: list[tuple[int, str, str]] = []
    first: list[str | None] | None = None
    while True:
        rows = [i for i in range(n) if i not in out]
        cost = _costs(sup[rows], {rows.index(i): j for i, j in fixed.items()})
        at, total = _solve(cost)
        held = margins(cost, at, total, {rows.index(i) for i in fixed})
        cards: list[str | None] = [None] * n
        left = [math.inf] * n
        for r, i in enumerate(rows):
            cards[i] = deck[at[r]] if 0 <= at[r] < m else None
            left[i] = held[r]
        first = cards if first is None else first
        doubt = [i for i in rows if left[i] < unsure]
        if not doubt or ask is None or (max_questions is not None and len(asked) >= max_questions):
            return Settled(cards, first, asked, left)
        i = min(doubt, key=lambda k: (left[k], k))
        guess = cards[i] or NOT_A_CARD
        answer = ask(i, guess).strip() or guess
        asked.append((i, guess, answer))
        try:
            card = str(Card.parse(answer))
        except ValueError:
            card = NOT_A_CARD
        if card not in deck or deck.index(card) in fixed.values():
            out.add(i)
        else:
            fixed[i] = deck.index(card)


def learn(landings: Sequence[Landing], cards: Sequence[str | None]) -> DeckStore:
    """A deck store learned from the landings' assigned cards (as `calibrate deck` learns a folder)."""
    pairs = [(landing, landing.learn_image, card) for landing, card in zip(landings, cards)
             if card is not None and landing.learn_image is not None]
    if not pairs:
        raise ValueError("no landing to learn from")
    if all(landing.boxes is None for landing, _, _ in pairs):
        return DeckStore.fit([Shot(card, image, landing.name) for landing, image, card in pairs], adapt=ADAPT)
    scenes = [_Held(image, [card], [(card, *b) for b in landing.boxes], landing.name)
              for landing, image, card in pairs if landing.boxes]
    return DeckStore.fit_labelled(labelled_images(scenes), cards={c for _, _, c in pairs}, adapt=ADAPT)


class _Held(Scene):
    """A labelled scene already in memory (`labelled_scenes` reads its scenes from disk)."""

    def __init__(self, image: np.ndarray, cards: list[str], boxes: list[Box], name: str) -> None:
        from pathlib import Path
        super().__init__(Path(name or "landing"), cards, boxes)
        self._image = image

    def image(self) -> np.ndarray:
        return self._image


def cautious_cuts(looks: Sequence[Looked]) -> CutCheck:
    """The cut-offs naming most of `looks` at `TARGET_PRECISION`; of equals, the most cautious: the store's
    highest cut, the stock reader in at its highest cut, the highest mark cut. Twenty shots cannot tell the
    cuts that tie on them apart; the stock reader is validated on rendered decks, while a store learned
    from one shot per card has no distance between two shots of a card to scale its confidence by
    (`DeckStore.d_ok` stays at its default), so of the two it is the store that must earn its place. Seen on
    crops-piatnik's held-out shots (a deck bench/RESULTS.md reports): the store alone at its highest cut named a
    second court card on 3% of them, with the stock reader first on 0.6%."""
    checks = [check(looks, cut, sc, mc) for sc in STOCK_CUTS for cut in CUTS for mc in MARK_CUTS
              if mc is None or mc > cut]
    good = [c for c in checks if c.precision >= TARGET_PRECISION]
    caution = (lambda c: (c.cut, c.stock_cut is not None, c.stock_cut or 0.0, c.mark_cut or 1.0))
    if good:
        return max(good, key=lambda c: (c.recall, *caution(c)))
    return max(checks, key=lambda c: (c.precision, c.recall, *caution(c)))


def named(names: Sequence[str], card: str) -> str:
    """A one-card shot's outcome: "right" (its card alone), "wrong" (any other card named) or "unread"."""
    if not names:
        return "unread"
    return "right" if list(names) == [card] else "wrong"


def check_redeal(store: DeckStore, redeal: Sequence[Shot]) -> RedealCheck:
    """Name each re-deal shot at the cut-offs chosen on the other re-deal shots (so none is judged at a cut
    chosen on it); give the store the cut-offs chosen on all of them."""
    looks = [StoreLook.of(store, upright(s.image), Counter({s.card: 1})) for s in redeal]
    tally: Counter[str] = Counter()
    confused: list[str] = []
    for k, (shot, look) in enumerate(zip(redeal, looks)):
        others = looks[:k] + looks[k + 1:]
        cut = cautious_cuts(others) if others else CutCheck(store.min_conf, 0.0, 0.0, 0)
        names = look.names(cut.cut, cut.stock_cut, cut.mark_cut)
        outcome = named(names, shot.card)
        tally[outcome] += 1
        if outcome == "wrong":
            confused.append(f"{shot.card} as {'+'.join(names)}")
    chosen = cautious_cuts(looks) if looks else None
    if chosen is not None:
        apply(store, chosen)
    return RedealCheck(tally["right"], tally["wrong"], tally["unread"], confused, chosen)


def usable(check: RedealCheck | None, missing: Sequence[str]) -> bool:
    """A learned deck is played with only when every card was dealt and the re-deal named no card wrongly
    and most of it (a referee that reads too few cards cannot judge the game)."""
    return check is not None and not missing and check.wrong == 0 and check.right >= check.shots / 2


@dataclass
class DealResult:
    """A deal learned: the assignment, the store, its re-deal check and what each stage took."""

    settled: Settled
    store: DeckStore
    check: RedealCheck | None
    missing: list[str]                      # deck cards no landing was assigned (not dealt)
    unlearned: list[str]                    # dealt, but no card found to learn from (the stock reader alone)
    seconds: dict[str, float] = field(default_factory=dict)   # read, learn, check

    @property
    def usable(self) -> bool:
        return usable(self.check, self.missing)

    def lines(self) -> list[str]:
        """What the player reads at the end."""
        s = self.settled
        learned = sum(c is not None for c in s.cards)
        out = [f"{len(s.cards)} landings, {learned} assigned to distinct cards; asked about {len(s.asked)}"
               + (f" ({sum(g != a for _, g, a in s.asked)} guesses corrected)" if s.asked else "")]
        if self.check is None:
            out.append("no re-deal to check on: the deck is not usable until it is checked")
        else:
            c = self.check
            out.append(f"re-deal of {c.shots}: {c.right} named right, {c.wrong} wrong, {c.unread} unread"
                       + (f" ({', '.join(c.confused)})" if c.confused else ""))
        if self.missing:
            out.append(f"never dealt (deal them too): {' '.join(self.missing)}")
        if self.unlearned:
            out.append(f"no card outline found to learn from (the stock reader alone reads them): "
                       f"{' '.join(self.unlearned)}")
        out.append("deck USABLE" if self.usable else "deck NOT usable")
        return out


def learn_deal(landings: Sequence[Landing], deck: Sequence[str], ask: Ask | None,
               redeal: Sequence[Shot] = (), *, reader: Reader = recognize,
               progress: Callable[[str], None] | None = None) -> DealResult:
    """Read, assign (asking about the unsure landings), learn, and check on `redeal` (labelled shots)."""
    import time
    say = progress or (lambda line: None)
    took: dict[str, float] = {}
    t = time.perf_counter()
    say(f"reading {len(landings)} landings...")
    sup = support([read(landing.image, reader) for landing in landings], deck)
    settled = settle(sup, list(deck), ask)
    took["read"] = time.perf_counter() - t
    t = time.perf_counter()
    say(f"learning {sum(c is not None for c in settled.cards)} cards...")
    store = learn(landings, settled.cards)
    took["learn"] = time.perf_counter() - t
    t = time.perf_counter()
    check = None
    if redeal:
        say(f"checking on a re-deal of {len(redeal)}...")
        check = check_redeal(store, redeal)
    took["check"] = time.perf_counter() - t
    dealt = {c for c in settled.cards if c is not None}
    learned = {c for c, landing in zip(settled.cards, landings) if c is not None and landing.learn_image is not None}
    return DealResult(settled, store, check, [c for c in deck if c not in dealt],
                      [c for c in deck if c in dealt and c not in learned], took)
