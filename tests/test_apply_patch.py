"""apply_patch through the real command and the Python API: Codex's own scenarios byte for byte,
all files or none, and what the result and the errors say."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from editguard import EditError, Workspace
from editguard.transaction import MAX_FILES
from tests.conformance import conformance
from tests.conftest import Snapshot, no_temp_files

CONFORMANCE = conformance("codex-apply-patch")
SCENARIOS = sorted(p for p in CONFORMANCE.iterdir() if p.is_dir()) if CONFORMANCE else []
# Codex leaves the files of the operations before a failure written; editguard writes none.
ALL_OR_NOTHING = "015_failure_after_partial_success_leaves_changes"
CALL = [sys.executable, "-m", "editguard", "call", "--json"]


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``folder``, by relative path."""
    if not folder.is_dir():
        return {}
    out: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        out[rel] = None if path.is_dir() else path.read_bytes()
    return out


@pytest.mark.skipif(not SCENARIOS, reason="../shared/conformance is not beside the project")
@pytest.mark.parametrize("case", SCENARIOS, ids=[c.name for c in SCENARIOS])
def test_codex_scenario_gives_the_expected_tree_byte_for_byte(case: Path, tmp_path: Path) -> None:
    root = tmp_path / "root"
    if (case / "input").is_dir():
        shutil.copytree(case / "input", root)
    else:
        root.mkdir()
    before = tree(root)
    proc = subprocess.run(
        [*CALL, "--root", str(root), "apply_patch", "--args-file", "-"],
        input=json.dumps({"patch": (case / "patch.txt").read_text(encoding="utf-8")}),
        capture_output=True,
        encoding="utf-8",
        cwd=root,
        timeout=60,
        check=False,
    )
    expected_dir = case / "input" if case.name == ALL_OR_NOTHING else case / "expected"
    want = tree(expected_dir)
    got = tree(root)
    assert got == want, proc.stdout
    if want == before and case.name != "005_rejects_empty_patch":
        # Codex's rejections: editguard refuses with a code too, and writes nothing.
        assert proc.returncode == 1, proc.stdout
        assert json.loads(proc.stdout)["error"]["code"]
    assert no_temp_files(root)


def test_the_partial_success_scenario_is_refused_and_names_the_missing_file(
    ws: Workspace, root: Path
) -> None:
    patch = (
        "*** Begin Patch\n*** Add File: created.txt\n+hello\n"
        "*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch)
    assert info.value.code == "FILE_NOT_FOUND"
    assert info.value.path == "missing.txt"
    assert info.value.data["patch_line"] == 4
    assert not (root / "created.txt").exists()


def test_every_file_keeps_its_bytes_and_mtime_when_a_later_operation_fails(
    ws: Workspace, root: Path
) -> None:
    (root / "a.py").write_text("A = 1\n")
    (root / "b.txt").write_bytes(b"keep\r\n")
    (root / "c.txt").write_text("c\n")
    snaps = {n: Snapshot.of(root / n) for n in ("a.py", "b.txt", "c.txt")}
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n-A = 1\n+A = 2\n*** Delete File: b.txt\n"
        "*** Update File: c.txt\n@@\n-not in c\n+x\n*** End Patch\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch)
    assert (info.value.code, info.value.path, info.value.data["chunk"]) == ("NO_MATCH", "c.txt", 1)
    assert {n: Snapshot.of(root / n) for n in snaps} == snaps
    assert no_temp_files(root)


def test_a_chunk_not_found_shows_the_files_real_lines(ws: Workspace, root: Path) -> None:
    (root / "app.py").write_text("def main():\n    print('hello world')\n    return 0\n")
    patch = (
        "*** Begin Patch\n*** Update File: app.py\n@@\n def main():\n"
        "-    print('hello, world')\n+    print('hi')\n*** End Patch\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch)
    err = info.value
    assert err.code == "NO_MATCH"
    assert err.path == "app.py"
    assert err.data["similar_content"][0]["start_line"] == 1
    assert "print('hello world')" in err.text()


def test_a_syntax_error_in_one_file_refuses_the_whole_patch(ws: Workspace, root: Path) -> None:
    (root / "ok.txt").write_text("one\n")
    (root / "bad.py").write_text("def f():\n    return 1\n")
    patch = (
        "*** Begin Patch\n*** Update File: ok.txt\n-one\n+two\n*** Update File: bad.py\n"
        "-    return 1\n+    return (1\n*** End Patch\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch)
    assert (info.value.code, info.value.path) == ("VALIDATION_FAILED", "bad.py")
    assert (root / "ok.txt").read_text() == "one\n"


def test_the_result_gives_each_files_action_diff_and_version(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\nb\n")
    (root / "gone.txt").write_text("x\n")
    result = ws.apply_patch(
        "*** Begin Patch\n*** Update File: a.txt\n a\n-b\n+B\n*** Delete File: gone.txt\n"
        "*** Add File: n/new.txt\n+new\n*** End Patch\n"
    )
    assert result.written
    actions = [(f.path, f.action) for f in result.files]
    assert actions == [("a.txt", "updated"), ("gone.txt", "deleted"), ("n/new.txt", "added")]
    update = result.files[0]
    assert update.diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    assert update.version == ws.read_file("a.txt").version
    assert (update.hunks[0].line, update.hunks[0].match) == (1, "exact")
    assert result.files[1].version is None
    assert result.files[1].diff == "--- a/gone.txt\n+++ b/gone.txt\n@@ -1 +0,0 @@\n-x\n"
    assert (root / "n/new.txt").read_text() == "new\n"


def test_a_moved_file_keeps_its_mode_and_takes_the_update(ws: Workspace, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o755)
    result = ws.apply_patch(
        "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n-echo one\n"
        "+echo two\n*** End Patch\n"
    )
    moved = root / "bin/run.sh"
    assert not script.exists()
    assert moved.read_text() == "echo two\n"
    assert stat.S_IMODE(moved.stat().st_mode) == 0o755
    assert (result.files[0].action, result.files[0].moved_from) == ("moved", "run.sh")
    assert result.files[0].diff.startswith("--- a/run.sh\n+++ b/bin/run.sh\n@@")


def test_a_binary_file_can_be_deleted(ws: Workspace, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    result = ws.apply_patch("*** Begin Patch\n*** Delete File: blob.bin\n*** End Patch\n")
    assert not (root / "blob.bin").exists()
    assert result.files[0].action == "deleted"


def test_later_operations_see_earlier_ones_on_the_same_file(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** Update File: a.txt\n"
        "-two\n+three\n*** End Patch\n"
    )
    assert (root / "a.txt").read_text() == "three\n"


def test_dry_run_and_verify_only_write_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    snap = Snapshot.of(root / "a.txt")
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** Add File: b\n+b\n*** End Patch"
    )
    for result in (ws.apply_patch(patch, dry_run=True), ws.apply_patch(patch, mode="verify_only")):
        assert not result.written
        assert result.files[0].diff.endswith("-one\n+two\n")
    assert Snapshot.of(root / "a.txt") == snap
    assert not (root / "b").exists()


def test_a_path_outside_the_root_refuses_the_whole_patch(
    ws: Workspace, root: Path, tmp_path: Path
) -> None:
    (root / "a.txt").write_text("one\n")
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** Add File: ../evil.txt\n"
        "+x\n*** End Patch\n"
    )
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch)
    assert info.value.code == "OUTSIDE_ROOT"
    assert (root / "a.txt").read_text() == "one\n"
    assert not (tmp_path / "evil.txt").exists()


def test_a_move_onto_a_path_outside_the_root_is_refused(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: /etc/a.txt\n-one\n+two\n"
        "*** End Patch"
    )
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch)
    assert info.value.code == "OUTSIDE_ROOT"
    assert (root / "a.txt").read_text() == "one\n"


def test_expected_versions_refuse_a_file_that_changed(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    (root / "b.txt").write_text("b\n")
    version = ws.read_file("a.txt").version
    (root / "a.txt").write_text("one\nchanged\n")
    patch = (
        "*** Begin Patch\n*** Update File: b.txt\n-b\n+B\n*** Update File: a.txt\n-one\n"
        "+two\n*** End Patch"
    )
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch, expected_versions={"a.txt": version})
    assert (info.value.code, info.value.path) == ("STALE_VERSION", "a.txt")
    assert (root / "b.txt").read_text() == "b\n"


def test_a_crlf_file_keeps_crlf_and_a_file_without_final_newline_keeps_it_unless_touched(
    ws: Workspace, root: Path
) -> None:
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\nthree")
    ws.apply_patch("*** Begin Patch\n*** Update File: w.txt\n-one\n+ONE\n two\n*** End Patch")
    assert (root / "w.txt").read_bytes() == b"ONE\r\ntwo\r\nthree"


def test_the_journal_folder_is_left_empty(root: Path, tmp_path: Path) -> None:
    journal = tmp_path / "journal"
    ws = Workspace([root], journal=journal)
    (root / "a.txt").write_text("one\n")
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: a.txt\n-one\n+two\n*** Add File: b\n+b\n*** End Patch"
    )
    assert (root / "b").read_text() == "b\n"
    # No journal left, only the journal key (made once, owner-only).
    assert [p.name for p in journal.iterdir()] == ["journal.key"]
    assert stat.S_IMODE((journal / "journal.key").stat().st_mode) == 0o600
    assert stat.S_IMODE(journal.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    "patch",
    [
        "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch",
        "*** Begin Patch\n*** Update File: link.txt\n*** Move to: moved.txt\n-one\n+two\n"
        "*** End Patch",
        "*** Begin Patch\n*** Update File: other.txt\n*** Move to: link.txt\n-x\n+y\n*** End Patch",
    ],
    ids=["delete", "move_from", "move_onto"],
)
def test_a_symbolic_link_is_not_deleted_or_moved_through(
    ws: Workspace, root: Path, patch: str
) -> None:
    (root / "target.txt").write_text("one\n")
    (root / "other.txt").write_text("x\n")
    (root / "link.txt").symlink_to("target.txt")
    with pytest.raises(EditError) as info:
        ws.apply_patch(patch)
    assert (info.value.code, info.value.data["target"]) == ("NOT_A_FILE", "target.txt")
    assert (root / "target.txt").read_text() == "one\n"
    assert (root / "link.txt").is_symlink()
    assert (root / "other.txt").read_text() == "x\n"


def test_a_file_cannot_be_added_inside_a_file_the_patch_adds(ws: Workspace, root: Path) -> None:
    with pytest.raises(EditError) as info:
        ws.apply_patch("*** Begin Patch\n*** Add File: d\n+x\n*** Add File: d/x\n+y\n*** End Patch")
    assert (info.value.code, info.value.data["not_a_folder"]) == ("NOT_A_FILE", "d")
    assert not (root / "d").exists()


def test_more_files_than_a_transaction_holds_are_refused_before_any_lock(
    ws: Workspace, root: Path
) -> None:
    adds = "".join(f"*** Add File: f{n}.txt\n+{n}\n" for n in range(MAX_FILES + 1))
    with pytest.raises(EditError) as info:
        ws.apply_patch(f"*** Begin Patch\n{adds}*** End Patch")
    assert (info.value.code, info.value.data["limit"]) == ("TOO_MANY_EDITS", MAX_FILES)
    assert list(root.iterdir()) == []


def test_expected_versions_in_a_batch_accept_the_version_read_before_it(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("hello\n")
    read = ws.read_file("a.txt").version
    edit = {"path": "a.txt", "edits": [{"old_text": "hello", "new_text": "h1"}]}
    patch = "*** Begin Patch\n*** Update File: a.txt\n-h1\n+h2\n*** End Patch"
    ws.batch(
        [
            {"tool": "edit_file", "arguments": edit},
            {
                "tool": "apply_patch",
                "arguments": {"patch": patch, "expected_versions": {"a.txt": read}},
            },
        ]
    )
    assert (root / "a.txt").read_text() == "h2\n"


def test_a_moved_file_can_be_edited_again_and_two_files_can_swap(ws: Workspace, root: Path) -> None:
    (root / "a").write_text("A\n")
    (root / "b").write_text("B\n")
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: a\n*** Move to: c\n-A\n+A2\n"
        "*** Update File: c\n-A2\n+A3\n*** End Patch"
    )
    assert (root / "c").read_text() == "A3\n"
    assert not (root / "a").exists()
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: b\n*** Move to: t\n-B\n+B1\n*** Update File: c\n"
        "*** Move to: b\n-A3\n+A4\n*** Update File: t\n*** Move to: c\n-B1\n+B2\n*** End Patch"
    )
    assert ((root / "b").read_text(), (root / "c").read_text()) == ("A4\n", "B2\n")
    move = "*** Begin Patch\n*** Update File: b\n*** Move to: d\n-A4\n+A5\n*** End Patch"
    ws.batch(
        [
            {"tool": "apply_patch", "arguments": {"patch": move}},
            {
                "tool": "edit_file",
                "arguments": {"path": "d", "edits": [{"old_text": "A5", "new_text": "A6"}]},
            },
        ]
    )
    assert (root / "d").read_text() == "A6\n"


def test_two_moves_onto_one_path_are_refused(ws: Workspace, root: Path) -> None:
    (root / "a").write_text("A\n")
    (root / "c").write_text("C\n")
    with pytest.raises(EditError) as info:
        ws.apply_patch(
            "*** Begin Patch\n*** Update File: a\n*** Move to: b\n-A\n+X\n"
            "*** Update File: c\n*** Move to: b\n-C\n+Y\n*** End Patch"
        )
    assert (info.value.code, info.value.data["lines"]) == ("INVALID_PATCH", [2, 6])
    assert ((root / "a").read_text(), (root / "c").read_text()) == ("A\n", "C\n")


def test_a_carriage_return_inside_a_patch_line_is_refused(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with pytest.raises(EditError) as info:
        ws.apply_patch("*** Begin Patch\n*** Update File: a.txt\n-a\n+x\ry\n*** End Patch")
    assert (info.value.code, info.value.data["line"]) == ("INVALID_PATCH", 4)
    with pytest.raises(EditError) as info:
        ws.apply_diff("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+x\ry\n")
    assert (info.value.code, info.value.data["line"]) == ("INVALID_PATCH", 5)
    assert (root / "a.txt").read_bytes() == b"a\n"


def test_a_move_keeps_the_permission_bits_but_not_setuid(ws: Workspace, root: Path) -> None:
    tool = root / "tool"
    tool.write_text("x\n")
    tool.chmod(0o4755)
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: tool\n*** Move to: moved\n-x\n+y\n*** End Patch"
    )
    assert stat.S_IMODE((root / "moved").stat().st_mode) == 0o755


RETRIED = (
    "*** Begin Patch\n*** Update File: app.py\n@@\n def g():\n     return 2\n"
    "+\n+def h():\n+    return 3\n*** Update File: util.py\n@@\n-LIMIT = 10\n+LIMIT = 20\n"
    "*** End Patch\n"
)


def test_a_patch_sent_again_is_already_applied_and_writes_nothing(
    ws: Workspace, root: Path
) -> None:
    (root / "app.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    (root / "util.py").write_text("LIMIT = 10\n")
    first = ws.apply_patch(RETRIED)
    assert (first.written, first.already_applied) == (True, 0)
    after = {name: Snapshot.of(root / name) for name in ("app.py", "util.py")}
    # The response was lost; the model sends the same patch again.
    again = ws.apply_patch(RETRIED)
    assert (again.written, again.already_applied) == (False, 2)
    assert [[h.already_applied for h in f.hunks] for f in again.files] == [[True], [True]]
    assert [f.hunks[0].line for f in again.files] == [4, 1]
    assert {name: Snapshot.of(root / name) for name in after} == after
    assert (root / "app.py").read_text().count("def h():") == 1


def test_a_file_added_again_with_the_text_it_has_is_already_applied(
    ws: Workspace, root: Path
) -> None:
    patch = "*** Begin Patch\n*** Add File: new.py\n+X = 1\n*** End Patch\n"
    first = ws.apply_patch(patch)
    assert (first.written, first.already_applied, first.files[0].action) == (True, 0, "added")
    before = Snapshot.of(root / "new.py")
    again = ws.apply_patch(patch)
    assert (again.written, again.already_applied) == (False, 1)
    assert Snapshot.of(root / "new.py") == before


def test_a_patch_half_applied_applies_the_rest(ws: Workspace, root: Path) -> None:
    (root / "app.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    (root / "util.py").write_text("LIMIT = 10\n")
    ws.apply_patch(RETRIED.split("*** Update File: util.py", maxsplit=1)[0] + "*** End Patch\n")
    result = ws.apply_patch(RETRIED)
    assert (result.written, result.already_applied) == (True, 1)
    assert (root / "util.py").read_text() == "LIMIT = 20\n"
    assert (root / "app.py").read_text().count("def h():") == 1


def test_a_patch_sent_again_through_the_command_says_already_applied(root: Path) -> None:
    (root / "app.py").write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    (root / "util.py").write_text("LIMIT = 10\n")
    answers = []
    for _ in range(2):
        proc = subprocess.run(
            [*CALL, "--root", str(root), "apply_patch", "--args-file", "-"],
            input=json.dumps({"patch": RETRIED}),
            capture_output=True,
            encoding="utf-8",
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout
        answers.append(json.loads(proc.stdout))
    assert [a["already_applied"] for a in answers] == [0, 2]
    assert answers[1]["written"] is False
    assert (root / "app.py").read_text().count("def h():") == 1
