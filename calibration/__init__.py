"""Fitting the referee to a real table: camera, deck, pads, audio; saved as profiles."""
