"""`referee calibrate deck --deal FOLDER_OR_VIDEO`: learn the deck from one deal of it, in any order.

Deal the whole deck face up onto the pile, one card at a time, in any order: a
video of it, or a folder of one image per landing (pile crops or photos of one
card, in name order; any labels there are ignored). The referee reads each
landing, gives every landing a distinct card of the deck, asks only about the
landings it is unsure of (Enter takes its guess, "-" says the landing is no
card of the deck), learns, and checks itself on a re-deal (`--redeal`: 20 other
cards, a labelled folder, or a video dealt in the order given by `--order`).
The deck is usable only when every card was dealt and the re-deal named no
card wrongly and most of it. Exit 0 usable, 1 learned but not usable, 2 bad input.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from hardware.camera import IMAGE_SUFFIXES
from referee.vision.deck_store import Shot, upright
from referee.vision.recognize import Detection, recognize

from .deal_learn import NOT_A_CARD, Landing, landing, learn_deal, named
from .deck_shots import folder_shots, video_shots
from .decks import deck_cards
from .profile import DeckProfile
from .steps import directory, open_profile, prompter, store
from .ui import Prompter

EXIT_BAD_INPUT = 2


class DealError(ValueError):
    """A deal or re-deal that cannot be read (one line for the person)."""


def deal_landings(path: str, ui: Prompter) -> list[Landing]:
    """The landings of a deal: a folder's images in name order, or each settled card of a video."""
    import cv2

    where = Path(path)
    if where.is_dir():
        files = sorted(p for p in where.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        landings = []
        for p in files:
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise DealError(f"{p}: not a readable image")
            landings.append(landing(img, p.name))
        if not landings:
            raise DealError(f"{where}: no images ({', '.join(IMAGE_SUFFIXES)})")
        return landings
    if not where.is_file():
        raise DealError(f"{where}: no such folder or video")
    return _video_landings(where, ui)


def _video_landings(path: Path, ui: Prompter) -> list[Landing]:
    from hardware.camera import VideoCaptureSource

    from .card_crop import crop_card
    from .motion import settled_changes

    src = VideoCaptureSource(str(path))
    if not src.cap.isOpened():
        raise DealError(f"{path}: not a readable video")
    landings = []
    try:
        for n, change in enumerate(settled_changes(src.frames())):
            crop = crop_card(change.frame, change.mask)
            if crop is None:
                ui.say(f"drop {n + 1}: no card outline found, skipped")
                continue
            landings.append(Landing(crop, f"drop-{n + 1:03d}", crop))
    finally:
        src.close()
    if not landings:
        raise DealError(f"{path}: no card landed in the video")
    return landings


def redeal_shots(path: str, order: str | None, deck: list[str]) -> list[Shot]:
    """The re-deal's labelled shots: a folder (labels.csv or card-named files) or a video and its order."""
    where = Path(path)
    if where.is_dir():
        shots = folder_shots(where)
    elif where.is_file():
        if not order:
            raise DealError("a re-deal video needs --order: its cards in the order they were dealt")
        from hardware.camera import VideoCaptureSource

        from .cmd_deck import _order
        src = VideoCaptureSource(str(where))
        try:
            shots = video_shots(src.frames(), _order(order))
        finally:
            src.close()
    else:
        raise DealError(f"{where}: no such folder or video")
    shots = [s for s in shots if s.card in deck]
    if not shots:
        raise DealError(f"{where}: no labelled shot of this deck's cards to check on")
    return shots


def run(args: argparse.Namespace) -> int:
    ui = prompter(args)
    try:
        deck = deck_cards(args.deck)
        profile, path = open_profile(args)
        ui.step(1, 3, f"reading the deal of a {len(deck)}-card deck")
        landings = deal_landings(args.deal, ui)
        redeal = redeal_shots(args.redeal, args.order, deck) if args.redeal else []
    except (DealError, ValueError, OSError) as exc:
        print(f"referee calibrate deck: {str(exc).splitlines()[0]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if len(landings) != len(deck):
        ui.say(f"{len(landings)} landings for a {len(deck)}-card deck: "
               + ("some cards were not dealt" if len(landings) < len(deck) else "some landings are no card"))

    def ask(i: int, guess: str) -> str:
        return ui.ask(f"landing {i + 1} ({landings[i].name}): which card is it? "
                      f"[Enter: {guess}, {NOT_A_CARD}: no card]", guess)

    ui.step(2, 3, "assigning the landings to the deck's cards, learning, checking on the re-deal")
    result = learn_deal(landings, deck, ask, redeal, progress=ui.say)
    ui.step(3, 3, "result")
    for line in result.lines():
        ui.say(line)
    folder = directory(args)
    folder.mkdir(parents=True, exist_ok=True)
    model_name = f"{args.table}.deck.npz"
    digest = result.store.save(folder / model_name)
    check = result.check
    stock = [named([str(d.card) for d in _stock(s.image)], s.card) for s in redeal]
    section = DeckProfile(
        name=args.name or f"deck-{len(deck)}", cards=deck, model=model_name, sha256=digest, usable=result.usable,
        learn_shots=sum(c is not None for c in result.settled.cards),
        held_out_shots=check.shots if check else 0,
        held_out_accuracy=round(check.right / check.shots, 4) if check and check.shots else 0.0,
        baseline_accuracy=round(stock.count("right") / len(stock), 4) if stock else 0.0,
        confused=check.confused if check else [], missing=result.missing)
    store(args, profile, path, ui, deck=section)
    return 0 if result.usable else 1


def _stock(image: np.ndarray) -> list[Detection]:
    """The stock reader's names on a re-deal shot (the before of the before/after)."""
    return recognize(upright(image))
