"""picamera2.job: an operation the camera's event loop finishes for a waiting caller.

As picamera2/job.py: a Job wraps a concurrent.futures.Future, so
`get_result(timeout)` raises concurrent.futures.TimeoutError (the builtin
TimeoutError since Python 3.11) when the timeout passes, and a job cancelled by
`Picamera2.cancel_all_and_flush()` raises CancelledError. A timed-out job is
not withdrawn: it stays queued and still takes the next frame (the manual's
advice is to call cancel_all_and_flush() after a timeout).
"""
from __future__ import annotations

from concurrent.futures import CancelledError, Future
from typing import Any, Callable, Generic, TypeVar

T = TypeVar("T")


class Job(Generic[T]):
    """One queued operation: `take(frame)` is tried on each new frame until it returns (True, result)."""

    def __init__(self, take: Callable[[Any], tuple[bool, Any]], signal_function: Callable[["Job[T]"], None] | None = None,
                 *, after_ns: int | None = None) -> None:
        self._take = take
        self._future: Future[T] = Future()
        self._future.set_running_or_notify_cancel()
        self._signal_function = signal_function
        self.after_ns = after_ns          # capture_request(flush=...): only frames exposed from then on
        self.calls = 0

    def offer(self, frame: Any) -> bool:
        """Give the job a frame (the event loop calls this); True when the job has finished."""
        if self._future.done():
            return True
        self.calls += 1
        try:
            done, result = self._take(frame)
        except Exception as exc:  # as Job.execute: an exception finishes the job with it
            self.fail(exc)
            return True
        if done:
            self._future.set_result(result)
            if self._signal_function:
                self._signal_function(self)
        return done

    def fail(self, exc: BaseException) -> None:
        if not self._future.done():
            self._future.set_exception(exc)
            if self._signal_function:
                self._signal_function(self)

    def done(self) -> bool:
        return self._future.done()

    def get_result(self, timeout: float | None = None) -> T:
        """The job's result, blocking up to `timeout` s (None: for ever)."""
        return self._future.result(timeout=timeout)

    def cancel(self) -> None:
        """Mark the job cancelled: get_result raises CancelledError."""
        self.fail(CancelledError())
