"""Tabletop Referee: the referee itself, everything that does not touch a device.

- `core/`: the pure rules core, standard library only: `cards`, `events`,
  `rulings`, `options`, `rules/` (one module per game), `arbiter` (timestamp
  order and hold-back), `session` (one game), `scenario` (scenario files).
- `sim/`: bots playing whole games on a virtual clock through the core.
- `table/`: the table runtime and its ports (`runtime`, `ports`, `sources`)
  and what the dashboard sees of it (`live`, `live_words`).
- Adapters that need a library: `vision/` (OpenCV and numpy), `web/`
  (Starlette and uvicorn), `journal/` (SQLite, and evidence sheets).
- The `referee` command: `cli`, `config` (the strict table config) and
  `commands/`; commands that need hardware plug in from `tabletop` (the
  composition root) and `calibration` by entry point.

Nothing here imports `hardware`, `tabletop` or `calibration`, and `core/`
imports nothing outside the standard library (pyproject.toml declares these
layers for import-linter).
"""

__version__ = "0.1.0"
