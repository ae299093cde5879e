"""Using a profile at the table: config values from it, and the deck's recognizer.

`apply_profile(config, profile)` returns a new, re-validated TableConfig with
the pile region, capture latency (hold-back), frame rate, pad offsets, tie
margins, debounce, wiring (pin order) and volume the profile measured. The
learned deck is not a config value: `deck_recognizer(profile, dir)` gives the
recognizer to hand to `CardPipeline(recognizer=..., min_conf=...)`.
"""
from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

from referee.config import SECTIONS, ConfigError, TableConfig, parse
from referee.vision.deck_store import DeckStore

from .profile import Profile, ProfileError


def apply_profile(config: TableConfig, profile: Profile) -> TableConfig:
    """`config` updated with what `profile` calibrated; sections not calibrated are left alone.

    Raises ConfigError when the profile was made for a different number of seats.
    """
    camera, pads, audio = config.camera, config.pads, config.audio
    if profile.camera is not None:
        c = profile.camera
        changes: dict = {}
        if c.pile:
            changes["pile"] = list(c.pile)
        if c.latency_measured and c.latency_ms > 0:
            changes["latency_ms"] = float(c.latency_ms)
        if c.fps > 0:
            changes["fps"] = float(c.fps)
        camera = replace(camera, **changes)
    if profile.pads is not None and profile.pads.offsets_us:
        p = profile.pads
        seats = config.game.players
        if len(p.offsets_us) != seats:
            raise ConfigError(f"profile {profile.table}: pads calibrated for {len(p.offsets_us)} seats, "
                              f"the game has {seats}")
        changes = {"offsets_us": list(p.offsets_us), "tie_margin_us": list(p.tie_margin_us) or [0] * seats}
        if p.debounce_ms > 0:
            changes["debounce_ms"] = float(p.debounce_ms)
        if p.wiring and p.wiring != list(range(seats)):
            for key in ("pins", "electrodes"):     # seat s's pad is on the input seat wiring[s] was given
                old = getattr(pads, key)
                if len(old) == seats:
                    changes[key] = [old[i] for i in p.wiring]
        pads = replace(pads, **changes)
    if profile.audio is not None:
        audio = replace(audio, volume=profile.audio.volume)
    updated = replace(config, camera=camera, pads=pads, audio=audio)
    data = {name: asdict(getattr(updated, name)) for name in SECTIONS}
    return parse(data, source=f"{config.source} + profile {profile.table}")


def deck_recognizer(profile: Profile, directory: str | Path) -> DeckStore | None:
    """The learned deck's recognizer, or None when the profile has no usable deck."""
    deck = profile.deck
    if deck is None or not deck.usable:
        return None
    try:
        return DeckStore.load(Path(directory) / deck.model, sha256=deck.sha256)
    except (OSError, ValueError) as exc:
        raise ProfileError(f"[deck] model: {exc}") from None
