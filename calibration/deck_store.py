"""The per-deck index store, as calibration knows it (it lives in `referee.vision.deck_store`,
where `referee recognize --deck` can load it without reaching into `calibration/`)."""
from __future__ import annotations

from referee.vision.deck_store import (GEOM_WEIGHT, K, NOT_INDEX, STORE_VERSION, DeckStore, Labelled, Shot,
                                       candidates, embed, index_mask, label_shot, relit, upright)

__all__ = ["GEOM_WEIGHT", "K", "NOT_INDEX", "STORE_VERSION", "DeckStore", "Labelled", "Shot", "candidates",
           "embed", "index_mask", "label_shot", "relit", "upright"]
