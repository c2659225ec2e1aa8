"""bytepair's benchmarks: each section measures one thing against its references and writes its own
marked section of docs/PERFORMANCE.md or docs/RELIABILITY.md (``ab`` only prints).

    .venv/bin/python -m bench SECTION [options]    # one section; SECTION --help for its options
    .venv/bin/python -m bench --list               # the sections, one line each
    .venv/bin/python -m bench all                  # what `make bench` runs

Sections (``bench/__main__.py`` holds the list):

- ``native``: bytepair on CPython against tiktoken (Rust) and a naive BPE (``native.py``)
- ``tokenizer-json``: ``bytepair.Tokenizer`` against HF tokenizers and tokie (``tokenizer_json.py``)
- ``browser``: the browser bundle in headless Chromium: start-up, encoding, worst cases, the
  playground (``browser.py``, ``playground.py``)
- ``reliability``: memory and early exit on big, awkward inputs (``reliability.py``)
- ``whitespace``: long whitespace runs, the long-piece encoder (``whitespace.py``)
- ``training``: ``bytepair.train`` against HF, rustbpe, bpeasy and a minbpe-style loop (``training.py``)
- ``training-web``: the JS API's ``train()`` in Chromium (``training_web.py``)
- ``analysis``: how long ``bytepair.analysis`` takes (``analysis.py``)
- ``ab``: the first pass of two copies of ``core/``, in turn (``ab.py``)

What two sections share is in ``common.py``; no section imports another's modules. The baselines
(``naive_reference.py``, ``minbpe_style.py``) are modules too; ``fresh_process.py``,
``tokenizer_json_child.py`` and ``training_child.py`` are the scripts the sections start in fresh
processes.
"""
