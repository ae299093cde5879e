"""The fuzz campaign of issue 38: malformed scenarios, table configs, image files and hostile HTTP requests,
then the journal's fault table.

Inputs are the tests' Hypothesis strategies (tests/rules/test_malformed.py, tests/config/test_malformed_config.py,
tests/vision/test_image_file.py, tests/web/test_fuzz_http.py) run
with a fixed seed and no example database, so the campaign is the same every run on the same Hypothesis.
Each input is "clean" when the contract holds (scenarios: exit 0/1 with JSON, or exit 2 with one line naming
the file; requests: a 4xx with one line, or a success) and "failed" otherwise. Abusive requests go to a real
server over sockets too, with its process's peak memory measured. The fault table: a read-only journal, a
full disk before and during a game, three kinds of damage, and SIGKILL mid-game 30 times.
"""
from __future__ import annotations

import asyncio
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEED = 38
SCENARIOS = 1100
REQUESTS = 320
SIGKILLS = 30
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _campaign(strategy: Any, n: int, one: Callable[[Any], str | None]) -> tuple[int, int, list[str]]:
    """Run `one` on `n` inputs drawn with the fixed seed: (tried, failed, first failures)."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    tried, failures = [0], []

    @seed(SEED)
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(item: Any) -> None:
        tried[0] += 1
        problem = one(item)
        if problem is not None:
            failures.append(problem[:200])
    run()
    return tried[0], len(failures), failures[:3]


def scenario_campaign(tmp: Path) -> list[str]:
    from tests.rules.test_malformed import contract, mutated_scenarios, replay
    path = tmp / "mutated.json"

    def one(data: bytes) -> str | None:
        path.write_bytes(data)
        try:
            code, out, err = replay(path)
        except BaseException as exc:                  # noqa: B036 - a crash is what is being counted
            return f"{type(exc).__name__}: {exc}"
        return contract(path, code, out, err)
    tried, failed, examples = _campaign(mutated_scenarios(), SCENARIOS, one)
    return [f"| scenario files (`referee replay --check`) | {tried} | {tried - failed} | {failed} |", *examples]


def http_campaign() -> list[str]:
    from referee.web.app import create_app
    from tests.web.helpers import HandTable
    from tests.web.test_fuzz_http import call, contract, hostile_requests

    def one(req: Any) -> str | None:
        table = HandTable()
        status, headers, body = asyncio.run(call(create_app(table.feed), req))
        problem = contract(status, headers, body)
        if problem is None and status >= 400 and table.calls:
            problem = f"{status} after a handler ran: {table.calls}"
        return problem
    tried, failed, examples = _campaign(hostile_requests(), REQUESTS, one)
    return [f"| HTTP requests (in-process ASGI) | {tried} | {tried - failed} | {failed} |", *examples]


# ---- abuse over real sockets, with the server's memory --------------------------------------------------
def _rss_peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _address(url: str) -> tuple[str, int]:
    host, port = url.rsplit("/", 1)[-1].split(":")
    return host, int(port)


def _send(url: str, head: bytes, body_chunks: int = 0, chunk: bytes = b"", wait_s: float = 5.0) -> int:
    """Send a head, then up to `body_chunks` chunks until the server answers; the status it answered
    (0: none, the connection was cut). Stops sending as soon as an answer is waiting, so a reset caused by
    unread data cannot swallow it."""
    reply = b""
    with socket.create_connection(_address(url), timeout=wait_s) as sock:
        try:
            sock.sendall(head)
            for _ in range(body_chunks):
                if select.select([sock], [], [], 0.02)[0]:
                    break
                sock.sendall(chunk)
        except OSError:                               # the server closed on us: that is the point
            pass
        try:
            while piece := sock.recv(65536):
                reply += piece
        except OSError:
            pass
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/1.1 ") else 0


def abuse() -> tuple[list[str], str]:
    from referee.web import serve
    from referee.web.protocol import TimedH11Protocol
    from tests.web.helpers import PIN, HandTable

    TimedH11Protocol.header_timeout_s = 2.0           # the 10 s default, shortened to keep the bench quick
    table = HandTable()
    server = serve(table.feed, port=0, state_watch_s=None).start()
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset the peak-RSS mark to now
    except OSError:
        pass
    base = _rss_peak_kb()
    url, mb = server.url, b"x" * 2**20
    json_head = "POST {} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{}Content-Length: {}\r\n\r\n"
    cases: list[tuple[str, Callable[[], int], Callable[[int], bool]]] = [
        ("500 MB declared, 64 MB sent, no PIN", lambda: _send(url, json_head.format(
            "/api/operator/pause", "", 500 * 2**20).encode(), 64, mb), lambda s: s in (403, 413)),
        ("300 MB chunked to /api/join", lambda: _send(url, b"POST /api/join HTTP/1.1\r\nHost: x\r\n"
                                                            b"Transfer-Encoding: chunked\r\n\r\n",
                                                      300, b"100000\r\n" + mb + b"\r\n"), lambda s: s == 413),
        ("set_hand cards=1e9 with the PIN", lambda: _send(url, json_head.format(
            "/api/operator/set_hand", f"X-Operator-Pin: {PIN}\r\n", 32).encode() + b'{"seat": 1, "cards": 1000000000}'),
         lambda s: s == 400),
        ('{"seat": Infinity}', lambda: _send(url, json_head.format("/api/slap", "", 18).encode() + b'{"seat": Infinity}'),
         lambda s: s == 400),
        ("JSON 2,000 deep", lambda: _send(url, json_head.format("/api/join", "", 4010).encode()
                                          + b'{"seat": ' + b"[" * 2000 + b"]" * 2000 + b"}"), lambda s: s == 400),
        ("non-ASCII PIN", lambda: _send(url, "POST /api/operator/pause HTTP/1.1\r\nHost: x\r\nX-Operator-Pin: "
                                             "２４６８\r\nContent-Length: 0\r\n\r\n".encode()), lambda s: s == 403),
        ("review id of 5,000 digits", lambda: _send(url, b"GET /api/review/games/" + b"9" * 5000
                                                    + b" HTTP/1.1\r\nHost: x\r\n\r\n"), lambda s: s == 404),
        ("300 KB request line", lambda: _send(url, b"GET /" + b"a" * 300_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
         lambda s: s == 400),
    ]
    rows, clean = [], 0
    for name, act, ok in cases:
        status = act()
        clean += ok(status)
        rows.append(f"| {name} | {status or 'closed'} | {'clean' if ok(status) else 'FAILED'} |")
    guesses = [_send(url, f"POST /api/operator/pause HTTP/1.1\r\nHost: x\r\nX-Operator-Pin: {n:04d}\r\n"
                          f"Content-Length: 0\r\n\r\n".encode()) for n in range(200)]
    locked = guesses.index(429) if 429 in guesses else None       # misses before count too (the non-ASCII PIN)
    ok_guess = locked is not None and locked <= 5 and set(guesses[:locked]) == {403} and set(guesses[locked:]) == {429}
    clean += ok_guess
    rows.append(f"| 200 PIN guesses | 403 x {locked}, then 429 | {'clean' if ok_guess else 'FAILED'} |")
    slow = [socket.create_connection(_address(url), timeout=5) for _ in range(40)]
    for s in slow:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    served = _send(url, b"GET /api/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    time.sleep(3)
    cut = 0
    for s in slow:
        s.setblocking(False)
        try:
            cut += s.recv(1) == b""
        except (BlockingIOError, ConnectionResetError) as exc:
            cut += isinstance(exc, ConnectionResetError)
        s.close()
    ok_slow = served == 200 and cut == len(slow)
    clean += ok_slow
    rows.append(f"| 40 slow heads (slowloris) | others served {served}, {cut}/40 cut after 2 s | "
                f"{'clean' if ok_slow else 'FAILED'} |")
    grown = (_rss_peak_kb() - base) / 1024
    server.stop()
    table.runtime.stop()
    tried = len(cases) + 2
    summary = f"| HTTP abuse over sockets | {tried} | {clean} | {tried - clean} |"
    return [summary, "", "| abusive request | answer | contract |", "|---|---|---|", *rows, "",
            f"Peak memory of the referee process during the abuse: +{grown:.1f} MB (target: under +100 MB)."], summary


# ---- the journal's fault table -----------------------------------------------------------------------------
def fault_table(tmp: Path) -> list[str]:
    from referee.journal import Journal, JournalDamaged, JournalWriteError, Tick
    from tests.journal.conftest import play
    from tests.journal.test_faults import flipped, garbage, read_only_runner, zeroed
    rows = []

    def child(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(ROOT / "tests/journal/fault_child.py"), *argv], capture_output=True,
                              text=True, cwd=ROOT, env=ENV, timeout=300)

    ro = tmp / "ro"
    ro.mkdir()
    Journal(ro / "j.db").close()
    runner = read_only_runner(ro)
    if runner is None:
        rows.append("| read-only folder | skipped: cannot make a folder read-only here | - |")
    else:
        done = runner([sys.executable, "-c", "import sys; from referee.journal import Journal, JournalWriteError\n"
                       "try: Journal(sys.argv[1])\nexcept JournalWriteError as e: print(e.reason)", str(ro / "j.db")])
        reader = runner([sys.executable, "-m", "referee", "disputes", "--journal", str(ro / "j.db")])
        ok = done.stdout.strip() == "read-only" and reader.returncode == 0
        rows.append(f"| read-only folder | writer refused \"{done.stdout.strip()}\", reader exit {reader.returncode} "
                    f"| {'clean' if ok else 'FAILED'} |")
        os.chmod(ro, 0o755)
    done = child(str(tmp / "pre.db"), "preflight")
    ok = done.stdout.startswith("disk full|")
    said = done.stdout.strip().split("|")[-1].split(": ", 1)[-1]
    rows.append(f"| no room before a game | \"{said}\" | {'clean' if ok else 'FAILED'} |")
    done = child(str(tmp / "mid.db"), "midgame")
    try:
        failed, summary = [json.loads(line) for line in done.stdout.splitlines()]
        ok = (failed["reason"] == "disk full" and summary["judged_while_paused"] == 0 and summary["backlog"] == 0
              and summary["rulings"] == summary["judged"])
        said = f"\"{failed['say']}\"; 0 judged while paused; {summary['events']} events, {summary['rulings']} rulings kept"
    except (ValueError, KeyError):
        ok, said = False, (done.stderr.strip().splitlines() or ["no output"])[-1][:120]
    rows.append(f"| disk fills mid-game | {said} | {'clean' if ok else 'FAILED'} |")

    whole = tmp / "whole.db"
    with Journal(whole) as journal:
        play(journal, seed=9)
        play(journal, seed=7)
        journal._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        everything = sum(journal.counts(g)[0] for g in (1, 2))
    for damage in (garbage, zeroed, flipped):
        path = tmp / f"{damage.__name__}.db"
        data = bytearray(whole.read_bytes())
        damage(data, whole)
        path.write_bytes(bytes(data))
        refused = subprocess.run([sys.executable, "-m", "referee", "disputes", "1", "--journal", str(path)],
                                 capture_output=True, text=True, cwd=ROOT, env=ENV, timeout=60)
        one_line = refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
        subprocess.run([sys.executable, "-m", "referee", "journal", "export", "--journal", str(path), "--out",
                        str(tmp / f"{damage.__name__}-saved.db")], capture_output=True, cwd=ROOT, env=ENV, timeout=60)
        try:
            with Journal(tmp / f"{damage.__name__}-saved.db") as saved:
                kept = sum(saved.counts(g.id)[0] for g in saved.games())
        except (JournalDamaged, JournalWriteError, OSError) as exc:
            kept, one_line = 0, False
            print(exc, file=sys.stderr)
        rows.append(f"| damage: {damage.__name__} | refused in one line (exit {refused.returncode}); export kept "
                    f"{kept}/{everything} events | {'clean' if one_line and kept > 0 else 'FAILED'} |")
    rows.append(sigkills(tmp, Tick))
    return ["| fault | what happened | contract |", "|---|---|---|", *rows]


def sigkills(tmp: Path, tick: type) -> str:
    """SIGKILL the recording child mid-game SIGKILLS times: no committed event or ruling lost, resume goes on."""
    from referee.journal import Journal, Recorder, ResumeMismatch
    from tests.journal.feed import stream
    kept = 0
    for i in range(SIGKILLS):
        path = tmp / f"kill{i}.db"
        child = subprocess.Popen([sys.executable, str(ROOT / "tests/journal/child_game.py"), str(path),
                                  str(20 + 9 * i), "0.003"], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=ENV)
        assert child.stdout is not None
        lines: list[str] = []
        while (line := child.stdout.readline()) and not (line.strip() == "ready"):
            lines.append(line)
        for _ in range(3 + i % 7):
            lines.append(child.stdout.readline())
        os.kill(child.pid, signal.SIGKILL)
        lines += child.stdout.read().splitlines()
        child.wait(5)
        progress = [tuple(int(x) for x in line.split()) for line in lines if line.strip() and line[0].isdigit()]
        last_event, rulings = progress[-1]
        with Journal(path) as journal:
            (game,) = journal.games()
            records = journal.events(game.id)
            sent = [s.event for s in stream() if s.event is not None]
            got = [r.event for r in records if not isinstance(r.event, tick)]
            try:
                resumed = Recorder.resume(journal, game.id)
                nxt = sent[len(got)]
                resumed.submit(nxt, "pads", None)
                carried_on = journal.events(game.id)[-1].event == nxt
            except (ResumeMismatch, IndexError):
                carried_on = False
            kept += (max(r.id for r in records) >= last_event and len(journal.rulings(game.id)) >= rulings
                     and got == sent[:len(got)] and carried_on)
    return (f"| SIGKILL mid-game x {SIGKILLS} | nothing committed lost and resume carried on in {kept}/{SIGKILLS} "
            f"| {'clean' if kept == SIGKILLS else 'FAILED'} |")


def run(only: set[str] | None = None) -> list[str]:
    """The whole campaign, or only some of it (`--only configs,images`: scenarios, configs, images, http,
    abuse, faults)."""
    from bench import fuzz_files
    tmp = Path(tempfile.mkdtemp(prefix="fuzz-"))
    want = only or {"scenarios", "configs", "images", "http", "abuse", "faults"}
    nothing: list[str] = []
    try:
        start = time.monotonic()
        scenarios = scenario_campaign(tmp) if "scenarios" in want else nothing
        configs = fuzz_files.config_campaign(tmp) if "configs" in want else nothing
        images = fuzz_files.image_campaign(tmp) if "images" in want else nothing
        requests = http_campaign() if "http" in want else nothing
        abuse_lines, abuse_summary = abuse() if "abuse" in want else (nothing, "")
        faults = fault_table(tmp) if "faults" in want else nothing
        took = time.monotonic() - start
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    summaries = [*scenarios[:1], *configs[:2], *images[:2], *requests[:1], *([abuse_summary] if abuse_summary else [])]
    return ["## Fuzz campaign and fault table (issue 38)", "",
            f"Fixed seed {SEED} (Hypothesis, no example database); target: every input clean. Took {took:.0f} s.", "",
            "| kind | tried | clean | failed |", "|---|---|---|---|", *summaries, "",
            *scenarios[1:], *configs[2:], *images[2:], *requests[1:], *abuse_lines[2:], "", *faults, ""]


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated parts: scenarios, configs, images, http, abuse, faults")
    args = parser.parse_args()
    print("\n".join(run(set(args.only.split(",")) if args.only else None)))
