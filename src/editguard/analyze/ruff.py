"""ruff: Python's fast linter, a dependency of editguard, run once per text.

Each text is checked as the file at its real path (``--stdin-filename``), in its project folder,
so the project's own ruff configuration applies (its rules, its excludes); a file with no ruff
configuration above it gets pyflakes' checks and syntax errors (``F``, ``E9``; ruff's own
defaults grew into style rules a model should not be told of after every edit). A ruff
configuration cannot make ruff run another program.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from editguard.analyze.base import Analyzer, Findings, Job
from editguard.analyze.problem import Problem
from editguard.analyze.process import run_capped

# Where no ruff configuration applies: pyflakes and syntax errors, nothing of style.
DEFAULT_RULES = ("--isolated", "--select", "F,E9")
CONFIG_FILES = ("ruff.toml", ".ruff.toml")

# The answers kept for texts checked last (one a file: the text the next edit starts from).
MEMO = 64

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
    """ruff check, on every Python file (``.py``, ``.pyi``) and notebook (``.ipynb``: ruff
    reads a notebook's code cells as one module, magics included, and says each problem's
    cell and line within it)."""

    name = "ruff"
    fast = True

    def __init__(self) -> None:
        self._binary = ruff_binary()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="editguard-ruff")
        self._memo: OrderedDict[tuple[str, bytes, tuple[str, int] | None], list[Problem]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    def accepts(self, real: str) -> bool:
        return real.endswith((".py", ".pyi", ".ipynb"))

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
        if configured(reals[0] if reals else os.path.join(project, "x.py")) is None:
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
        """The problems of ``text`` as the file ``real``; the last texts' answers are kept, so
        the text an edit starts from (the one the edit before left) is not checked again."""
        if self._binary is None:
            return [], "ruff: not installed, skipped"
        config = configured(real)
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        key = (real, digest, config)
        with self._lock:
            if key in self._memo:
                self._memo.move_to_end(key)
                return list(self._memo[key]), None
        problems, note = self._run(project, real, text, config is not None)
        if note is None:
            with self._lock:
                self._memo[key] = problems
                while len(self._memo) > MEMO:
                    self._memo.popitem(last=False)
        return problems, note

    def _run(
        self, project: str, real: str, text: str, configured: bool
    ) -> tuple[list[Problem], str | None]:
        assert self._binary is not None
        ran = run_capped(
            [
                self._binary,
                "check",
                "--output-format=json",
                "--force-exclude",
                "--no-cache",
                *(() if configured else DEFAULT_RULES),
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


def configured(real: str) -> tuple[str, int] | None:
    """The ruff configuration that applies to the file, as (path, mtime in ns): a ruff.toml,
    .ruff.toml, or a pyproject.toml with a ``[tool.ruff`` table, in its folder or one above;
    ``None`` when there is none."""
    folder = os.path.dirname(real)
    while True:
        for name in CONFIG_FILES:
            found = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                st = os.stat(found)
                if stat.S_ISREG(st.st_mode):
                    return found, st.st_mtime_ns
        pyproject = os.path.join(folder, "pyproject.toml")
        with contextlib.suppress(OSError), open(pyproject, "rb") as f:
            if b"[tool.ruff" in f.read(1 << 20):
                return pyproject, os.fstat(f.fileno()).st_mtime_ns
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
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
        # In a notebook: the cell, counted from 1 among all cells (markdown too), and the row
        # within that cell's source.
        cell = item.get("cell")
        out.append(
            Problem(
                path=real or os.path.realpath(str(item.get("filename", ""))),
                line=int(where.get("row") or 1),
                column=int(where.get("column") or 1),
                analyzer="ruff",
                code=str(code),
                message=message,
                cell=cell - 1 if isinstance(cell, int) and cell > 0 else None,
            )
        )
    return out


def _first_line(stderr: bytes) -> str:
    """What ruff said went wrong, in one line: its first line and the causes under it (the
    last one names what to fix), at most 300 characters."""
    lines = [ln.strip() for ln in stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    causes = [ln.removeprefix("Cause: ") for ln in lines if ln.startswith("Cause: ")]
    said = "; ".join([*lines[:1], *causes[-2:]]) if lines else "failed"
    return said[:300]
