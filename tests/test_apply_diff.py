"""apply_diff through the Python API and the real command: real releases as one multi-file
diff (also with every hunk's numbers shifted), git's file operations, all files or none."""

from __future__ import annotations

import json
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from editguard import EditError, Workspace
from editguard.core.document import decode
from tests.conftest import Snapshot, no_temp_files
from tests.release_pairs import CORPUS

CALL = [sys.executable, "-m", "editguard", "call", "--json"]
HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.MULTILINE)


def _releases() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.is_dir())


def _trees(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """Every release pair of the corpus as an old tree and a new tree (one folder per
    release), and the changed files' paths."""
    old, new = tmp_path / "old", tmp_path / "new"
    changed: list[str] = []
    for release in _releases():
        for path in sorted(release.rglob("*.old")):
            rel = path.relative_to(CORPUS).as_posix()[: -len(".old")]
            for side, suffix in ((old, ".old"), (new, ".new")):
                target = side / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes((CORPUS / (rel + suffix)).read_bytes())
            if (old / rel).read_bytes() != (new / rel).read_bytes():
                changed.append(rel)
    return old, new, changed


def _diff(old: Path, new: Path, changed: list[str], tmp_path: Path) -> str:
    """One multi-file ``diff -u`` of the changed files' text as read_file shows it (the
    decoded text: a BOM and CRLF are the file's, not the text's)."""
    parts = []
    texts = tmp_path / "texts"
    for rel in changed:
        a, b = texts / "a" / rel, texts / "b" / rel
        for src, dst in ((old / rel, a), (new / rel, b)):
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_text(decode(src.read_bytes()).text, encoding="utf-8", newline="")
        proc = subprocess.run(
            ["diff", "-u", "--label", f"a/{rel}", "--label", f"b/{rel}", str(a), str(b)],
            capture_output=True,
            check=False,
        )
        assert proc.returncode == 1, proc.stderr
        parts.append(proc.stdout.decode("utf-8"))
    return "".join(parts)


def _shift(diff: str, by: int) -> str:
    def moved(m: re.Match[str]) -> str:
        a, b = max(1, int(m[1]) + by), max(1, int(m[3]) + by)
        return f"@@ -{a}{m[2] or ''} +{b}{m[4] or ''} @@"

    return HUNK.sub(moved, diff)


@pytest.mark.skipif(shutil.which("diff") is None, reason="diff is not installed")
@pytest.mark.parametrize(
    "shift", [0, 7, -3], ids=["as_stated", "numbers_plus_7", "numbers_minus_3"]
)
def test_real_releases_as_one_diff_give_the_newer_release_byte_for_byte(
    tmp_path: Path, shift: int
) -> None:
    old, new, changed = _trees(tmp_path)
    diff = _shift(_diff(old, new, changed, tmp_path), shift)
    assert len(HUNK.findall(diff)) >= 40
    ws = Workspace([old], journal=tmp_path / "journal")
    result = ws.apply_diff(diff)
    assert result.written
    assert sorted(f.path for f in result.files) == sorted(changed)
    for rel in changed:
        assert (old / rel).read_bytes() == (new / rel).read_bytes(), rel
    offsets = [h.offset for f in result.files for h in f.hunks]
    if shift:
        assert any(o for o in offsets)
    assert no_temp_files(old)


def test_a_diff_with_a_failing_file_writes_none(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.txt").write_text("three\n")
    snaps = {n: Snapshot.of(root / n) for n in ("a.txt", "b.txt")}
    diff = (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
        "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-not three\n+x\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_diff(diff)
    assert (info.value.code, info.value.path) == ("NO_MATCH", "b.txt")
    assert {n: Snapshot.of(root / n) for n in snaps} == snaps


def test_git_file_operations_land_together(ws: Workspace, root: Path) -> None:
    (root / "run.sh").write_text("echo hi\n")
    (root / "gone.txt").write_text("bye\n")
    (root / "old.py").write_text("X = 1\n")
    diff = (
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
        "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n"
        "+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/old.py b/pkg/new.py\nsimilarity index 50%\nrename from old.py\n"
        "rename to pkg/new.py\n--- a/old.py\n+++ b/pkg/new.py\n@@ -1 +1 @@\n-X = 1\n+X = 2\n"
        "diff --git a/tool b/tool\nnew file mode 100755\n--- /dev/null\n+++ b/tool\n"
        "@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo tool\n\\ No newline at end of file\n"
    )
    result = ws.apply_diff(diff)
    assert [(f.path, f.action) for f in result.files] == [
        ("run.sh", "updated"),
        ("gone.txt", "deleted"),
        ("pkg/new.py", "moved"),
        ("tool", "added"),
    ]
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o755
    assert not (root / "gone.txt").exists()
    assert not (root / "old.py").exists()
    assert (root / "pkg/new.py").read_text() == "X = 2\n"
    assert (root / "tool").read_bytes() == b"#!/bin/sh\necho tool"
    assert stat.S_IMODE((root / "tool").stat().st_mode) == 0o755


def test_a_diff_that_deletes_a_file_with_other_lines_is_refused(ws: Workspace, root: Path) -> None:
    (root / "gone.txt").write_text("bye\nmore\n")
    diff = "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    with pytest.raises(EditError) as info:
        ws.apply_diff(diff)
    assert info.value.code == "NO_MATCH"
    assert (root / "gone.txt").read_text() == "bye\nmore\n"


def test_a_diff_that_creates_an_existing_file_is_refused(ws: Workspace, root: Path) -> None:
    (root / "new.txt").write_text("already\n")
    with pytest.raises(EditError) as info:
        ws.apply_diff("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n")
    assert (info.value.code, info.value.path) == ("STALE_VERSION", "new.txt")


@pytest.mark.parametrize(
    ("before", "diff_eol", "after"),
    [
        (b"a\r\nb\r\nc\r\n", "\n", b"a\r\nB\r\nc\r\n"),
        (b"a\nb\nc\n", "\r\n", b"a\nB\nc\n"),
        (b"a\r\nb\nc\r\n", "\n", b"a\r\nB\nc\r\n"),
    ],
    ids=["lf_diff_crlf_file", "crlf_diff_lf_file", "mixed_file"],
)
def test_each_file_keeps_its_own_line_endings(
    ws: Workspace, root: Path, before: bytes, diff_eol: str, after: bytes
) -> None:
    (root / "f.txt").write_bytes(before)
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n".replace("\n", diff_eol)
    ws.apply_diff(diff)
    assert (root / "f.txt").read_bytes() == after


def test_a_hunk_with_wrong_numbers_lands_at_its_one_place_and_reports_the_offset(
    ws: Workspace, root: Path
) -> None:
    lines = [f"line {i}" for i in range(1, 41)] + ["target", "old"] + ["x"] * 10
    (root / "f.txt").write_text("\n".join(lines) + "\n")
    result = ws.apply_diff("--- a/f.txt\n+++ b/f.txt\n@@ -38,2 +38,2 @@\n target\n-old\n+new\n")
    assert result.files[0].hunks[0].offset == 3
    text = (root / "f.txt").read_text().splitlines()
    assert text[41] == "new"


def test_a_hunk_with_wrong_numbers_that_fits_at_two_places_is_refused_and_nothing_written(
    ws: Workspace, root: Path
) -> None:
    lines = [f"line {i}" for i in range(1, 41)] + ["target", "old"] + ["x"] * 10
    lines += ["target", "old"]
    before = "\n".join(lines) + "\n"
    (root / "f.txt").write_text(before)
    with pytest.raises(EditError) as err:
        ws.apply_diff("--- a/f.txt\n+++ b/f.txt\n@@ -38,2 +38,2 @@\n target\n-old\n+new\n")
    assert (err.value.code, err.value.data["lines"]) == ("AMBIGUOUS_MATCH", [41, 53])
    assert (root / "f.txt").read_text() == before


def test_apply_diff_runs_through_the_command(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    proc = subprocess.run(
        [*CALL, "--root", str(root), "apply_diff", "--args-file", "-"],
        input=json.dumps({"diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n"}),
        capture_output=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout
    assert json.loads(proc.stdout)["files"][0]["action"] == "updated"
    assert (root / "a.txt").read_text() == "two\n"


def test_a_binary_patch_is_refused(ws: Workspace, root: Path) -> None:
    (root / "img.png").write_bytes(b"\x89PNG")
    diff = (
        "diff --git a/img.png b/img.png\nindex 1..2 100644\n"
        "Binary files a/img.png and b/img.png differ\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_diff(diff)
    assert info.value.code == "INVALID_PATCH"


@pytest.mark.parametrize("mode", ["120000", "160000"], ids=["symlink", "submodule"])
def test_a_symbolic_link_or_submodule_in_a_git_diff_is_refused(
    ws: Workspace, root: Path, mode: str
) -> None:
    diff = (
        f"diff --git a/ln b/ln\nnew file mode {mode}\n--- /dev/null\n+++ b/ln\n"
        "@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_diff(diff)
    assert info.value.code == "INVALID_PATCH"
    assert not (root / "ln").exists()


def test_two_names_without_git_rename_headers_change_one_file(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("hello\nmine\n")
    (root / "a.txt.orig").write_text("hello\n")
    diff = (
        "--- a.txt.orig\t2024-01-01 00:00:00\n+++ a.txt\t2024-01-01 00:00:00\n"
        "@@ -1,2 +1,3 @@\n hello\n mine\n+world\n"
    )
    result = ws.apply_diff(diff)
    assert [(f.path, f.action) for f in result.files] == [("a.txt", "updated")]
    assert (root / "a.txt").read_text() == "hello\nmine\nworld\n"
    assert (root / "a.txt.orig").read_text() == "hello\n"


def test_a_git_rename_onto_an_existing_file_is_refused(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("A\n")
    (root / "b.txt").write_text("B\n")
    diff = "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n"
    with pytest.raises(EditError) as info:
        ws.apply_diff(diff)
    assert (info.value.code, info.value.path) == ("STALE_VERSION", "b.txt")
    assert ((root / "a.txt").read_text(), (root / "b.txt").read_text()) == ("A\n", "B\n")


def test_two_git_renames_swap_two_files(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("A\n")
    (root / "b.txt").write_text("B\n")
    diff = (
        "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n"
        "diff --git a/b.txt b/a.txt\nsimilarity index 100%\nrename from b.txt\nrename to a.txt\n"
    )
    ws.apply_diff(diff)
    assert ((root / "a.txt").read_text(), (root / "b.txt").read_text()) == ("B\n", "A\n")


@pytest.mark.parametrize(
    "diff",
    [
        "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n",
        "diff --git a/x b/x\ndeleted file mode 100644\nnew file mode 100644\n",
        "diff --git a/x b/x\nold mode 100644\nnew mode 104755\n",
    ],
    ids=["no_path", "deleted_and_new", "setuid"],
)
def test_a_section_that_cannot_be_applied_is_an_invalid_patch(
    ws: Workspace, root: Path, diff: str
) -> None:
    (root / "x").write_text("x\n")
    (root / "x").chmod(0o644)
    with pytest.raises(EditError) as info:
        ws.apply_diff(diff)
    assert info.value.code == "INVALID_PATCH"
    assert stat.S_IMODE((root / "x").stat().st_mode) == 0o644


def test_a_binary_file_can_be_renamed_by_a_git_diff(ws: Workspace, root: Path) -> None:
    (root / "logo.png").write_bytes(b"\x89PNG\x00\x01")
    diff = (
        "diff --git a/logo.png b/img/logo.png\nsimilarity index 100%\nrename from logo.png\n"
        "rename to img/logo.png\n"
    )
    result = ws.apply_diff(diff)
    assert (result.files[0].action, result.files[0].moved_from) == ("moved", "logo.png")
    assert (root / "img/logo.png").read_bytes() == b"\x89PNG\x00\x01"
    assert not (root / "logo.png").exists()


RETRIED_DIFF = (
    "--- a/app.py\n+++ b/app.py\n@@ -4,2 +4,5 @@\n def g():\n     return 2\n"
    "+\n+def h():\n+    return 3\n--- a/util.py\n+++ b/util.py\n@@ -1 +1 @@\n-LIMIT = 10\n"
    "+LIMIT = 20\n"
)


def test_a_diff_sent_again_is_already_applied_and_writes_nothing(ws: Workspace, root: Path) -> None:
    (root / "app.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    (root / "util.py").write_text("LIMIT = 10\n")
    first = ws.apply_diff(RETRIED_DIFF)
    assert (first.written, first.already_applied) == (True, 0)
    after = {name: Snapshot.of(root / name) for name in ("app.py", "util.py")}
    again = ws.apply_diff(RETRIED_DIFF)
    assert (again.written, again.already_applied) == (False, 2)
    assert [[h.already_applied for h in f.hunks] for f in again.files] == [[True], [True]]
    assert {name: Snapshot.of(root / name) for name in after} == after
    assert (root / "app.py").read_text().count("def h():") == 1
