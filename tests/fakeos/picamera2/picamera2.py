"""picamera2.Picamera2 as the Picamera2 manual and picamera2/picamera2.py describe it, over the fake sensor.

- Opening acquires the camera: `Picamera2(n)` looks the camera up in
  `global_camera_info()` (an unlisted camera raises IndexError, as the real
  indexing does) and acquires it; a camera another Picamera2 holds and has not
  closed fails as libcamera's Camera::acquire does ("Camera in Acquired state
  trying acquire() requiring state Available", or "Pipeline handler in use by
  another process"): RuntimeError("Failed to acquire camera: Device or resource
  busy"), re-raised by __init__ as RuntimeError("Camera __init__ sequence did
  not complete."). Across processes the acquire is an flock in the world folder.
- `create_video_configuration` fills main (XBGR8888 1280x720), lores (YUV420,
  main's size), buffer_count 6 and the controls NoiseReductionMode and
  FrameDurationLimits (33333, 33333) under the caller's; `configure` checks
  formats, even sizes and lores <= main, and sets the config's controls.
- After `start()` an event loop (the manual's "NULL preview") completes a
  request per frame duration; it keeps at most one completed request queued
  (queue=True), dropping older ones; a frame with every buffer held by the
  application is not captured. Controls reach the sensor CONTROL_DELAY_FRAMES
  frames after `set_controls` (FrameRate is FrameDurationLimits in fps).
- `capture_request(wait=None, signal_function=None, flush=None)` is a Job
  (job.py): wait None/True blocks until a frame, for ever if none comes (a
  stopped or stalled camera); a number raises TimeoutError after that many
  seconds and leaves the job queued; False returns the Job.
  `cancel_all_and_flush()` cancels queued jobs. `stop()` and `close()` leave
  queued jobs waiting, as the real ones do.
- World faults (tests/fakeos/README.md): `error` fails the next capture with
  RuntimeError; `stall` exposes no frames until it ends; `gone` fails every
  capture of an open camera for good and unlists the camera until it ends.
Opens, configurations, controls, starts, stops, closes and faults go to World.log.
"""
from __future__ import annotations

import atexit
import copy
import fcntl
import threading
import time
from typing import Any, Callable, TextIO

from . import sensor
from .job import Job
from .request import CompletedRequest

_ACQUIRED: dict[int, "Picamera2"] = {}
_REGISTRY_LOCK = threading.Lock()
_ERRORS_RAISED: set[tuple[int, int]] = set()      # (id(world), fault t_ns): each error fails one capture
FORMATS = ("RGB888", "BGR888", "XBGR8888", "XRGB8888", "YUV420", "YVU420")


def _world() -> Any:
    import world  # tests/fakeos/world.py, on the path beside this package

    return world.world()


def _log(op: str, num: int, **fields: Any) -> None:
    _world().log({"fake": "picamera2", "camera": num, "op": op, **fields})


class Picamera2:
    """One camera, opened (acquired) on construction; see the module docstring for what follows whom."""

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        """The cameras attached now (none while the world's camera is `gone`)."""
        fault = _world().camera_fault(time.monotonic_ns())
        if fault is not None and fault.kind == "gone":
            return []
        return [{"Model": sensor.MODEL, "Location": 2, "Rotation": 180, "Id": sensor.CAMERA_ID, "Num": 0}]

    def __init__(self, camera_num: int = 0, verbose_console: Any = None, tuning: Any = None,
                 allocator: Any = None) -> None:
        self.is_open = False
        self.started = False
        self.camera_config: dict[str, Any] | None = None
        self._lockfile: TextIO | None = None
        self._cond = threading.Condition(threading.RLock())
        self._jobs: list[Job[Any]] = []
        self._completed: list[CompletedRequest] = []
        self._held = 0
        self._dead = False
        self._stalled_at: int | None = None
        self._thread: threading.Thread | None = None
        self._settings = sensor.Settings()
        self._pending: list[tuple[int, dict[str, Any]]] = []
        self._set: dict[str, Any] = {}
        self.frames = self.dropped = 0
        self.camera_idx = self.global_camera_info()[camera_num]["Num"]
        try:
            self._acquire()
        except Exception as exc:
            _log("open_failed", self.camera_idx, error=str(exc))
            raise RuntimeError("Camera __init__ sequence did not complete.") from exc
        self.is_open = True
        atexit.register(self.close)
        _log("open", self.camera_idx)

    def _acquire(self) -> None:
        with _REGISTRY_LOCK:
            if self.camera_idx in _ACQUIRED:  # libcamera: Camera in Acquired state trying acquire()
                raise RuntimeError("Failed to acquire camera: Device or resource busy")
            folder = getattr(_world(), "folder", None)
            if folder is not None:
                handle = open(folder / f"picamera2-{self.camera_idx}.lock", "w")
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:  # libcamera: Pipeline handler in use by another process
                    handle.close()
                    raise RuntimeError("Failed to acquire camera: Device or resource busy") from None
                self._lockfile = handle
            _ACQUIRED[self.camera_idx] = self

    def __repr__(self) -> str:
        state = "started" if self.started else "open" if self.is_open else "closed"
        return f"<fake Picamera2 {self.camera_idx} {state} frames={self.frames}>"

    def __enter__(self) -> "Picamera2":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what the camera offers ----------------------------------------------------
    @property
    def camera_controls(self) -> dict[str, tuple[Any, Any, Any]]:
        controls = dict(sensor.CONTROLS)
        lo, hi, default = controls["FrameDurationLimits"]
        controls["FrameDurationLimits"] = (sensor.fastest_frame_us(self._main_size()), hi, default)
        return controls

    @property
    def camera_properties(self) -> dict[str, Any]:
        return {"Model": sensor.MODEL, "PixelArraySize": (4608, 2592), "Location": 2, "Rotation": 180}

    @property
    def sensor_modes(self) -> list[dict[str, Any]]:
        return [{"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": size, "fps": fps,
                 "crop_limits": (0, 0, 4608, 2592), "exposure_limits": (26, 220417486, None)}
                for size, fps in sensor.MODES]

    def _main_size(self) -> tuple[int, int]:
        return tuple(self.camera_config["main"]["size"]) if self.camera_config else (1280, 720)  # type: ignore[return-value]

    # -- configuration ---------------------------------------------------------------
    def create_video_configuration(self, main: dict[str, Any] = {}, lores: dict[str, Any] | None = None,
                                   raw: dict[str, Any] | None = {}, transform: Any = None, colour_space: Any = None,
                                   buffer_count: int = 6, controls: dict[str, Any] = {}, display: str | None = "main",
                                   encode: str | None = "main", queue: bool = True, sensor: dict[str, Any] | None = {},
                                   use_case: str = "video") -> dict[str, Any]:
        """A video configuration (picamera2.py create_video_configuration) with its defaults filled in."""
        if not self.is_open:
            raise RuntimeError("Camera not opened")
        main = {"format": "XBGR8888", "size": (1280, 720), "preserve_ar": True} | dict(main)
        size: Any
        size = main["size"]
        main["size"] = (size[0] - size[0] % 2, size[1] - size[1] % 2)
        if lores is not None:
            lores = {"format": "YUV420", "size": main["size"], "preserve_ar": False} | dict(lores)
            size = lores["size"]
            lores["size"] = (size[0] - size[0] % 2, size[1] - size[1] % 2)
        return {"use_case": use_case, "transform": transform, "colour_space": colour_space,
                "buffer_count": buffer_count, "queue": queue, "main": main, "lores": lores, "raw": raw,
                "controls": {"NoiseReductionMode": 1, "FrameDurationLimits": (33333, 33333)} | dict(controls),
                "sensor": sensor, "display": display, "encode": encode}

    def create_preview_configuration(self, main: dict[str, Any] = {}, lores: dict[str, Any] | None = None,
                                     buffer_count: int = 4, controls: dict[str, Any] = {}, **kw: Any) -> dict[str, Any]:
        config = self.create_video_configuration({"format": "XBGR8888", "size": (640, 480)} | dict(main), lores,
                                                 buffer_count=buffer_count, controls=controls, use_case="preview")
        config["controls"].pop("NoiseReductionMode")
        return config

    def configure(self, camera_config: dict[str, Any] | str | None = None) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        if camera_config is None or camera_config == "preview":
            camera_config = self.create_preview_configuration()
        elif camera_config == "video":
            camera_config = self.create_video_configuration()
        if not isinstance(camera_config, dict):
            raise TypeError(f"camera_config: a configuration dict, 'preview' or 'video', not {camera_config!r}")
        config: dict[str, Any] = copy.deepcopy(camera_config)
        for name in ("main", "lores"):
            stream = config.get(name)
            if stream is None:
                if name == "main":
                    raise RuntimeError("'main' key expected in camera configuration")
                continue
            if stream.get("format") not in FORMATS:
                raise RuntimeError(f"Bad format {stream.get('format')} in stream {name}")
            size = stream.get("size")
            if not isinstance(size, tuple) or len(size) != 2:
                raise RuntimeError(f"size in {name} stream should be (width, height)")
            if size[0] % 2 or size[1] % 2:
                raise RuntimeError("width and height should be even")
        if config.get("lores") is not None:
            (mw, mh), (lw, lh) = config["main"]["size"], config["lores"]["size"]
            if lw > mw or lh > mh:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
            if not config["lores"]["format"].startswith("YU") and not config["lores"]["format"].startswith("YV"):
                raise RuntimeError("lores stream must be YUV")
        with self._cond:
            self.camera_config = config
            self._settings = sensor.Settings()
            self._pending, self._set = [], {}
        self.set_controls(config.get("controls") or {})
        _log("configure", self.camera_idx, main=config["main"], lores=config.get("lores"),
             buffer_count=config.get("buffer_count"))

    def set_controls(self, controls: dict[str, Any]) -> None:
        """Controls for the next frames (FrameRate as FrameDurationLimits); unknown names raise RuntimeError."""
        converted: dict[str, Any] = {}
        for name, value in dict(controls).items():
            if name == "FrameRate":
                rates = value if isinstance(value, (tuple, list)) else (value, value)
                name, value = "FrameDurationLimits", (int(1e6 / rates[1]), int(1e6 / rates[0]))
            if name not in sensor.CONTROLS:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
            converted[name] = value
        with self._cond:
            self._set.update(converted)
            if self.started:
                period = self._settings.frame_us[1] * 1000
                self._pending.append((time.monotonic_ns() + sensor.CONTROL_DELAY_FRAMES * period, converted))
            else:
                self._settings.apply(converted)
        _log("controls", self.camera_idx, controls=dict(controls))

    # -- running -----------------------------------------------------------------------
    def start(self, config: dict[str, Any] | str | None = None, show_preview: Any = False) -> None:
        if config is not None or self.camera_config is None:
            self.configure(config or "preview")
        with self._cond:
            if self.started:
                raise RuntimeError("Camera already started")
            self.started = True
            self._dead = False
            exposure, _gain, frame_us = self._settings.expose(sensor.fastest_frame_us(self._main_size()))
            first = time.monotonic_ns() + 2 * frame_us * 1000       # the sensor's start-up frames
            self._thread = threading.Thread(target=self._run, args=(first,), name="fake-picamera2", daemon=True)
            self._thread.start()
        _log("start", self.camera_idx)

    def stop(self) -> None:
        with self._cond:
            if not self.started:
                return
            self.started = False
            self._cond.notify_all()
            done, self._completed = self._completed, []
            thread = self._thread
        for request in done:
            request.release()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        _log("stop", self.camera_idx, frames=self.frames, dropped=self.dropped)

    def close(self) -> None:
        atexit.unregister(self.close)
        if not self.is_open:
            return
        self.stop()
        with _REGISTRY_LOCK:
            if _ACQUIRED.get(self.camera_idx) is self:
                del _ACQUIRED[self.camera_idx]
            if self._lockfile is not None:
                self._lockfile.close()
                self._lockfile = None
        self.is_open = False
        _log("close", self.camera_idx)

    def _run(self, exposure_start: int) -> None:
        """The event loop: one frame per frame duration while started. The picture is drawn here, while the
        frame is "read out", not when the application copies it out: a real make_array is a copy, and the
        drawing's cost must not land in the application's frame path."""
        seq = 0
        fastest = sensor.fastest_frame_us(self._main_size())
        while True:
            with self._cond:
                while self._pending and self._pending[0][0] <= exposure_start:
                    self._settings.apply(self._pending.pop(0)[1])
                exposure, gain, frame_us = self._settings.expose(fastest)
                readout = exposure_start + exposure * 1000
                complete = readout + frame_us * 500 + sensor.ISP_NS
                s = self._settings
                lens = sensor.TABLE_DIOPTRES if s.af_mode == 2 else s.lens
                frame = sensor.Frame(seq, exposure_start, readout, exposure, gain, frame_us, s.focus_error(), lens)
                main_size = self._main_size()
            picture = sensor.render_bgr(frame, main_size, _world()) if self.started else None
            with self._cond:
                while self.started and time.monotonic_ns() < complete:
                    self._cond.wait((complete - time.monotonic_ns()) / 1e9)
                if not self.started:
                    return
                self._deliver(frame, picture)
                seq += 1
                exposure_start += frame_us * 1000

    def _deliver(self, frame: sensor.Frame, picture: Any = None) -> None:
        w = _world()
        for t in (frame.exposure_start_ns, time.monotonic_ns()):
            fault = w.camera_fault(t)
            if fault is not None and fault.kind == "gone" and not self._dead:
                self._dead = True
                _log("fault", self.camera_idx, kind="gone")
        if self._dead:
            self._fail_jobs()
            return
        fault = w.camera_fault(frame.exposure_start_ns)
        if fault is not None and fault.kind == "stall":
            if self._stalled_at != fault.t_ns:
                self._stalled_at = fault.t_ns
                _log("fault", self.camera_idx, kind="stall")
            return
        if self._held >= int(self.camera_config.get("buffer_count", 6)):  # type: ignore[union-attr]
            self.dropped += 1
            return
        self._held += 1
        self.frames += 1
        self._completed.append(CompletedRequest(frame, self.camera_config, w, self._freed,  # type: ignore[arg-type]
                                                picture))
        self._serve()
        keep = 1 if self.camera_config.get("queue", True) and self.camera_config.get("buffer_count", 6) > 1 else 0  # type: ignore[union-attr]
        while len(self._completed) > keep:
            self._completed.pop(0).release()

    def _freed(self, request: CompletedRequest) -> None:
        with self._cond:
            self._held -= 1

    def _error_due(self) -> bool:
        """True once per world `error` fault that is due: that capture fails."""
        w = _world()
        fault = w.camera_fault(time.monotonic_ns())
        if fault is None or fault.kind != "error" or (id(w), fault.t_ns) in _ERRORS_RAISED:
            return False
        _ERRORS_RAISED.add((id(w), fault.t_ns))
        _log("fault", self.camera_idx, kind="error")
        return True

    def _fail_jobs(self) -> None:
        while self._jobs:
            self._jobs.pop(0).fail(RuntimeError("Camera frontend has timed out: camera gone (world fault 'gone')"))

    def _serve(self) -> None:
        """Hand completed requests to queued jobs, oldest job first."""
        while self._jobs and self._completed:
            job = self._jobs[0]
            if job.done():
                self._jobs.pop(0)
                continue
            if self._error_due():
                self._jobs.pop(0).fail(RuntimeError("Camera frame error (world fault 'error')"))
                continue
            request = self._completed.pop(0)
            if job.after_ns is not None and request.frame.exposure_start_ns < job.after_ns:
                request.release()
                continue
            if job.offer(request):
                self._jobs.pop(0)

    def _dispatch(self, take: Callable[[CompletedRequest], tuple[bool, Any]], wait: Any,
                  signal_function: Callable[[Job[Any]], None] | None, after_ns: int | None = None) -> Any:
        """Queue a job (picamera2.py dispatch_functions) and wait for it as `wait` says."""
        job: Job[Any] = Job(take, signal_function, after_ns=after_ns)
        with self._cond:
            if self._dead or not self.global_camera_info():
                self._dead = True
                job.fail(RuntimeError("Camera frontend has timed out: camera gone (world fault 'gone')"))
            elif self._error_due():
                job.fail(RuntimeError("Camera frame error (world fault 'error')"))
            else:
                self._jobs.append(job)
                self._serve()
        if wait is None:
            wait = signal_function is None
        timeout = None if wait is True else wait
        return job.get_result(timeout=timeout) if wait else job

    def capture_request(self, wait: Any = None, signal_function: Callable[[Job[Any]], None] | None = None,
                        flush: Any = None) -> Any:
        """The next completed request (hold it, then release it); see the module docstring for `wait`."""
        after = time.monotonic_ns() if flush is True else (int(flush) if flush else None)
        return self._dispatch(lambda request: (True, request), wait, signal_function, after)

    def capture_metadata(self, wait: Any = None, signal_function: Callable[[Job[Any]], None] | None = None) -> Any:
        def take(request: CompletedRequest) -> tuple[bool, Any]:
            metadata = request.get_metadata()
            request.release()
            return True, metadata
        return self._dispatch(take, wait, signal_function)

    def capture_array(self, name: str = "main", wait: Any = None,
                      signal_function: Callable[[Job[Any]], None] | None = None) -> Any:
        def take(request: CompletedRequest) -> tuple[bool, Any]:
            array = request.make_array(name)
            request.release()
            return True, array
        return self._dispatch(take, wait, signal_function)

    def autofocus_cycle(self, wait: Any = None, signal_function: Callable[[Job[Any]], None] | None = None) -> Any:
        """Auto mode and one scan: the lens settles on the table a few frames later; True when focused."""
        self.set_controls({"AfMode": 1, "AfTrigger": 0})
        seen = [0]

        def take(request: CompletedRequest) -> tuple[bool, Any]:
            request.release()
            seen[0] += 1
            if seen[0] < sensor.CONTROL_DELAY_FRAMES + 3:
                return False, None
            with self._cond:
                self._settings.lens = sensor.TABLE_DIOPTRES
                self._set["LensPosition"] = sensor.TABLE_DIOPTRES
            return True, True
        return self._dispatch(take, wait, signal_function)

    def cancel_all_and_flush(self) -> None:
        """Cancel every queued job (their waiters get CancelledError), as after a timeout."""
        with self._cond:
            jobs, self._jobs = self._jobs, []
        for job in jobs:
            job.cancel()

    def wait(self, job: Job[Any], timeout: float | None = None) -> Any:
        return job.get_result(timeout=timeout)
