"""ruff: Python's fast linter, a dependency of editguard, run once per text.

Each text is checked as the file at its real path (``--stdin-filename``), in its project folder,
so the project's own ruff configuration applies (its rules, its excludes); a file with no ruff
configuration above it gets pyflakes' checks and syntax errors (``F``, ``E9``; ruff's own
defaults grew into style rules a model should not be told of after every edit). A ruff
configuration cannot make ruff run another program.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from editguard.analyze.base import Analyzer, Findings, Job
from editguard.analyze.problem import Problem
from editguard.analyze.process import run_capped

# Where no ruff configuration applies: pyflakes and syntax errors, nothing of style.
DEFAULT_RULES = ("--isolated", "--select", "F,E9")
CONFIG_FILES = ("ruff.toml", ".ruff.toml")

# Per text: a file with more problems than this is reported up to this many.
MAX_PROBLEMS = 500
TIMEOUT = 10.0


def ruff_binary() -> str | None:
    """The ruff that came with editguard (never one found in the project)."""
    try:
        from ruff.__main__ import (  # type: ignore[import-untyped]  # noqa: PLC0415
            find_ruff_bin,
        )
    except ImportError:
        return None
    try:
        return str(os.fspath(find_ruff_bin()))
    except FileNotFoundError:
        return None


class Ruff(Analyzer):
    """ruff check, on every Python file (``.py``, ``.pyi``)."""

    name = "ruff"
    fast = True

    def __init__(self) -> None:
        self._binary = ruff_binary()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="editguard-ruff")

    def accepts(self, real: str) -> bool:
        return real.endswith((".py", ".pyi"))

    def compare(self, job: Job) -> Findings:
        found = Findings()
        texts = [
            (side, e.real, text)
            for e in job.edits
            if self.accepts(e.real)
            for side, text in (("before", e.before), ("after", e.after))
            if text is not None
        ]
        runs = list(self._pool.map(lambda t: self._check(job.project, t[1], t[2]), texts))
        for (side, real, _), (problems, note) in zip(texts, runs, strict=True):
            getattr(found, side)[real] = problems
            if note:
                found.notes.append(note)
        for e in job.edits:  # a file created or deleted had no problems on its missing side
            if self.accepts(e.real):
                found.before.setdefault(e.real, [])
                found.after.setdefault(e.real, [])
        return found

    def current(self, project: str, reals: Sequence[str]) -> Findings:
        found = Findings()
        if self._binary is None:
            found.notes.append("ruff: not installed, skipped")
            return found
        command = [self._binary, "check", "--output-format=json", "--force-exclude", "--no-cache"]
        if not configured(reals[0] if reals else os.path.join(project, "x.py")):
            command += DEFAULT_RULES
        ran = run_capped([*command, *(reals or [project])], cwd=project, timeout=TIMEOUT * 3)
        if ran.failed or ran.code not in (0, 1):
            found.notes.append(f"ruff: {ran.failed or _first_line(ran.stderr)}")
            return found
        for real in reals:
            found.after[real] = []
        for p in _parse(ran.stdout, None):
            found.after.setdefault(p.path, []).append(p)
        return found

    def _check(self, project: str, real: str, text: str) -> tuple[list[Problem], str | None]:
        if self._binary is None:
            return [], "ruff: not installed, skipped"
        ran = run_capped(
            [
                self._binary,
                "check",
                "--output-format=json",
                "--force-exclude",
                "--no-cache",
                *(() if configured(real) else DEFAULT_RULES),
                "--stdin-filename",
                real,
                "-",
            ],
            cwd=project,
            stdin=text.encode("utf-8", "surrogatepass"),
            timeout=TIMEOUT,
        )
        if ran.failed or ran.code not in (0, 1):
            return [], f"ruff: {ran.failed or _first_line(ran.stderr)}"
        return _parse(ran.stdout, real)[:MAX_PROBLEMS], None


def configured(real: str) -> bool:
    """Whether a ruff configuration applies to the file: a ruff.toml, .ruff.toml, or a
    pyproject.toml with a ``[tool.ruff`` table in its folder or one above."""
    folder = os.path.dirname(real)
    while True:
        if any(os.path.isfile(os.path.join(folder, name)) for name in CONFIG_FILES):
            return True
        pyproject = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(pyproject):
            try:
                with open(pyproject, "rb") as f:
                    if b"[tool.ruff" in f.read(1 << 20):
                        return True
            except OSError:
                pass
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def _parse(output: bytes, real: str | None) -> list[Problem]:
    """ruff's JSON findings (``real``: the path they all describe, else each one's own)."""
    try:
        items = json.loads(output or b"[]")
    except ValueError:
        return []
    out = []
    for item in items if isinstance(items, list) else []:
        where = item.get("location") or {}
        message = str(item.get("message", ""))
        code = item.get("code") or ("syntax-error" if "SyntaxError" in message else "")
        out.append(
            Problem(
                path=real or os.path.realpath(str(item.get("filename", ""))),
                line=int(where.get("row") or 1),
                column=int(where.get("column") or 1),
                analyzer="ruff",
                code=str(code),
                message=message,
            )
        )
    return out


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0][:300] if text else "failed"
