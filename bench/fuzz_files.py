"""Issue 38's fuzz campaigns over files: malformed table configs and damaged image files (bench_fuzz runs them).

Inputs are the tests' Hypothesis strategies (tests/config/test_malformed_config.py, tests/vision/test_image_file.py)
with bench_fuzz's fixed seed. The bulk runs in-process (the config's parse and `referee run`'s preflight; the
image reader), a sample as the real commands (`referee run --config F --check`, `referee recognize`). Clean:
refused in one line naming the key or the file's fault, nothing created; a valid input still accepted.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

CONFIGS = 320                    # in-process (parse + `referee run`'s preflight), then a sample as real commands
CONFIG_COMMANDS = 20
IMAGES = 80                      # in-process (read_image), then a sample through `referee recognize`
IMAGE_COMMANDS = 8


def _kinds(counts: dict[str, list[int]]) -> str:
    """"truncated 9/9, garbage 7/8": clean of tried per kind of input."""
    return ", ".join(f"{kind} {clean}/{tried}" for kind, (tried, clean) in sorted(counts.items()))


def _counted(one: Callable[[Any], str | None], kind_of: Callable[[Any], str],
             counts: dict[str, list[int]]) -> Callable[[Any], str | None]:
    def counted(item: Any) -> str | None:
        problem = one(item)
        tally = counts.setdefault(kind_of(item), [0, 0])
        tally[0] += 1
        tally[1] += problem is None
        return problem
    return counted


def config_campaign(tmp: Path) -> list[str]:
    """Malformed table configs: refused in one line naming the key, nothing created (tests/config)."""
    from bench.bench_fuzz import _campaign
    from tests.config.test_malformed_config import check_command, contract, malformed_configs
    made = [0]

    def fresh() -> Path:
        made[0] += 1
        folder = tmp / f"config{made[0]}"
        folder.mkdir()
        return folder

    def kind_of(case: Any) -> str:
        return "valid" if not case.bad else "journal path" if case.journal else "bad key"

    counts: dict[str, list[int]] = {}
    tried, failed, examples = _campaign(malformed_configs(), CONFIGS,
                                        _counted(lambda case: contract(case, fresh()), kind_of, counts))
    c_tried, c_failed, c_examples = _campaign(malformed_configs(), CONFIG_COMMANDS,
                                              lambda case: check_command(case, fresh()))
    return [f"| table configs (in-process: parse + preflight; {_kinds(counts)}) | {tried} | {tried - failed} | {failed} |",
            f"| table configs (`referee run --config F --check`, subprocess) | {c_tried} | {c_tried - c_failed} "
            f"| {c_failed} |", *examples, *c_examples]


def image_campaign(tmp: Path) -> list[str]:
    """Damaged, huge and mislabelled image files: one line each, a whole picture still read (tests/vision)."""
    from bench.bench_fuzz import ENV, ROOT, _campaign
    from tests.vision.test_image_file import KINDS, contract, damaged_images
    counts: dict[str, list[int]] = {}
    tried = failed = 0
    examples: list[str] = []
    for kind in KINDS:                             # each kind as often (a few have fewer distinct files)
        n, bad, some = _campaign(damaged_images((kind,)), IMAGES // len(KINDS),
                                 _counted(lambda sample: contract(sample, tmp), lambda s: s.kind, counts))
        tried, failed, examples = tried + n, failed + bad, examples + some

    def command(sample: Any) -> str | None:
        path = tmp / f"photo{sample.suffix}"
        path.write_bytes(sample.data)
        done = subprocess.run([sys.executable, "-m", "referee", "recognize", str(path)], capture_output=True,
                              text=True, cwd=ROOT, env=ENV, timeout=120)
        if "Traceback" in done.stderr or done.returncode not in (0, 1):
            return f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
        if done.returncode != (0 if sample.readable else 1):
            return f"{sample!r}: exit {done.returncode}"
        if not sample.readable and len(done.stderr.strip().splitlines()) != 1:
            return f"{sample!r}: not one line: {done.stderr[:200]!r}"
        return None
    c_tried, c_failed, c_examples = _campaign(damaged_images(), IMAGE_COMMANDS, command)
    return [f"| image files (in-process `read_image`; {_kinds(counts)}) | {tried} | {tried - failed} | {failed} |",
            f"| image files (`referee recognize`, subprocess) | {c_tried} | {c_tried - c_failed} | {c_failed} |",
            *examples, *c_examples]
