"""`referee doctor`'s verdicts: one `Check` per line, ok / warn / FAIL with a fix."""
from __future__ import annotations

from dataclasses import dataclass

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass(frozen=True)
class Check:
    """One verdict: `name` of the check, `verdict` ok/warn/FAIL, what was found, and how to fix it."""

    name: str
    verdict: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        """The one-line human form: verdict, name, detail, and the fix when there is one."""
        text = f"{self.verdict:<4}  {self.name:<11} {self.detail}"
        return f"{text} -- fix: {self.fix}" if self.fix and self.verdict != OK else text
