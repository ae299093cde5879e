"""`referee recognize [--json] [--deck STORE.npz] IMAGE...`: name the cards visible in still images.

`--deck` names cards with a learned deck store (`referee calibrate deck`)
instead of the stock model; the output is the same.

OpenCV is imported only when the command runs, so the rest of the referee
(e.g. `referee replay`) works on a machine without it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Register the `recognize` subcommand."""
    p = subparsers.add_parser("recognize", help="name the cards visible in still images")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--json", action="store_true", help="one JSON line per image")
    p.add_argument("--method", choices=("index", "index-mlp", "index-cnn", "baseline"), default="index",
                   help="index: the trained corner-index reader (an MLP and its width-filled twin, a card named "
                        "where both agree); index-mlp: the first MLP alone; index-cnn: the reader with the CNN "
                        "classifier; baseline: classic contour + templates")
    p.add_argument("--min-confidence", type=float, default=None,
                   help="report only cards at least this sure (default: the recognizer's own)")
    p.add_argument("--deck", default=None, metavar="STORE.npz",
                   help="name cards with this learned deck store (referee calibrate deck) instead of the stock model")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import cv2  # noqa: F401  (deferred: the command needs OpenCV, the referee does not)

    recognize_fn: Callable[..., list[Any]]  # the stock reader, an alternative, or a learned deck store

    if args.deck is not None:
        if args.method != "index":
            print("referee recognize: --deck replaces the index reader; it cannot be used with --method "
                  f"{args.method}", file=sys.stderr)
            return 2
        from .deck_store import DeckStore
        try:
            recognize_fn = DeckStore.load(args.deck)
        except Exception as exc:  # a missing or broken file: one line, no traceback
            print(f"referee recognize: deck store {_reason(args.deck, exc)}", file=sys.stderr)
            return 2
        kwargs = {"min_conf": args.min_confidence} if args.min_confidence is not None else {}
    elif args.method == "baseline":
        from .baseline import recognize_baseline as recognize_fn
        kwargs = {}
    elif args.method == "index-cnn":
        from .classifier import cnn_model
        from .recognize import CNN_MIN_CONFIDENCE, recognize as recognize_fn
        kwargs = {"min_conf": args.min_confidence if args.min_confidence is not None else CNN_MIN_CONFIDENCE,
                  "model": cnn_model()}
    elif args.method == "index-mlp":
        from .classifier import mlp_model
        from .recognize import MLP_MIN_CONFIDENCE, recognize as recognize_fn
        kwargs = {"min_conf": args.min_confidence if args.min_confidence is not None else MLP_MIN_CONFIDENCE,
                  "model": mlp_model()}
    else:
        from .recognize import MIN_CONFIDENCE, recognize as recognize_fn
        kwargs = {"min_conf": args.min_confidence if args.min_confidence is not None else MIN_CONFIDENCE}
    from .image_file import read_image
    cv2.setNumThreads(1)
    failures = 0
    for path in args.images:
        try:
            image = read_image(path)  # one line for a missing, huge, damaged or non-image file
            t0 = time.perf_counter()
            found = recognize_fn(image, **kwargs)
            ms = (time.perf_counter() - t0) * 1000
        except Exception as exc:  # one bad file must not end the batch
            failures += 1
            if args.json:
                print(json.dumps({"file": path, "error": str(exc)}), flush=True)
            else:
                print(f"{path}: error: {exc}", file=sys.stderr)
            continue
        if args.json:
            print(json.dumps({"file": path, "ms": round(ms, 2), "cards": [d.as_json() for d in found]}))
        else:
            names = ", ".join(f"{d.card} ({d.confidence:.2f})" for d in found) or "no card"
            print(f"{path}: {names}  [{ms:.1f} ms]")
    return 1 if failures else 0


def _reason(path: str, exc: Exception) -> str:
    """One line saying what is wrong with a deck store file."""
    if isinstance(exc, FileNotFoundError):
        return f"{path}: no such file"
    if isinstance(exc, OSError):
        return f"{path}: {exc.strerror or type(exc).__name__}"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if text.startswith(path) else f"{path}: {text}"


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry (`python -m referee.vision.cli recognize ...`), same as `referee recognize`."""
    parser = argparse.ArgumentParser(prog="referee-vision")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
