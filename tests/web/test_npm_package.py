"""The packages users install, installed the way users install them, offline.

npm: `build/pack.mjs` (what `make pack` runs) makes the tarball; it is installed into a scratch
project with `npm install <tgz> --offline` and must bring nothing else (no runtime dependencies);
there `import { createTokenizer } from "bytepair"` counts, `npx bytepair count FILE` counts, and an
app bundled with esbuild counts when run from another folder with the assets copied beside it.
`npx bytepair` must answer as the Python CLI does (stdout and exit code, and stderr but for
argparse's wording, which differs between Python 3.11 and Pyodide's 3.14) on a table of commands.

pip: the wheel `pip wheel .` builds, installed with --no-deps into a fresh venv, runs `bytepair count`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import bytepair

from tests.browser import DIST, ROOT, Guard, guarded_context, require_bundle, serve

pytestmark = pytest.mark.browser  # needs dist/ and Node, as the other JS tests
NODE = shutil.which("node")
NPM = shutil.which("npm")
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
VITE = ROOT / "node_modules" / ".bin" / "vite"
OFFLINE = {**os.environ, "npm_config_offline": "true", "npm_config_audit": "false", "npm_config_fund": "false",
           "npm_config_update_notifier": "false"}


def run_offline(args: list[str], cwd: Path, *, input: bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``args`` in ``cwd`` with npm kept offline (``OFFLINE``'s environment unless ``env``), output
    captured, 5 minutes at most (tests/web/test_runtimes.py runs its runtimes with it too)."""
    return subprocess.run(args, cwd=cwd, input=input, capture_output=True, timeout=300, env=env or OFFLINE)


def _module_output(project: Path, script: str) -> list[str]:
    """What an ES module run by Node in the scratch project prints, as words (it must succeed)."""
    result = run_offline([NODE, "--input-type=module", "-e", script], project)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode().split()


@pytest.fixture(scope="module")
def tarball(tmp_path_factory) -> Path:
    require_bundle()
    if not NODE or not NPM:
        pytest.fail("node and npm are needed (make test installs them)")
    out = tmp_path_factory.mktemp("npm-pack")
    (out / "keep.txt").write_text("not pack's")  # what else is in --out must survive (see test below)
    result = run_offline([NODE, str(ROOT / "build" / "pack.mjs"), "--out", str(out)], ROOT)
    assert result.returncode == 0, result.stderr.decode()
    path = Path(result.stdout.decode().strip().splitlines()[-1])  # the convention: the path comes last
    assert path.is_file() and path.suffix == ".tgz"
    return path


@pytest.fixture(scope="module")
def project(tmp_path_factory, tarball: Path) -> Path:
    """A scratch project with the tarball installed from the file, no registry."""
    folder = tmp_path_factory.mktemp("scratch-project")
    (folder / "package.json").write_text(json.dumps({"name": "scratch", "version": "1.0.0", "type": "module", "private": True}))
    result = run_offline([NPM, "install", "--offline", "--no-audit", "--no-fund", str(tarball)], folder)
    assert result.returncode == 0, result.stderr.decode()
    return folder


def test_tarball_holds_the_bundle_and_nothing_else(tarball: Path) -> None:
    with tarfile.open(tarball) as tar:
        names = {n.removeprefix("package/") for n in tar.getnames()}
        manifest = json.load(tar.extractfile("package/package.json"))
    assert {"package.json", "README.md", "LICENSE", "dist/manifest.json", "dist/bytepair.mjs", "dist/bytepair.d.ts", "dist/cli.mjs",
            "dist/bytepair-counter.mjs"} <= names
    assert {n.split("/")[0] for n in names} == {"package.json", "README.md", "LICENSE", "dist"}  # no Python, no tests
    built = json.loads((DIST / "manifest.json").read_text())
    # One form of each file: the snapshot as its Brotli copy alone; the open-model tokenizers and the GPT-3
    # encodings' ranks in bytepair-tokenizers
    optional = {p for p in built["files"] if p.startswith("tokenizers/")} | {built["encodings"][n]["file"] for n in ("p50k_base", "r50k_base")}
    shipped = {p if p != built["snapshot"] else f"{p}.br" for p in built["files"] if p not in optional}
    assert {f"dist/{p}" for p in shipped} <= names
    assert not [n for n in names if n.endswith((".br", ".gz")) and n != f"dist/{built['snapshot']}.br"]
    with tarfile.open(tarball.parent / f"bytepair-tokenizers-{manifest['version']}.tgz") as tar:
        extra = {n.removeprefix("package/") for n in tar.getnames()}
    assert optional <= extra and not {f"dist/{p}" for p in optional} & names
    assert manifest["name"] == "bytepair" and "private" not in manifest
    assert not manifest.get("dependencies") and "devDependencies" not in manifest
    assert manifest["bin"] == {"bytepair": "dist/cli.mjs", "bytepair-assets": "dist/assets.mjs"}


def test_pack_leaves_the_rest_of_its_out_folder_alone(tarball: Path) -> None:
    out = tarball.parent
    assert (out / "keep.txt").read_text() == "not pack's"
    extra = tarball.name.replace("bytepair-", "bytepair-tokenizers-")
    assert sorted(p.name for p in out.iterdir()) == sorted(["keep.txt", tarball.name, extra])  # its staging folders removed


def test_package_size(tarball: Path) -> None:
    """The issue's bounds: at most 12 MB to download and 30 MB installed (make pack prints both)."""
    with tarfile.open(tarball) as tar:
        unpacked = sum(m.size for m in tar.getmembers())
    assert tarball.stat().st_size <= 12_000_000 and unpacked <= 30_000_000, (tarball.stat().st_size, unpacked)


def test_open_model_tokenizers_come_with_the_optional_package(tarball: Path, tmp_path: Path) -> None:
    from tests.hf_reference import hf_folder

    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "package.json").write_text(json.dumps({"name": "scratch", "version": "1.0.0", "type": "module", "private": True}))
    assert run_offline([NPM, "install", "--offline", "--no-audit", "--no-fund", str(tarball)], folder).returncode == 0
    text = "Hello <|begin_of_text|> wörld 🫠"
    script = (
        'import { createTokenizer } from "bytepair";'
        f'const tok = await createTokenizer({{ tokenizer: "llama3" }}).catch((e) => e);'
        'if (tok instanceof Error) console.log(tok.name, tok.message.includes("npm install bytepair-tokenizers"));'
        f'else {{ console.log(JSON.stringify(Array.from(await tok.encode({json.dumps(text)})))); tok.dispose(); }}'
    )
    assert _module_output(folder, script) == ["AssetError", "true"]
    legacy = (
        'import { createTokenizer } from "bytepair";'
        'const tok = await createTokenizer({ encoding: "r50k_base" }).catch((e) => e);'
        'if (tok instanceof Error) console.log(tok.name, tok.message.includes("npm install bytepair-tokenizers"));'
        'else { console.log(JSON.stringify(Array.from(await tok.encode("hello world 🫠")))); tok.dispose(); }'
    )
    assert _module_output(folder, legacy) == ["AssetError", "true"]
    extra = tarball.parent / tarball.name.replace("bytepair-", "bytepair-tokenizers-")
    assert run_offline([NPM, "install", "--offline", "--no-audit", "--no-fund", str(extra)], folder).returncode == 0
    llama3 = bytepair.Tokenizer.from_file(str(hf_folder("llama3") / "tokenizer.json"))
    assert json.loads(_module_output(folder, script)[0]) == llama3.encode(text, add_special_tokens=False).ids
    assert json.loads(_module_output(folder, legacy)[0]) == bytepair.get_encoding("r50k_base").encode("hello world 🫠")
    sample = folder / "sample.txt"
    sample.write_text(text, encoding="utf-8")
    result = run_offline([NPM, "exec", "--offline", "--no", "--", "bytepair", "count", "-t", "llama3", "sample.txt"], folder)
    assert (result.returncode, result.stdout) == (0, f"{llama3.count(text)}\n".encode()), result.stderr.decode()[-2000:]


def test_installs_alone_and_imports_by_name(project: Path) -> None:
    installed = sorted(p.name for p in (project / "node_modules").iterdir() if not p.name.startswith("."))
    assert installed == ["bytepair"]  # no pyodide, no ws: dist/ carries the runtime
    script = (
        'import { createTokenizer, InvalidTokenError } from "bytepair";'
        'const tok = await createTokenizer({ model: "gpt-4o" });'
        'const bad = await tok.decode([-1]).catch((e) => e instanceof InvalidTokenError);'
        'console.log(await tok.count("hello world"), await tok.countTokens("a\\r\\nb"), bad); tok.dispose();'
    )
    assert _module_output(project, script) == ["2", "3", "true"]


def test_every_export_resolves(project: Path) -> None:
    """Each entry of package.json's exports names a file the package has: `bytepair/counter` imports under
    Node (where it defines no element: there are no custom elements)."""
    script = (
        'const pkg = (await import("bytepair/package.json", { with: { type: "json" } })).default;'
        'const manifest = (await import("bytepair/manifest.json", { with: { type: "json" } })).default;'
        'await import("bytepair/counter");'
        'const { createTokenizer } = await import("bytepair");'
        'console.log(Object.keys(pkg.exports).join(" "), manifest.bytepair === pkg.version, typeof createTokenizer);'
    )
    assert _module_output(project, script) == [".", "./workerd", "./edge", "./counter", "./manifest.json", "./dist/*", "./package.json", "true",
                                               "function"]


def test_npx_bytepair_count(project: Path) -> None:
    sample = project / "sample.txt"
    sample.write_bytes(b"Hello, world!\r\n")
    result = run_offline([NPM, "exec", "--offline", "--no", "--", "bytepair", "count", "sample.txt"], project)
    assert result.returncode == 0, result.stderr.decode()
    expected = bytepair.get_encoding("o200k_base").count("Hello, world!\r\n")
    assert result.stdout == f"{expected}\n".encode()


def test_esbuild_bundle_runs_from_another_folder(project: Path, tmp_path: Path) -> None:
    if not ESBUILD.exists():
        pytest.fail("esbuild is missing: npm ci installs it (a devDependency)")
    (project / "app.mjs").write_text(
        'import { createTokenizer } from "bytepair";\n'
        'const tok = await createTokenizer({ assetsUrl: new URL("./bytepair-assets/", import.meta.url) });\n'
        'console.log(await tok.count("hello world"));\n'
        "tok.dispose();\n"
    )
    out = tmp_path / "elsewhere"
    result = run_offline([str(ESBUILD), "app.mjs", "--bundle", "--platform=node", "--format=esm", f"--outfile={out / 'app.mjs'}"], project)
    assert result.returncode == 0, result.stderr.decode()
    shutil.copytree(project / "node_modules" / "bytepair" / "dist", out / "bytepair-assets")
    shutil.rmtree(project / "node_modules" / ".cache", ignore_errors=True)
    result = run_offline([NODE, "app.mjs"], out)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout == b"2\n"
    # Without the assets beside it, the bundled app fails with a typed error that says what to do.
    shutil.rmtree(out / "bytepair-assets")
    result = run_offline([NODE, "app.mjs"], out)
    assert result.returncode != 0 and b"AssetError" in result.stderr and b"assetsUrl" in result.stderr


def test_vite_build_has_no_warnings_and_no_dead_files(project: Path, tmp_path: Path) -> None:
    """A tiny Vite app importing "bytepair": the build prints no warning (Vite's warn level shows
    warnings only), and every file it emits is reached from index.html (no worker chunk nothing starts:
    the worker comes from assetsUrl)."""
    import re

    if not VITE.exists():
        pytest.fail("vite is missing: npm ci installs it (a devDependency)")
    app = project / "vite-app"
    app.mkdir(exist_ok=True)
    (app / "index.html").write_text('<!doctype html><meta charset="utf-8"><script type="module" src="./main.js"></script>\n')
    (app / "main.js").write_text(
        'import { createTokenizer } from "bytepair";\n'
        'const tok = await createTokenizer({ assetsUrl: new URL("/bytepair/", location.href) });\n'
        'document.body.textContent = String(await tok.count("hello world"));\n'
    )
    out = tmp_path / "vite-dist"
    result = run_offline([str(VITE), "build", "vite-app", "--outDir", str(out), "--emptyOutDir", "--logLevel", "warn"], project)
    assert result.returncode == 0, result.stderr.decode()
    assert not (result.stdout + result.stderr).strip(), (result.stdout + result.stderr).decode()  # no warning
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    reached, todo = set(), ["index.html"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        text = (out / name).read_text(encoding="utf-8", errors="replace")
        todo += [f for f in files if re.search(rf"(?<![\w-]){re.escape(f.rsplit('/', 1)[-1])}", text)]
    assert files == reached, f"emitted but not used: {sorted(files - reached)}"
    assert not [f for f in files if "worker" in f.lower()]


def test_esbuild_browser_bundle_starts_its_worker_from_assets_url(project: Path, tmp_path: Path, browser) -> None:
    """Bundled for the browser, the API has no Node built-in to resolve (they are imported by a name
    bundlers do not follow), and its worker comes from assetsUrl: worker.mjs is not beside the bundle."""
    (project / "web-app.mjs").write_text(
        'import { createTokenizer } from "bytepair";\n'
        'createTokenizer({ assetsUrl: new URL("./bytepair-assets/", import.meta.url) })\n'
        '  .then(async (tok) => { window.outcome = await tok.count("hello world"); tok.dispose(); })\n'
        '  .catch((err) => { window.outcome = `${err.name}: ${err.message}`; });\n'
    )
    site = tmp_path / "site"
    result = run_offline([str(ESBUILD), "web-app.mjs", "--bundle", "--platform=browser", "--format=esm", "--log-level=warning",
                   f"--outfile={site / 'app.mjs'}"], project)
    assert result.returncode == 0 and not result.stderr, result.stderr.decode()  # no error, no warning
    # A web server needs the plain files and the .br/.gz copies: `npx bytepair-assets DIR` writes them.
    result = run_offline([NPM, "exec", "--offline", "--no", "--", "bytepair-assets", str(site / "bytepair-assets")], project)
    assert result.returncode == 0, result.stderr.decode()
    assert {"snapshot.bin", "snapshot.bin.br", "snapshot.bin.gz", "pyodide/pyodide.asm.wasm.br"} <= {
        p.relative_to(site / "bytepair-assets").as_posix() for p in (site / "bytepair-assets").rglob("*")}
    (site / "index.html").write_text('<!doctype html><meta charset="utf-8"><script type="module" src="./app.mjs"></script>')
    server, base = serve.serve_in_background(site)
    guard = Guard()
    context = guarded_context(browser, guard)
    try:
        page = context.new_page()
        page.goto(base + "index.html")
        page.wait_for_function("window.outcome !== undefined", timeout=120_000)
        assert page.evaluate("window.outcome") == 2
        assert "/bytepair-assets/worker.mjs" in guard.requests and "/worker.mjs" not in guard.requests
        assert not guard.violations
    finally:
        context.close()
        server.shutdown()


# (argv, stdin): each run by `npx bytepair` and by the Python CLI, in a folder holding the files below.
CLI_CASES = [
    (["count", "crlf.txt"], None),
    (["count", "-e", "cl100k_base", "crlf.txt", "bom.txt"], None),
    (["encode", "--format", "lines", "-m", "gpt-4", "plain.txt"], None),
    (["inspect", "crlf.txt"], None),
    (["count", "bad.txt"], None),
    (["count", "special.txt"], None),
    (["count", "-e", "no_such_encoding", "plain.txt"], None),
    (["count", "missing.txt"], None),
    (["decode"], b"[9906, 11, 1917, 0]"),
    (["frobnicate"], None),
]
FILES = {
    "crlf.txt": b"line one\r\nline two\r\n\r\n",
    "plain.txt": "Caf\u00e9 \U0001fae0 \u65e5\u672c\u8a9e don't stop\n".encode(),
    "bom.txt": b"\xef\xbb\xbfhello",
    "bad.txt": b"ok \xff\xfe bad",
    "special.txt": b"a <|endoftext|> b",
}


def test_npx_bytepair_answers_as_the_python_cli(project: Path, tmp_path: Path) -> None:
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    cli = project / "node_modules" / "bytepair" / "dist" / "cli.mjs"
    python_env = {**os.environ, "PYTHONPATH": str(ROOT / "core")}
    differences = []
    for argv, stdin in CLI_CASES:
        js = run_offline([NODE, str(cli), *argv], tmp_path, input=stdin or b"")
        py = run_offline([sys.executable, "-m", "bytepair", *argv], tmp_path, input=stdin or b"", env=python_env)
        usage = py.returncode == 2 and py.stderr.startswith(b"usage:")
        same_err = usage or js.stderr == py.stderr
        if (js.returncode, js.stdout) != (py.returncode, py.stdout) or not same_err:
            differences.append(f"{argv}: npx {js.returncode} {js.stdout[:80]!r} {js.stderr[:160]!r}\n"
                               f"{' ' * len(str(argv))}  python {py.returncode} {py.stdout[:80]!r} {py.stderr[:160]!r}")
        if usage:
            assert js.stderr.startswith(b"usage: bytepair") and js.returncode == 2
    assert not differences, "\n".join(differences)


def test_pip_wheel_installs_alone_and_counts(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    result = run_offline([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), str(ROOT)], ROOT,
                  env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert result.returncode == 0, result.stderr.decode()
    (wheel,) = wheels.glob("bytepair-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # else pip finds the source tree's bytepair
    pip = run_offline([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], tmp_path,
               env={**clean, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert pip.returncode == 0, pip.stderr.decode()
    (tmp_path / "crlf.txt").write_bytes(FILES["crlf.txt"])
    result = run_offline([str(venv / "bin" / "bytepair"), "count", "crlf.txt"], tmp_path, env=clean)
    assert result.returncode == 0, result.stderr.decode()
    native = run_offline([sys.executable, "-m", "bytepair", "count", "crlf.txt"], tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT / "core")})
    assert result.stdout == native.stdout


def test_readme_npx_lines_run(project: Path, tmp_path: Path) -> None:
    """Every `npx ...` line of the README's ```sh blocks runs in the scratch project, with README.md
    beside it (the README counts itself), and exits 0."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:sh|bash|shell)\n(.*?)```", readme, flags=re.S)
    lines = [line.split("  #")[0].strip() for block in blocks for line in block.splitlines() if line.startswith("npx ")]
    assert len(lines) >= 3, lines
    shutil.copy(ROOT / "README.md", project / "README.md")
    for line in lines:
        result = run_offline(["sh", "-c", line], project)
        assert result.returncode == 0, f"{line}: {result.stderr.decode()[-2000:]}"
        if line.endswith("count README.md"):
            want = bytepair.get_encoding("o200k_base").count(readme, disallowed_special=())
            assert result.stdout == f"{want}\n".encode() and b"counted as ordinary text" in result.stderr
    assert (project / "public" / "bytepair" / "snapshot.bin").is_file()
