"""Talking to the person calibrating: prompts and progress in a terminal, or scripted answers.

`Terminal` prints and reads stdin; `Scripted` takes its answers from a list
(tests, `--yes`) and never blocks. Both print progress the same way, so a
recorded run reads like a live one.
"""
from __future__ import annotations

import sys
from typing import Sequence, TextIO


class Prompter:
    """Base: `say` a line, `ask` a question with a default, `confirm` yes/no, `wait` for Enter."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def step(self, n: int, total: int, what: str) -> None:
        self.say(f"[{n}/{total}] {what}")

    def ask(self, question: str, default: str = "") -> str:
        raise NotImplementedError

    def confirm(self, question: str, default: bool = True) -> bool:
        answer = self.ask(f"{question} [{'Y/n' if default else 'y/N'}]", "y" if default else "n").strip().lower()
        return default if not answer else answer.startswith("y")

    def wait(self, what: str) -> None:
        self.ask(f"{what} (Enter when ready)")

    @property
    def interactive(self) -> bool:
        return False


class Terminal(Prompter):
    """A person at a terminal."""

    def __init__(self, out: TextIO | None = None, inp: TextIO | None = None) -> None:
        super().__init__(out)
        self.inp = inp or sys.stdin

    def ask(self, question: str, default: str = "") -> str:
        print(f"{question} ", end="", file=self.out, flush=True)
        line = self.inp.readline()
        if not line:                       # end of input: take the default
            print("", file=self.out)
            return default
        return line.strip() or default

    @property
    def interactive(self) -> bool:
        return True


class Scripted(Prompter):
    """Answers from a list; once it runs out, every question takes its default."""

    def __init__(self, answers: Sequence[str] = (), out: TextIO | None = None) -> None:
        super().__init__(out)
        self.answers = list(answers)
        self.asked: list[str] = []

    def ask(self, question: str, default: str = "") -> str:
        self.asked.append(question)
        answer = self.answers.pop(0) if self.answers else default
        self.say(f"{question} {answer}")
        return answer or default
