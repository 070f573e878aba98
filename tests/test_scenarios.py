"""Scenario folders: end-to-end cases of the real ``editguard call``, readable without Python.

Each ``tests/scenarios/NNN_short_name/`` holds one call:

- ``request.json``: ``{"tool": ..., "arguments": {...}, "description": ...}``; paths in the
  arguments are relative to the root.
- ``input/``: the tree before the call. It is copied (symlinks as links) to a temporary root,
  which is the command's working directory and its only ``--root``.
- ``outside/`` (optional): files put beside the root, in its parent folder; they must never change.
- ``expected/``: the whole tree after the call, which must succeed (exit 0); or ``error.json``:
  the call must fail (exit 1). Then the tree stays byte for byte as it was, every mtime too
  (files, links and folders are set into the past before the call), and no temp file is left.
- ``result.json`` (optional, with ``expected/``) and ``error.json``: what the printed result (or
  its ``error`` object) must hold: objects only the keys given, lists item by item (same length),
  recursively; strings, numbers, booleans and null exactly.

Conventions:

- A call that writes nothing (a dry run, ``verify_only``, ``read_file``, ``list_symbols``) has an
  ``expected/`` identical to ``input/``, and then every mtime must be kept too. Wherever the
  result has ``written``, it must be true exactly when ``expected/`` differs from ``input/``.
- Git keeps no empty folder: a file named ``.keep`` is deleted from the copy before the call (its
  folder reaches the call empty) and is ignored in ``expected/``.
- Trees compare by path: each file's bytes and owner-executable bit, each symlink's target text
  (never followed, so a symlink loop compares like any link), each folder's presence.
- ``tests/scenarios/.gitattributes`` (``* -text``) keeps CRLF, BOM and cp1252 bytes as written.

Codes that no single call on a small tree can produce stay in the Python tests (LEFT_TO_PYTHON):
FILE_TOO_LARGE (the 100 MB limit is set only by ``Workspace(max_file_bytes=...)``);
PERMISSION_DENIED, WRITE_FAILED and FILE_BUSY (the refusal, the failing disk or the other writer
holding the lock for 30 s are injected; the tests run as root); INTERNAL_ERROR (a bug).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from editguard.errors import error_codes
from editguard.tools import TOOLS

SCENARIOS = Path(__file__).parent / "scenarios"
CASES = sorted(p for p in SCENARIOS.iterdir() if p.is_dir())
LEFT_TO_PYTHON = {
    "FILE_TOO_LARGE",
    "PERMISSION_DENIED",
    "WRITE_FAILED",
    "FILE_BUSY",
    "INTERNAL_ERROR",
}
CALL = [sys.executable, "-m", "editguard", "call", "--json"]
PARTS = {"request.json", "input", "outside", "expected", "error.json", "result.json"}
KEEP = ".keep"
OLD_NS = 1_000_000_000

Entry = tuple[str, bytes | str | None, bool]  # kind, bytes or link target, owner-executable


def walk(folder: Path) -> list[Path]:
    """Every path under ``folder``, contents before their folder; symlinks are not followed."""
    out: list[Path] = []
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            out += walk(Path(entry.path))
        out.append(Path(entry.path))
    return out


def tree(folder: Path, prefix: str = "") -> dict[str, Entry]:
    """Each path under ``folder`` (``.keep`` files aside) as a link, a folder or a file."""
    out: dict[str, Entry] = {}
    for path in walk(folder):
        rel = prefix + path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = ("link", os.readlink(path), False)
        elif path.is_dir():
            out[rel + "/"] = ("folder", None, False)
        elif path.name != KEEP:
            out[rel] = ("file", path.read_bytes(), bool(path.stat().st_mode & stat.S_IXUSR))
    return out


def differences(want: dict[str, Entry], got: dict[str, Entry]) -> list[str]:
    """What differs between two trees, path by path; files as a diff of their lines' bytes."""
    out = [f"missing: {p}" for p in sorted(want.keys() - got.keys())]
    out += [f"unexpected: {p} ({got[p][0]})" for p in sorted(got.keys() - want.keys())]
    for path in sorted(want.keys() & got.keys()):
        (kind, data, x), (got_kind, got_data, got_x) = want[path], got[path]
        if isinstance(data, bytes) and isinstance(got_data, bytes) and data != got_data:
            old, new = ([repr(ln) for ln in d.splitlines(keepends=True)] for d in (data, got_data))
            diff = difflib.unified_diff(old, new, "expected", "actual", lineterm="")
            out.append(f"{path} differs:\n" + "\n".join(diff))
        elif (kind, data) != (got_kind, got_data):
            out.append(f"{path}: expected {kind} {data!r}, got {got_kind} {got_data!r}")
        elif x != got_x:
            out.append(f"{path}: executable bit expected {x}, got {got_x}")
    return out


def mtimes(folder: Path) -> dict[str, int]:
    return {
        p.relative_to(folder).as_posix(): p.lstat().st_mtime_ns for p in [*walk(folder), folder]
    }


def holds(got: Any, want: Any) -> bool:
    """Whether ``got`` holds ``want``: objects the keys given, lists item by item (same length),
    recursively; anything else equal."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and holds(got[k], v) for k, v in want.items())
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(holds(g, w) for g, w in zip(got, want, strict=True))
        )
    return bool(got == want)


def check_json(case: Path, name: str, got: Any) -> None:
    if (case / name).is_file():
        want = json.loads((case / name).read_text(encoding="utf-8"))
        if not holds(got, want):
            shown = json.dumps(got, indent=2, ensure_ascii=False)
            pytest.fail(f"{case.name}: the output does not hold {name} {want}:\n{shown}")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_scenario(case: Path, tmp_path: Path) -> None:
    request = json.loads((case / "request.json").read_text(encoding="utf-8"))
    root = tmp_path / "root"
    shutil.copytree(case / "input", root, symlinks=True)
    if (case / "outside").is_dir():
        shutil.copytree(case / "outside", tmp_path, symlinks=True, dirs_exist_ok=True)
    for path in walk(root):
        if path.name == KEEP:
            path.unlink()
    for path in [*walk(tmp_path), tmp_path]:
        os.utime(path, ns=(OLD_NS, OLD_NS), follow_symlinks=False)
    before = mtimes(tmp_path)
    proc = subprocess.run(
        [*CALL, "--root", str(root), request["tool"], "--args-file", "-"],
        cwd=root,
        input=json.dumps(request["arguments"]),
        capture_output=True,
        encoding="utf-8",
        env={**os.environ, "PYTHONUTF8": "1"},
        timeout=60,
        check=False,
    )
    failed = (case / "error.json").is_file()
    assert (proc.returncode, proc.stderr) == (1 if failed else 0, ""), proc.stdout
    out = json.loads(proc.stdout)
    want = {
        "root/": ("folder", None, False),
        **tree(case / ("input" if failed else "expected"), "root/"),
    }
    if (case / "outside").is_dir():
        want.update(tree(case / "outside"))
    wrong = differences(want, tree(tmp_path))
    if wrong:
        pytest.fail(
            f"{case.name}: the tree after the call is not as expected:\n" + "\n".join(wrong)
        )
    unchanged = failed or tree(case / "input") == tree(case / "expected")
    if unchanged:
        assert mtimes(tmp_path) == before, f"{case.name}: the call rewrote or touched a file"
    if failed:
        check_json(case, "error.json", out["error"])
        return
    if "written" in out:
        assert out["written"] is not unchanged, f"{case.name}: written is {out['written']}"
    check_json(case, "result.json", out)


def test_the_scenario_set_is_sane() -> None:
    numbers = [c.name.split("_", 1)[0] for c in CASES]
    assert len(numbers) == len(set(numbers)), "two scenarios share a number"
    codes = set()
    for case in CASES:
        assert re.fullmatch(r"\d{3}_[a-z0-9_]+", case.name), case.name
        names = {p.name for p in case.iterdir()}
        assert {"request.json", "input"} <= names, case.name
        assert names <= PARTS, f"{case.name}: {names - PARTS}"
        assert ("expected" in names) != ("error.json" in names), case.name
        assert not ("result.json" in names and "error.json" in names), case.name
        request = json.loads((case / "request.json").read_text(encoding="utf-8"))
        assert set(request) <= {"tool", "arguments", "description"}, case.name
        assert isinstance(request["arguments"], dict), case.name
        assert request["tool"] in {t.name for t in TOOLS}, case.name
        if "error.json" in names:
            codes.add(json.loads((case / "error.json").read_text(encoding="utf-8"))["code"])
    tools = {json.loads((c / "request.json").read_text(encoding="utf-8"))["tool"] for c in CASES}
    assert tools == {t.name for t in TOOLS}
    assert codes | LEFT_TO_PYTHON == set(error_codes())
    assert not codes & LEFT_TO_PYTHON
