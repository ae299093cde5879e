"""Tabletop Referee: the referee itself, everything that does not touch a device.

- The rules engine, standard library only: `cards`, `events`, `rulings`,
  `options`, `rules/` (one module per game), `arbiter` (timestamp order and
  hold-back), `session` (one game), `scenario` (scenario files) and `sim/`
  (bots on a virtual clock).
- The table runtime and its ports: `runtime`, `ports`, `sources`, `live`
  (what the dashboard sees), `config` (the strict table config).
- Adapters that need a library: `vision/` (OpenCV and numpy), `web/`
  (Starlette and uvicorn), `journal*` (SQLite), `review` (evidence sheets).
- The `referee` command: `cli` and one module per subcommand; commands that
  need hardware plug in from `tabletop` and `calibration` by entry point.

Nothing here imports `hardware`, `tabletop` or `calibration` (pyproject.toml
declares these layers for import-linter).
"""

__version__ = "0.1.0"
