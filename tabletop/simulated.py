"""The simulated parts of a table whose world is simulated (`[pads] backend = "bots"`).

A `SimWorld` holds the true cards and what happens on the table; the bots'
pads (`hardware.pads_sim.ScheduledPads`, the real pad logic) feel its
contacts; a rendered camera draws it for the real vision pipeline, or (camera
"sim") a card source names each card. `tabletop.build` puts these in a table
exactly where a real table has its pads and camera.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from referee.config import TableConfig
from referee.core.events import US

from .clock import TableClock
from .sim_camera import RenderedCamera, WorldCardSource
from .sim_world import SimWorld

SEATS = 6                                # bots' pads and the renderer cover this many seats


def sim_latency_ms(source: str, speed: float) -> float:
    """The hold-back (table ms) a simulated camera needs at `speed`: its capture-to-event latency, of which
    the part spent computing (rendering, reading the card) takes `speed` times longer in table time."""
    if source == "rendered":
        return 500.0 + 100.0 * speed    # a landing (90 ms), 3 still frames, then reading the pile (10-300 ms)
    return 120.0 + 10.0 * speed         # the card source's 35-90 ms


def bounce_us(rng: random.Random) -> list[int]:
    """How a pad switch chatters after it first closes: a few stretches of tens to hundreds of µs."""
    count = rng.choice((0, 0, 2, 2, 4))
    return [int(rng.uniform(20, 400)) for _ in range(count)]


def bots_pads(config: TableConfig, world: SimWorld, clock: TableClock, timing: Any, *, seed: int = 0) -> Any:
    """The bots' pads: the world's contacts become edges, with bounce, through the real pad logic."""
    from hardware.pads_sim import ScheduledPads
    pads = ScheduledPads(max(SEATS, config.game.players), clock=clock, speed=clock.speed,
                         debounce_ms=config.pads.debounce_ms, stuck_after_s=config.pads.stuck_after_s, timing=timing)
    rng = random.Random(seed)

    def felt(seat: int, t_ns: int, hold_ns: int, kind: str) -> None:
        if pads.closed:
            return
        if kind == "flinch":
            pads.hover(seat, t_ns)
        else:
            pads.contact(seat, t_ns, hold_ns=hold_ns, kind="press" if kind == "press" else "slap",
                         bounce_ns=[b * US for b in bounce_us(rng)], release_bounce_ns=[b * US for b in bounce_us(rng)])
    world.contact_listeners.append(felt)
    return pads


def rendered_camera(config: TableConfig, world: SimWorld, clock: TableClock, *, seed: int = 0) -> Callable[[], Any]:
    """Opens the rendered camera over the world (each opening a new one, as a reopened device)."""
    return lambda: RenderedCamera(world, clock, fps=config.camera.fps, seats=max(4, config.game.players), seed=seed)


def card_source(world: SimWorld, clock: TableClock, *, seed: int = 0) -> WorldCardSource:
    """Names each card the world lays, a camera's latency later (camera "sim": no rendering, no vision)."""
    return WorldCardSource(world, clock, seed=seed)
