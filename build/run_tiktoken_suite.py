"""Run tiktoken 0.14's own test suite against bytepair (``make test-tiktoken-suite``).

Why: "drop-in for tiktoken" is best judged by tiktoken's tests, unchanged. Its sdist on PyPI ships
``tests/``; this script downloads that sdist once into ``build/cache/`` (pinned by sha256), extracts the
tests into a temporary directory, writes a shim package named ``tiktoken`` whose modules only
re-export bytepair's names, puts it first on ``PYTHONPATH`` (subprocess tests import it too) and runs
pytest there. No network is needed after the first download: bytepair's bundled encodings are used.
tiktoken's test files are never copied into this repository.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "cache" / "tiktoken-sdist"
VERSION = "0.14.0"
SDIST = f"tiktoken-{VERSION}.tar.gz"
SDIST_SHA256 = "231dec90efcdccf1b565a1416107736f1e09b1a08fe736ef9d6363e626d03874"

SHIM = {
    "__init__.py": (
        '"""tiktoken -> bytepair shim: every name here is bytepair\'s (see build/run_tiktoken_suite.py)."""\n'
        "from bytepair import Encoding, __version__, encoding_for_model, encoding_name_for_model, get_encoding, list_encoding_names\n"
        "from . import core, load, model, registry\n"
    ),
    "core.py": "from bytepair.encoding import Encoding\n",
    "model.py": "from bytepair.model import *\n",
    "load.py": "from bytepair.load import *\n",
    "registry.py": "from bytepair.registry import ENCODINGS, get_encoding, list_encoding_names\nfrom bytepair.encoding import Encoding\n",
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sdist() -> Path:
    """The pinned tiktoken sdist, downloaded with pip on first use."""
    path = CACHE / SDIST
    if path.is_file() and _sha256(path) == SDIST_SHA256:
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as download:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--no-binary", ":all:", f"tiktoken=={VERSION}", "-d", download],
            check=True,
        )
        got = Path(download) / SDIST
        if _sha256(got) != SDIST_SHA256:
            sys.exit(f"{SDIST} from PyPI has sha256 {_sha256(got)}, expected {SDIST_SHA256}; not running it")
        shutil.move(got, path)
    return path


def extract_tests(archive: Path, into: Path) -> Path:
    """Only ``tests/`` of the sdist, into ``into/tests``."""
    prefix = f"tiktoken-{VERSION}/tests/"
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
        for member in members:
            member.name = "tests/" + member.name[len(prefix):]
        tar.extractall(into, members=members, filter="data")
    return into / "tests"


def main() -> int:
    archive = sdist()
    with tempfile.TemporaryDirectory(prefix="tiktoken-suite-") as tmp:
        work = Path(tmp)
        tests = extract_tests(archive, work)
        package = work / "shim" / "tiktoken"
        package.mkdir(parents=True)
        for name, text in SHIM.items():
            (package / name).write_text(text)
        (work / "pytest.ini").write_text("[pytest]\n")  # tiktoken's tests, not bytepair's settings
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package.parent), str(ROOT / "core")]))
        env.pop("PYTHONSAFEPATH", None)
        check = "import tiktoken, bytepair; assert tiktoken.Encoding is bytepair.Encoding; print(tiktoken.__file__)"
        shim_file = subprocess.run([sys.executable, "-c", check], env=env, cwd=work, check=True,
                                   capture_output=True, text=True).stdout.strip()
        print(f"tiktoken {VERSION} tests ({len(list(tests.glob('test_*.py')))} files) against bytepair via {shim_file}")
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE", "tests"],
            env=env, cwd=work,
        )
        return result.returncode


if __name__ == "__main__":
    sys.exit(main())
