"""Deck calibration: learn a deck from shots of known cards, check it on held-out shots.

The profile is marked usable only when every card of the deck was learned AND
named correctly (as the top card, confidently) on every held-out shot of it, and
no held-out shot also named another card. The store's cut-offs are chosen on the
held-out shots (`choose_cut`: its own, and the stock reader's, whose sure readings
come first): at the table every card named is a card on the pile, and a store left
at its default 0.5 named a second, wrong card (court art, pips) on 22 of 144
held-out Piatnik shots; at the chosen cut, none. Held-out shots are never learned
from; the stock recognizer is scored on the same held-out shots for the
before/after comparison.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from referee.vision.deck_store import DeckStore, Shot, upright
from referee.vision.recognize import Detection, recognize

from .cut_choice import CutCheck, StoreLook, apply, choose_cuts

Recognizer = Callable[..., list[Detection]]


@dataclass
class CardResult:
    """How one card fared on its held-out shots."""

    card: str
    shots: int = 0
    correct: int = 0
    min_confidence: float = 1.0
    named_as: Counter = field(default_factory=Counter)   # wrong names given (or "nothing")
    also_named: Counter = field(default_factory=Counter)  # other cards named beside it on its shots


@dataclass
class DeckReport:
    """Learning and checking, per card and overall."""

    deck: list[str]
    learned: list[str]
    per_card: dict[str, CardResult]
    accuracy: float                  # held-out shots named right / held-out shots
    baseline_accuracy: float | None  # the stock recognizer on the same shots
    learn_shots: int
    held_out_shots: int

    @property
    def missing(self) -> list[str]:
        """Deck cards not learned, or learned but never checked on a held-out shot."""
        return [c for c in self.deck if c not in self.learned or self.per_card.get(c, CardResult(c)).shots == 0]

    @property
    def confused(self) -> list[str]:
        return ([f"{r.card} as {wrong}" for r in self.per_card.values() for wrong in sorted(r.named_as)]
                + [f"{r.card} also {other}" for r in self.per_card.values() for other in sorted(r.also_named)])

    @property
    def usable(self) -> bool:
        return not self.missing and all(r.correct == r.shots and not r.also_named
                                        for r in self.per_card.values() if r.card in self.deck)

    def lines(self) -> list[str]:
        """What a person reads at the end of `calibrate deck`."""
        out = [f"learned {len(self.learned)} cards from {self.learn_shots} shots; "
               f"checked on {self.held_out_shots} held-out shots"]
        if self.baseline_accuracy is not None:
            out.append(f"stock recognizer on those shots: {self.baseline_accuracy:.1%}")
        out.append(f"after calibration: {self.accuracy:.1%}")
        for r in sorted(self.per_card.values(), key=lambda r: self.deck.index(r.card) if r.card in self.deck else 999):
            mark = "ok " if r.correct == r.shots and r.shots else "BAD"
            wrong = f"  named as {', '.join(f'{k} x{v}' for k, v in r.named_as.items())}" if r.named_as else ""
            if r.also_named:
                wrong += f"  also named {', '.join(f'{k} x{v}' for k, v in r.also_named.items())}"
            out.append(f"  {mark} {r.card:>5}: {r.correct}/{r.shots} held-out, lowest confidence "
                       f"{r.min_confidence:.2f}{wrong}")
        if self.missing:
            out.append(f"missing (show these cards, twice or more each): {' '.join(self.missing)}")
        out.append("deck USABLE" if self.usable else "deck NOT usable yet")
        return out


def choose_cut(store: DeckStore, check: Sequence[Shot]) -> CutCheck:
    """The store's cut-offs (`cut_choice.choose_cuts`: its own and the stock reader's) chosen on the held-out
    shots, counting every name (a shot shows one card; any other card named is wrong)."""
    return choose_cuts(StoreLook.of(store, upright(shot.image), Counter({shot.card: 1})) for shot in check)


def score(recognizer: Recognizer, shots: Sequence[Shot], **kw: object) -> dict[str, CardResult]:
    """Per card: held-out shots, how many named right, lowest confidence when right, wrong names, and other
    cards named beside it."""
    results: dict[str, CardResult] = {}
    for shot in shots:
        r = results.setdefault(shot.card, CardResult(shot.card))
        r.shots += 1
        found = recognizer(upright(shot.image), **kw)
        name, conf = (str(found[0].card), found[0].confidence) if found else (None, 0.0)
        r.also_named.update(str(d.card) for d in found[1:] if str(d.card) != shot.card)
        if name == shot.card:
            r.correct += 1
            r.min_confidence = min(r.min_confidence, conf)
        else:
            r.named_as[name or "nothing"] += 1
            r.min_confidence = 0.0
    return results


def accuracy(results: dict[str, CardResult]) -> float:
    n = sum(r.shots for r in results.values())
    return sum(r.correct for r in results.values()) / n if n else 0.0


def calibrate(learn: Sequence[Shot], check: Sequence[Shot], deck: Sequence[str], *,
              baseline: bool = True, progress: Callable[[str], None] | None = None) -> tuple[DeckStore, DeckReport]:
    """Learn from `learn`, name every `check` shot, compare with the stock recognizer."""
    if progress:
        progress(f"learning {len(learn)} shots of {len({s.card for s in learn})} cards...")
    store = DeckStore.fit(learn)
    if progress:
        progress(f"checking {len(check)} held-out shots...")
    if check:
        chosen = choose_cut(store, check)
        apply(store, chosen)
    results = score(store, check)
    base = accuracy(score(recognize, check)) if baseline and check else None
    learned = sorted({s.card for s in learn})
    report = DeckReport(list(deck), learned, results, accuracy(results), base, len(learn), len(check))
    return store, report
