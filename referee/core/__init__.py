"""The pure core: cards, events, rulings, the six games' rules, the arbiter, one game's session, scenario files.

Standard library only (pyproject.toml declares it for import-linter): a ruling can be
replayed and checked anywhere Python runs, without a camera, pads or a database.
"""
