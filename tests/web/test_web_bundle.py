"""The offline bundle in real headless Chromium: the same ids as the native core, through the JS API
in a Web Worker, with nothing fetched from anywhere but 127.0.0.1: the OpenAI encodings, and
open-model tokenizer.json files (prepared at build time, or given as a URL, object, Blob or File)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bytepair
from bytepair.data.openai import ENCODING_SPECS

from tests.browser import TEST_PAGE, Guard, open_page, wait_for_runtime_snapshot
from tests.conftest import corpus_texts
from tests.test_parity_tiktoken import ADVERSARIAL

pytestmark = pytest.mark.browser

CORPUS = corpus_texts()

# The page keeps tokenizers in window.toks, created on first use.
TOKENIZER_JS = """
window.tok = async (name) => {
  window.toks ??= {};
  window.toks[name] ??= window.bp.createTokenizer({ encoding: name });
  return window.toks[name];
};
"""


@pytest.fixture(scope="module")
def web(browser, dist_server):
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    page.evaluate(
        """async (setup) => {
          window.bp = await import('./bytepair.mjs');
          eval(setup);
          window.progress = [];
          window.toks = { o200k_base: window.bp.createTokenizer({ encoding: 'o200k_base', onProgress: (p) => window.progress.push(p) }) };
          await window.toks.o200k_base;
        }""",
        TOKENIZER_JS,
    )
    yield page, guard
    ctx.close()
    assert not guard.violations, guard.violations


def js_encode(page, name: str, texts: list[str]) -> list[list[int]]:
    return page.evaluate(
        "async ([name, texts]) => { const t = await tok(name); return Promise.all(texts.map(async (x) => Array.from(await t.encode(x, { disallowedSpecial: [] })))); }",
        [name, texts],
    )


def js_error(page, script: str, arg=None) -> dict:
    return page.evaluate(
        f"async (arg) => {{ try {{ await ({script})(arg); return null; }} catch (e) {{ return {{ name: e.name, message: e.message }}; }} }}",
        arg,
    )


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_corpus_ids_equal_native(web, name: str) -> None:
    page, _ = web
    texts = list(CORPUS.values())
    enc = bytepair.get_encoding(name)
    assert js_encode(page, name, texts) == [enc.encode(t, disallowed_special=()) for t in texts]


def test_adversarial_ids_equal_native_all_encodings(web) -> None:
    page, _ = web
    texts = [v for k, v in sorted(ADVERSARIAL.items())]
    for name in ENCODING_SPECS:  # the bundled encodings, whatever a test may have registered
        enc = bytepair.get_encoding(name)
        assert js_encode(page, name, texts) == [enc.encode(t, disallowed_special=()) for t in texts], name


def test_lone_surrogates(web) -> None:
    page, _ = web
    got = page.evaluate(
        """async () => {
          const t = await tok('o200k_base');
          const s = String.fromCharCode;
          const texts = ['a' + s(0xD800) + 'b', s(0xDFFF), 'x' + s(0xD83D), s(0xD83D, 0xDE00), s(0xD83D, 0xD83D, 0xDE00, 0xDE00)];
          return Promise.all(texts.map(async (x) => [Array.from(await t.encode(x)), await t.count(x)]));
        }"""
    )
    texts = ["a\ud800b", "\udfff", "x\ud83d", "\ud83d\ude00", "\ud83d\ud83d\ude00\ude00"]
    enc = bytepair.get_encoding("o200k_base")
    assert got == [[enc.encode(t), enc.count(t)] for t in texts]


def test_offsets_are_utf16_for_emoji_and_cjk_extension_b(web) -> None:
    page, _ = web
    text = "a🫠b𠀀c 日本語 👩‍👩‍👧!"
    got = page.evaluate(
        "async (x) => { const r = await (await tok('o200k_base')).encodeWithOffsets(x); return [Array.from(r.ids), Array.from(r.starts), Array.from(r.ends)]; }",
        text,
    )
    ids, spans = bytepair.get_encoding("o200k_base").encode_with_offsets(text)
    assert got == [
        ids,
        bytepair.utf16_offsets(text, [s for s, _ in spans]),
        bytepair.utf16_offsets(text, [e for _, e in spans]),
    ]
    # In JavaScript terms: every span is a slice of the string that holds the token's characters.
    slices = page.evaluate(
        "async (x) => { const r = await (await tok('o200k_base')).encodeWithOffsets(x); return Array.from(r.starts, (s, i) => x.slice(s, r.ends[i])); }",
        text,
    )
    assert "🫠" in slices and "𠀀" in slices


def test_streaming_decode_of_a_split_emoji(web) -> None:
    page, _ = web
    outputs = page.evaluate(
        """async () => {
          const t = await tok('o200k_base');
          const ids = await t.encode('🫠!');
          const d = t.decoder();
          const out = [];
          for (const id of ids) out.push(await d.write(id));
          out.push(await d.flush());
          await d.close();
          return [ids.length, out];
        }"""
    )
    n, parts = outputs
    assert n >= 3
    assert "".join(parts) == "🫠!"
    assert parts[0] == ""  # half an emoji is held back, not shown as U+FFFD


@pytest.mark.timing
def test_five_megabytes_and_a_responsive_page(web) -> None:
    page, _ = web
    seed = CORPUS["mixed"]
    result = page.evaluate(
        """async (seed) => {
          let text = seed;
          while (text.length < 5_000_000) text += seed;
          text = text.slice(0, 5_000_000);
          const t = await tok('cl100k_base');
          let last = performance.now(), worst = 0;
          const timer = setInterval(() => { const now = performance.now(); worst = Math.max(worst, now - last); last = now; }, 10);
          const ids = await t.encode(text, { disallowedSpecial: [] });
          clearInterval(timer);
          let sum = 0;
          for (const id of ids) sum = (sum + id) % 1000000007;
          return { n: ids.length, sum, worst, head: Array.from(ids.slice(0, 50)), chars: text.length };
        }""",
        seed,
    )
    text = (seed * (5_000_000 // len(seed) + 1))[:5_000_000]
    ids = bytepair.get_encoding("cl100k_base").encode(text, disallowed_special=())
    assert result["chars"] == len(text)
    assert (result["n"], result["sum"], result["head"]) == (len(ids), sum(ids) % 1000000007, ids[:50])
    assert result["worst"] < 500, f"main thread blocked for {result['worst']:.0f} ms"


def test_ten_megabytes_count(web) -> None:
    page, _ = web
    got = page.evaluate(
        "async () => { const t = await tok('o200k_base'); const text = 'Lorem ipsum dolor sit amet, 東京 🙂\\n'.repeat(300000); return [text.length, await t.count(text)]; }"
    )
    text = "Lorem ipsum dolor sit amet, 東京 🙂\n" * 300000
    assert got == [len(text.encode("utf-16-le")) // 2, bytepair.get_encoding("o200k_base").count(text)]


def test_hundred_concurrent_calls(web) -> None:
    page, _ = web
    texts = [f"call {i}: " + "word " * (i % 7) + "🙂" * (i % 3) for i in range(100)]
    got = page.evaluate(
        """async (texts) => {
          const [a, b] = await Promise.all([tok('o200k_base'), tok('cl100k_base')]);
          return Promise.all(texts.map(async (x, i) => Array.from(await (i % 2 ? a : b).encode(x))));
        }""",
        texts,
    )
    o200k, cl100k = bytepair.get_encoding("o200k_base"), bytepair.get_encoding("cl100k_base")
    assert got == [(o200k if i % 2 else cl100k).encode(t) for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    ("script", "name", "fragment"),
    [
        ("async () => (await tok('o200k_base')).encode('<|endoftext|>')", "DisallowedSpecialTokenError", "allowedSpecial"),
        ("async () => (await tok('o200k_base')).decode([-1])", "InvalidTokenError", "not a token id"),
        ("async () => (await tok('o200k_base')).decode([1.5])", "InvalidTokenError", "integers"),
        ("async () => (await tok('o200k_base')).decode([2 ** 40])", "InvalidTokenError", "not a token id"),
        ("async () => (await tok('o200k_base')).decode(new Uint32Array([4294967295]))", "InvalidTokenError", "not a token id"),
        ("async () => (await tok('o200k_base')).decode(new Int32Array([5, -7]))", "InvalidTokenError", "position 1"),
        ("async () => (await tok('o200k_base')).decode('abc')", "InvalidInputError", "array"),
        ("async () => (await tok('o200k_base')).encode(42)", "InvalidInputError", "str"),
        ("async () => (await tok('o200k_base')).isWithinTokenLimit('abc', -1)", "InvalidInputError", "limit"),
        ("async () => bp.createTokenizer({ encoding: 'o300k' })", "UnknownEncodingError", "o200k_base"),
        ("async () => bp.createTokenizer({ model: 'no-such-model' })", "UnknownModelError", "no-such-model"),
    ],
)
def test_python_errors_arrive_as_named_js_errors(web, script: str, name: str, fragment: str) -> None:
    page, _ = web
    error = js_error(page, script)
    assert error is not None and error["name"] == name, error
    assert fragment in error["message"]
    # The worker survives.
    assert js_encode(page, "o200k_base", ["still alive"]) == [bytepair.get_encoding("o200k_base").encode("still alive")]


def test_special_token_policy_across_the_boundary(web) -> None:
    page, _ = web
    got = page.evaluate(
        """async () => {
          const t = await tok('cl100k_base');
          const x = 'a<|endoftext|>b';
          return [Array.from(await t.encode(x, { allowedSpecial: 'all' })),
                  Array.from(await t.encode(x, { allowedSpecial: new Set(['<|endoftext|>']) })),
                  Array.from(await t.encode(x, { disallowedSpecial: [] })),
                  await t.isWithinTokenLimit(x, 3, { allowedSpecial: 'all' }),
                  await t.isWithinTokenLimit(x, 2, { allowedSpecial: 'all' })];
        }"""
    )
    enc = bytepair.get_encoding("cl100k_base")
    x = "a<|endoftext|>b"
    assert got == [
        enc.encode(x, allowed_special="all"),
        enc.encode(x, allowed_special="all"),
        enc.encode(x, disallowed_special=()),
        3,
        False,
    ]


def test_decode_and_token_bytes(web) -> None:
    page, _ = web
    got = page.evaluate(
        """async () => {
          const t = await tok('o200k_base');
          const ids = await t.encode('héllo 🫠');
          const bytes = await t.decodeTokenBytes(ids);
          return [await t.decode(ids), await t.decode(Array.from(ids)), bytes.map((b) => Array.from(b))];
        }"""
    )
    enc = bytepair.get_encoding("o200k_base")
    ids = enc.encode("héllo 🫠")
    assert got == ["héllo 🫠", "héllo 🫠", [list(b) for b in enc.decode_tokens_bytes(ids)]]


def test_calls_after_dispose(web) -> None:
    page, _ = web
    error = js_error(page, "async () => { const t = await bp.createTokenizer({ encoding: 'r50k_base' }); t.dispose(); return t.count('x'); }")
    assert error["name"] == "DisposedError"
    # Other tokenizers sharing the runtime are unaffected.
    assert js_encode(page, "o200k_base", ["fine"]) == [bytepair.get_encoding("o200k_base").encode("fine")]


def test_progress_reports_bytes(web) -> None:
    page, _ = web
    progress = page.evaluate("() => window.progress")
    manifest = json.loads((__import__("pathlib").Path(__file__).parents[2] / "dist" / "manifest.json").read_text())
    # A fresh profile: the runtime, the shipped memory snapshot and the ranks.
    needed = [*manifest["runtime"].values(), manifest["snapshot"], manifest["encodings"]["o200k_base"]["file"]]
    total = sum(manifest["files"][p]["size"] for p in needed)
    assert progress[-1] == {"loaded": total, "total": total, "phase": "ready", "wireKnown": True,
                            "wireLoaded": progress[-1]["wireTotal"], "wireTotal": progress[-1]["wireTotal"]}
    assert progress[-1]["wireTotal"] < total * 0.4  # served with the Brotli copies: what the wire carried
    loaded = [p["loaded"] for p in progress]
    assert loaded == sorted(loaded) and len(progress) > 5
    # After the bytes (the bar at 100%), the page still hears what is going on.
    phases = [p["phase"] for i, p in enumerate(progress) if i == 0 or p["phase"] != progress[i - 1]["phase"]]
    assert phases == ["fetching", "compiling", "starting", "ranks", "ready"], phases
    assert all(p["loaded"] == total for p in progress if p["phase"] != "fetching")


def test_runtime_loads_once_and_asset_failures_are_clear(browser, dist_server) -> None:
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    names = page.evaluate(
        """async () => {
          window.bp = await import('./bytepair.mjs');
          const toks = await Promise.all([
            bp.createTokenizer({ encoding: 'o200k_base' }),
            bp.createTokenizer({ encoding: 'cl100k_base' }),
            bp.createTokenizer({ model: 'gpt-4o' }),
          ]);
          return toks.map((t) => t.encoding);
        }"""
    )
    assert names == ["o200k_base", "cl100k_base", "o200k_base"]
    assert guard.requests.count("/pyodide/pyodide.asm.wasm") == 1
    assert guard.requests.count("/encodings/o200k_base.bpr") == 1

    guard.overrides["/encodings/p50k_base.bpr"] = (200, b"this is not the file")
    error = js_error(page, "async () => bp.createTokenizer({ encoding: 'p50k_base' })")
    assert error["name"] == "IntegrityError" and "encodings/p50k_base.bpr" in error["message"], error
    guard.overrides["/encodings/p50k_base.bpr"] = (404, b"")
    error = js_error(page, "async () => bp.createTokenizer({ encoding: 'p50k_edit' })")
    assert error["name"] == "AssetError" and "p50k_base.bpr" in error["message"], error
    del guard.overrides["/encodings/p50k_base.bpr"]
    recovered = page.evaluate(
        "async () => Array.from(await (await bp.createTokenizer({ encoding: 'p50k_base' })).encode('recovered'))"
    )
    assert recovered == bytepair.get_encoding("p50k_base").encode("recovered")

    # A second page of the same profile starts from the snapshot of the started runtime that the
    # first one kept in the origin private file system: no shipped snapshot, no o200k ranks.
    wait_for_runtime_snapshot(page)
    second = ctx.new_page()
    second.goto(page.url)
    count = second.evaluate("async () => (await (await import('./bytepair.mjs')).createTokenizer()).count('warm start')")
    assert count == bytepair.get_encoding("o200k_base").count("warm start")
    assert guard.requests.count("/snapshot.bin") == 1
    assert guard.requests.count("/encodings/o200k_base.bpr") == 1
    ctx.close()
    assert not guard.violations, guard.violations


def test_snapshot_is_stored_only_when_sound(browser, dist_server) -> None:
    """A corrupt snapshot download is refused; the next start works and stores a snapshot of the
    started runtime, which a later page then starts from without downloading the shipped one."""
    guard = Guard(overrides={"/snapshot.bin": (200, b"BPSNAP2\x00 not a snapshot")})
    ctx, page = open_page(browser, dist_server, guard)
    error = js_error(page, "async () => (await import('./bytepair.mjs')).createTokenizer()")
    assert error["name"] == "IntegrityError" and "snapshot.bin" in error["message"], error
    del guard.overrides["/snapshot.bin"]
    script = "async (text) => (await (await import('./bytepair.mjs')).createTokenizer()).count(text)"
    assert page.evaluate(script, "second try") == bytepair.get_encoding("o200k_base").count("second try")
    downloads = guard.requests.count("/snapshot.bin")
    assert downloads == 2
    wait_for_runtime_snapshot(page)
    page.close()
    later = ctx.new_page()
    later.goto(dist_server + TEST_PAGE)
    assert later.evaluate(script, "from storage") == bytepair.get_encoding("o200k_base").count("from storage")
    assert guard.requests.count("/snapshot.bin") == downloads
    ctx.close()
    assert not guard.violations, guard.violations


def test_corrupt_runtime_asset_is_named(browser, dist_server) -> None:
    guard = Guard(overrides={"/pyodide/python_stdlib.zip": (200, b"PK\x05\x06" + b"\x00" * 18)})
    ctx, page = open_page(browser, dist_server, guard)
    error = js_error(page, "async () => (await import('./bytepair.mjs')).createTokenizer()")
    ctx.close()
    assert error["name"] == "IntegrityError" and "pyodide/python_stdlib.zip" in error["message"]
    assert not guard.violations


# ---------------------------------------------------------------- open-model tokenizers (tokenizer.json)
@pytest.fixture(scope="module")
def hf_expected() -> dict:
    from tests.web.test_node_api import tokenizers_fixture  # the same native expectations as the Node tests

    return tokenizers_fixture()


def test_prepared_tokenizers_fetched_only_when_opened(web, hf_expected) -> None:
    page, guard = web
    assert not any("/tokenizers/" in path for path in guard.requests), guard.requests
    names = page.evaluate("() => window.bp.listTokenizers()")
    assert names == hf_expected["names"]
    for name, expected in hf_expected["prepared"].items():
        got = page.evaluate(
            """async ([name, cases]) => {
              const t = await window.bp.createTokenizer({ tokenizer: name });
              const out = { info: t.info, ids: [], counts: [], decoded: [] };
              for (const c of cases) {
                out.ids.push(Array.from(await t.encode(c.text)));
                out.counts.push(await t.count(c.text));
                out.decoded.push(await t.decode(c.ids));
              }
              t.dispose();
              return out;
            }""",
            [name, expected["cases"]],
        )
        assert got["info"] == {"family": "tokenizer.json", "name": name, "vocabSize": expected["vocab_size"],
                               "specialTokens": expected["special_tokens"]}
        assert got["ids"] == [c["ids"] for c in expected["cases"]], name
        assert got["counts"] == [len(c["ids"]) for c in expected["cases"]], name
        assert got["decoded"] == [c["decoded"] for c in expected["cases"]], name
    fetched = {p.rsplit("/", 1)[1] for p in guard.requests if "/tokenizers/" in p}
    assert fetched == {f"{name}.json.gz" for name in hf_expected["prepared"]}  # qwen3 was never asked for


def test_llama3_offsets_and_stream_in_the_worker(web, hf_expected) -> None:
    page, _ = web
    offsets, stream = hf_expected["offsets"], hf_expected["stream"]
    got = page.evaluate(
        """async ([text, ids]) => {
          const t = await window.bp.createTokenizer({ tokenizer: 'llama3' });
          const r = await t.encodeWithOffsets(text);
          const d = t.decoder();
          const parts = [];
          for (const id of ids) parts.push(await d.write(id));
          parts.push(await d.flush());
          t.dispose();
          return [Array.from(r.ids), Array.from(r.starts), Array.from(r.ends), parts.join('')];
        }""",
        [offsets["text"], stream["ids"]],
    )
    assert got == [offsets["ids"], offsets["starts"], offsets["ends"], stream["text"]]


def test_tokenizer_json_as_url_object_blob_and_file(web, hf_expected) -> None:
    page, guard = web
    case = hf_expected["json"]
    guard.overrides["/models/gpt2/tokenizer.json"] = (200, Path(case["path"]).read_bytes())
    got = page.evaluate(
        """async (text) => {
          const url = new URL('./models/gpt2/tokenizer.json', location.href);
          const source = await (await fetch(url)).text();
          const forms = [['url string', url.href], ['URL', url], ['object', JSON.parse(source)], ['text', source],
                         ['Blob', new Blob([source])], ['File', new File([source], 'my-tokenizer.json')]];
          const out = {};
          for (const [label, form] of forms) {
            const t = await window.bp.createTokenizer({ tokenizerJson: form });
            out[label] = [t.info.name, Array.from(await t.encode(text))];
            t.dispose();
          }
          return out;
        }""",
        case["text"],
    )
    names = {"url string": "gpt2", "URL": "gpt2", "object": "tokenizer.json", "text": "tokenizer.json",
             "Blob": "tokenizer.json", "File": "my-tokenizer.json"}
    assert got == {label: [name, case["ids"]] for label, name in names.items()}


def test_bad_tokenizer_json_gives_typed_errors(web) -> None:
    page, _ = web
    assert js_error(page, "() => window.bp.createTokenizer({ tokenizerJson: new File(['{ not json'], 'x.json') })")["name"] == "VocabFormatError"
    err = js_error(page, "() => window.bp.createTokenizer({ tokenizerJson: { model: { type: 'Frobnicate', vocab: {} } } })")
    assert err["name"] == "UnsupportedTokenizerError" and "BPE" in err["message"]
    err = js_error(page, "() => window.bp.createTokenizer({ tokenizer: 'llama9' })")
    assert err["name"] == "UnknownTokenizerError" and "llama3" in err["message"]
    err = js_error(page, "() => window.bp.createTokenizer({ tokenizerJson: './no/such/tokenizer.json' })")
    assert err["name"] == "AssetError" and "404" in err["message"]


def test_runtimes_without_workers_run_it_in_process(browser, dist_server) -> None:
    """Where there is no Worker (edge runtimes), the API runs the runtime in the calling thread
    (bytepair.mjs's InProcessBackend): the same ids, counts and text back. Browsers and Node use a
    worker, so this page takes Worker away before importing the module."""
    guard = Guard()
    ctx, page = open_page(browser, dist_server, guard)
    texts = ["hello world", "naïve café 🫠 日本語", "x" * 5000 + " end"]
    got = page.evaluate(
        """async (texts) => {
          delete globalThis.Worker;
          const bp = await import('./bytepair.mjs');
          const tok = await bp.createTokenizer({ encoding: 'o200k_base' });
          const ids = [];
          for (const t of texts) ids.push(Array.from(await tok.encode(t)));
          const out = { ids, count: await tok.count(texts[1]), text: await tok.decode(ids[1]), worker: typeof Worker };
          tok.dispose();
          return out;
        }""",
        texts,
    )
    ctx.close()
    enc = bytepair.get_encoding("o200k_base")
    assert got["worker"] == "undefined"
    assert got["ids"] == [enc.encode(t) for t in texts]
    assert got["count"] == len(enc.encode(texts[1])) and got["text"] == texts[1]
    assert not guard.violations, guard.violations


def test_the_bundled_wheel_holds_exactly_the_package() -> None:
    """dist/'s wheel carries every module of core/bytepair and nothing else: no stale copy of a moved
    module (setuptools keeps old build/lib files; a module beside a package of the same name would
    ship, and be imported into the snapshot, twice)."""
    import zipfile

    root = Path(__file__).resolve().parents[2]
    manifest = json.loads((root / "dist" / "manifest.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(root / "dist" / manifest["wheel"]) as wheel:
        names = wheel.namelist()
        shipped = {n[:-1] for n in names if n.startswith("bytepair/") and n.endswith(".pyc") and "__pycache__" not in n}
        # bytepair's modules ship as bytecode only (build/bundle.mjs), but for the package's
        # __init__.py, kept with its cached bytecode so that the lock file names the package
        sources = [n for n in names if n.startswith("bytepair/") and (n.endswith(".py") or "__pycache__" in n)]
        assert sorted(sources) == ["bytepair/__init__.py", "bytepair/__pycache__/__init__.cpython-314.pyc"]
        shipped.add("bytepair/__init__.py")
    package = root / "core" / "bytepair"
    on_disk = {f"bytepair/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    assert shipped == on_disk
