"""The table runtime: event sources in, one thread judging, rulings out, and what a live view sees of it.

Standard library only; the devices behind the ports are built by the composition root (`tabletop`).
"""
