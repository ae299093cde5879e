"""A wheel built from the repository, installed in a fresh venv, recognises a card: the package data
(the vision models, the dashboard's static files) travels with a non-editable install.

How it runs without network: the wheel is built with the environment's own setuptools
(`--no-build-isolation`; the test extra asks for setuptools>=77, the version the build-system needs),
from a copy of the sources so the build leaves nothing in the repository. The fresh venv has no
system site-packages and the project is installed into it with `pip --python ... --no-deps --no-index`.
Its dependencies cannot be downloaded offline, so they are lent from the environment the tests run in:
only the distributions the wheel's own metadata requires (with the `vision` extra, and what those
require in turn), each linked file by file into one folder that a .pth file adds to the fresh venv's
path. The editable install of the repository is not among them, so `referee` can only come from the
wheel, and a dependency the wheel forgets to declare fails here as it would for a user.
"""
from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

SOURCES = ("pyproject.toml", "README.md", "referee", "hardware", "tabletop", "calibration")
EXTRAS = ("vision",)


def run(args: list[str | Path], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env, timeout=300, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done


def build_wheel(tmp: Path) -> Path:
    version = metadata.version("setuptools")
    if int(version.split(".")[0]) < 77:
        pytest.fail(f"setuptools {version} cannot build this project (it needs >= 77, in the test extra): "
                    "run `make setup` or `pip install -e '.[test]'` again")
    src = tmp / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=skip)
        else:
            shutil.copy2(path, src / name)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
         "-w", tmp / "dist", src])
    (wheel,) = (tmp / "dist").glob("tabletop_referee-*.whl")
    return wheel


def requirements_of(wheel: Path) -> list[str]:
    """The wheel's Requires-Dist lines."""
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(name).decode()
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


def dependency_closure(requires: list[str], extras: tuple[str, ...]) -> list[metadata.Distribution]:
    """The installed distributions `requires` (with `extras`) needs, and what they need in turn."""
    from packaging.requirements import Requirement   # pytest's own dependency
    from packaging.utils import canonicalize_name

    wanted = [(r, extras) for r in requires]
    found: dict[str, metadata.Distribution] = {}
    while wanted:
        line, with_extras = wanted.pop()
        req = Requirement(line)
        if req.marker is not None and not any(req.marker.evaluate({"extra": e}) for e in ("", *with_extras)):
            continue
        key = canonicalize_name(req.name)
        if key in found:
            continue
        dist = metadata.distribution(req.name)
        found[key] = dist
        wanted += [(r, tuple(req.extras)) for r in dist.requires or []]
    return list(found.values())


def lend(dists: list[metadata.Distribution], folder: Path) -> None:
    """Link each distribution's top-level files and folders into `folder` (scripts outside are left out)."""
    folder.mkdir()
    for dist in dists:
        tops = {f.parts[0] for f in dist.files or [] if f.parts and f.parts[0] != ".."}
        for top in tops:
            source, target = Path(str(dist.locate_file(top))), folder / top
            if source.exists() and not target.exists():
                target.symlink_to(source, target_is_directory=source.is_dir())


def render_card(path: Path) -> None:
    import cv2

    from referee.core.cards import Card
    from referee.vision import render

    img = render.random_table(random.Random(3), (480, 480))
    render.composite(img, render.Placement(Card.parse("KH"), (240, 240), 170, 20, render.STYLES["classic"]))
    assert cv2.imwrite(str(path), img)


def test_wheel_installed_in_a_fresh_venv_recognises_a_card(tmp_path: Path) -> None:
    pytest.importorskip("cv2", reason="the vision extra (OpenCV) renders the card")
    wheel = build_wheel(tmp_path)
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv])
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--quiet", wheel])
    purelib = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    lend(dependency_closure(requirements_of(wheel), EXTRAS), tmp_path / "deps")
    (purelib / "lent_dependencies.pth").write_text(f"{tmp_path / 'deps'}\n")

    where = run([python, "-c", "import referee, pathlib; print(pathlib.Path(referee.__file__).resolve())"],
                cwd=tmp_path).stdout.strip()
    assert Path(where).is_relative_to(purelib.resolve()), where
    models = sorted(p.name for p in (purelib / "referee" / "vision" / "models").iterdir())
    assert models == ["index_cnn.onnx", "index_mlp.npz", "index_mlp_fill.npz"]

    card = tmp_path / "card.png"
    render_card(card)
    for method in ("index", "index-cnn"):
        out = run([venv / "bin" / "referee", "recognize", "--json", "--method", method, card], cwd=tmp_path).stdout
        read = json.loads(out.splitlines()[0])
        assert [c["card"] for c in read["cards"]] == ["KH"], (method, read)
