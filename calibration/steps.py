"""What every calibration step shares: the prompter, the profile, the table config."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from referee.config import TableConfig, load as load_config

from .profile import Profile, load_or_new, profile_dir, save, with_section
from .ui import Prompter, Scripted, Terminal


def prompter(args: argparse.Namespace) -> Prompter:
    if args.yes or not sys.stdin.isatty():
        return Scripted()
    return Terminal()


def table_config(args: argparse.Namespace) -> TableConfig:
    return load_config(args.config) if args.config else TableConfig()


def open_profile(args: argparse.Namespace) -> tuple[Profile, Path]:
    return load_or_new(args.table, args.profile_dir)


def store(args: argparse.Namespace, profile: Profile, path: Path, ui: Prompter, **section: object) -> Profile:
    updated = with_section(profile, **section)
    save(updated, path)
    ui.say(f"saved {', '.join(section)} to {path}")
    return updated


def directory(args: argparse.Namespace) -> Path:
    return profile_dir(args.profile_dir)
