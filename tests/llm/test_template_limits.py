"""A chat template is code a stranger wrote: each run has a time, size and depth budget.

Every case asserts the error (its ``limit``), the time it took and the memory it allocated
(tracemalloc's peak), so a budget that stops a runaway template only after it has done the damage
fails here.
"""

from __future__ import annotations

import re
import time
import tracemalloc

import pytest

from bytepair import Tokenizer
from bytepair.errors import InvalidArgumentError, TemplateError, TemplateLimitError

pytest.importorskip("jinja2")

MESSAGES = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
NS = "{% set ns = namespace(s='x') %}"

RUNAWAY = {
    # time: loops and recursion with nothing else to check
    "nested loops": ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", "time"),
    "loops over a string": ("{% set s = 'x' * 3000 %}{% for a in s %}{% for b in s %}{% for c in s %}{% endfor %}"
                            "{% endfor %}{% endfor %}", "time"),
    "loops with a recursive loop": ("{% for i in range(100000) %}{% for j in range(100000) %}{% for x in [[1, [2]], [3]] "
                                    "recursive %}{{ loop(x) if x is iterable else '' }}{% endfor %}{% endfor %}{% endfor %}",
                                    "time"),
    "macro calling itself twice": ("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
                                   "{{ f(40) }}", "time"),
    # size: one operation building a huge value
    "'x' * 10**9": ("{{ 'x' * 10**9 }}", "size"),
    "[1] * 10**9": ("{{ ([1] * 10**9)|length }}", "size"),
    "9 ** 10**9": ("{{ 9 ** 1000000000 }}", "size"),
    "str.center": ("{{ 'x'.center(10**9) }}", "size"),
    "str.ljust": ("{{ 'x'.ljust(10**9) }}", "size"),
    "str.expandtabs": ("{{ ('\\t' * 10000).expandtabs(100000) }}", "size"),
    "str.format width": ("{{ '{:>999999999}'.format(1) }}", "size"),
    "%-format width": ("{{ '%999999999d' % 1 }}", "size"),
    "%-format star width": ("{{ '%*d' % (999999999, 1) }}", "size"),
    "center filter": ("{{ 'x'|center(10**9) }}", "size"),
    "indent filter": ("{{ ('x\\n' * 1000)|indent(10**6) }}", "size"),
    "format filter": ("{{ '%999999999s'|format('x') }}", "size"),
    "tojson indent": ("{{ messages|tojson(indent=10**9) }}", "size"),
    "wordwrap": ("{{ ('x' * 100000)|wordwrap(1, true, 'y' * 100000) }}", "size"),
    "lipsum": ("{{ lipsum(10**6) }}", "size"),
    # size: growth step by step
    "doubling with ~": (NS + "{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", "size"),
    "doubling with +": (NS + "{% for i in range(60) %}{% set ns.s = ns.s + ns.s %}{% endfor %}", "size"),
    "doubling with replace": (NS + "{% for i in range(60) %}{% set ns.s = ns.s|replace('x', 'xx') %}{% endfor %}", "size"),
    "doubling with str.replace": (NS + "{% for i in range(60) %}{% set ns.s = ns.s.replace('x', 'xx') %}{% endfor %}", "size"),
    "doubling with join": (NS + "{% for i in range(60) %}{% set ns.s = [ns.s, ns.s]|join %}{% endfor %}", "size"),
    "doubling in a macro": ("{% macro f(s, n) %}{% if n %}{{ f(s ~ s, n - 1) }}{% endif %}{% endmacro %}{{ f('x', 60) }}", "size"),
    "long chain of ~": (NS + "{% for i in range(24) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
                        "{{ ns.s ~ ns.s ~ ns.s ~ ns.s ~ ns.s ~ ns.s ~ ns.s ~ ns.s ~ ns.s ~ ns.s }}", "size"),
    "output without end": ("{% for i in range(100000) %}{% for j in range(100000) %}" + "x" * 100 + "{% endfor %}{% endfor %}",
                           "size"),
    # depth
    "5000 nested ifs": ("{% if true %}" * 5000 + "x" + "{% endif %}" * 5000, "depth"),
    "30 nested loops": ("{% for a in 'ab' %}" * 30 + "x" + "{% endfor %}" * 30, "depth"),
    "macro recursing without end": ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "depth"),
    "a 2 MB template": ("{# " + "x" * (2 << 20) + " #}", "size"),
}

TIMEOUT = 0.5
MAX_CHARS = 1 << 22


@pytest.fixture(scope="module")
def tok():
    tok = Tokenizer.from_encoding("cl100k_base")
    tok.apply_chat_template(MESSAGES, chat_template="{{ messages[0].content }}")  # jinja2 imported and warm
    return tok


@pytest.mark.parametrize("name", sorted(RUNAWAY))
def test_a_runaway_template_stops_within_its_budget(tok, name):
    source, limit = RUNAWAY[name]
    timeout = TIMEOUT if limit == "time" else 10 * TIMEOUT  # a size or depth case must meet its own budget first
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(TemplateLimitError) as caught:
            tok.apply_chat_template(MESSAGES, chat_template=source, template_timeout=timeout, template_max_chars=MAX_CHARS)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.limit == limit
    assert isinstance(caught.value, TemplateError)
    advice = {"time": "pass template_timeout=", "size": "pass template_max_chars=|templates may|at most",
              "depth": "flatten its blocks|check its macros"}[limit]
    assert re.search(advice, str(caught.value)), str(caught.value)
    assert elapsed < timeout + 3, f"{name}: stopped after {elapsed:.1f} s"
    # Four times the size budget in bytes (a character may take 4) plus the source: nothing bigger was built.
    assert peak < 4 * 4 * MAX_CHARS + 64 * len(source) + (32 << 20), f"{name}: {peak >> 20} MB allocated"


def test_the_defaults_are_not_hit_by_a_long_real_conversation(tok):
    template = "{% for m in messages %}<|im_start|>{{ m.role + '\\n' + m.content }}<|im_end|>\n{% endfor %}"
    long = [{"role": "user", "content": "word " * 200_000}] * 20  # 20 M characters of prompt
    text = tok.apply_chat_template(long, chat_template=template, tokenize=False)
    assert len(text) > 20_000_000


def test_the_budget_options_change_the_limits(tok):
    doubled = NS + "{% for i in range(12) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}"
    assert tok.apply_chat_template(MESSAGES, chat_template=doubled, tokenize=False) == "4096"
    with pytest.raises(TemplateLimitError, match="size budget of 1,000"):
        tok.apply_chat_template(MESSAGES, chat_template=doubled, template_max_chars=1000)
    loop = "{% for i in range(100000) %}{% for j in range(100) %}{% endfor %}{% endfor %}done"
    assert tok.apply_chat_template(MESSAGES, chat_template=loop, tokenize=False) == "done"
    with pytest.raises(TemplateLimitError, match="time budget of 0.001 s"):
        tok.apply_chat_template(MESSAGES, chat_template=loop, template_timeout=0.001)


@pytest.mark.parametrize("options, message", [
    ({"template_timeout": 0}, "template_timeout must be a positive number"),
    ({"template_timeout": float("nan")}, "template_timeout must be a positive number"),
    ({"template_timeout": "5"}, "template_timeout must be a positive number"),
    ({"template_max_chars": -1}, "template_max_chars must be a positive int"),
    ({"template_max_chars": 1.5}, "template_max_chars must be a positive int"),
])
def test_bad_budgets_are_refused(tok, options, message):
    with pytest.raises(InvalidArgumentError, match=message):
        tok.apply_chat_template(MESSAGES, chat_template="x", **options)


def test_the_time_budget_covers_every_render_of_a_call(tok):
    """Escaping and masks render the template again: one deadline for them all, and locating
    does not take a limit error for a template it cannot trace."""
    slow = "{% for i in range(100000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}{{ messages[0].content }}"
    start = time.perf_counter()
    with pytest.raises(TemplateLimitError, match="time"):
        tok.apply_chat_template(MESSAGES, chat_template=slow, return_dict=True, return_assistant_tokens_mask=True,
                                template_timeout=TIMEOUT)
    assert time.perf_counter() - start < TIMEOUT + 2


def test_a_tokenizer_answers_after_a_runaway_template(tok):
    with pytest.raises(TemplateLimitError):
        tok.apply_chat_template(MESSAGES, chat_template=RUNAWAY["nested loops"][0], template_timeout=0.2)
    assert tok.apply_chat_template(MESSAGES, chat_template="{{ messages[1].content }}", tokenize=False) == "hello"
    assert tok.encode("hello world").ids == [15339, 1917]


@pytest.mark.soak
@pytest.mark.parametrize("name", sorted(RUNAWAY))
def test_the_default_budgets_stop_every_runaway_template(tok, name):
    """The same cases under the defaults a user gets (20 s, 2**25 characters)."""
    from bytepair.llm.limits import DEFAULT_MAX_CHARS, DEFAULT_SECONDS

    source, limit = RUNAWAY[name]
    start = time.perf_counter()
    with pytest.raises(TemplateLimitError) as caught:
        tok.apply_chat_template(MESSAGES, chat_template=source)
    elapsed = time.perf_counter() - start
    assert caught.value.limit == limit
    assert elapsed < DEFAULT_SECONDS + 5, f"{name}: {elapsed:.1f} s"
    if limit == "size":
        assert str(DEFAULT_MAX_CHARS) in str(caught.value).replace(",", "") or "templates may" in str(caught.value)
