"""Does the kiosk tell the truth while a game moves (issue 39)? The demo table (bots, rendered cards read by
the real vision, speed 1) is served on a free port and sampled from headless Chromium every 100 ms for
SECONDS (300 s by default: the five minutes issue 39 measures).

Each sample reads the frame on screen (its number, its capture time) and its label. The truth is the
simulated world's top card at that capture time: the label should name it, or say "reading…" while the
card is still being read. It also checks that the slap timeline on screen belongs to the headline's ruling,
and times each landing to the moment its name first showed on the page (the page notes it,
`window.referee.named`). Screenshots of the running demo at 800x480 and 1280x800 go to bench/screens/.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECONDS = 300.0
SAMPLE_S = 0.1
SCREENS = ROOT / "bench" / "screens"
LANDING_NS = 90_000_000          # tabletop.scene_render: a card slides this long before it rests
PROBE = """() => { const r = window.referee, n = document.getElementById('cardname');
  const ruling = document.getElementById('ruling'), tl = document.getElementById('timeline');
  return {shown: r.shownSeq, overlay: r.shown, label: n.hidden ? null : n.textContent,
          ruling: ruling.dataset.t || null, timeline: tl.hidden ? null : (tl.dataset.t || 'none'),
          over: !document.getElementById('gameover').hidden}; }"""


def _start_demo(folder: Path) -> tuple[Any, Any, Any, threading.Thread, Any]:
    """The demo as `referee demo` runs it, built here so the bench can see the simulated world."""
    from referee.config import GameConfig, TableConfig
    from tabletop.build import build_table
    from tabletop.clock import TableClock
    from tabletop.dashboard import make_feed, serve_dashboard
    from tabletop.demo import demo_config
    from tabletop.game_setup import GamePlan
    from tabletop.kiosk import Kiosk
    from tabletop.table_loop import RunOptions, _play

    config = demo_config(TableConfig(game=GameConfig(id="slapjack")), vision=True, speed=1.0,
                         journal=folder / "demo.db", port=8080, audio="silent")   # served on a free port below
    clock = TableClock(1.0)
    plan = GamePlan(config, rotate=True, seed=0)
    game, seed = plan.next()
    table = build_table(config, clock=clock, seed=seed, game=game)
    kiosk = Kiosk(table, folder / "demo.db")
    feed = make_feed(table, plan, kiosk)
    server = serve_dashboard(feed, table, host="127.0.0.1", port=0)
    opts = RunOptions(command="demo", rotate=True, speed=1.0)
    table.start()
    loop = threading.Thread(target=_play, args=(table, plan, opts), name="bench-demo", daemon=True)
    loop.start()
    return table, server, opts, loop, clock


def _truth(world: Any, t_ns: int) -> tuple[str | None, bool]:
    """The top card on the frame captured at `t_ns`, and whether it was still landing then."""
    cards = world.scene(t_ns)["cards"]
    if not cards:
        return None, False
    top = cards[-1]
    return str(top["card"]), t_ns - int(top["t_ns"]) < LANDING_NS


def _label_card(label: str | None, overlay: dict[str, Any] | None) -> str | None:
    return overlay.get("card") if overlay and label and not overlay.get("reading") else None


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def run(seconds: float = SECONDS, screens: Path | None = SCREENS) -> list[str]:
    """Sample the running demo for `seconds`; markdown lines (and screenshots into `screens`, None: none)."""
    from referee.web.screens import browser_missing, chromium

    reason = browser_missing()
    if reason:
        return ["## Kiosk truth (browser samples)", "", f"skipped: {reason}"]
    folder = Path(tempfile.mkdtemp(prefix="bench-kiosk-"))
    table, server, opts, loop, clock = _start_demo(folder)
    landings: list[tuple[str, int]] = []
    table.world.lay_listeners.append(lambda card, t_ns: landings.append((str(card), t_ns)))
    tally = {"samples": 0, "framed": 0, "named_right": 0, "reading": 0, "named_wrong": 0, "blank_with_card": 0,
             "blank_right": 0, "landing_named_old": 0, "area": 0, "area_right": 0}
    wrong: list[str] = []
    named: dict[str, Any] = {}
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 800, "height": 480})
            page.goto(server.url + "/")
            page.wait_for_function("document.getElementById('conn').textContent === 'live'")
            end = time.monotonic() + seconds
            shot_at = time.monotonic() + min(20.0, seconds / 2)
            while time.monotonic() < end:
                tick = time.monotonic()
                s = page.evaluate(PROBE)
                tally["samples"] += 1
                if s["timeline"] is not None or s["ruling"] is not None:
                    tally["area"] += 1
                    tally["area_right"] += s["timeline"] is None or s["timeline"] == s["ruling"]
                overlay = s["overlay"]
                if overlay and overlay.get("t_us") is not None:
                    tally["framed"] += 1
                    truth, landing = _truth(table.world, int(overlay["t_us"]) * 1000)
                    shown = _label_card(s["label"], overlay)
                    if overlay.get("reading") or overlay.get("unreadable"):
                        tally["reading"] += 1
                    elif shown is None:
                        tally["blank_right" if truth is None else "blank_with_card"] += 1
                    elif shown == truth:
                        tally["named_right"] += 1
                    elif landing:
                        tally["landing_named_old"] += 1        # the frame shows a card still sliding in
                    else:
                        tally["named_wrong"] += 1
                        if len(wrong) < 5:
                            wrong.append(f"label {shown} on a frame showing {truth} (frame {overlay.get('seq')})")
                if screens is not None and tick >= shot_at and overlay and overlay.get("card"):
                    screens.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(screens / "kiosk-800.png"))
                    big = browser.new_page(viewport={"width": 1280, "height": 800})
                    big.goto(server.url + "/")
                    big.wait_for_function("window.referee.shown && window.referee.shown.card")
                    big.screenshot(path=str(screens / "kiosk-1280.png"))
                    big.close()
                    shot_at = float("inf")
                    continue
                time.sleep(max(0.0, SAMPLE_S - (time.monotonic() - tick)))
            named = page.evaluate("() => window.referee.named")
            page.close()
    finally:
        opts.stop.set()
        loop.join(10)
        server.stop()
        table.close()
    # landing -> name on screen: the page's wall-clock note, against the landing's table time (speed 1)
    offset_ms = time.time() * 1000 - clock() / 1e6
    delays = sorted(v["at"] - (int(k) / 1000 + offset_ms) for k, v in named.items())
    out = ["## Kiosk truth (browser samples)", "",
           f"{seconds:.0f} s of `referee demo` (speed 1, vision on) sampled every {SAMPLE_S * 1000:.0f} ms "
           f"from headless Chromium at 800x480: {tally['samples']} samples, {tally['framed']} with a frame, "
           f"{len(landings)} cards laid.", "",
           "| what the label said, on the frame shown | samples | share |", "|---|---:|---:|"]
    framed = tally["framed"]
    for key, what in (("named_right", "the card on that frame"), ("reading", "reading… / can't read (a landing)"),
                      ("blank_right", "nothing, and no card on the frame"),
                      ("landing_named_old", "the card below, while a new one slides in (≤ 90 ms)"),
                      ("blank_with_card", "nothing, with a card on the frame"),
                      ("named_wrong", "another card")):
        out.append(f"| {what} | {tally[key]} | {_pct(tally[key], framed)} |")
    out += ["", f"- The slap timeline belongs to the headline's ruling in {_pct(tally['area_right'], tally['area'])} "
            f"of {tally['area']} samples with a ruling on screen."]
    if delays:
        p95 = delays[min(len(delays) - 1, int(0.95 * len(delays)))]
        out.append(f"- Landing to its name on screen: median {statistics.median(delays):.0f} ms, p95 {p95:.0f} ms "
                   f"over {len(delays)} landings named.")
    out += [f"- {w}" for w in wrong]
    if screens is not None:
        out.append(f"- Screenshots: {screens.relative_to(ROOT) if screens.is_relative_to(ROOT) else screens}"
                   "/kiosk-800.png, kiosk-1280.png.")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=SECONDS, help=f"how long to sample (default {SECONDS:g})")
    parser.add_argument("--screens", default=str(SCREENS), help="folder for the screenshots ('' for none)")
    args = parser.parse_args(argv)
    print("\n".join(run(args.seconds, Path(args.screens) if args.screens else None)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
