"""The physical table of a simulated game: the true cards, the pile as it lies, hands over it, pad contacts.

The referee at a table is blind to the hands (faces_known=False): it learns
each card when the camera names it. The world knows them. It keeps a *twin* of
the referee's game with every face known, fed call for call what the referee's
game is fed (each event it judges, each deadline, each operator correction), so
the twin's hands are the true hands in the order the referee's rulings moved
them; the bots lay from them. Should the twin ever part from the referee (the
camera misread a card), it is rebuilt from the referee's state, the unknown
cards filled from those not in sight.

What happens on the table is a timeline in table time: a card lands at t, a hand
covers the pile from t0 to t1, the pile is swept away at t. The rendered camera
reads it as a scene (`scene(t)`, the shape `tabletop.scene_render` draws), the
bots' pads hear its contacts, and a card source may name each card as it lands.
"""
from __future__ import annotations

import copy
import logging
import random
import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from referee.core.cards import Card
from referee.core.events import MS, S, CardSeen
from referee.core.rules import Game, TableError
from referee.core.rules.slapstick import Slapstick

log = logging.getLogger(__name__)

MIRRORED = ("handle", "fire", "correct_top", "correct_hand")   # the game's methods that change its state
KEEP_PAST_NS = 10 * S              # the timeline's past kept for a late frame; older entries are dropped


@dataclass(frozen=True)
class PileCard:
    """A card lying on the table: its name, centre (fractions of the pile region), angle, landing time."""

    card: str
    x: float
    y: float
    angle: float
    t_ns: int
    gone_ns: int | None = None     # swept away (or picked back up) at this time


@dataclass(frozen=True)
class HandOver:
    """A hand over the pile from `seat`, covering about `cover` of it, from `t_ns` until `until_ns`."""

    seat: int
    t_ns: int
    until_ns: int
    cover: float


ContactListener = Callable[[int, int, int, str], None]      # (seat, t_ns, hold_ns, "slap" | "press" | "flinch")
LayListener = Callable[[Card, int], None]                    # (card, landed t_ns)


class SimWorld:
    """One table's physical state and timeline, shared by the bots, the pads, the camera and the card source."""

    def __init__(self, *, seed: int = 0) -> None:
        self.lock = threading.RLock()
        self.rng = random.Random(seed)
        self.referee: Game | None = None       # the referee's game (faces unknown)
        self.twin: Game | None = None          # the same game with every face known
        self.row = False                       # slapstick lays a row, not a pile
        self.cards: list[PileCard] = []        # on the table now or lately, in the order laid
        self.hands: list[HandOver] = []
        self.version = 0                       # bumped with every change to the timeline
        self.resyncs = 0
        self.contact_listeners: list[ContactListener] = []
        self.lay_listeners: list[LayListener] = []
        self.changed = threading.Condition(self.lock)

    # ---- the referee's game and its twin ----------------------------------------------
    def follow(self, game: Game, t_ns: int) -> None:
        """A new (or resumed) game starts at `t_ns`: the table is cleared, the true hands dealt to match the
        referee's counts (and any faces it has seen), and every change to the referee's game mirrored."""
        with self.lock:
            if self.referee is not None:
                for name in MIRRORED:
                    self.referee.__dict__.pop(name, None)
            self._clear(t_ns)
            self.referee = game
            self.row = isinstance(game, Slapstick)
            self.twin = self._twin_of(game)
            for name in MIRRORED:
                setattr(game, name, self._mirror(game, name, getattr(game, name)))
            self._touch()

    def _mirror(self, game: Game, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def mirrored(*args: Any) -> Any:
            try:
                return original(*args)
            finally:
                self._follow_call(game, name, args)
        return mirrored

    def _follow_call(self, game: Game, name: str, args: tuple[Any, ...]) -> None:
        with self.lock:
            twin, referee = self.twin, self.referee
            if twin is None or referee is not game:     # a call the last game was still making: not this twin's
                return
            try:
                getattr(twin, name)(*args)
            except TableError:
                pass                                # refused by the referee as well, or a divergence below
            except Exception:
                log.exception("the twin of %s failed on %s", referee.game_id, name)
            if name.startswith("correct") or _shape(twin) != _shape(referee):
                self.resyncs += 1
                self.twin = self._twin_of(referee, prefer=twin)
            self._touch()

    def _twin_of(self, game: Game, prefer: Game | None = None) -> Game:
        """A copy of `game` whose unknown cards are the true ones: those `prefer` (the last twin) had in each
        hand first, then the rest of the deck not in sight, shuffled (a fresh game: the deal)."""
        twin = copy.deepcopy(game, {id(game.rulings): list(game.rulings)})
        for name in MIRRORED:                   # the mirroring wrappers are the referee's, not the twin's
            twin.__dict__.pop(name, None)
        unseen = Counter(str(c) for c in game.deck(game.n, game.opts))
        for card in _known_cards(twin):
            unseen[str(card)] -= 1
        pool = [Card.parse(name) for name, k in unseen.items() for _ in range(max(0, k))]
        self.rng.shuffle(pool)
        for seat, hand in enumerate(twin.hands):
            wanted = [c for c in (prefer.hands[seat] if prefer is not None and seat < prefer.n else ()) if c is not None]
            for i, card in enumerate(hand):
                if card is not None:
                    continue
                pick = next((c for c in wanted if c in pool), None)
                if pick is not None:
                    wanted.remove(pick)
                    pool.remove(pick)
                elif pool:
                    pick = pool.pop()
                else:                               # more unknown cards than the deck has left: a miscount
                    pick = random.Random(self.rng.random()).choice(game.deck(game.n, game.opts))
                hand[i] = pick
        return twin

    def predict(self, card: Card, t_ns: int) -> Any:
        """The trigger window `card` laid at `t_ns` would open (what a player sees at once), or None."""
        with self.lock:
            if self.twin is None:
                return None
            guess = copy.deepcopy(self.twin, {id(self.twin.rulings): []})
        try:
            guess.handle(CardSeen(card, t_ns))
        except TableError:
            return None
        w = guess.window
        return w if w is not None and not w.decided and w.opened_ns == t_ns else None

    # ---- the timeline --------------------------------------------------------------
    def lay(self, seat: int, t_ns: int) -> Card | None:
        """`seat` lays the top card of its true hand, landing at `t_ns` (None: it holds none)."""
        with self.lock:
            twin = self.twin
            if twin is None or not twin.hands[seat]:
                return None
            card = twin.hands[seat][0]
            assert card is not None
            x, y, angle = self._place()
            self.cards.append(PileCard(str(card), x, y, angle, t_ns))
            self._touch()
        for listener in list(self.lay_listeners):
            listener(card, t_ns)
        return card

    def _place(self) -> tuple[float, float, float]:
        rng = self.rng
        if not self.row:
            return 0.5 + rng.uniform(-0.04, 0.04), 0.5 + rng.uniform(-0.05, 0.05), rng.uniform(-35, 35)
        k = sum(1 for c in self.cards if c.gone_ns is None)
        return 0.14 + (k % 9) * 0.09, 0.4 + (k // 9) * 0.12, rng.uniform(-6, 6)

    def straighten(self, t_ns: int) -> None:
        """A player squares up the top card (the camera could not read it): it lands again, flatter."""
        with self.lock:
            lying = [i for i, c in enumerate(self.cards) if c.gone_ns is None and c.t_ns <= t_ns]
            if not lying:
                return
            top = self.cards[lying[-1]]
            self.cards[lying[-1]] = PileCard(top.card, top.x, top.y, top.angle, top.t_ns, t_ns)
            self.cards.append(PileCard(top.card, 0.5 if not self.row else top.x, top.y,
                                       self.rng.uniform(-4, 4), t_ns))
            self._touch()

    def reach(self, seat: int, t_ns: int, until_ns: int, cover: float) -> None:
        """A hand over the pile from `seat` between `t_ns` and `until_ns`."""
        with self.lock:
            self.hands.append(HandOver(seat, t_ns, until_ns, cover))
            self._touch()

    def sweep(self, t_ns: int) -> None:
        """Everything on the table is taken away at `t_ns`."""
        with self.lock:
            self.cards = [c if c.gone_ns is not None else PileCard(c.card, c.x, c.y, c.angle, c.t_ns, t_ns)
                          for c in self.cards]
            self._touch()

    def contact(self, seat: int, t_ns: int, *, hold_ns: int = 80 * MS, kind: str = "slap") -> None:
        """A hand on `seat`'s pad (kind "slap" or "press"), or a hover over it ("flinch")."""
        for listener in list(self.contact_listeners):
            listener(seat, t_ns, hold_ns, kind)

    def _clear(self, t_ns: int) -> None:
        self.sweep(t_ns)
        self.hands = [h for h in self.hands if h.until_ns <= t_ns]

    def _touch(self) -> None:
        self.version += 1
        self.changed.notify_all()

    # ---- what is seen -----------------------------------------------------------------
    def scene(self, t_ns: int) -> dict[str, list[dict[str, Any]]]:
        """The pile at `t_ns` as `tabletop.scene_render` draws it: cards bottom first, then the hands over it."""
        with self.lock:
            self._forget(t_ns - KEEP_PAST_NS)
            cards = [{"card": c.card, "x": c.x, "y": c.y, "angle": c.angle, "t_ns": c.t_ns} for c in self.cards
                     if c.t_ns <= t_ns and (c.gone_ns is None or c.gone_ns > t_ns)]
            hands = [{"seat": h.seat, "cover": h.cover} for h in self.hands if h.t_ns <= t_ns < h.until_ns]
        return {"cards": cards, "hands": hands}

    def pile_lying(self, t_ns: int) -> int:
        """How many cards lie on the table at `t_ns` (swept ones not counted)."""
        with self.lock:
            return sum(1 for c in self.cards if c.t_ns <= t_ns and (c.gone_ns is None or c.gone_ns > t_ns))

    def next_change(self, after_ns: int) -> int | None:
        """The first moment after `after_ns` at which the scene changes (for a camera idling between changes)."""
        with self.lock:
            times = [t for c in self.cards for t in (c.t_ns, c.gone_ns) if t is not None and t > after_ns]
            times += [t for h in self.hands for t in (h.t_ns, h.until_ns) if t > after_ns]
        return min(times, default=None)

    def _forget(self, before_ns: int) -> None:
        self.cards = [c for c in self.cards if c.gone_ns is None or c.gone_ns > before_ns]
        self.hands = [h for h in self.hands if h.until_ns > before_ns]


def _shape(game: Game) -> tuple[Any, ...]:
    """What the twin and the referee must agree on: every count, whose turn, who is in, the rulings made."""
    return (tuple(len(h) for h in game.hands), len(game.pile), tuple(len(s) for s in game.scoring),
            tuple(len(p) for p in game.penalty), len(game.aside), game.turn, tuple(game.status), game.over,
            game.cards_laid, len(game.rulings))


def _known_cards(game: Game) -> list[Card]:
    """Every card whose face is known anywhere in `game`."""
    cards = [laid.card for laid in game.pile] + list(game.aside)
    cards += [c for group in (*game.scoring, *game.penalty) for c in group]
    cards += [c for hand in game.hands for c in hand if c is not None]
    return cards
