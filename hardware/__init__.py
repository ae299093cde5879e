"""Adapters for the table's devices: slap pads (GPIO through gpiozero/lgpio or libgpiod, an MPR121,
a keyboard, simulated), the camera, the LEDs and the speaker. Each takes its backend as an argument,
so tests and the demo run anywhere; they use `referee`'s value types and never the composition root."""
