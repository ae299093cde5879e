# Quick start: `make demo` and `make test` set themselves up on a fresh machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
ARGS ?=

.PHONY: setup test demo bench fuzz lint clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,hardware,vision]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest $(ARGS)

demo: $(STAMP)
	$(PY) -m referee demo $(ARGS)

bench: $(STAMP)
	$(PY) bench/run.py $(ARGS)

fuzz: $(STAMP)
	$(PY) bench/run.py --only fuzz --out bench/FUZZ.md

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build *.egg-info
