"""Evidence sheets for disputes: what a ruling rests on, drawn as one PNG.

The facts (the card that opened the window, each pad's first contact relative
to it, the margin, the rule) are gathered without OpenCV so they can be
printed or tested anywhere; only `draw_sheet` imports cv2 and numpy, lazily.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.events import MS, CardSeen, Flinch, Play, Press, Slap
from . import EventRecord, GameRecord, Journal, RulingRecord, UnknownRecord
from ..core.rulings import seat_name

# One line per ruling kind, after docs/rules.md (timing: first, last, wrong; and each game's section).
RULE_LINES: dict[str, str] = {
    "wins_pile": "First = smallest pad timestamp; the first slap on a trigger takes the pile "
                 "(dead heat below tie_us: tie policy).",
    "picks_up": "The last to slap (or a false slapper / flincher) picks up the whole pile.",
    "false_slap": "A slap judged against the pile as it was at the slap's timestamp: no trigger on top.",
    "pays": "False slap: the slapper gives their top card to the player who laid the top card.",
    "slap_again": "Dead heat within tie_us and tie = replay: nobody wins, slap again.",
    "waiting": "A player with no cards waits for the next trigger to slap back in.",
    "back_in": "A waiting player won a trigger (or received cards) and is back in.",
    "out": "A waiting player lost their chance (someone else won, or a false slap).",
    "sits_out": "One more chance spent: sits out until the next round.",
    "dead_card": "slapjack-classic: a card laid out of turn is dead (no trigger).",
    "target": "slapjack-all-faces: the target rank moves on (Jack, Queen, King).",
    "reverse": "irish-snap-plus reverse_on: play reverses direction.",
    "round_end": "The round is over; cards are counted.",
    "game_over": "The game's end condition (docs/rules.md, the end of each game) was met.",
    "ignored": "Logged, no effect (empty pile, duplicate, late, not playing).",
    "check_table": "An event the table state cannot accept: the operator checks the table.",
}
GAME_TRIGGERS: dict[str, str] = {
    "slapjack": "Trigger: a Jack on top.",
    "slapjack-classic": "Trigger: a live Jack on top (dead cards are no trigger).",
    "slapjack-all-faces": "Trigger: a target card anywhere in the pile.",
    "irish-snap": "Trigger: the card laid has the rank being called; the last to slap picks up.",
    "irish-snap-plus": "Trigger: snap (same rank as the card under it) or count; the last to slap picks up.",
    "slapstick": "Row matches: the first or previous card (layer picks up), any other card or a Joker (next).",
}


@dataclass
class Contact:
    """One pad's first contact in the window, in µs relative to the opening card."""

    seat: int
    kind: str            # "slap", "press", "flinch"
    rel_us: int
    event_id: int


@dataclass
class Timeline:
    card: str | None                 # the card (or "play") that opened the window
    card_t_ns: int | None
    card_event: int | None
    contacts: list[Contact] = field(default_factory=list)


@dataclass
class SheetFacts:
    """Everything the evidence sheet shows, without any drawing."""

    game: GameRecord
    ruling: RulingRecord
    timeline: Timeline
    margin_us: int | None
    rule: str
    frames: dict[str, list[bytes]] = field(default_factory=dict)   # evidence kind -> JPEGs

    @property
    def title(self) -> str:
        r = self.ruling.ruling
        who = seat_name(r.seat, self.game.names)
        return f"Game {self.game.id} ({self.game.game_id}, {self.game.players} players) - ruling #{self.ruling.id}: {r.kind}, {who}"


def rule_line(game_id: str, kind: str) -> str:
    line = RULE_LINES.get(kind, kind)
    trigger = GAME_TRIGGERS.get(game_id)
    if trigger and kind in ("wins_pile", "picks_up", "false_slap", "slap_again"):
        return f"{game_id}: {trigger} {line}"
    return f"{game_id}: {line}"


def timeline(game: GameRecord, ruling: RulingRecord, events: list[EventRecord]) -> Timeline:
    """The card on top at the ruling's moment and every pad's first contact after it, until the next
    card or the end of the slap window."""
    t = ruling.ruling.t_ns
    cards = sorted((e for e in events if isinstance(e.event, (CardSeen, Play))), key=lambda e: (e.event.t_ns, e.seq))
    opening = None
    for e in cards:
        if e.event.t_ns <= t:
            opening = e
    if opening is None:
        return Timeline(None, None, None, _contacts(events, t, t + _window_ns(game)))
    start = opening.event.t_ns
    later = [e.event.t_ns for e in cards if e.event.t_ns > start]
    end = min([start + _window_ns(game), *later])
    end = max(end, t + 1)
    ev = opening.event
    name = str(ev.card) if isinstance(ev, CardSeen) else "played card"
    return Timeline(name, start, opening.id, _contacts(events, start, end))


def _window_ns(game: GameRecord) -> int:
    ms = game.options.get("slap_window_ms", 2000)
    return int(ms) * MS if isinstance(ms, (int, float)) else 2000 * MS


def _contacts(events: list[EventRecord], start: int, end: int) -> list[Contact]:
    first: dict[tuple[int, str], Contact] = {}
    kinds = {Slap: "slap", Press: "press", Flinch: "flinch"}
    for e in sorted(events, key=lambda e: (e.event.t_ns, e.seq)):
        kind = kinds.get(type(e.event))
        if kind is None or not start <= e.event.t_ns < end:
            continue
        seat = e.event.seat  # type: ignore[union-attr]
        first.setdefault((seat, kind), Contact(seat, kind, (e.event.t_ns - start) // 1000, e.id))
    return sorted(first.values(), key=lambda c: (c.rel_us, c.seat))


def gather(journal: Journal, game_no: int, ruling_id: int) -> SheetFacts:
    """Collect a sheet's facts; UnknownRecord if the ruling is not one of that game's."""
    game = journal.game(game_no)
    ruling = journal.ruling(ruling_id)
    if ruling.game != game_no:
        raise UnknownRecord(f"ruling {ruling_id} belongs to game {ruling.game}, not game {game_no}")
    frames: dict[str, list[bytes]] = {}
    for ev in journal.evidence(ruling_id):
        frames.setdefault(ev.kind, []).append(ev.jpeg)
    margin = ruling.ruling.get("margin_us")
    return SheetFacts(game, ruling, timeline(game, ruling, journal.events(game_no)),
                      margin if isinstance(margin, int) else None, rule_line(game.game_id, ruling.ruling.kind), frames)


# ---- drawing ---------------------------------------------------------------------------------
W, H = 1280, 820
_INK, _GREY, _RED, _GREEN, _BLUE = (20, 20, 20), (150, 150, 150), (40, 40, 200), (40, 150, 40), (180, 90, 20)


def _ascii(text: str) -> str:
    """Hershey fonts draw ASCII only."""
    return text.replace("µ", "u").encode("ascii", "replace").decode("ascii")


def draw_sheet(facts: SheetFacts) -> Any:
    """The evidence sheet as a BGR image (numpy array)."""
    import cv2
    import numpy as np

    img = np.full((H, W, 3), 255, np.uint8)
    font = cv2.FONT_HERSHEY_SIMPLEX

    def text(s: str, x: int, y: int, scale: float = 0.55, colour: tuple[int, int, int] = _INK, bold: int = 1) -> None:
        cv2.putText(img, _ascii(s), (x, y), font, scale, colour, bold, cv2.LINE_AA)

    text(facts.title, 20, 40, 0.75, _INK, 2)
    # the card frame, or a box saying there is none
    box = (20, 70, 500, 375)
    x0, y0, bw, bh = box
    frame = _decode(cv2, np, facts.frames.get("card_frame", []))
    if frame is not None:
        fh, fw = frame.shape[:2]
        scale = min(bw / fw, bh / fh)
        small = cv2.resize(frame, (max(1, int(fw * scale)), max(1, int(fh * scale))), interpolation=cv2.INTER_AREA)
        img[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    else:
        cv2.rectangle(img, (x0, y0), (x0 + bw, y0 + bh), _GREY, 2)
        cv2.line(img, (x0, y0), (x0 + bw, y0 + bh), _GREY, 1)
        cv2.line(img, (x0 + bw, y0), (x0, y0 + bh), _GREY, 1)
        text("no card frame recorded", x0 + 130, y0 + bh // 2, 0.7, _INK, 2)
    tl = facts.timeline
    text(f"card: {tl.card or 'none before this ruling'}", x0, y0 + bh + 30)
    _draw_timeline(img, cv2, facts, text, 560, 70, 700, 375)
    # margin, rule, ruling
    y = 515
    margin = facts.margin_us
    text("Margin: " + (f"{margin:,} us ({margin / 1000:.1f} ms)" if margin is not None else "none (no runner-up)"),
         20, y, 0.65, _INK, 2)
    text("Rule applied:", 20, y + 40, 0.65, _INK, 2)
    for i, line in enumerate(_wrap(facts.rule, 105)):
        text(line, 40, y + 70 + 26 * i)
    y2 = y + 80 + 26 * len(_wrap(facts.rule, 105))
    text("Ruling:", 20, y2 + 10, 0.65, _INK, 2)
    r = facts.ruling.ruling
    say = r.say or f"({r.kind}, no words: {', '.join(f'{k}={v}' for k, v in sorted(r.fields.items()))})"
    for i, line in enumerate(_wrap(say, 95)[:3]):
        text(line, 40, y2 + 40 + 28 * i, 0.65, _RED if r.kind == "false_slap" else _INK, 2)
    # slap frames as thumbnails, if any
    thumbs = [f for f in (_decode(cv2, np, [j]) for j in facts.frames.get("slap_frame", [])[:4]) if f is not None]
    for i, thumb in enumerate(thumbs):
        th = cv2.resize(thumb, (160, 120), interpolation=cv2.INTER_AREA)
        tx, ty = 640 + i * 160, H - 140
        img[ty:ty + 120, tx:tx + 160] = th
    if thumbs:
        text("slap frames", 640, H - 150, 0.5, _GREY)
    return img


@dataclass(frozen=True)
class TimelineLayout:
    """Where the slap timeline's parts go: round ms ticks from the card (0) past the last contact, and a box
    just tall enough for one row per seat and the axis (no empty half box under a few seats)."""

    ticks_ms: list[float]
    row_h: int
    height: int

    @property
    def span_ms(self) -> float:
        return self.ticks_ms[-1]


TIMELINE_TOP = 60             # the title line, above the first seat's row
TIMELINE_FOOT = 56            # the axis, its numbers and its unit, below the last row


def axis_ticks(max_ms: float, most: int = 6) -> list[float]:
    """Round ticks in ms from 0 reaching `max_ms` or just past it: steps of 1, 2 or 5 times a power of ten,
    at most `most` ticks."""
    max_ms = max(max_ms, 1.0)                     # contacts at the card's very moment (or none): 0 to 1 ms
    raw = max_ms / (most - 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw * (1 - 1e-9))
    count = max(1, math.ceil(max_ms / step - 1e-9))
    if count * step <= max_ms + step * 1e-6:      # the last contact must not sit on the axis's end
        count += 1
    return [round(i * step, 6) for i in range(count + 1)]


def timeline_layout(contacts: list[Contact], seats: int, max_height: int) -> TimelineLayout:
    """The axis and the box for `seats` rows and these contacts, no taller than `max_height`."""
    rows = max(1, seats)
    row_h = max(18, min(40, (max_height - TIMELINE_TOP - TIMELINE_FOOT) // rows))
    ticks = axis_ticks(max([c.rel_us / 1000 for c in contacts] + [0.0]))
    return TimelineLayout(ticks, row_h, TIMELINE_TOP + row_h * rows + TIMELINE_FOOT)


def _ms(value: float) -> str:
    """A time in ms as people read it: '300', '12.5', '0.25'."""
    return f"{value:,.0f}" if value >= 100 or value == int(value) else f"{value:.3g}"


def _draw_timeline(img: Any, cv2: Any, facts: SheetFacts, text: Any, x: int, y: int, w: int, h: int) -> None:
    """Each pad's first contact as a dot on an axis in ms from the opening card (0), in a box fit to the seats."""
    contacts = facts.timeline.contacts
    seats = list(range(facts.game.players))
    layout = timeline_layout(contacts, len(seats), h)
    cv2.rectangle(img, (x, y), (x + w, y + layout.height), _GREY, 1)
    text("Slap timeline: each pad's first contact, ms after the card", x + 10, y + 24, 0.55, _INK, 2)
    span_us = layout.span_ms * 1000
    row_h, ax0, ax1, top = layout.row_h, x + 170, x + w - 30, y + TIMELINE_TOP
    axis_y = top + row_h * len(seats) + 6
    cv2.line(img, (ax0, axis_y), (ax1, axis_y), _INK, 1)
    cv2.line(img, (ax0, top - 10), (ax0, axis_y), _GREY, 1)             # the card's moment
    for tick in layout.ticks_ms:
        tx = ax0 + int((ax1 - ax0) * tick / layout.span_ms)
        cv2.line(img, (tx, axis_y - 4), (tx, axis_y + 4), _INK, 1)
        text(_ms(tick), tx - 4 * len(_ms(tick)), axis_y + 22, 0.45, _INK)
    text("ms after the card", ax1 - 150, axis_y + 44, 0.45, _GREY)
    ruled = facts.ruling.ruling.seat
    winner_ids = set(facts.ruling.event_ids)
    for i, seat in enumerate(seats):
        ry = top + row_h * i + row_h // 2
        mine = [c for c in contacts if c.seat == seat]
        label = seat_name(seat, facts.game.names)
        colour = _GREEN if seat == ruled else _INK
        text(label[:14], x + 10, ry + 5, 0.5, colour, 2 if seat == ruled else 1)
        cv2.line(img, (ax0, ry), (ax1, ry), (225, 225, 225), 1)
        if not mine:
            text("no contact", ax0 + 10, ry + 5, 0.4, _GREY)
        for c in mine:
            px = ax0 + int((ax1 - ax0) * c.rel_us / span_us)
            dot = {"slap": _GREEN if seat == ruled else _BLUE, "press": _GREY, "flinch": _RED}[c.kind]
            cv2.circle(img, (px, ry), 7 if c.event_id in winner_ids or seat == ruled else 5, dot, -1)
            text(f"{c.kind} +{_ms(c.rel_us / 1000)} ms", min(px + 10, ax1 - 120), ry - 8, 0.42, _INK)


def _decode(cv2: Any, np: Any, jpegs: list[bytes]) -> Any:
    for jpeg in jpegs:
        frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        if frame is not None:
            return frame
    return None


def _wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    if line:
        lines.append(line)
    return lines or [""]


class SheetError(OSError):
    """The sheet could not be written."""


def write_sheet(facts: SheetFacts, out: str | Path) -> Path:
    """Draw and write the PNG; SheetError if it cannot be written."""
    import cv2

    path = Path(out)
    image = draw_sheet(facts)
    try:
        ok, data = cv2.imencode(".png", image)
    except cv2.error as exc:
        raise SheetError(f"cannot encode the sheet: {exc}") from None
    if not ok:
        raise SheetError("cannot encode the sheet as PNG")
    try:
        path.write_bytes(data.tobytes())
    except OSError as exc:
        raise SheetError(f"cannot write {path}: {exc.strerror}") from None
    return path
