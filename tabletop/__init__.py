"""The composition root: builds real or simulated adapters from a table config and hands them to the
referee's runtime (`referee run`, `referee demo`, `referee fix`, `referee doctor`). The only package
that wires `referee`, `hardware` and `calibration` together."""
