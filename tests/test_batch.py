"""batch: writing calls as one transaction, through the Python API."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from editguard import EditError, Workspace
from tests.conftest import Snapshot, no_temp_files


def test_each_call_sees_the_ones_before_it_and_all_land(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("X = 1\n")
    result = ws.batch(
        [
            {
                "tool": "edit_file",
                "arguments": {
                    "path": "a.py",
                    "edits": [{"old_text": "X = 1", "new_text": "X = 2"}],
                },
            },
            {
                "tool": "edit_lines",
                "arguments": {
                    "path": "a.py",
                    "edits": [{"line_number": 2, "type": "Insert", "text": "Y = X"}],
                },
            },
            {
                "tool": "apply_patch",
                "arguments": {
                    "patch": "*** Begin Patch\n*** Update File: a.py\n-X = 2\n+X = 3\n"
                    "*** Add File: b.py\n+import a\n*** End Patch"
                },
            },
            {
                "tool": "safe_edit",
                "arguments": {
                    "path": "b.py",
                    "search_replace": {"search": "import a", "replace": "import a  # noqa"},
                },
            },
            {
                "tool": "apply_diff",
                "arguments": {
                    "diff": "--- a/b.py\n+++ b/b.py\n@@ -1 +1,2 @@\n import a  # noqa\n"
                    "+print(a.X)\n"
                },
            },
        ]
    )
    assert result.written
    assert (root / "a.py").read_text() == "X = 3\nY = X\n"
    assert (root / "b.py").read_text() == "import a  # noqa\nprint(a.X)\n"
    assert [r["written"] for r in result.results] == [True] * 5
    assert result.results[-1]["files"][0]["version"] == ws.read_file("b.py").version
    assert no_temp_files(root)


def test_a_failing_call_writes_nothing_and_is_named(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    snap = Snapshot.of(root / "a.txt")
    with pytest.raises(EditError) as info:
        ws.batch(
            [
                {"tool": "write_file", "arguments": {"path": "new/b.txt", "content": "b\n"}},
                {
                    "tool": "edit_file",
                    "arguments": {
                        "path": "a.txt",
                        "edits": [{"old_text": "one", "new_text": "two"}],
                    },
                },
                {
                    "tool": "edit_file",
                    "arguments": {"path": "a.txt", "edits": [{"old_text": "zzz", "new_text": "y"}]},
                },
            ]
        )
    err = info.value
    assert (err.code, err.data["call"], err.data["tool"]) == ("NO_MATCH", 2, "edit_file")
    assert err.text().startswith("call 3 of 3 (edit_file): edit 1 of 1:")
    assert Snapshot.of(root / "a.txt") == snap
    assert not (root / "new").exists()


def test_a_dry_run_shows_every_call_on_the_results_before_it(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    snap = Snapshot.of(root / "a.txt")
    result = ws.batch(
        [
            {
                "tool": "edit_file",
                "arguments": {"path": "a.txt", "edits": [{"old_text": "one", "new_text": "two"}]},
            },
            {
                "tool": "edit_file",
                "arguments": {"path": "a.txt", "edits": [{"old_text": "two", "new_text": "three"}]},
            },
        ],
        dry_run=True,
    )
    assert not result.written
    assert [r["written"] for r in result.results] == [False, False]
    assert result.results[1]["diff"].endswith("-two\n+three\n")
    assert Snapshot.of(root / "a.txt") == snap


def test_expected_version_may_be_the_version_read_or_the_one_staged(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("one\n")
    read = ws.read_file("a.txt").version
    edit = {"old_text": "one", "new_text": "two"}
    result = ws.batch(
        [
            {
                "tool": "edit_file",
                "arguments": {"path": "a.txt", "edits": [edit], "expected_version": read},
            },
            {
                "tool": "edit_lines",
                "arguments": {
                    "path": "a.txt",
                    "expected_version": read,
                    "edits": [{"line_number": 1, "type": "Replace", "text": "three"}],
                },
            },
        ]
    )
    assert result.written
    assert (root / "a.txt").read_text() == "three\n"
    with pytest.raises(EditError) as info:
        ws.batch(
            [
                {
                    "tool": "write_file",
                    "arguments": {"path": "a.txt", "content": "x", "expected_version": read},
                }
            ]
        )
    assert (info.value.code, info.value.data["call"]) == ("STALE_VERSION", 0)


@pytest.mark.parametrize(
    ("calls", "code"),
    [
        ([{"tool": "read_file", "arguments": {"path": "a.txt"}}], "INVALID_REQUEST"),
        ([{"tool": "batch", "arguments": {"calls": []}}], "INVALID_REQUEST"),
        ([{"tool": "nope", "arguments": {}}], "INVALID_REQUEST"),
        ([{"tool": "edit_file", "arguments": {"path": "a.txt"}}], "INVALID_REQUEST"),
        (
            [{"tool": "write_file", "arguments": {"path": "../out.txt", "content": "x"}}],
            "OUTSIDE_ROOT",
        ),
    ],
    ids=["read_only_tool", "nested_batch", "unknown_tool", "malformed_arguments", "outside_root"],
)
def test_a_call_that_cannot_run_is_refused_with_its_index(
    ws: Workspace, root: Path, calls: list[dict[str, object]], code: str
) -> None:
    (root / "a.txt").write_text("one\n")
    with pytest.raises(EditError) as info:
        ws.batch([{"tool": "write_file", "arguments": {"path": "b.txt", "content": "b"}}, *calls])
    assert (info.value.code, info.value.data["call"]) == (code, 1)
    assert not (root / "b.txt").exists()


def test_an_empty_batch_and_too_many_calls_are_refused(root: Path) -> None:
    ws = Workspace([root], max_edits=2)
    with pytest.raises(EditError) as info:
        ws.batch([])
    assert info.value.code == "INVALID_REQUEST"
    call = {"tool": "write_file", "arguments": {"path": "a.txt", "content": "a"}}
    with pytest.raises(EditError) as info:
        ws.batch([call, call, call])
    assert info.value.code == "TOO_MANY_EDITS"


def test_a_file_created_then_deleted_in_one_batch_leaves_nothing(ws: Workspace, root: Path) -> None:
    result = ws.batch(
        [
            {"tool": "write_file", "arguments": {"path": "tmp/x.txt", "content": "x\n"}},
            {
                "tool": "apply_patch",
                "arguments": {
                    "patch": "*** Begin Patch\n*** Delete File: tmp/x.txt\n*** End Patch"
                },
            },
        ]
    )
    assert not result.written
    assert not (root / "tmp").exists()


def test_a_validation_failure_in_a_later_call_refuses_all(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    (root / "b.txt").write_text("b\n")
    with pytest.raises(EditError) as info:
        ws.batch(
            [
                {"tool": "write_file", "arguments": {"path": "b.txt", "content": "B\n"}},
                {
                    "tool": "edit_file",
                    "arguments": {
                        "path": "a.py",
                        "edits": [{"old_text": "return 1", "new_text": "return (1"}],
                    },
                },
            ]
        )
    assert (info.value.code, info.value.path, info.value.data["call"]) == (
        "VALIDATION_FAILED",
        "a.py",
        1,
    )
    assert (root / "b.txt").read_text() == "b\n"


def test_a_path_deleted_and_made_again_gets_a_new_files_mode(ws: Workspace, root: Path) -> None:
    script = root / "x.sh"
    script.write_text("old\n")
    script.chmod(0o4750)
    ws.batch(
        [
            {
                "tool": "apply_patch",
                "arguments": {"patch": "*** Begin Patch\n*** Delete File: x.sh\n*** End Patch"},
            },
            {"tool": "write_file", "arguments": {"path": "x.sh", "content": "new\n"}},
        ]
    )
    (root / "fresh.sh").write_text("new\n")  # what one call at a time gives
    assert script.read_text() == "new\n"
    assert stat.S_IMODE(script.stat().st_mode) == stat.S_IMODE((root / "fresh.sh").stat().st_mode)


def test_a_snippet_changes_with_the_calls_before_it_or_not_at_all(
    ws: Workspace, root: Path
) -> None:
    """edit_snippet runs in a batch like every writing tool of one file: its merge sees the
    calls before it, and a later refusal leaves every file as it was."""
    (root / "m.py").write_text("def f():\n    a = 1\n    b = 2\n    return a + b\n")
    calls = [
        {
            "tool": "edit_file",
            "arguments": {"path": "m.py", "edits": [{"old_text": "a = 1", "new_text": "a = 10"}]},
        },
        {
            "tool": "edit_snippet",
            "arguments": {
                "path": "m.py",
                "snippet": "def f():\n    # ... existing code ...\n    b = 2\n    print(a)\n"
                "    return a + b\n",
            },
        },
    ]
    before = Snapshot.of(root / "m.py")
    with pytest.raises(EditError) as info:
        ws.batch([*calls, {"tool": "edit_lines", "arguments": {"path": "m.py", "edits": []}}])
    assert info.value.data["call"] == 2
    assert Snapshot.of(root / "m.py") == before
    result = ws.batch(calls)
    assert result.written
    assert (root / "m.py").read_text() == (
        "def f():\n    a = 10\n    b = 2\n    print(a)\n    return a + b\n"
    )
