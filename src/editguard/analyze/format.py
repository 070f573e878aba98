"""The project's formatter, run on the text an edit made, asked to format the lines it wrote.

Each text is formatted as the file at its real path (given by stdin, named by
``--stdin-filename`` or ``--stdin-filepath``), in its project folder, so the project's own
settings apply (line length, quotes). Which formatter, by the file's kind and the project:

- Python: ``ruff format --range`` (ruff comes with editguard), or ``black --line-ranges`` where
  the project configures black (``[tool.black]`` in its pyproject.toml) and black is installed
  beside editguard (run as ``python -m black`` with editguard's own Python).
- JavaScript, TypeScript, CSS, JSON, Markdown, YAML, HTML ...: prettier from the project's
  ``node_modules`` (``.bin/prettier``, else ``prettier/bin/prettier.cjs`` run by ``node``), with
  ``--range-start/--range-end``.
- Go: ``gofmt``; Rust: ``rustfmt``, from the PATH: the whole text (they have no range).

Trust: editguard runs only programs that come with it (ruff; black where installed beside it,
run by editguard's Python with ``-P``, so that no module of the project stands in for it) and
programs on the user's PATH that lie outside the roots (gofmt, rustfmt; rustup's proxy is told
the user's default toolchain, so that a project's rust-toolchain.toml cannot name another).
prettier is the project's own code (and so are the plugins its configuration names): it runs
only when the user names it among the enabled formatters. No setting in a project's files names
a program that editguard runs.

This module only runs the formatter and says what came out, or why nothing did (a note); it
never raises for a formatter's failure. Keeping its changes to the written lines is
:func:`editguard.core.written.keep_written`'s work.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import sys
import tomllib
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from editguard.analyze.base import project_of
from editguard.analyze.process import run_capped
from editguard.analyze.ruff import ruff_binary
from editguard.core.written import Lines

# Every formatter editguard knows, and those on unless the user says otherwise: prettier runs the
# project's own code, so it is off until named.
KNOWN = ("ruff", "black", "prettier", "gofmt", "rustfmt")
DEFAULT = ("ruff", "black", "gofmt", "rustfmt")

TIMEOUT = 10.0

_PYTHON = (".py", ".pyi")
_PRETTIER = (
    ".js",
    ".jsx",
    ".mjs",
    ".cjs",
    ".ts",
    ".tsx",
    ".mts",
    ".cts",
    ".css",
    ".scss",
    ".less",
    ".json",
    ".jsonc",
    ".json5",
    ".md",
    ".markdown",
    ".yaml",
    ".yml",
    ".html",
    ".htm",
    ".vue",
    ".graphql",
)


@dataclass(frozen=True, slots=True)
class Formatted:
    """What a formatter made of a text: ``text`` (line breaks ``\\n``, no BOM), or ``None``
    and a ``note`` that says why not; ``formatter`` names the one that ran or was meant to."""

    formatter: str
    text: str | None = None
    note: str | None = None


def formats(real: str) -> bool:
    """Whether editguard knows a formatter for files like this one."""
    return real.endswith((*_PYTHON, *_PRETTIER, ".go", ".rs"))


def format_text(
    real: str,
    roots: Sequence[str],
    text: str,
    written: Sequence[Lines],
    enabled: Collection[str] | None = None,
    *,
    timeout: float | None = None,
) -> Formatted | None:
    """Format ``text`` (the new text of the file at ``real``), asking the formatter to keep to
    the ``written`` lines (0-based, inclusive) where it can. ``enabled``: the formatters the
    user allows (``None``: :data:`DEFAULT`). ``None`` when no formatter is meant for this kind
    of file (or the project uses none: no prettier in it and the user did not enable one).
    ``timeout``: seconds (default :data:`TIMEOUT`)."""
    on = frozenset(DEFAULT if enabled is None else enabled)
    timeout = TIMEOUT if timeout is None else timeout
    project = project_of(real, roots)
    if project is None or not written or not formats(real):
        return None
    first, last = written[0][0], written[-1][1]
    if real.endswith(_PYTHON):
        return _python(real, project, roots, text, written, on, timeout)
    if real.endswith(_PRETTIER):
        return _prettier(real, project, roots, text, (first, last), on, timeout)
    if real.endswith(".go"):
        return _on_path("gofmt", ["gofmt"], project, roots, text, on, timeout)
    edition = _rust_edition(real, project)
    return _on_path("rustfmt", ["rustfmt", "--edition", edition], project, roots, text, on, timeout)


def _python(
    real: str,
    project: str,
    roots: Sequence[str],
    text: str,
    written: Sequence[Lines],
    on: frozenset[str],
    timeout: float,
) -> Formatted:
    if "black" in on and _uses_black(real, roots) and importlib.util.find_spec("black"):
        ranges = [f"--line-ranges={a + 1}-{b + 1}" for a, b in written]
        # -P: the project folder (the working folder) is not put on sys.path, so a black.py
        # of the project's cannot stand in for black.
        command = [sys.executable, "-P", "-m", "black", "--quiet", *ranges]
        command += ["--stdin-filename", real]
        return _run("black", [*command, "-"], project, text, timeout)
    if "ruff" not in on:
        return Formatted("ruff", note="no Python formatter is enabled")
    binary = ruff_binary()
    if binary is None:
        return Formatted("ruff", note="ruff is not installed")
    # One range (ruff takes one): from the first written line to the end of the last (the end
    # is exclusive: the start of the next line).
    span = f"--range={written[0][0] + 1}-{written[-1][1] + 2}"
    # --force-exclude: a file the project excludes (generated code) is left as it is.
    command = [binary, "format", "--no-cache", "--force-exclude", span]
    command += ["--stdin-filename", real, "-"]
    return _run("ruff format", command, project, text, timeout)


def _uses_black(real: str, roots: Sequence[str]) -> bool:
    """Whether the project configures black: ``[tool.black]`` in the nearest pyproject.toml
    above the file, inside its root."""
    path = _nearest(real, roots, "pyproject.toml")
    if path is None:
        return False
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, ValueError):
        return False
    tool = data.get("tool")
    return isinstance(tool, dict) and "black" in tool


def _prettier(
    real: str,
    project: str,
    roots: Sequence[str],
    text: str,
    span: Lines,
    on: frozenset[str],
    timeout: float,
) -> Formatted | None:
    command = _prettier_command(real, roots)
    if command is None:
        return Formatted("prettier", note="prettier is not installed") if "prettier" in on else None
    if "prettier" not in on:
        return Formatted(
            "prettier",
            note="the project's prettier runs only when enabled (formatters: prettier)",
        )
    # prettier's offsets count UTF-16 code units, as JavaScript strings do.
    lines = text.split("\n")
    start = _utf16_len("\n".join(lines[: span[0]]) + ("\n" if span[0] else ""))
    end = _utf16_len("\n".join(lines[: span[1] + 1]))
    command += ["--stdin-filepath", real, f"--range-start={start}", f"--range-end={end}"]
    return _run("prettier", command, project, text, timeout)


def _prettier_command(real: str, roots: Sequence[str]) -> list[str] | None:
    """The project's prettier: ``node_modules/.bin/prettier`` in the nearest folder above the
    file that has one (inside its root), else its ``prettier/bin/prettier.cjs`` run by node."""
    folder = _nearest(real, roots, os.path.join("node_modules", ".bin", "prettier"))
    if folder is not None:
        return [folder]
    script = _nearest(real, roots, os.path.join("node_modules", "prettier", "bin", "prettier.cjs"))
    node = _outside(shutil.which("node"), roots)
    if script is not None and node is not None:
        return [node, script]
    return None


def _on_path(
    name: str,
    command: list[str],
    project: str,
    roots: Sequence[str],
    text: str,
    on: frozenset[str],
    timeout: float,
) -> Formatted:
    if name not in on:
        return Formatted(name, note=f"{name} is not enabled")
    found = shutil.which(command[0])
    binary = _outside(found, roots)
    if binary is None:
        why = "lies inside the roots, so it is not run" if found else "is not installed"
        return Formatted(name, note=f"{name} {why}")
    env = None
    rustup = os.path.realpath(binary)
    if os.path.basename(rustup).startswith("rustup"):
        # rustup's proxy would run the toolchain a rust-toolchain.toml of the project names
        # (a path inside the project, even): the user's default toolchain is named instead.
        toolchain = _default_toolchain(rustup)
        if toolchain is None:
            return Formatted(name, note=f"{name}: rustup has no default toolchain")
        env = {**os.environ, "RUSTUP_TOOLCHAIN": toolchain}
    return _run(name, [binary, *command[1:]], project, text, timeout, env)


@functools.cache
def _default_toolchain(rustup: str) -> str | None:
    """The user's default rustup toolchain (``rustup default``, asked once per process)."""
    ran = run_capped([rustup, "default"], cwd=os.sep, timeout=TIMEOUT)
    words = ran.stdout.decode("utf-8", "replace").split()
    return words[0] if ran.code == 0 and words else None


def _outside(path: str | None, roots: Sequence[str]) -> str | None:
    """``path``, unless it (or what it links to) lies inside a root: a program the project
    put there. It is run by the name it was found as (rustup's proxies tell the tool they stand
    for by it)."""
    if path is None:
        return None
    for place in {os.path.abspath(path), os.path.realpath(path)}:
        for root in roots:
            if place == root or place.startswith(root.rstrip(os.sep) + os.sep):
                return None
    return path


def _nearest(real: str, roots: Sequence[str], name: str) -> str | None:
    """The nearest ``name`` in the folders above ``real``, up to the root that holds it."""
    holders = [r for r in roots if real.startswith(r.rstrip(os.sep) + os.sep)]
    holder = max(holders, key=len, default=None)
    if holder is None:
        return None
    folder = os.path.dirname(real)
    while True:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
        if len(folder) <= len(holder) or folder == os.path.dirname(folder):
            return None
        folder = os.path.dirname(folder)


def _rust_edition(real: str, project: str) -> str:
    """The crate's edition (its Cargo.toml's ``edition``), else 2021."""
    try:
        with open(os.path.join(project, "Cargo.toml"), encoding="utf-8") as f:
            found = re.search(r'^edition\s*=\s*"(\d{4})"', f.read(), re.MULTILINE)
    except (OSError, ValueError):
        return "2021"
    return found.group(1) if found else "2021"


def _run(
    name: str,
    command: list[str],
    cwd: str,
    text: str,
    timeout: float,
    env: dict[str, str] | None = None,
) -> Formatted:
    data = text.encode("utf-8", "surrogatepass")
    cap = 4 * len(data) + 65536
    ran = run_capped(command, cwd=cwd, stdin=data, timeout=timeout, cap=cap, env=env)
    if ran.failed:
        return Formatted(name, note=f"{name} {ran.failed}")
    if ran.code != 0:
        return Formatted(name, note=f"{name} failed: {_said(ran.stderr, ran.code)}")
    try:
        out = ran.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return Formatted(name, note=f"{name} printed text that is not UTF-8")
    if not out.strip() and text.strip():
        return Formatted(name, note=f"{name} printed nothing")
    # The document keeps its own byte-order mark and line endings: a formatter's are dropped.
    out = out.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return Formatted(name, text=out)


def _said(stderr: bytes, code: int | None) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    said = " ".join(line for line in lines if line)[:300]
    return said or f"exit code {code}"


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
