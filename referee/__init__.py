"""Tabletop Referee: the rules and slap arbitration core (standard library only)."""

__version__ = "0.1.0"
