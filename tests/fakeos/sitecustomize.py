"""Stand-in for the Pi's board revision file, for processes started with tests/fakeos on PYTHONPATH.

gpiozero finds out which Pi it runs on by reading the 4 big-endian bytes of
/proc/device-tree/system/linux,revision (else the "Revision" line of
/proc/cpuinfo): gpiozero/pins/local.py, get_pi_revision(). Off a Pi that file
does not exist, so this module makes gpiozero's own get_pi_revision read the
world's `board.revision` (tests/fakeos/world.py) as the content of that file;
every other path opens as usual. Python imports `sitecustomize` at start-up;
in-process tests call `install()` after putting tests/fakeos on sys.path.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import io
import struct
import sys
import types
from typing import Any, Sequence

DEVICE_TREE_REVISION = "/proc/device-tree/system/linux,revision"
_MODULE = "gpiozero.pins.local"


class _BoardFiles(types.ModuleType):
    """The `io` module as gpiozero.pins.local sees it: the revision file comes from the world."""

    def __init__(self) -> None:
        super().__init__("io")

    def __getattr__(self, name: str) -> Any:
        return getattr(io, name)

    @staticmethod
    def open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if str(file) == DEVICE_TREE_REVISION:
            import world
            data = struct.pack(">L", world.world().revision)
            return io.BytesIO(data) if "b" in mode else io.StringIO(data.decode("latin-1"))
        return io.open(file, mode, *args, **kwargs)


def _patch(module: types.ModuleType) -> None:
    module.io = _BoardFiles()  # type: ignore[attr-defined]


class _Finder(importlib.abc.MetaPathFinder):
    """Patches gpiozero.pins.local right after it is imported."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> Any:
        if fullname != _MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_and_patch(module: types.ModuleType) -> None:
            exec_module(module)
            _patch(module)
        loader.exec_module = exec_and_patch  # type: ignore[method-assign]
        return spec


def install() -> None:
    """Make gpiozero read the world's board revision (idempotent)."""
    if _MODULE in sys.modules:
        _patch(sys.modules[_MODULE])
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


install()
