"""The whole-number area shrink gives OpenCV's INTER_AREA pixels, on every size it takes and on real photos."""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.vision.area_shrink import axis_plan, shrink_area
from referee.vision.working_size import prepare

from .conftest import DATA, labelled


def _opencv(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """OpenCV's INTER_AREA in float32, rounded (what `prepare` always gave), shaped like the input (OpenCV drops a
    single channel axis). On uint8 OpenCV's whole-ratio path rounds exact halves up instead: only an odd
    divisor, which has none, gives the same pixels there too (checked on the camera sizes below)."""
    small = cv2.resize(image.astype(np.float32), size, interpolation=cv2.INTER_AREA)
    return cv2.convertScaleAbs(small).reshape(size[::-1] + image.shape[2:])


@st.composite
def shrinks(draw: st.DrawFn) -> tuple[int, int, int, int]:
    """(h, w, dh, dw) whose ratios are a / b with small a: the sizes the whole-number path takes, and some it
    leaves to OpenCV (an even a_x * a_y)."""
    sides = []
    for _ in range(2):
        a = draw(st.integers(1, 16))
        b = draw(st.integers(1, a).filter(lambda b, a=a: math.gcd(a, b) == 1))
        g = draw(st.integers(1, 40))
        sides.append((g * a, g * b))
    (h, dh), (w, dw) = sides
    return h, w, dh, dw


@settings(max_examples=150, deadline=None)
@given(shrinks(), st.sampled_from([(), (1,), (2,), (3,), (4,)]), st.integers(0, 2 ** 32 - 1))
def test_every_shrink_gives_opencvs_pixels(size: tuple[int, int, int, int], channels: tuple[int, ...],
                                           seed: int) -> None:
    h, w, dh, dw = size
    image = np.random.default_rng(seed).integers(0, 256, (h, w) + channels, dtype=np.uint8)
    got = shrink_area(image, (dw, dh))
    assert got.shape == (dh, dw) + channels and got.dtype == np.uint8
    assert np.array_equal(got, _opencv(image, (dw, dh)))


@pytest.mark.parametrize("shape, size", [((720, 720, 3), (384, 384)), ((480, 640, 3), (384, 288)),
                                         ((720, 1280, 3), (384, 216)), ((720, 720), (384, 384)),
                                         ((301, 401, 3), (233, 97))],
                         ids=["bench photo", "VGA frame", "even divisor: OpenCV", "grey", "no short period"])
def test_camera_sizes_give_opencvs_pixels_even_at_full_white(shape: tuple[int, ...], size: tuple[int, int]) -> None:
    rng = np.random.default_rng(7)
    for image in (rng.integers(0, 256, shape, dtype=np.uint8), np.full(shape, 255, np.uint8)):
        assert np.array_equal(shrink_area(image, size), _opencv(image, size))
        divisor = math.prod(n // math.gcd(n, m) for n, m in zip(shape[:2], size[::-1]))
        if divisor % 2:   # no exact halves: OpenCV's uint8 path agrees
            uint8 = cv2.resize(image, size, interpolation=cv2.INTER_AREA).reshape(size[::-1] + shape[2:])
            assert np.array_equal(shrink_area(image, size), uint8)


def test_a_plan_shares_each_output_pixel_out_whole() -> None:
    periods, a, b, terms = axis_plan(720, 384)
    assert (periods, a, b) == (48, 15, 8)
    assert all(sum(k for _, k in parts) == a for parts in terms)       # every output pixel weighs a / a
    assert sum(k for parts in terms for _, k in parts) == a * b
    assert axis_plan(384, 720) is None                                  # an enlargement is OpenCV's


def test_real_photos_are_shrunk_to_opencvs_pixels() -> None:
    names = sorted(labelled("scenes-bicycle"))[:20]
    for name in names:
        image = cv2.imread(str(DATA / "scenes-bicycle" / name))
        small, scale = prepare(image)
        size = (round(image.shape[1] * scale), round(image.shape[0] * scale))
        assert np.array_equal(small, cv2.resize(image, size, interpolation=cv2.INTER_AREA)), name
