"""Shared fixtures: a workspace on a real temporary folder, and a file snapshot helper.

Hypothesis runs under one of two profiles: ``fast`` (the default: the README's test command)
and ``thorough`` (``--hypothesis-profile=thorough``: .ci/run's second part). A property test
states its thorough count of examples as ``max_examples=examples(N)``; the fast profile runs a
fifth of it, so that a contributor's run stays short while CI still runs every example.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from editguard import ReadFileResult, Workspace
from editguard.fs.location import Location, locate
from editguard.fs.sandbox import Sandbox


@dataclass(frozen=True)
class Snapshot:
    """A file's bytes, mtime and mode, to prove that a failed call left it untouched."""

    data: bytes
    mtime_ns: int
    mode: int

    @classmethod
    def of(cls, path: Path) -> Snapshot:
        st = path.stat()
        return cls(path.read_bytes(), st.st_mtime_ns, st.st_mode)


# max_examples of a test without a count of its own (Hypothesis' default is 100); examples()
# scales the stated counts by the same ratio.
settings.register_profile("thorough", max_examples=100)
settings.register_profile("fast", max_examples=20)
settings.load_profile("fast")  # --hypothesis-profile (read after this file) may choose another


def examples(thorough: int) -> int:
    """The number of examples to run of a property test whose thorough count is ``thorough``:
    all of them under the thorough profile, a fifth (at least 10) under the fast one."""
    current = settings.default
    assert current is not None  # a profile is always loaded (above)
    return max(10, thorough * current.max_examples // 100)


STATE_FOLDERS = {"EDITGUARD_JOURNAL": "journal", "EDITGUARD_HISTORY": "history"}


def pytest_configure(config: pytest.Config) -> None:
    """Keep the journal of multi-file changes and the history out of the user's state folder
    while testing (subprocesses inherit them); a test of the default location sets its own.

    Under pytest-xdist each worker gets folders of its own, inside the ones the main process
    chose: a recovery in one worker must never finish another worker's commit in progress.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # set by xdist in each worker
    for variable, name in STATE_FOLDERS.items():
        if variable not in os.environ:
            os.environ[variable] = tempfile.mkdtemp(prefix=f"editguard-test-{name}-")
        if worker:
            own = os.path.join(os.environ[variable], worker)
            os.makedirs(own, mode=0o700, exist_ok=True)
            os.environ[variable] = own


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The workspace root: a real folder on disk."""
    folder = tmp_path / "root"
    folder.mkdir()
    return folder


@pytest.fixture
def ws(root: Path) -> Workspace:
    """A workspace whose only allowed folder is ``root``."""
    return Workspace([root])


def read_text(
    ws: Workspace, path: str, start_line: int | None = None, end_line: int | None = None
) -> ReadFileResult:
    """``ws.read_file`` of a text file, typed as such (read_file answers an image too)."""
    result = ws.read_file(path, start_line, end_line)
    assert isinstance(result, ReadFileResult)
    return result


def no_temp_files(folder: Path) -> bool:
    """Whether no editguard temporary file is left anywhere under ``folder``."""
    return not [p for p in folder.rglob("*") if is_temp_file(p)]


def is_temp_file(path: Path) -> bool:
    """Whether ``path`` is named like an editguard temporary file (a single write's, or a
    transaction's new text or backup)."""
    return path.name.startswith(".editguard-") and path.name.endswith((".tmp", ".new", ".bak"))


def located(root: Path, name: str) -> Location:
    """``name`` in ``root`` as the sandbox locates it for a write (close it after use)."""
    sandbox = Sandbox([root])
    return locate(sandbox, sandbox.resolve(name), create=True)


def set_old_mtime(path: Path) -> None:
    """Move the mtime into the past, so that any rewrite would show."""
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))


SRC = Path(__file__).resolve().parent.parent / "src"


def run_cli(root: Path, *args: str, quiet: bool = False) -> tuple[int, Any]:
    """``editguard ARGS...`` as a real process in ``root`` (this checkout's code): its exit code
    and its JSON; ``quiet``: nothing may be written to stderr. A hang is a failure, not a wait:
    the timeout is far above any answer's time."""
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    if quiet:
        assert proc.stderr == ""
    return proc.returncode, json.loads(proc.stdout)


def cli(root: Path, tool: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    """``editguard call TOOL JSON`` as :func:`run_cli` runs it."""
    return run_cli(root, "call", tool, json.dumps(arguments))
