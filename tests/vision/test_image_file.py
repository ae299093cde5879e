"""`referee recognize` on damaged, huge and wrong files: one line for that file, never a half-read picture.

`damaged_images()` (a Hypothesis strategy, also the input of bench/bench_fuzz.py's image campaign) makes a
photo-like picture and then writes it whole, cut short, with garbage in its middle, with a header that
claims a huge size, as zero bytes, as random bytes, or under the wrong extension. `contract()`: a whole
picture is read (whatever its extension); anything else is an ImageFileError of one line, and a huge one
is refused before it is decoded (the process does not grow).

Known limit, measured: garbage with no 0xFF byte in it can leave libjpeg's Huffman decoder back in step
with no warning at all (11 of 200 random runs of 16-512 bytes); such a file cannot be told from a photo
by its decoder, so the garbage here is at least 1 KB (a chunk of another file, a bad sector).
"""
from __future__ import annotations

import resource
import struct
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.vision.image_file import MAX_PIXELS, ImageFileError, image_size, read_image
from tests.conftest import ROOT

KINDS = ["whole", "truncated", "garbage", "huge", "zero", "random", "wrong-extension", "text-as-image"]


@dataclass
class Sample:
    """An image file to try: its name's extension, its bytes, and whether it must be read."""

    kind: str
    suffix: str
    data: bytes
    readable: bool

    def __repr__(self) -> str:
        return f"Sample({self.kind}, {self.suffix}, {len(self.data):,} bytes, readable={self.readable})"


def picture(seed: int, width: int = 320, height: int = 240) -> np.ndarray:
    """A photo-like picture: gradients, noise and a card's corner letter."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:height, 0:width]
    img = np.dstack([(xx * 0.8) % 256, (yy * 1.1) % 256, ((xx + yy) * 0.5) % 256]).astype(np.int16)
    img += rng.integers(-12, 12, img.shape, dtype=np.int16)
    img = np.clip(img, 0, 255).astype(np.uint8)
    cv2.putText(img, "J", (width // 3, height // 2), cv2.FONT_HERSHEY_SIMPLEX, 3, (0, 0, 200), 6)
    return img


def encoded(img: np.ndarray, ext: str) -> bytes:
    ok, buf = cv2.imencode(ext, img)
    assert ok
    return bytes(buf.tobytes())


def huge_header(fmt: str, width: int, height: int, small: bytes) -> bytes:
    """A file whose header claims `width` x `height` (a tiny PNG, a JPEG with its SOF rewritten, a BMP)."""
    if fmt == ".png":
        def chunk(tag: bytes, body: bytes) -> bytes:
            return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(b"\x00" * 4096)) + chunk(b"IEND", b""))
    if fmt == ".jpg":
        data = bytearray(small)
        i = data.index(b"\xff\xc0")
        data[i + 5:i + 9] = struct.pack(">HH", height, width)
        return bytes(data)
    return b"BM" + struct.pack("<IHHIIiiHHI", 54 + 16, 0, 0, 54, 40, width, height, 1, 24, 0) + b"\x00" * 40


@st.composite
def damaged_images(draw: st.DrawFn, kinds: tuple[str, ...] = tuple(KINDS)) -> Sample:
    """One image file, whole or broken in one of `kinds`' ways (KINDS)."""
    kind = draw(st.sampled_from(kinds))
    ext = draw(st.sampled_from([".jpg", ".png"]))
    img = picture(draw(st.integers(0, 5)), *draw(st.sampled_from([(320, 240), (160, 120), (641, 479)])))
    data = encoded(img, ext)
    if kind == "whole":
        return Sample(kind, ext, data, True)
    if kind == "truncated":
        return Sample(kind, ext, data[:int(len(data) * draw(st.floats(0.0, 0.97)))], False)
    if kind == "garbage":
        n = draw(st.integers(1024, 4096))
        at = draw(st.integers(len(data) // 4, len(data) // 2))
        junk = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).integers(0, 256, n, dtype=np.uint8).tobytes()
        return Sample(kind, ext, data[:at] + junk + data[at + n:], False)
    if kind == "huge":
        fmt = draw(st.sampled_from([".png", ".jpg", ".bmp"]))
        width, height = draw(st.sampled_from([(16000, 16000), (65535, 65535), (8000, 5001), (40001, 1000)]))
        return Sample(kind, fmt, huge_header(fmt, width, height, encoded(picture(0, 64, 48), ".jpg")), False)
    if kind == "zero":
        return Sample(kind, ext, b"", False)
    if kind == "random":
        size = draw(st.integers(1, 5000))
        return Sample(kind, ext, np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes(), False)
    if kind == "wrong-extension":
        return Sample(kind, draw(st.sampled_from([".png" if ext == ".jpg" else ".jpg", ".txt", ".gif", ""])), data, True)
    return Sample(kind, ext, draw(st.sampled_from([b"hello", b"<html></html>", b"\x89PNG", b"\xff\xd8\xff"])), False)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def contract(sample: Sample, folder: Path) -> str | None:
    """In-process through `read_image`: None when the contract holds, else what broke."""
    path = folder / f"image{sample.suffix}"
    path.write_bytes(sample.data)
    before = _peak_mb()
    try:
        image = read_image(path)
    except ImageFileError as exc:
        if sample.readable:
            return f"refused a whole picture: {exc}"
        if "\n" in str(exc) or not str(exc):
            return f"not one line: {str(exc)!r}"
        if _peak_mb() - before > 200:
            return f"grew {_peak_mb() - before:.0f} MB before refusing"
        return None
    except Exception as exc:                       # noqa: BLE001 - anything else is the failure being counted
        return f"{type(exc).__name__}: {exc}"
    if not sample.readable:
        return f"read a {sample.kind} file as a {image.shape[1]}x{image.shape[0]} picture"
    return None


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(damaged_images())
def test_a_damaged_image_is_one_line_and_a_whole_one_is_read(sample: Sample) -> None:
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        problem = contract(sample, Path(tmp))
    assert problem is None, f"{problem}: {sample!r}"


@pytest.mark.parametrize("fmt,size", [(".png", (16000, 16000)), (".jpg", (10000, 4001)), (".bmp", (7000, 7000))])
def test_the_pixel_limit_is_read_from_the_header(fmt: str, size: tuple[int, int]) -> None:
    data = huge_header(fmt, *size, encoded(picture(0, 64, 48), ".jpg"))
    assert image_size(data)[1:] == size
    assert size[0] * size[1] > MAX_PIXELS


def test_recognize_says_one_line_per_bad_file_and_reads_the_rest(tmp_path: Path) -> None:
    whole = encoded(picture(1), ".jpg")
    files = {"cut.jpg": whole[: len(whole) // 3], "huge.png": huge_header(".png", 16000, 16000, b""),
             "empty.jpg": b"", "photo.png": whole, "garbage.jpg": whole[:3000] + b"\xff\x13" * 800 + whole[4600:]}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    done = subprocess.run([sys.executable, "-m", "referee", "recognize", *sorted(files)], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    errors = done.stderr.strip().splitlines()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert [line.split(":")[0] for line in errors] == ["cut.jpg", "empty.jpg", "garbage.jpg", "huge.png"], errors
    assert "16000 x 16000 pixels is over the limit of 40 megapixels" in done.stderr
    assert "damaged JPEG" in done.stderr or "not a readable JPEG" in done.stderr
    assert done.stdout.startswith("photo.png: "), done.stdout


@pytest.mark.parametrize("ext", [".jpg", ".png", ".bmp", ".webp"])
def test_the_header_size_matches_what_opencv_decodes(ext: str) -> None:
    img = picture(3, 203, 117)
    data = encoded(img, ext)
    assert image_size(data)[1:] == (203, 117)
    assert read_image_bytes_shape(data, ext) == (117, 203, 3)


def read_image_bytes_shape(data: bytes, ext: str) -> tuple[int, ...]:
    import tempfile
    with tempfile.NamedTemporaryFile(suffix=ext) as f:
        f.write(data)
        f.flush()
        return tuple(read_image(f.name).shape)
