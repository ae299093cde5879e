"""Adapters for real devices (pads, camera, LEDs, speaker); each takes its backend as an argument."""
