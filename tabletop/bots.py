"""The simulated players of a demo table: they act in the world at human pace and follow the referee.

Each bot lays its true top card when the referee says it is its turn, at a
human pace; sees a trigger the moment the card lands (as a player does, not
when the referee rules) and slaps its pad at a human reaction time, its hand
reaching on over the pile; sometimes slaps a card that is no trigger, flinches,
or misses. When the referee gives the pile to someone, that player sweeps it up.
They never decide anything the referee decides: whose turn it is, who picks up,
who pays are read from the world's twin of the referee's game.

A simulated operator lets play go on after "check the table" and squares up a
card the camera could not read; if the table stalls all the same, it clears
the table and, failing that, ends the game so the next one starts.
"""
from __future__ import annotations

import logging
import math
import random
import threading
from typing import Any, Callable

from referee.core.events import MS, S
from referee.core.rules.slapstick import Slapstick
from referee.core.rulings import Ruling
from referee.sim.table import BotProfile

from .clock import TableClock
from .sim_world import SimWorld

log = logging.getLogger(__name__)

HAND_ON_PILE_MS = (150.0, 250.0)   # after the pad, the hand reaches on over the pile...
HAND_STAYS_MS = (300.0, 500.0)     # ...and stays there this long
SWEEP_MS = (450.0, 900.0)          # a ruling heard -> the taker's hand has swept the pile up
OPERATOR_S = 2.0                   # "check the table" -> the operator lets play go on
STRAIGHTEN_S = 1.2                 # "please straighten the card" -> it is squared up
NUDGE_S = 4.0                      # a trigger nobody slapped: somebody notices after this long
STALL_S = 45.0                     # no card judged and no ruling for this long: the operator steps in


class Bots:
    """The players of one simulated table (game after game). `visitors`: seats a person plays from the
    dashboard or a pad: the bots leave those seats' slaps and presses to them (and still lay their cards)."""

    def __init__(self, world: SimWorld, runtime: Any, clock: TableClock, *, seed: int = 0, seats: int = 6) -> None:
        self.world, self.runtime, self.clock = world, runtime, clock
        self.rng = random.Random(seed)
        self.profiles = [BotProfile(reaction_ms=330.0 * self.rng.uniform(0.8, 1.25)) for _ in range(seats)]
        self.visitors: set[int] = set()
        self.held = False                       # the kiosk's operator paused the table
        self._suspended = False                 # between games
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reset(clock())

    def _reset(self, now: int) -> None:
        self.laid = 0                           # cards laid this game
        self.refused = 0                        # of which the referee refused ("check the table")
        self.seen_rulings = 0
        self.last_card_t: int | None = None
        self.last_trigger_t: int | None = None  # the last card the players saw as a trigger
        self.visitor_slapped: set[int] = set()
        self.next_lay_at: int | None = None
        self.sweep_at: int | None = None
        self.last_sweep_t = now
        self.taker: int | None = None
        self.nudged = 0
        self.press_gate: tuple[Any, int] | None = None
        self.operator_at: int | None = None
        self.straighten_at: int | None = None
        self.progress: tuple[int, int] = (-1, -1)
        self.progress_t = now
        self.stalls = 0

    # ---- life cycle ----------------------------------------------------------------
    def start(self) -> "Bots":
        self._thread = threading.Thread(target=self._run, name="bots", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)

    def suspend(self) -> None:
        """Stop acting (the table is switching games) until `new_game()`."""
        with self.world.lock:
            self._suspended = True

    def new_game(self) -> None:
        """The world follows a new game: start it afresh."""
        with self.world.lock:
            self._reset(self.clock())
            self._suspended = False
        self._wake.set()

    def on_ruling(self, ruling: Ruling) -> None:
        """A runtime observer: the referee said something; look again now."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            due: int | None = None
            try:
                due = self._step()
            except Exception:                   # a bot's mistake must never stop the table
                log.exception("bots step failed")
            wait = 0.05 if due is None else min(0.05, max(0.001, self.clock.real_s(due - self.clock())))
            self._wake.wait(wait)
            self._wake.clear()

    # ---- visitors --------------------------------------------------------------------
    def visitor_slap(self, seat: int) -> float | None:
        """A visitor slaps `seat`'s pad now; their reaction time in ms to the trigger on the pile, if any."""
        t = self.clock()
        self._slap(seat, t)
        with self.world.lock:
            trigger = self.last_trigger_t
            if trigger is None or seat in self.visitor_slapped or not 0 < t - trigger < 5 * S:
                return None
            self.visitor_slapped.add(seat)
        return (t - trigger) / MS

    def visitor_press(self, seat: int) -> None:
        self.world.contact(seat, self.clock(), hold_ns=150 * MS, kind="press")

    # ---- one look at the table ------------------------------------------------------------
    def _step(self) -> int | None:
        """Act on what the table shows now; returns when to look again (table ns), or None."""
        calls: list[Callable[[], None]] = []
        try:
            with self.world.lock:
                return self._look(self.clock(), calls)
        finally:
            for call in calls:                  # the runtime is called without the world's lock held
                call()

    def _look(self, now: int, calls: list[Callable[[], None]]) -> int | None:
        twin = self.world.twin
        if twin is None or self._suspended:
            return None
        self._read_rulings(twin, now)
        if twin.over:                           # the winner gathers the last pile while the result is shown
            if self.sweep_at is None and self.world.pile_lying(now):
                self._sweep(twin, now)
            return None
        if self._stalled(twin, now, calls):
            return None
        if self.sweep_at is not None and now >= self.sweep_at:
            self.sweep_at, self.last_sweep_t = None, now
        judged = self.laid <= twin.cards_laid + self.refused
        if self.sweep_at is None and judged and not twin.pile and self.world.pile_lying(now):
            self._sweep(twin, now)
        paused = set(self.runtime.paused)
        if paused or self.held:
            self._operator(paused, now, calls)
            return None
        self.operator_at = self.straighten_at = None
        w = twin.window
        if w is not None and not w.decided:
            if now - max(w.opened_ns, self.nudged) > NUDGE_S * S:
                self.nudged = now                # everyone missed it; somebody notices now
                self._slap_all(twin, now)
            return None
        if not judged or self.sweep_at is not None or not self._press_settled(twin, now):
            return self.sweep_at
        seat = twin.turn
        if seat is None or not twin.hands[seat]:
            return None
        if self.next_lay_at is None:
            lo, hi = self.profiles[seat].play_gap_ms
            after = max(self.last_card_t if self.last_card_t is not None else now, self.last_sweep_t)
            self.next_lay_at = max(now, after + int(self.rng.uniform(lo, hi) * MS))
        if now < self.next_lay_at:
            return self.next_lay_at
        self.next_lay_at = None
        if isinstance(twin, Slapstick) and seat not in self.visitors and self._wants_press(twin, seat):
            self.world.contact(seat, now + MS, hold_ns=150 * MS, kind="press")
            self.press_gate = ((twin.turn, twin.cards_laid, len(twin.rulings)), now + 3 * S)
            return None
        self._lay(twin, seat, now + MS)
        return None

    def _read_rulings(self, twin: Any, now: int) -> None:
        for ruling in twin.rulings[self.seen_rulings:]:
            if ruling.kind == "check_table" and not str(ruling.fields.get("problem", "")).startswith("corrected"):
                self.refused += 1
            elif ruling.kind in ("wins_pile", "picks_up") or (ruling.kind == "game_over" and ruling.seat is not None):
                self.taker = ruling.seat
            elif ruling.kind == "slap_again":
                for seat in ruling.fields.get("seats", ()):
                    if seat not in self.visitors:
                        self._slap(seat, now + self._reaction(seat))
        self.seen_rulings = len(twin.rulings)
        self.refused = min(self.refused, max(0, self.laid - twin.cards_laid))

    def _lay(self, twin: Any, seat: int, t: int) -> None:
        card = self.world.lay(seat, t)
        if card is None:
            return
        self.laid += 1
        self.last_card_t = t
        if self.world.predict(card, t) is not None:
            self.last_trigger_t = t
            self.visitor_slapped.clear()
            self._slap_all(twin, t)
        elif not isinstance(twin, Slapstick):
            self._false_slaps(twin, t)

    def _slap_all(self, twin: Any, seen_t: int) -> None:
        """Every bot still in the game slaps (or misses) a trigger it saw at `seen_t`."""
        for seat in range(twin.n):
            if twin.status[seat] in ("in", "waiting") and seat not in self.visitors \
                    and self.rng.random() >= self.profiles[seat].miss_rate:
                self._slap(seat, max(seen_t + self._reaction(seat), self.clock() + MS))

    def _false_slaps(self, twin: Any, card_t: int) -> None:
        for seat in range(twin.n):
            if twin.status[seat] not in ("in", "waiting") or seat in self.visitors:
                continue
            bot, roll = self.profiles[seat], self.rng.random()
            t = card_t + self._reaction(seat)
            if roll < bot.false_slap_rate:
                self._slap(seat, t)
            elif roll < bot.false_slap_rate + bot.flinch_rate and twin.game_id == "irish-snap-plus":
                self.world.contact(seat, t, kind="flinch")

    def _slap(self, seat: int, t: int) -> None:
        """A hand hits `seat`'s pad at `t`, then reaches on over the pile for a moment."""
        self.world.contact(seat, t, hold_ns=80 * MS)
        on = t + int(self.rng.uniform(*HAND_ON_PILE_MS) * MS)
        self.world.reach(seat, on, on + int(self.rng.uniform(*HAND_STAYS_MS) * MS), self.rng.uniform(0.45, 0.7))

    def _sweep(self, twin: Any, now: int) -> None:
        """The referee gave the pile away: its taker's hand covers it and sweeps it up."""
        seat = self.taker if self.taker is not None and self.taker < twin.n else (twin.turn or 0)
        self.sweep_at = now + int(self.rng.uniform(*SWEEP_MS) * MS)
        self.world.reach(seat, self.sweep_at - 250 * MS, self.sweep_at + 60 * MS, 0.9)
        self.world.sweep(self.sweep_at)
        self.taker = None

    def _reaction(self, seat: int) -> int:
        bot = self.profiles[seat]
        return int(bot.reaction_ms * math.exp(self.rng.gauss(0.0, bot.reaction_spread)) * MS)

    def _press_settled(self, twin: Any, now: int) -> bool:
        """After a press, wait until the referee has ruled on it (or a while has passed)."""
        if self.press_gate is None:
            return True
        shape, until = self.press_gate
        if (twin.turn, twin.cards_laid, len(twin.rulings)) != shape or now >= until:
            self.press_gate = None
            return True
        return False

    def _wants_press(self, game: Slapstick, seat: int) -> bool:
        """Slapstick: chicken out, stop a string or leave a pair that keeps matching itself (as SimTable's bots)."""
        rng = self.rng
        return bool((game.string_seat == seat and rng.random() < 0.7)
                    or (game.chicken_seat == seat and rng.random() < 0.3)
                    or (game.pile and game.opening_left == 0 and game.chicken_seat is None
                        and game.string_seat is None and rng.random() < self.profiles[seat].chicken_rate)
                    or (game.pile and game.opening_left == 1 and _pairs_itself(game, seat) and rng.random() < 0.5))

    # ---- the simulated operator -------------------------------------------------------------
    def _operator(self, paused: set[str], now: int, calls: list[Callable[[], None]]) -> None:
        if self.held:
            return
        if "operator" in paused:
            if self.operator_at is None:
                self.operator_at = now + int(OPERATOR_S * S)
            elif now >= self.operator_at:
                self.operator_at = None
                calls.append(lambda: self.runtime.resume("operator"))
        if "unreadable" in paused:
            twin = self.world.twin
            if self.straighten_at is None:
                self.straighten_at = now + int(STRAIGHTEN_S * S)
            elif now < self.straighten_at:
                pass
            elif twin is not None and self.laid <= twin.cards_laid + self.refused:
                self.straighten_at = None        # every card laid was read (a hand looked like one): play on
                calls.append(lambda: self.runtime.resume("unreadable"))
            else:
                self.straighten_at = now + int(3 * STRAIGHTEN_S * S)   # and again, should it still not read
                self.world.straighten(now)

    def _stalled(self, twin: Any, now: int, calls: list[Callable[[], None]]) -> bool:
        """No card judged and no ruling for STALL_S: clear the table and play on; the second time, end the game."""
        progress = (twin.cards_laid, len(twin.rulings))
        if progress != self.progress or self.held:
            self.progress, self.progress_t = progress, now
            return False
        if now - self.progress_t < STALL_S * S:
            return False
        self.progress_t = now
        self.stalls += 1
        log.warning("the simulated table stalled (%s, %d cards judged)", twin.game_id, twin.cards_laid)
        if self.stalls > 1:
            calls.append(self.runtime.finish_game)
            return True
        self.refused = max(0, self.laid - twin.cards_laid)
        self.world.sweep(now)
        self.sweep_at = None
        calls.append(self.runtime.resume)
        return True


def _pairs_itself(game: Slapstick, seat: int) -> bool:
    """`seat`'s last two opening pairs matched themselves, so it picked them up and opens again."""
    own = 0
    for r in reversed(game.rulings):
        if r.kind == "ignored":
            continue
        if not (r.kind == "picks_up" and r.seat == seat and r.fields.get("cards") == 2
                and r.fields.get("reason") in ("match_first", "match_prev")):
            break
        own += 1
        if own == 2:
            return True
    return False
