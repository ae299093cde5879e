"""Server-sent events from a `TableFeed` subscription.

The feed hands each viewer a thread-safe bounded queue; this bridges it to an
async generator by waiting on the queue in a worker thread one second at a
time (so a closing server or a gone browser ends the stream promptly). A burst
of updates goes out as one write, and frame notices in it are coalesced to the
newest: the page only ever needs the latest camera frame.
"""
from __future__ import annotations

import json
import queue
import threading
import time
from typing import Any, AsyncIterator

from starlette.concurrency import run_in_threadpool

from ..table.live import TableFeed

KEEPALIVE_S = 15.0


def encode(message: dict[str, Any]) -> str:
    """One SSE event: `event: <type>` and the JSON on one `data:` line."""
    data = json.dumps(message, separators=(",", ":"), default=str)
    return f"event: {message.get('type', 'message')}\ndata: {data}\n\n"


def _get(q: "queue.Queue[dict[str, Any]]", timeout_s: float) -> dict[str, Any] | None:
    try:
        return q.get(timeout=timeout_s)
    except queue.Empty:
        return None


def drain(first: dict[str, Any], q: "queue.Queue[dict[str, Any]]") -> list[dict[str, Any]]:
    """`first` and whatever else is queued, with only the newest frame notice kept (in its place)."""
    batch = [first]
    while True:
        try:
            batch.append(q.get_nowait())
        except queue.Empty:
            break
    last_frame = max((i for i, m in enumerate(batch) if m.get("type") == "frame"), default=-1)
    return [m for i, m in enumerate(batch) if m.get("type") != "frame" or i == last_frame]


async def event_stream(feed: TableFeed, closing: threading.Event,
                       poll_s: float = 1.0) -> AsyncIterator[str]:
    """Yield SSE text for one viewer until the server closes (the caller ends it on disconnect)."""
    q = feed.subscribe()
    try:
        yield "retry: 2000\n\n"
        if feed.frame_jpeg:                  # a new viewer gets the current frame straight away
            yield encode({"type": "frame", "overlay": feed.frame_overlay})
        quiet_since = time.monotonic()
        while not closing.is_set():
            first = await run_in_threadpool(_get, q, poll_s)
            if first is None:
                if time.monotonic() - quiet_since > KEEPALIVE_S:
                    quiet_since = time.monotonic()
                    yield ": keepalive\n\n"
                continue
            quiet_since = time.monotonic()
            yield "".join(encode(m) for m in drain(first, q))
    finally:
        feed.unsubscribe(q)
