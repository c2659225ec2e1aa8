"""The README's examples run, and say what they really give: an example cannot crash or go stale.

Why: README examples are what users copy first, and nothing else executes them. This test extracts
the fenced blocks of README.md and runs them:

* ```python blocks: each block is executed, statement by statement, in a fresh namespace that holds
  only the PRELUDE below (names the README assumes without defining). A trailing comment that is a
  Python literal is a claim, and is checked:
    - ``ids = enc.encode("x")  # [1, 2]``: the assigned value equals the literal;
    - ``ids, spans = f()  # spans [(0, 2)]``: a comment naming one of the targets checks that target;
    - ``enc.count("x")  # 4``: a bare expression equals the literal; so does
      ``expr  # 4, and some prose``: a literal followed by ", " and words.
  Comments that are not literals ("# or bytepair.encoding_for_model(...)") are prose. A whole-line
  comment ``# CALL raises NAME ...`` is a claim too: CALL must raise NAME.
* ```sh blocks: the ``bytepair ...`` lines run with this interpreter's CLI (``make``/``npm``/``node``
  lines are skipped), in a directory holding the files the README names (``FILE``, ``ids.json``);
  they must exit 0 and print what the Python API gives for the same input.
* ```js and ```html blocks are not run here (the browser and Node tests cover that API).
"""

from __future__ import annotations


import ast
import builtins
import importlib.util
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import bytepair

README = Path(__file__).resolve().parent.parent / "README.md"
CORE = Path(bytepair.__file__).resolve().parent.parent

# Names the README's Python examples use without defining them.
PRELUDE = '''
long_text = "A long document, repeated. " * 2000  # README: enc.is_within_token_limit(long_text, 8192)
'''

# The README's FILE: CRLF and a lone CR (old Mac line end) too, so a CLI that reads files with
# universal newlines (which turn both into LF) gives other ids and another count than the API.
SAMPLE_TEXT = "Hello, world! 🫠\r\nbytepair counts tokens offline.\r\nold Mac line \rend.\r\n"


@dataclass(frozen=True)
class Block:
    language: str
    code: str
    line: int  # 1-based line of the first code line in README.md

    @property
    def id(self) -> str:
        return f"{self.language}@README.md:{self.line}"


def fenced_blocks(markdown: str) -> list[Block]:
    """Every fenced code block with its language tag and position.

    >>> fenced_blocks("text\\n```python\\nx = 1\\n```\\n")
    [Block(language='python', code='x = 1\\n', line=3)]
    """
    blocks = []
    for match in re.finditer(r"^```(\w*)[^\n]*\n(.*?)^```", markdown, re.DOTALL | re.MULTILINE):
        line = markdown.count("\n", 0, match.start(2)) + 1
        blocks.append(Block(match.group(1), match.group(2), line))
    return blocks


BLOCKS = fenced_blocks(README.read_text(encoding="utf-8"))
PYTHON_BLOCKS = [b for b in BLOCKS if b.language == "python"]
SH_BLOCKS = [b for b in BLOCKS if b.language in ("sh", "bash", "shell", "console")]


# ----------------------------------------------------------------------------- claims in comments
def _literal(text: str) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def literal_claim(comment: str) -> tuple[bool, Any]:
    """The value a comment claims: the whole comment as a literal, or a literal then ", " and prose.

    >>> literal_claim("[1, 2]"), literal_claim("4, without building the list"), literal_claim("or f(x)")
    ((True, [1, 2]), (True, 4), (False, None))
    """
    ok, value = _literal(comment)
    if ok:
        return ok, value
    for match in re.finditer(r", [A-Za-z]", comment):
        ok, value = _literal(comment[: match.start()])
        if ok:
            return ok, value
    return False, None


def named_claim(comment: str, targets: list[str]) -> tuple[str, Any] | None:
    """``"spans [(0, 2)]"`` with target ``spans`` -> ("spans", [(0, 2)]).

    >>> named_claim("spans [(0, 2)]", ["ids", "spans"])
    ('spans', [(0, 2)])
    """
    name, _, rest = comment.partition(" ")
    if name in targets:
        ok, value = literal_claim(rest.strip())
        if ok:
            return name, value
    return None


def _comments(code: str) -> dict[int, str]:
    """Line number -> comment text (without '#'), for every comment in ``code``."""
    found = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            found[tok.start[0]] = tok.string[1:].strip()
    return found


def _target_names(node: ast.Assign) -> list[str]:
    names = []
    for target in node.targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                names.append(sub.id)
    return names


@dataclass
class Check:
    line: int
    source: str
    expected: Any
    actual: Any

    def describe(self) -> str:
        return f"README.md:{self.line}: {self.source.strip()}\n    README says {self.expected!r}\n    actual      {self.actual!r}"


def run_python_block(block: Block) -> list[Check]:
    """Execute the block; return every claim it makes (the caller compares them)."""
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(PRELUDE, "<prelude>", "exec"), namespace)
    tree = ast.parse(block.code)
    comments = _comments(block.code)
    lines = block.code.splitlines()
    checks: list[Check] = []
    statement_lines = set()
    for node in tree.body:
        statement_lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        source = ast.get_source_segment(block.code, node) or ""
        readme_line = block.line + node.lineno - 1
        comment = comments.get(node.end_lineno or node.lineno)
        try:
            if isinstance(node, ast.Expr):
                value = eval(compile(ast.Expression(node.value), block.id, "eval"), namespace)
                ok, expected = literal_claim(comment) if comment else (False, None)
                if ok:
                    checks.append(Check(readme_line, source, expected, value))
                continue
            exec(compile(ast.Module([node], type_ignores=[]), block.id, "exec"), namespace)
        except Exception as exc:
            raise AssertionError(f"README.md:{readme_line}: `{source.strip()}` raised {type(exc).__name__}: {exc}") from exc
        if isinstance(node, ast.Assign) and comment:
            targets = _target_names(node)
            named = named_claim(comment, targets)
            if named is not None:
                checks.append(Check(readme_line, source, named[1], namespace[named[0]]))
            elif len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                ok, expected = literal_claim(comment)
                if ok:
                    checks.append(Check(readme_line, source, expected, namespace[node.targets[0].id]))
    # Whole-line comments "# CALL raises NAME ...": the call must raise that exception.
    for number, comment in comments.items():
        if number in statement_lines:
            continue
        match = re.match(r"(?P<call>.+?\))\s+raises\s+(?P<name>[A-Z]\w+)(\s+\(an?\s+(?P<base>[A-Z]\w+)\))?", comment)
        if not match:
            continue
        claimed = [match["name"]] + ([match["base"]] if match["base"] else [])
        types = [namespace.get(n) or getattr(bytepair, n, None) or getattr(builtins, n, None) for n in claimed]
        assert all(isinstance(t, type) for t in types), f"README.md:{block.line + number - 1}: no exception named {claimed}"
        try:
            eval(match["call"], namespace)
        except Exception as exc:
            raised = [n for n, t in zip(claimed, types) if isinstance(exc, t)]
        else:
            raised = ["no exception"]
        checks.append(Check(block.line + number - 1, lines[number - 1], claimed, raised))
    return checks


# ----------------------------------------------------------------------------- tests
def test_readme_has_examples() -> None:
    assert PYTHON_BLOCKS, "README.md has no ```python block"
    assert SH_BLOCKS, "README.md has no ```sh block"


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=lambda b: b.id)
def test_python_example_runs_and_says_the_truth(block: Block, readme_files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(readme_files)  # where the files the examples open are (tokenizer.json)
    checks = run_python_block(block)
    wrong = [c for c in checks if c.actual != c.expected]
    assert not wrong, "README example claims do not hold:\n" + "\n".join(c.describe() for c in wrong)


def test_claims_are_found(readme_files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard against a parser that silently checks nothing: the README's known claims are all seen."""
    monkeypatch.chdir(readme_files)
    checks = [c for block in PYTHON_BLOCKS for c in run_python_block(block)]
    assert len(checks) >= 5, [c.source for c in checks]


def test_claim_checker_rejects_a_false_claim() -> None:
    block = Block("python", 'import bytepair\nenc = bytepair.get_encoding("o200k_base")\nenc.count("hello world")  # 3\n', 1)
    (check,) = run_python_block(block)
    assert (check.expected, check.actual) == (3, 2)


def test_readme_names_exist() -> None:
    """Every ``bytepair.NAME`` the README mentions (code or prose) is a real attribute or module."""
    text = README.read_text(encoding="utf-8")
    names = set(re.findall(r"`bytepair\.(\w+)", text)) | set(re.findall(r"\bbytepair\.(\w+)\(", text))
    missing = sorted(n for n in names if not hasattr(bytepair, n) and importlib.util.find_spec(f"bytepair.{n}") is None)
    assert not missing, f"README mentions bytepair.{missing}, which do not exist"


# ----------------------------------------------------------------------------- command line
def _cli() -> list[str]:
    script = Path(sys.executable).parent / "bytepair"
    return [str(script)] if script.exists() else [sys.executable, "-m", "bytepair"]


def sh_commands() -> list[tuple[int, str]]:
    """The README's ``bytepair ...`` command lines (comments stripped), with their line numbers."""
    found = []
    for block in SH_BLOCKS:
        for offset, line in enumerate(block.code.splitlines()):
            command = re.split(r"\s+#", line, maxsplit=1)[0].strip()
            if command.startswith("bytepair "):
                found.append((block.line + offset, command))
    return found


SH_COMMANDS = sh_commands()


@pytest.fixture(scope="module")
def readme_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the files the README's commands name."""
    here = tmp_path_factory.mktemp("readme-sh")
    (here / "FILE").write_text(SAMPLE_TEXT, encoding="utf-8", newline="")
    ids = bytepair.get_encoding("o200k_base").encode(SAMPLE_TEXT)
    (here / "ids.json").write_text(str(ids), encoding="utf-8")
    # The README's tokenizer.json examples: GPT-2's (fetched by `make hf-data`).
    from tests.hf_reference import hf_folder

    shutil.copy(hf_folder("gpt2") / "tokenizer.json", here / "tokenizer.json")
    return here


def _expected_output(command: str) -> str | None:
    """What the Python API says the command should print (None: only check that it runs)."""
    words = shlex.split(command.replace("<", " "))
    if "--tokenizer" in words:  # the README's tokenizer.json is GPT-2's (see readme_files)
        from tests.hf_reference import hf_folder

        tok = bytepair.Tokenizer.from_file(hf_folder("gpt2") / "tokenizer.json")
        return f"{tok.count(SAMPLE_TEXT)}\n" if words[1] == "count" else None
    enc = bytepair.encoding_for_model(words[words.index("--model") + 1]) if "--model" in words else bytepair.get_encoding(
        words[words.index("--encoding") + 1] if "--encoding" in words else "o200k_base"
    )
    sub = words[1]
    files = [w for w in words[2:] if w == "FILE"]
    if sub == "count" and len(files) > 1:  # a line per file, then the total
        n = enc.count(SAMPLE_TEXT)
        return "".join(f"{n}\tFILE\n" for _ in files) + f"{n * len(files)}\ttotal\n"
    if sub == "count":
        return f"{enc.count(SAMPLE_TEXT)}\n"
    if sub == "encode":
        return f"{enc.encode(SAMPLE_TEXT)}\n"
    if sub == "decode":
        return SAMPLE_TEXT
    if sub == "inspect":  # id, bytes, span, text: check the ids column
        return "".join(f"{i}\t" for i in enc.encode(SAMPLE_TEXT))
    if sub == "list":
        return "".join(f"{name}\n" for name in bytepair.list_encoding_names())
    return None


def test_readme_lists_cli_commands() -> None:
    assert {cmd.split()[1] for _, cmd in SH_COMMANDS} >= {"count", "encode", "decode", "inspect", "list"}


@pytest.mark.parametrize(("line", "command"), SH_COMMANDS, ids=[f"README.md:{n}" for n, _ in SH_COMMANDS])
def test_cli_example_runs(readme_files: Path, line: int, command: str) -> None:
    shell_line = shlex.join(_cli()) + command[len("bytepair") :]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(CORE), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        ["sh", "-c", shell_line], cwd=readme_files, env=env, capture_output=True, timeout=120
    )
    assert result.returncode == 0, f"README.md:{line}: `{command}` exited {result.returncode}: {result.stderr.decode()}"
    out = result.stdout.decode("utf-8")
    assert out, f"README.md:{line}: `{command}` printed nothing"
    expected = _expected_output(command)
    if expected is not None:
        if command.split()[1] == "inspect":
            out = "".join(row.split("\t", 1)[0] + "\t" for row in out.splitlines())
        assert out == expected, f"README.md:{line}: `{command}` (the input file has CRLF and CR line ends)"
