"""Screenshots of the dashboard and the review page (`make bench` saves them under bench/screens/).

A staged table (bots, the real runtime, a journal in a temporary folder) is
served on a free localhost port and photographed by headless Chromium through
Playwright: the main view at the Pi touch screen's 800x480 and at 1280x800,
the review page, and an evidence sheet opened from it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator
from contextlib import contextmanager, nullcontext

CHROMIUM = os.environ.get("REFEREE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
NAMES = ["Ada", "Ben", "Cleo", "Dev"]


def browser_missing() -> str | None:
    """Why a browser test cannot run here, or None when it can."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} not found (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Debian's, not a Playwright download) as a Playwright Browser."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def staged(journal_path: Path) -> Any:
    """A finished Slapjack game and an Irish Snap game stopped after a slap decision, in one journal."""
    from ..journal import Journal
    from .stage import StageTable

    journal = Journal(journal_path)
    StageTable("slapjack", 3, seed=2, journal=journal, names=NAMES[:3]).play()
    table = StageTable("irish-snap", 4, seed=5, journal=journal, names=NAMES)

    def ready() -> bool:
        rulings = table.session.rulings
        slaps = [r for r in rulings if r.kind == "picks_up" and len(r.evidence.get("slaps") or {}) >= 3]
        return len(slaps) >= 2 and rulings[-1] is slaps[-1] and bool(table.session.game.pile)
    table.play(until=ready)
    table.show_frame()
    return table, journal


def save_screenshots(out_dir: str | Path = "bench/screens", browser: Any = None) -> list[Path]:
    """Write main.png (800x480), main-1280.png, review.png and review-sheet.png; return their paths.
    `browser`: a Playwright Browser to use (default: launch Debian's Chromium for this call)."""
    from . import serve

    reason = browser_missing()
    if reason:
        raise RuntimeError(f"cannot take screenshots: {reason}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="screens-"))
    saved: list[Path] = []
    try:
        table, journal = staged(tmp / "journal.db")
        server = serve(table.feed, port=0, journal_path=str(tmp / "journal.db")).start()
        try:
            with (nullcontext(browser) if browser is not None else chromium()) as browser:
                for name, size in (("main.png", (800, 480)), ("main-1280.png", (1280, 800))):
                    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
                    page.goto(server.url + "/")
                    page.wait_for_selector("#timeline:not([hidden]) .trow")
                    page.wait_for_selector("#cardname:not([hidden])")
                    page.wait_for_function("document.getElementById('frame').naturalWidth > 0")
                    page.screenshot(path=str(out / name))
                    saved.append(out / name)
                    page.close()
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(server.url + "/review")
                page.wait_for_selector("#disputes tr[data-ruling]")
                page.screenshot(path=str(out / "review.png"))
                saved.append(out / "review.png")
                page.click("#disputes tr[data-ruling] a.sheetlink")
                page.wait_for_function("document.getElementById('sheet').complete && "
                                       "document.getElementById('sheet').naturalWidth > 0")
                page.screenshot(path=str(out / "review-sheet.png"))
                saved.append(out / "review-sheet.png")
                page.close()
        finally:
            server.stop()
            journal.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/screens", help="folder for the PNGs (default bench/screens)")
    args = parser.parse_args(argv)
    for path in save_screenshots(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
