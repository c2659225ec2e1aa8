"""Chat in the browser bundle: the bridge's chat operations against the native API, the bundle's
pyodide-lock.json (our wheel, jinja2, a pure MarkupSafe) and its lazy loading, and countChat /
encodeChat / applyChatTemplate in real headless Chromium (Node runs web/test/chat.test.mjs from
tests/web/test_node_api.py with :func:`chat_fixture`)."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bytepair
from bytepair import web_bridge
from bytepair.llm.chat_count import harmony_ids

from tests.browser import DIST, ROOT, Guard, open_page, require_bundle
from tests.hf_reference import hf_folder
from tests.llm.test_chat_count import COOKBOOK_MESSAGES, COOKBOOK_TOOL_MESSAGES, COOKBOOK_TOOLS

MESSAGES = [
    {"role": "system", "content": "Answer in one line."},
    {"role": "user", "content": "Übersetze: 日本語 🫠 and  spaces"},
    {"role": "assistant", "content": "Japanese, a melting face, and spaces."},
    {"role": "user", "content": "Thanks!"},
]
TEMPLATE_OPTIONS = [{}, {"addGenerationPrompt": True}]
CUSTOM_TEMPLATE = "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}"


def _native(name: str) -> bytepair.Tokenizer:
    return bytepair.Tokenizer.from_pretrained(hf_folder(name))


def chat_fixture() -> dict:
    """Native results for web/test/chat.test.mjs (the JS API must give the same)."""
    templates = {}
    for name in ("qwen2_5", "llama3"):
        tok = _native(name)
        cases = []
        for options in TEMPLATE_OPTIONS:
            generation = options.get("addGenerationPrompt", False)
            out = tok.apply_chat_template(MESSAGES, add_generation_prompt=generation, return_dict=True, return_assistant_tokens_mask=True)
            text = tok.apply_chat_template(MESSAGES, add_generation_prompt=generation, tokenize=False)
            cases.append({"options": options, "ids": out["input_ids"], "mask": out["assistant_masks"], "text": text})
        templates[name] = cases
    gpt2 = bytepair.Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")
    gpt2.chat_template = CUSTOM_TEMPLATE
    counts = {
        model: {"plain": bytepair.count_chat(COOKBOOK_MESSAGES, model=model),
                "with_tools": bytepair.count_chat(COOKBOOK_TOOL_MESSAGES, model=model, tools=COOKBOOK_TOOLS)}
        for model in ("gpt-4o", "gpt-4o-mini", "gpt-4", "gpt-3.5-turbo")
    }
    assert counts["gpt-4o"] == {"plain": 124, "with_tools": 101}  # the cookbook's printed numbers
    return {
        "messages": MESSAGES,
        "templates": templates,
        "im_end": _native("qwen2_5").token_to_id("<|im_end|>"),
        "cookbook": {"messages": COOKBOOK_MESSAGES, "tool_messages": COOKBOOK_TOOL_MESSAGES, "tools": COOKBOOK_TOOLS, "counts": counts},
        "harmony": harmony_ids(MESSAGES),
        "custom": {
            "path": str(hf_folder("gpt2") / "tokenizer.json"),
            "config": {"chat_template": CUSTOM_TEMPLATE, "bos_token": "<|endoftext|>"},
            "ids": gpt2.apply_chat_template(MESSAGES, bos_token="<|endoftext|>"),
        },
    }


# ---------------------------------------------------------------- the bridge, natively
@pytest.fixture(scope="module")
def qwen_key():
    folder = hf_folder("qwen2_5")
    key = web_bridge.load_tokenizer_json((folder / "tokenizer.json").read_bytes(), "qwen2_5")["key"]
    assert web_bridge.chat_settings(key, (folder / "tokenizer_config.json").read_text(encoding="utf-8")) is True
    yield key
    web_bridge.unload_tokenizer(key)


def _call(op: str, *args):
    answer = web_bridge.dispatch(op, *args)
    if "error" in answer:
        return answer["error"]
    return answer["value"]


@pytest.mark.parametrize("options", TEMPLATE_OPTIONS)
def test_bridge_chat_equals_apply_chat_template(qwen_key, options) -> None:
    tok = _native("qwen2_5")
    generation = options.get("addGenerationPrompt", False)
    expected = tok.apply_chat_template(MESSAGES, add_generation_prompt=generation, return_dict=True, return_assistant_tokens_mask=True)
    got = _call("chat_encode", qwen_key, json.dumps(MESSAGES), json.dumps({**options, "returnAssistantMask": True, "returnText": True}))
    assert list(got["ids"]) == expected["input_ids"]
    assert list(got["assistant_mask"]) == expected["assistant_masks"]
    assert got["text"] == tok.apply_chat_template(MESSAGES, add_generation_prompt=generation, tokenize=False)
    assert _call("chat_count", qwen_key, json.dumps(MESSAGES), json.dumps(options)) == len(expected["input_ids"])


def test_bridge_count_chat_is_the_cookbook_rule() -> None:
    got = _call("chat_count", "o200k_base", json.dumps(COOKBOOK_MESSAGES), json.dumps({"model": "gpt-4o"}))
    tools = _call("chat_count", "o200k_base", json.dumps(COOKBOOK_TOOL_MESSAGES), json.dumps({"model": "gpt-4o", "tools": COOKBOOK_TOOLS}))
    assert (got, tools) == (124, 101)
    assert _call("chat_count", "cl100k_base", json.dumps(COOKBOOK_MESSAGES), json.dumps({"model": "gpt-4"})) == 129
    # The model name in any case, as createTokenizer({ model }) takes it.
    assert _call("chat_count", "o200k_base", json.dumps(COOKBOOK_MESSAGES), json.dumps({"model": "GPT-4o"})) == 124
    assert _call("chat_count", "o200k_base", json.dumps(COOKBOOK_MESSAGES), json.dumps({"model": "GPT-4O-Mini"})) == 124


@pytest.mark.parametrize("args, name, fragment", [
    (("o200k_base", "[]", "{}"), "InvalidInputError", "createTokenizer({ model"),
    (("o200k_base", "[]", '{"model": "gpt-4"}'), "InvalidInputError", "uses cl100k_base"),
    (("o200k_base", "[]", '{"model": "gpt-4o", "bogus": 1}'), "InvalidInputError", "unknown chat option"),
    (("o200k_base", "[{", "{}"), "InvalidInputError", "not valid JSON"),
    (("o200k_base", "[]", "[]"), "InvalidInputError", "must be an object"),
    (("o200k_base", '[{"role": "user", "content": "x"}]', '{"model": "gpt-4.1"}'), "UnknownModelError", "gpt-4o"),
])
def test_bridge_chat_count_errors(args, name, fragment) -> None:
    error = _call("chat_count", *args)
    assert error["name"] == name and fragment in error["message"], error


def test_bridge_chat_encode_errors(qwen_key) -> None:
    gpt4o = _call("chat_encode", "o200k_base", "[]", '{"model": "gpt-4o"}')
    assert gpt4o["name"] == "UnsupportedTokenizerError" and "countChat" in gpt4o["message"]
    reject = _call("chat_encode", qwen_key, json.dumps([{"role": "user", "content": "a<|im_end|>"}]), '{"specialText": "reject"}')
    assert (reject["name"], reject["token"]) == ("ReservedLiteralError", "<|im_end|>")
    raised = _call("chat_encode", qwen_key, json.dumps(MESSAGES), json.dumps({"chatTemplate": "{{ raise_exception('no') }}"}))
    assert raised["name"] == "TemplateError" and "no" in raised["message"]
    settings_on_encoding = _call("chat_settings", "o200k_base", "{}")
    assert settings_on_encoding["name"] == "InvalidInputError"


def test_bridge_without_a_template_says_how_to_give_one() -> None:
    key = web_bridge.load_tokenizer_json((hf_folder("gpt2") / "tokenizer.json").read_bytes(), "gpt2")["key"]
    try:
        assert _call("chat_settings", key, (hf_folder("gpt2") / "tokenizer_config.json").read_text(encoding="utf-8")) is False
        error = _call("chat_encode", key, json.dumps(MESSAGES), "{}")
        assert error["name"] == "TemplateError" and "tokenizerConfig" in error["message"], error
    finally:
        web_bridge.unload_tokenizer(key)


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), _TEXT), min_size=1, max_size=4))
def test_bridge_chat_count_is_the_length_of_the_ids(qwen_key, turns) -> None:
    messages = [{"role": role, "content": text} for role, text in turns]
    ids = _call("chat_encode", qwen_key, json.dumps(messages), "{}")["ids"]
    assert _call("chat_count", qwen_key, json.dumps(messages), "{}") == len(ids)
    assert _call("chat_count", "o200k_base", json.dumps(messages), '{"model": "gpt-4o"}') == bytepair.count_chat(messages, model="gpt-4o")


# ---------------------------------------------------------------- the bundle's lock file
@pytest.fixture(scope="module")
def manifest() -> dict:
    require_bundle()
    return json.loads((DIST / "manifest.json").read_text(encoding="utf-8"))


def test_lock_lists_our_wheels_with_their_sha256(manifest) -> None:
    packages = manifest["lock"]["packages"]
    assert sorted(packages) == ["bytepair", "jinja2", "markupsafe"]
    assert packages["jinja2"]["depends"] == ["markupsafe"] and packages["bytepair"]["depends"] == []
    for name, entry in packages.items():
        path = DIST / entry["file_name"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"] == manifest["files"][entry["file_name"]]["sha256"], name
        assert entry["imports"] == [name]


def test_markupsafe_wheel_is_pure_python_with_pycs(manifest) -> None:
    data = (DIST / manifest["lock"]["packages"]["markupsafe"]["file_name"]).read_bytes()
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert not [n for n in names if n.endswith((".so", ".c", ".pyd"))]
    assert "markupsafe/_native.py" in names and any(n.startswith("markupsafe/__pycache__/__init__.cpython-314") for n in names)
    wheel = zipfile.ZipFile(io.BytesIO(data)).read("markupsafe-3.0.3.dist-info/WHEEL").decode()
    assert "Tag: py3-none-any" in wheel and "Root-Is-Purelib: true" in wheel


def test_markupsafe_wheel_is_reproducible() -> None:
    spec = __import__("importlib.util").util.spec_from_file_location("chat_wheels", ROOT / "build" / "chat_wheels.py")
    module = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sdist = module.CACHE / module.MARKUPSAFE_SDIST[0]
    if not sdist.is_file():
        pytest.fail("build/cache/wheels has no MarkupSafe sdist: run `make bundle`")
    first, second = module.pure_wheel(sdist), module.pure_wheel(sdist)
    assert first == second and hashlib.sha256(first).hexdigest() == module.MARKUPSAFE_WHEEL[1]


@pytest.mark.browser
def test_pyodide_loads_bytepair_from_the_lock(manifest, tmp_path: Path) -> None:
    """Pyodide's own loadPackage installs our wheel by name from the bundle's lock (no snapshot: so
    npm's Pyodide with its whole standard library; the bundle's copy is trimmed to what the snapshot
    does not already hold)."""
    pyodide = ROOT / "node_modules" / "pyodide"
    script = tmp_path / "load.mjs"
    script.write_text(
        f"""
        const {{ loadPyodide }} = await import({json.dumps((pyodide / 'pyodide.mjs').as_uri())});
        const manifest = {json.dumps(manifest['lock'])};
        const py = await loadPyodide({{ indexURL: {json.dumps(str(pyodide) + '/')}, lockFileContents: JSON.stringify(manifest),
          packageBaseUrl: {json.dumps(str(DIST) + '/')}, stdout: () => {{}} }});
        await py.loadPackage(["bytepair", "jinja2"], {{ messageCallback: () => {{}} }});
        console.log(py.runPython("import bytepair, jinja2; bytepair.__version__ + ' ' + jinja2.__version__"));
        """,
        encoding="utf-8",
    )
    result = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == [bytepair.__version__, "3.1.6"]


# ---------------------------------------------------------------- Chromium
@pytest.mark.browser
def test_chat_in_chromium(browser, dist_server) -> None:
    fixture = chat_fixture()
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    try:
        page.evaluate("async () => { window.bp = await import('./bytepair.mjs'); window.q = await bp.createTokenizer({ tokenizer: 'qwen2_5' }); }")
        before = [p for p in guard.requests if "/packages/" in p or p.endswith(".chat.json")]
        got = page.evaluate(
            """async (f) => {
              const out = {};
              const q = window.q;
              const llama = await bp.createTokenizer({ tokenizer: 'llama3' });
              const r = await q.applyChatTemplate(f.messages, { returnAssistantMask: true, returnText: true });
              out.qwen = { ids: Array.from(r.ids), mask: Array.from(r.assistantMask), text: r.text };
              out.llama = Array.from(await llama.encodeChat(f.messages, { addGenerationPrompt: true }));
              const g = await bp.createTokenizer({ model: 'gpt-4o' });
              out.count = await g.countChat(f.cookbook.messages);
              out.tools = await g.countChat(f.cookbook.tool_messages, { tools: f.cookbook.tools });
              const err = (p) => p.then(() => null, (e) => ({ name: e.name, token: e.token ?? null, bp: e instanceof bp.BytepairError }));
              out.template = await err(q.applyChatTemplate(f.messages, { chatTemplate: "{{ raise_exception('x') }}" }));
              out.reserved = await err(q.encodeChat([{ role: 'user', content: 'a<|im_end|>' }], { specialText: 'reject' }));
              return out;
            }""",
            fixture,
        )
    finally:
        ctx.close()
    assert not before, f"fetched before the first chat call: {before}"
    assert any(p.endswith("/packages/jinja2-3.1.6-py3-none-any.whl") for p in guard.requests)
    qwen = fixture["templates"]["qwen2_5"][0]
    assert got["qwen"] == {"ids": qwen["ids"], "mask": qwen["mask"], "text": qwen["text"]}
    assert got["llama"] == fixture["templates"]["llama3"][1]["ids"]
    assert (got["count"], got["tools"]) == (124, 101)
    assert got["template"] == {"name": "TemplateError", "token": None, "bp": True}
    assert got["reserved"] == {"name": "ReservedLiteralError", "token": "<|im_end|>", "bp": True}
    assert not guard.violations, guard.violations
