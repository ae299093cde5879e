"""A fake of picamera2 (the Raspberry Pi OS package python3-picamera2) for tests at the OS boundary.

Follows the Picamera2 manual and picamera2's sources (picamera2/picamera2.py,
job.py, request.py; examples/timestamp_capture.py for SensorTimestamp); each
module says which behaviour comes from where. Frames show the world's pile
(tests/fakeos/world.py) drawn by tabletop.scene_render; tests/fakeos/README.md
("The camera") describes the model.
"""
from concurrent.futures import CancelledError, TimeoutError

from .job import Job
from .picamera2 import Picamera2
from .request import CompletedRequest

__all__ = ["Picamera2", "CompletedRequest", "Job", "CancelledError", "TimeoutError"]
