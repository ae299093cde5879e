"""One default journal: `referee demo` writes it and `disputes`, `review`, `journal` and `replay --from-journal`
read it without --journal ($XDG_DATA_HOME/tabletop/demo.db, else ~/.local/share/tabletop/demo.db); each
command's --help shows it, and a command reading it by default says which file it read."""
from __future__ import annotations

from pathlib import Path

import pytest

from referee.commands import journal as journal_cmds
from referee.cli import main
from tabletop import demo
from tests.journal.test_replay_cli import dead_heat_game


@pytest.fixture
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def test_the_demo_writes_where_the_journal_commands_read(data_home: Path) -> None:
    assert demo.default_journal_path() == journal_cmds.default_journal_path() == data_home / "tabletop" / "demo.db"
    assert (data_home / "tabletop").is_dir()             # the demo makes the folder it writes to


def test_without_xdg_data_home_the_journal_is_under_the_home_folder(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for unset in ("", "relative/data"):                  # the XDG spec: a relative path is ignored
        monkeypatch.setenv("XDG_DATA_HOME", unset)
        assert journal_cmds.default_journal_path() == tmp_path / ".local" / "share" / "tabletop" / "demo.db"


def test_disputes_review_and_journal_read_the_default_and_say_so(data_home: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = demo.default_journal_path()
    game, win_id = dead_heat_game(path)
    assert main(["disputes"]) == 0
    out, err = capsys.readouterr()
    assert "slapjack" in out and f"journal {path} (the default" in err
    assert main(["disputes", str(game)]) == 0 and "takes the pile" in capsys.readouterr().out
    assert main(["review", str(game), str(win_id), "--out", str(tmp_path / "sheet.png")]) == 0
    assert (tmp_path / "sheet.png").exists() and str(path) in capsys.readouterr().err
    assert main(["journal", "check"]) == 0 and "sound" in capsys.readouterr().out
    assert main(["replay", "--from-journal", str(game)]) == 0
    assert main(["disputes", "--journal", str(tmp_path / "other.db")]) == 2      # --journal still wins
    assert "no journal at" in capsys.readouterr().err


def test_a_missing_default_journal_is_named_with_what_fills_it(data_home: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["disputes"], ["review", "1", "1", "--out", "x.png"], ["journal", "check"],
                 ["replay", "--from-journal", "1"]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and str(data_home / "tabletop" / "demo.db") in err, err
        assert "referee demo" in err and "[journal] path" in err


@pytest.mark.parametrize("argv", [["demo"], ["disputes"], ["review"], ["journal", "check"],
                                  ["journal", "export"], ["replay"], []])
def test_each_commands_help_shows_the_default_journal(argv: list[str], data_home: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    text = "".join(capsys.readouterr().out.split())       # argparse wraps long paths anywhere
    assert "$XDG_DATA_HOME/tabletop/demo.db,else~/.local/share/tabletop/demo.db" in text
    assert f"here{data_home / 'tabletop' / 'demo.db'}" in text and "[journal]path" in text
