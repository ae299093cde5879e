"""The training script's patch re-inking touches the glyph patches only and keeps them in range."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from referee.vision.index_features import N_FEATURES, RANK_PATCH, SUIT_PATCH

pytest.importorskip("PIL", reason="the training script draws TrueType faces with Pillow (extra 'train')")
TOOL = Path(__file__).resolve().parents[2] / "tools" / "train_index_classifier.py"


@pytest.fixture(scope="module")
def tool():  # type: ignore[no-untyped-def]
    argv, sys.argv = sys.argv, [str(TOOL)]
    try:
        spec = importlib.util.spec_from_file_location("train_index_classifier", TOOL)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.argv = argv


def test_jitter_changes_glyph_patches_only_and_stays_in_range(tool) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    x = np.zeros((64, N_FEATURES), np.float32)
    rank = np.zeros((RANK_PATCH, RANK_PATCH), np.float32)
    rank[4:16, 8:11] = 1.0  # an upright bar, like a "1"
    x[:, :RANK_PATCH * RANK_PATCH] = rank.ravel()
    x[:, RANK_PATCH * RANK_PATCH:] = rng.random((64, N_FEATURES - RANK_PATCH * RANK_PATCH), dtype=np.float32)
    patches_end = RANK_PATCH * RANK_PATCH + SUIT_PATCH * SUIT_PATCH
    out = tool.jitter_patches(x, np.random.default_rng(1))
    assert out.shape == x.shape
    assert np.array_equal(out[:, patches_end:], x[:, patches_end:])  # context and geometry untouched
    assert out.min() >= 0.0 and out.max() <= 1.0 + 1e-6
    changed = np.abs(out[:, :RANK_PATCH * RANK_PATCH] - x[:, :RANK_PATCH * RANK_PATCH]).sum(1) > 0
    assert 0.3 < changed.mean() < 1.0  # about three rows in four are re-inked or moved, not all
    assert np.array_equal(x[:, :RANK_PATCH * RANK_PATCH], np.tile(rank.ravel(), (64, 1)))  # input not modified


def test_missing_font_packages_names_those_dpkg_does_not_have(tool, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the rendered validation draws every installed face: without the packages it renders other scenes
    class _Done:
        stdout = "fonts-dejavu-core install ok installed\nfonts-lato deinstall ok config-files\n"

    monkeypatch.setattr(tool.shutil, "which", lambda name: "/usr/bin/dpkg-query")
    monkeypatch.setattr(tool.subprocess, "run", lambda *a, **k: _Done())
    missing = tool.missing_font_packages()
    assert "fonts-lato" in missing and "fonts-liberation" in missing and "fonts-dejavu-core" not in missing
    monkeypatch.setattr(tool.shutil, "which", lambda name: None)
    assert tool.missing_font_packages() == []
