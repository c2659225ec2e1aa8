"""The wheels chat templates need in Pyodide: jinja2 and a pure-Python MarkupSafe, sha256-pinned.

Why a script of its own: ``bytepair.llm.chat_template`` renders with jinja2, which imports MarkupSafe.
jinja2 is a pure wheel on PyPI and is used as published. MarkupSafe publishes platform wheels and an
sdist; its C speedups are optional (``markupsafe/__init__.py`` falls back to ``_native.py``), but its
``setup.py`` has no switch to leave them out: it tries the compiler and falls back only when that
fails. So the wheel is written here from the sdist's pure-Python sources (the package's ``.py`` files
and ``py.typed``, with the sdist's ``PKG-INFO`` as ``METADATA``), with fixed timestamps: the same sdist
gives the same bytes, which are pinned too. Nothing is compiled and no build backend runs.

Downloads go through pip (``pip download``, PyPI) into ``build/cache/wheels/``; every file is checked
against the pins below before use. Prints the paths of the two wheels, one a line.

Usage: python build/chat_wheels.py [--out DIR]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "cache" / "wheels"

# The versions Pyodide 314's own lock file lists (its MarkupSafe wheel there is compiled for wasm).
JINJA2 = ("jinja2-3.1.6-py3-none-any.whl", "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67")
MARKUPSAFE_SDIST = ("markupsafe-3.0.3.tar.gz", "722695808f4b6457b320fdc131280796bdceb04ab50fe1795cd540799ebe1698")
MARKUPSAFE_WHEEL = ("markupsafe-3.0.3-py3-none-any.whl", "3b5ee21b95ad2d6505995d212aaac937360e6973dd1f4d72f0ff3594379e39a4")
STAMP = (1980, 1, 1, 0, 0, 0)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch(name: str, digest: str, requirement: str, *pip_args: str) -> Path:
    """``name`` from the cache, else downloaded by pip; its sha256 must be ``digest``."""
    path = CACHE / name
    if not path.is_file() or sha256(path.read_bytes()) != digest:
        CACHE.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
             "-d", str(CACHE), *pip_args, requirement],
            capture_output=True, text=True, check=False,
        )
        if result.returncode != 0 or not path.is_file():
            raise SystemExit(f"pip download {requirement} failed (it needs PyPI): {result.stderr.strip()[-800:]}")
    actual = sha256(path.read_bytes())
    if actual != digest:
        path.unlink()
        raise SystemExit(f"{name}: sha256 is {actual}, pinned {digest}; not using it")
    return path


def pure_wheel(sdist: Path, package: str = "markupsafe") -> bytes:
    """A ``py3-none-any`` wheel of ``package`` from the sdist's ``src/<package>/`` Python files."""
    files: dict[str, bytes] = {}
    with tarfile.open(sdist) as tar:
        top = tar.getnames()[0].split("/")[0]
        version = top.rsplit("-", 1)[1]
        for member in tar.getmembers():
            parts = member.name.split("/")
            if member.isfile() and parts[1:3] == ["src", package] and parts[-1].endswith((".py", "py.typed")):
                files["/".join(parts[2:])] = tar.extractfile(member).read()  # type: ignore[union-attr]
        metadata = tar.extractfile(f"{top}/PKG-INFO").read()  # type: ignore[union-attr]
        license_text = tar.extractfile(f"{top}/LICENSE.txt").read()  # type: ignore[union-attr]
    info = f"{package}-{version}.dist-info"
    files[f"{info}/METADATA"] = metadata
    files[f"{info}/licenses/LICENSE.txt"] = license_text
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: bytepair build/chat_wheels.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/top_level.txt"] = f"{package}\n".encode()
    record = []
    out = _zip_bytes(files, record, f"{info}/RECORD")
    return out


def _zip_bytes(files: dict[str, bytes], record: list[str], record_name: str) -> bytes:
    import io

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in sorted(files):
            data = files[name]
            entry = zipfile.ZipInfo(name, STAMP)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            z.writestr(entry, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        record.append(f"{record_name},,")
        entry = zipfile.ZipInfo(record_name, STAMP)
        entry.external_attr = 0o644 << 16
        z.writestr(entry, "\n".join(record) + "\n")
    return buffer.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CACHE, help="where the wheels go (default: build/cache/wheels)")
    args = parser.parse_args()
    jinja2 = fetch(*JINJA2, "jinja2==3.1.6", "--only-binary", ":all:")
    sdist = fetch(*MARKUPSAFE_SDIST, "markupsafe==3.0.3", "--no-binary", ":all:")
    wheel = pure_wheel(sdist)
    if sha256(wheel) != MARKUPSAFE_WHEEL[1]:
        raise SystemExit(f"the MarkupSafe wheel built from {sdist.name} has sha256 {sha256(wheel)}, pinned {MARKUPSAFE_WHEEL[1]}")
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / MARKUPSAFE_WHEEL[0]
    target.write_bytes(wheel)
    if args.out.resolve() != CACHE.resolve():
        (args.out / JINJA2[0]).write_bytes(jinja2.read_bytes())
        jinja2 = args.out / JINJA2[0]
    print(jinja2)
    print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
