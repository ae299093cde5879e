"""`referee calibrate deck`: learn the deck from photos or a pile video; check on held-out shots.

With `--deal FOLDER_OR_VIDEO` it learns from one deal of the whole deck in any order
(`calibration.cmd_deal`).

With `--scenes DIR` it learns from labelled photos of several cards each
(`calibration.labelled_scenes`): every photo is learned from, and the
confidence cut-off is chosen (and reported) on a split of them.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.vision.recognize import recognize

from . import deck_cal
from .cut_choice import TARGET_PRECISION, describe
from .deck_shots import folder_shots, split, video_shots
from .decks import deck_cards
from .profile import DeckProfile
from .steps import directory, open_profile, prompter, store


def _order(text: str | None) -> list[str] | None:
    if not text:
        return None
    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8").replace("\n", ",")
    return [c.strip() for c in text.split(",") if c.strip()]


def run(args: argparse.Namespace) -> int:
    if getattr(args, "scenes", None):
        return run_scenes(args)
    if getattr(args, "deal", None):
        from .cmd_deal import run as run_deal
        return run_deal(args)
    ui = prompter(args)
    profile, path = open_profile(args)
    deck = deck_cards(args.deck)
    ui.step(1, 3, f"reading shots of a {len(deck)}-card deck")
    if args.folder:
        shots = folder_shots(args.folder)
    else:
        from hardware.camera import VideoCaptureSource
        order = _order(args.order)

        def ask(k: int, crop):  # type: ignore[no-untyped-def]
            found = recognize(crop)
            guess = str(found[0].card) if found else ""
            return ui.ask(f"card {k + 1}: which card is it?", guess) or None
        src = VideoCaptureSource(args.video)
        try:
            shots = video_shots(src.frames(), order, None if order else ask, progress=ui.say)
        finally:
            src.close()
    if args.check:
        learn, check = shots, folder_shots(args.check)
    else:
        learn, check = split(shots, args.learn)
    ui.say(f"{len(shots)} shots of {len({s.card for s in shots})} cards; learning {len(learn)}, "
           f"holding out {len(check)} to check")
    extra = sorted({s.card for s in shots} - set(deck))
    if extra:
        ui.say(f"not in this deck, ignored: {' '.join(extra)}")
        learn = [s for s in learn if s.card in deck]
        check = [s for s in check if s.card in deck]
    if not learn:
        ui.say("no shots of this deck's cards")
        return 1
    ui.step(2, 3, "learning the deck's index font and court art")
    model, report = deck_cal.calibrate(learn, check, deck, baseline=not args.no_baseline, progress=ui.say)
    ui.step(3, 3, "result")
    for line in report.lines():
        ui.say(line)
    if check:
        ui.say(f"naming at {describe(model.min_conf, model.stock_cut, model.mark_conf)} (chosen on the held-out shots)")
    folder = directory(args)
    folder.mkdir(parents=True, exist_ok=True)
    model_name = f"{args.table}.deck.npz"
    digest = model.save(folder / model_name)
    confidence = {c: round(r.min_confidence, 3) for c, r in report.per_card.items()}
    section = DeckProfile(
        name=args.name or f"deck-{len(deck)}", cards=deck, model=model_name, sha256=digest,
        usable=report.usable, learn_shots=report.learn_shots, held_out_shots=report.held_out_shots,
        held_out_accuracy=round(report.accuracy, 4),
        baseline_accuracy=round(report.baseline_accuracy or 0.0, 4),
        confused=report.confused, missing=report.missing, confidence=confidence)
    store(args, profile, path, ui, deck=section)
    if not report.usable:
        ui.say("the profile's deck is NOT usable: a game will not use it until every card is named right")
        return 1
    return 0


def run_scenes(args: argparse.Namespace) -> int:
    """`calibrate deck --scenes DIR`: learn a deck store from labelled multi-card photos.

    Cards labelled but not in `--deck` are learned as "not an index". The deck is
    usable when every card of it was shown and the check split reached the
    target precision. Exit 0 usable, 1 learned but not usable, 2 bad input.
    """
    from .labelled_scenes import SceneError, learn_scenes, read_scenes

    ui = prompter(args)
    try:
        deck = deck_cards(args.deck)
        profile, path = open_profile(args)
        scenes = read_scenes(args.scenes)
        extra = sorted({c for s in scenes for c in s.cards} - set(deck))
        for scene in scenes:
            scene.cards = [c for c in scene.cards if c in deck]
            scene.boxes = [b for b in scene.boxes if b[0] in deck]
        ui.step(1, 2, f"learning a {len(deck)}-card deck from {len(scenes)} labelled photos")
        if extra:
            ui.say(f"not in this deck, learned as not-a-card: {' '.join(extra)}")
        model, check = learn_scenes(scenes, progress=ui.say)
    except (SceneError, ValueError) as exc:
        print(f"referee calibrate deck: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    ui.step(2, 2, "result")
    folder = directory(args)
    folder.mkdir(parents=True, exist_ok=True)
    model_name = f"{args.table}.deck.npz"
    digest = model.save(folder / model_name)
    missing = [c for c in deck if c not in model.cards]
    usable = not missing and check is not None and check.precision >= TARGET_PRECISION
    cuts = describe(model.min_conf, model.stock_cut, model.mark_conf)
    checked = (f"check on {check.images} of them (learned from the others): recall {check.recall:.3f} precision "
               f"{check.precision:.3f} at {cuts}" if check is not None
               else "too few photos to check (4 or more needed)")
    ui.say(f"learned {len(model.cards)} cards from {len(scenes)} photos ({len(model.vectors)} rows, "
           f"{int((model.labels != '-').sum())} index rows); {checked}"
           + (f"; never shown: {' '.join(missing)}" if missing else ""))
    section = DeckProfile(
        name=args.name or f"deck-{len(deck)}", cards=deck, model=model_name, sha256=digest, usable=usable,
        learn_shots=len(scenes), held_out_shots=check.images if check is not None else 0,
        held_out_accuracy=round(check.recall, 4) if check is not None else 0.0, missing=missing)
    store(args, profile, path, ui, deck=section)
    if not usable:
        ui.say("the profile's deck is NOT usable: a game will not use it until every card is shown and named "
               f"with precision {TARGET_PRECISION} or better")
        return 1
    return 0
