"""The feature rows the index readers see (`index_detect.features`)."""
from __future__ import annotations

import cv2
import numpy as np

from referee.vision.index_detect import N_FEATURES, blur3, features, find_blobs


def test_the_batch_blur_is_opencvs_gaussian_blur_bit_for_bit() -> None:
    # the readers were trained on patches softened by cv2.GaussianBlur one at a time; the batch must not differ
    rng = np.random.default_rng(7)
    patches = (rng.random((64, 20, 20)) * 256).astype(np.uint8)
    patches[:8] = 0
    patches[8:16, 5:9] = 255  # hard edges, and ink touching the border
    patches[16:24, :, 0] = 255
    for stack in (patches, patches[:, :14, :14].copy()):
        expected = np.stack([cv2.GaussianBlur(p, (3, 3), 0) for p in stack])
        assert np.array_equal(blur3(stack), expected)


def test_an_image_without_candidates_has_no_feature_rows() -> None:
    frame = find_blobs(np.full((120, 120, 3), 235, np.uint8))
    assert features(frame, []).shape == (0, N_FEATURES)
