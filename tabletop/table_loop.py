"""Running a table: build it, serve its dashboard, play game after game until stopped.

`referee run` and `referee demo` both end here. When a game ends it is already
journaled and announced (the runtime did both); the result stays up a moment,
then the next game starts on the same pads and camera. SIGTERM (systemd) and
Ctrl-C stop the table between two events: the runtime finishes the event in
hand, the journal is closed, and the command exits 0, the game in play left
unfinished in the journal, ready for `--resume`.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from referee.config import TableConfig
from referee.core.events import S
from referee.core.rulings import Ruling
from referee.sim.table import GameResult

from .build import Table, TableSetupError, build_table
from .clock import TableClock
from .game_setup import GamePlan


@dataclass
class RunOptions:
    """How to run a table (the config says what it is)."""

    command: str = "run"                     # for messages: "referee run: ..."
    games: int = 0                           # stop after this many games (0: until stopped)
    seconds: float | None = None             # stop after this many real seconds (tests)
    resume: bool = False                     # the first game is the journal's last unfinished one
    rotate: bool = False                     # the six games in turn (the demo)
    only: str | None = None                  # just this game, every time
    seed: int = 0
    speed: float = 1.0                       # table seconds per real second (a simulated table)
    dashboard: bool = True
    print_rulings: bool = False
    between_s: float = 3.0                   # table seconds the result stays up (real seconds too, on a dashboard)
    recognizer: Any = None                   # a learned deck
    controls: dict[str, Any] = field(default_factory=dict)   # picamera2 controls from a profile
    visitor_pads: Any = None                 # a TableConfig whose real pads visitors slap (a bots table)
    open_browser: bool = False               # show the dashboard on this machine's screen (a laptop demo)
    stop: threading.Event = field(default_factory=threading.Event)
    on_game: Callable[[int, GameResult], None] | None = None


def run_table(config: TableConfig, opts: RunOptions) -> int:
    """Play `config`'s table as `opts` say; 0 when it ran and stopped, 2 when it could not start."""
    clock = TableClock(opts.speed)
    try:
        plan = GamePlan(config, rotate=opts.rotate, only=opts.only, seed=opts.seed)
    except ValueError as exc:
        print(f"referee {opts.command}: [game] {exc}", file=sys.stderr)
        return 2
    game, seed = plan.next()
    restore = _stop_on_signals(opts.stop)        # a stop while the table is being built ends it once built
    try:
        table = build_table(config, resume=opts.resume, clock=clock, seed=seed, recognizer=opts.recognizer,
                            controls=opts.controls, game=game)
    except TableSetupError as exc:
        restore()
        print(f"referee {opts.command}: {exc}", file=sys.stderr)
        return 2
    server = visitor_pads = None
    code = 0
    try:
        kiosk = None
        if table.bots is not None:
            from .kiosk import Kiosk
            kiosk = Kiosk(table, table.journal.path if table.journal is not None else None)
            visitor_pads = _visitor_pads(opts, kiosk)
        if opts.dashboard:
            server = _dashboard(table, plan, kiosk, opts)
        if opts.print_rulings:
            table.runtime.observers.append(lambda r: _print_ruling(r, table))
        table.start()
        _announce(table)
        _play(table, plan, opts)
    except KeyboardInterrupt:
        pass
    except TableSetupError as exc:
        print(f"referee {opts.command}: {exc}", file=sys.stderr)
        code = 2
    finally:
        opts.stop.set()
        if server is not None:
            server.stop()
        table.close()
        if visitor_pads is not None:
            visitor_pads.close()
        restore()
    if code == 0:
        print(f"referee: stopped after {plan.played} game(s); the last was journal game {table.game_no}", flush=True)
    return code


def _play(table: Table, plan: GamePlan, opts: RunOptions) -> None:
    deadline = None if opts.seconds is None else time.monotonic() + opts.seconds
    stop = opts.stop

    def stopped() -> bool:
        return stop.is_set() or (deadline is not None and time.monotonic() >= deadline)

    finished = 0
    while not stopped():
        if not table.runtime.wait_over(0.1):
            continue
        finished += 1
        result = game_result(table)
        _print_game(finished, result)
        if opts.on_game is not None:
            opts.on_game(finished, result)
        if opts.games and finished >= opts.games:
            return
        until = table.clock() + int(opts.between_s * S)
        shown = time.monotonic() + (opts.between_s if opts.dashboard else 0.0)   # the page's game-over screen:
        while (table.clock() < until or time.monotonic() < shown) and not stopped():  # real seconds at any speed
            stop.wait(0.05)
        if stopped():
            return
        game, seed = plan.next()
        table.next_game(game, seed)
        _announce(table)


def game_result(table: Table) -> GameResult:
    """The game just played, as the simulator reports one."""
    runtime = table.runtime
    game = runtime.game
    seconds = max(0, game.now - runtime.started_ns) / S
    return GameResult(game.game_id, game.n, 0, game.cards_laid, seconds, game.winner, game.loser,
                      "time_limit" if runtime.timed_out else "rules", Counter(r.kind for r in game.rulings))


def _announce(table: Table) -> None:
    game = table.runtime.game
    journal = f"; journal game {table.game_no}" if table.game_no is not None else ""
    print(f"referee: {game.game_id} with {game.n} players{journal}", flush=True)


def _print_game(number: int, result: GameResult) -> None:
    who = f"Player {result.winner + 1} wins" if result.winner is not None else "no winner"
    if result.loser is not None:
        who += f", Player {result.loser + 1} loses"
    print(f"=== Game {number} ({result.game}): {who} after {result.cards} cards, "
          f"{result.seconds / 60:.1f} table minutes ===", flush=True)


def _print_ruling(ruling: Ruling, table: Table) -> None:
    if ruling.say and ruling.kind != "ignored":
        print(f"  [{(ruling.t_ns - table.runtime.started_ns) / S:8.3f}s] {ruling.say}", flush=True)


def _dashboard(table: Table, plan: GamePlan, kiosk: Any, opts: RunOptions) -> Any:
    from .dashboard import make_feed, serve_dashboard
    kiosk_config = table.config.kiosk
    feed = make_feed(table, plan, kiosk)
    from referee.web import InsecureBind
    try:
        server = serve_dashboard(feed, table, host=kiosk_config.bind, port=kiosk_config.port)
    except InsecureBind as exc:                  # configured open to the network without a PIN: refuse to start
        raise TableSetupError(f"[kiosk] bind: {exc}") from None
    except (OSError, RuntimeError) as exc:
        print(f"referee {opts.command}: warning: no dashboard on {kiosk_config.bind}:{kiosk_config.port}: {exc}",
              file=sys.stderr)
        return None
    print(f"referee {opts.command}: dashboard on {server.url}", flush=True)
    if opts.open_browser:
        import webbrowser
        try:
            webbrowser.open(server.url)          # show the table straight away on a laptop
        except webbrowser.Error:
            pass
    return server


def _visitor_pads(opts: RunOptions, kiosk: Any) -> Any:
    if opts.visitor_pads is None:
        return None
    from .build import build_pads
    pads = build_pads(opts.visitor_pads)
    kiosk.use_pads(pads, opts.stop)
    return pads


def _stop_on_signals(stop: threading.Event) -> Callable[[], None]:
    """SIGTERM and SIGINT set `stop` (the table stops between events); returns how to put the old handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return restore
