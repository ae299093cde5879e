"""Evidence for disputes: the camera frames behind each slap decision, kept in the journal.

The keeper holds the last few seconds of frames (with their capture stamps);
when a slap is ruled it stores the frame that first showed the card and the
frame nearest each pad's first contact, as JPEGs linked to the ruling.
"""
from __future__ import annotations

import bisect
import threading
from collections import deque
from typing import Any

from referee.core.rulings import Ruling

SLAP_RULINGS = {"wins_pile", "picks_up", "false_slap", "slap_again"}


class EvidenceKeeper:
    """A ring buffer of recent frames and an observer that files them with rulings."""

    def __init__(self, recorder: Any, *, seconds: float = 4.0, max_frames: int = 150, quality: int = 75) -> None:
        self.recorder = recorder
        self.window_ns = int(seconds * 1e9)
        self.quality = quality
        self._frames: deque[tuple[int, Any]] = deque(maxlen=max_frames)
        self._lock = threading.Lock()
        self.stored = 0

    def add_frame(self, frame: Any, t_ns: int) -> None:
        """Called for every camera frame (any thread); frames arrive in capture order."""
        with self._lock:
            self._frames.append((t_ns, frame))
            while self._frames and t_ns - self._frames[0][0] > self.window_ns:
                self._frames.popleft()

    def _nearest(self, t_ns: int, *, after: bool = False) -> tuple[int, Any] | None:
        with self._lock:
            frames = list(self._frames)
        if not frames:
            return None
        times = [t for t, _ in frames]
        i = bisect.bisect_left(times, t_ns)
        if after:
            return frames[i] if i < len(frames) else None
        candidates = [frames[j] for j in (i - 1, i) if 0 <= j < len(frames)]
        return min(candidates, key=lambda f: abs(f[0] - t_ns))

    def __call__(self, ruling: Ruling) -> None:
        if ruling.kind not in SLAP_RULINGS or ruling.kind == "picks_up" and ruling.get("reason") not in (
                "last", "false_slap", "flinch"):
            return
        ruling_id = self._ruling_id(ruling)
        if ruling_id is None:
            return
        card_t = ruling.evidence.get("card_t_ns")
        wanted: list[tuple[str, int, bool]] = []
        if card_t is not None:
            wanted.append(("card_frame", card_t, True))
        for _seat, t in sorted((ruling.evidence.get("slaps") or {}).items(), key=lambda kv: kv[1]):
            wanted.append(("slap_frame", t, False))
        if not ruling.evidence.get("slaps"):
            wanted.append(("slap_frame", ruling.t_ns, False))
        done: set[int] = set()
        for kind, t, after in wanted:
            found = self._nearest(t, after=after)
            if found is None or found[0] in done:
                continue
            done.add(found[0])
            jpeg = self._jpeg(found[1])
            if jpeg is not None:
                self.recorder.journal.record_evidence(ruling_id, kind, found[0], jpeg)
                self.stored += 1

    def _ruling_id(self, ruling: Ruling) -> int | None:
        rulings = self.recorder.session.rulings
        for index in range(len(rulings) - 1, max(-1, len(rulings) - 50), -1):
            if rulings[index] is ruling:
                return self.recorder.ruling_ids[index] if index < len(self.recorder.ruling_ids) else None
        return None

    def _jpeg(self, frame: Any) -> bytes | None:
        import cv2
        ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        return data.tobytes() if ok else None
