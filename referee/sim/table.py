"""The virtual table: bots with human reaction times play whole games through
the real Session (arbiter, hold-back, rules), with sensor latencies.

A discrete-event simulation on a virtual clock: bots act at physical times,
sensors deliver their events later (the camera by tens of milliseconds), and
the referee judges by timestamps, exactly as at a real table.
"""
from __future__ import annotations

import heapq
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from ..core.events import MS, S, Event, Flinch, Play, Press, Slap, TimeUp
from ..core.rules.slapstick import Slapstick
from ..core.rules.state import Window
from ..core.rulings import Ruling
from ..core.session import Session


@dataclass(frozen=True)
class BotProfile:
    """How a simulated player behaves. Times in milliseconds."""

    reaction_ms: float = 330.0        # median reaction to a trigger
    reaction_spread: float = 0.25     # lognormal sigma
    miss_rate: float = 0.03           # does not slap a trigger at all
    false_slap_rate: float = 0.015    # slaps a card that is no trigger
    flinch_rate: float = 0.01         # hand jerks towards a non-trigger (irish-snap-plus)
    chicken_rate: float = 0.04        # slapstick: chickens out on their turn
    play_gap_ms: tuple[float, float] = (450.0, 900.0)


@dataclass(frozen=True)
class SimConfig:
    camera_latency_ms: tuple[float, float] = (35.0, 90.0)   # card landed -> camera event arrives
    pad_latency_ms: float = 0.2                              # pad edge -> event arrives
    holdback_ms: float = 120.0                               # the arbiter waits this long for earlier events
    time_limit_s: float = 6 * 3600.0                         # virtual time; then a `time` event ends the game
    max_cards: int = 60_000                                  # safety net: cards laid before the time limit is forced


@dataclass
class GameResult:
    game: str
    players: int
    seed: int
    cards: int
    seconds: float
    winner: int | None
    loser: int | None
    ended_by: str                       # "rules" or "time_limit"
    rulings: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "seed": self.seed, "cards": self.cards,
                "seconds": round(self.seconds, 1), "winner": self.winner, "loser": self.loser,
                "ended_by": self.ended_by, "rulings": dict(sorted(self.rulings.items()))}


class SimTable:
    """One simulated game. `on_ruling` sees every ruling as it is made (the demo speaks them)."""

    def __init__(self, game: str, players: int, *, seed: int = 0, options: dict[str, Any] | None = None,
                 bots: list[BotProfile] | None = None, config: SimConfig | None = None,
                 on_ruling: Callable[[Ruling], None] | None = None,
                 pace: Callable[[int], None] | None = None, session: Session | None = None,
                 deliver: Callable[[Event, int], None] | None = None,
                 advance: Callable[[int], None] | None = None) -> None:
        """`session`, `deliver` and `advance` let a caller put real adapters between the
        bots and the referee: events then go `deliver(event, arrival_ns)`, time `advance(now_ns)`."""
        self.config = config or SimConfig()
        self.pace = pace            # called with the virtual time before each step (the demo sleeps there)
        self.rng = random.Random(seed)
        self.seed = seed
        self.human_seats: set[int] = set()     # seats a visitor plays: their slaps come from outside
        self.session = session or Session.create(game, players, seed=seed, options=options, strict=False,
                                                 holdback_ns=int(self.config.holdback_ms * MS))
        if on_ruling is not None:
            self.session.on_ruling = on_ruling
        self.deliver = deliver or (lambda event, arrival: self.session.submit(event, now_ns=arrival))
        self.advance = advance or self.session.advance
        self.game = self.session.game
        self.bots = bots or [self._random_profile() for _ in range(players)]
        self._queue: list[tuple[int, int, str, Any]] = []
        self._seq = 0
        self._seen_cards = 0
        self._seen_window: tuple[Window, int] | None = None
        self._play_pending = False
        self._plays_sent = 0
        self._nudged = 0
        self._refused = 0
        self._rulings_seen = 0
        self.arrivals: list[tuple[int, Event]] = []     # (arrival time, event): what the referee was sent
        self._tick_at: int | None = None
        self.now = 0
        self.last_card_t = 0

    def _random_profile(self) -> BotProfile:
        skill = self.rng.uniform(0.8, 1.25)
        return BotProfile(reaction_ms=330.0 * skill)

    # ---- scheduling ---------------------------------------------------------
    def _at(self, t_ns: int, kind: str, payload: Any = None) -> None:
        heapq.heappush(self._queue, (t_ns, self._seq, kind, payload))
        self._seq += 1

    def inject(self, event: Event, latency_ns: int = 200_000) -> None:
        """Something a person did at the table (a visitor's slap), to be heard `latency_ns` later."""
        self._sensor(event, latency_ns)

    def _sensor(self, event: Event, latency_ns: int) -> None:
        """The event happened at its t_ns; the referee hears of it `latency_ns` later."""
        self._at(event.t_ns + latency_ns, "arrive", event)

    def _camera_latency(self) -> int:
        lo, hi = self.config.camera_latency_ms
        return int(self.rng.uniform(lo, hi) * MS)

    def _reaction(self, seat: int) -> int:
        bot = self.bots[seat]
        return int(bot.reaction_ms * math.exp(self.rng.gauss(0.0, bot.reaction_spread)) * MS)

    # ---- the run ---------------------------------------------------------------
    def run(self) -> GameResult:
        limit_ns = int(self.config.time_limit_s * S)
        self._at(1 * S, "play")
        self._play_pending = True
        ended_by = "rules"
        while self._queue and not self.game.over:
            t, _seq, kind, payload = heapq.heappop(self._queue)
            self.now = max(self.now, t)
            if self.pace is not None:
                self.pace(self.now)
            if self.now >= limit_ns or self.game.cards_laid >= self.config.max_cards:
                self.deliver(TimeUp(self.now), self.now)
                self.advance(self.now + int(self.config.holdback_ms * MS) + 1)
                ended_by = "time_limit"
                break
            if kind == "arrive":
                self.arrivals.append((self.now, payload))
                self.deliver(payload, self.now)
            elif kind == "tick":
                self._tick_at = None
                self.advance(self.now)
            elif kind == "play":
                self._play_pending = False
                self._try_play()
            self._observe()
            self._keep_going()
        if not self.game.over:
            self.session.finish()
        final = self.game
        return GameResult(final.game_id, final.n, self.seed, final.cards_laid, self.now / S,
                          final.winner, final.loser, ended_by, Counter(r.kind for r in final.rulings))

    def _try_play(self) -> None:
        game = self.game
        w = game.window
        if w is not None and not w.decided or self._awaiting_cards():
            if w is not None and not w.decided and self.now - max(w.opened_ns, self._nudged) > 4 * S:
                self._nudged = self.now
                self._slap_window(w)                 # everyone missed it; somebody notices now
            self._at(self.now + 150 * MS, "play")    # wait for the slapping to settle
            self._play_pending = True
            return
        seat = game.turn
        if seat is None:
            return
        if isinstance(game, Slapstick) and seat not in self.human_seats and self._slapstick_press(seat):
            return
        self.last_card_t = self.now
        self._plays_sent += 1
        self._sensor(Play(self.now), self._camera_latency())

    def _awaiting_cards(self) -> bool:
        """A card is on its way to the referee but not yet judged."""
        return self.game.cards_laid + self._cards_refused() < self._plays_sent

    def _cards_refused(self) -> int:
        """Cards the referee refused ("check the table"), counted once per ruling as they appear."""
        rulings = self.game.rulings
        for r in rulings[self._rulings_seen:]:
            if r.kind == "check_table" and not str(r.fields.get("problem", "")).startswith("corrected"):
                self._refused += 1
        self._rulings_seen = len(rulings)
        return self._refused

    def _slapstick_press(self, seat: int) -> bool:
        game = self.game
        assert isinstance(game, Slapstick)
        wants = (game.string_seat == seat and self.rng.random() < 0.7) or (
            game.chicken_seat == seat and self.rng.random() < 0.3) or (
            game.pile and game.opening_left == 0 and game.chicken_seat is None and game.string_seat is None
            and self.rng.random() < self.bots[seat].chicken_rate) or (
            game.pile and game.opening_left == 1 and self._pairs_itself(seat) and self.rng.random() < 0.5)
        if wants:
            self._sensor(Press(seat, self.now), int(self.config.pad_latency_ms * MS))
        return bool(wants)

    def _pairs_itself(self, seat: int) -> bool:
        """Slapstick: `seat`'s last two opening pairs matched themselves, so it picked them up and opens again
        (a player holding only rank pairs would do so for ever; a person would chicken out)."""
        own = 0
        for r in reversed(self.game.rulings):
            if r.kind == "ignored":
                continue
            if not (r.kind == "picks_up" and r.seat == seat and r.fields.get("cards") == 2
                    and r.fields.get("reason") in ("match_first", "match_prev")):
                break
            own += 1
            if own == 2:
                return True
        return False

    def _observe(self) -> None:
        """React to what the referee has judged: new cards, new trigger windows."""
        game = self.game
        if game.over:
            return
        w = game.window
        seen = self._seen_window
        if w is not None and not w.decided and (seen is None or seen[0] is not w or seen[1] != w.replays):
            self._seen_window = (w, w.replays)     # a replayed dead heat asks for new slaps
            self._slap_window(w)
        elif game.cards_laid != self._seen_cards and game.window is None and game.pile:
            self._maybe_false_slaps(game.pile[-1].t_ns)
        self._seen_cards = game.cards_laid

    def _slap_window(self, w: Window) -> None:
        eligible = [s for s in range(self.game.n)
                    if self.game.status[s] in ("in", "waiting") and s not in self.human_seats]
        for seat in eligible:
            if self.rng.random() < self.bots[seat].miss_rate:
                continue
            t = max(max(w.opened_ns, self._nudged) + self._reaction(seat), self.now + 1 * MS)
            self._sensor(Slap(seat, t), int(self.config.pad_latency_ms * MS))

    def _maybe_false_slaps(self, card_t: int) -> None:
        game = self.game
        if isinstance(game, Slapstick):
            return
        for seat in range(game.n):
            if game.status[seat] not in ("in", "waiting") or seat in self.human_seats:
                continue
            bot = self.bots[seat]
            roll = self.rng.random()
            t = max(card_t + self._reaction(seat), self.now + 1 * MS)
            if roll < bot.false_slap_rate:
                self._sensor(Slap(seat, t), int(self.config.pad_latency_ms * MS))
            elif roll < bot.false_slap_rate + bot.flinch_rate and game.game_id == "irish-snap-plus":
                self._sensor(Flinch(seat, t), int(self.config.pad_latency_ms * MS))

    def _keep_going(self) -> None:
        game = self.game
        if game.over:
            return
        deadline = game.next_deadline()
        held = self.session.arbiter.peek_time()
        if held is not None:
            deadline = held if deadline is None else min(deadline, held)
        if deadline is not None:
            # never in the past: a referee that holds events (paused) must not spin the clock
            due = max(deadline + int(self.config.holdback_ms * MS), self.now + 10 * MS)
            if self._tick_at is None or due < self._tick_at:
                self._tick_at = due
                self._at(due, "tick")
        if not self._play_pending and game.turn is not None:
            lo, hi = self.bots[game.turn].play_gap_ms
            gap = int(self.rng.uniform(lo, hi) * MS)
            self._at(max(self.now, self.last_card_t + gap), "play")
            self._play_pending = True
        if not self._queue:
            self._at(self.now + 500 * MS, "tick")     # keep time moving (e.g. waiting on a held event)


def simulate(game: str, players: int, *, seed: int = 0, options: dict[str, Any] | None = None,
             config: SimConfig | None = None, on_ruling: Callable[[Ruling], None] | None = None) -> GameResult:
    return SimTable(game, players, seed=seed, options=options, config=config, on_ruling=on_ruling).run()
