"""The Python API end to end on real files: results, errors with codes, and files left intact."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, Workspace
from editguard.core.document import content_version
from editguard.fs import atomic

from .conftest import Snapshot, located, no_temp_files, read_text, set_old_mtime

APP = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


@pytest.fixture
def app(root: Path) -> Path:
    path = root / "app.py"
    path.write_text(APP)
    set_old_mtime(path)
    return path


# -- success ------------------------------------------------------------------------------


def test_edit_file_returns_diff_lines_counts_and_versions(ws: Workspace, app: Path) -> None:
    before = ws.read_file("app.py").version
    result = ws.edit_file(
        "app.py",
        [
            {"old_text": "return a + b", "new_text": "return b + a"},
            {"old_text": "(a, b)", "new_text": "(a: int, b: int)", "occurrences": 2},
        ],
    )
    assert app.read_text() == APP.replace("return a + b", "return b + a").replace(
        "(a, b)", "(a: int, b: int)"
    )
    assert result.path == str(app)
    assert result.previous_version == before
    assert result.version == content_version([app.read_bytes()])
    assert [(e.index, e.occurrences_replaced, e.lines) for e in result.edits_applied] == [
        (0, 1, [2]),
        (1, 2, [1, 5]),
    ]
    assert result.total_replacements == 3
    assert (result.dry_run, result.would_modify, result.written) == (False, True, True)
    assert result.diff.splitlines() == [
        "--- a/app.py",
        "+++ b/app.py",
        "@@ -1,6 +1,6 @@",
        "-def add(a, b):",
        "-    return a + b",
        "+def add(a: int, b: int):",
        "+    return b + a",
        " ",
        " ",
        "-def sub(a, b):",
        "+def sub(a: int, b: int):",
        "     return a - b",
    ]


def test_a_dry_run_returns_what_the_real_run_would_and_writes_nothing(
    ws: Workspace, app: Path
) -> None:
    edits = [{"old_text": "a - b", "new_text": "a - b - 0"}]
    snap = Snapshot.of(app)
    dry = ws.edit_file("app.py", edits, dry_run=True)
    assert Snapshot.of(app) == snap
    assert (dry.dry_run, dry.would_modify, dry.written) == (True, True, False)
    real = ws.edit_file("app.py", edits)
    assert (real.diff, real.version, real.edits_applied) == (
        dry.diff,
        dry.version,
        dry.edits_applied,
    )


def test_a_dry_run_fails_exactly_as_the_real_run_would(ws: Workspace, app: Path) -> None:
    edits = [{"old_text": "return", "new_text": "yield"}]
    errors = []
    for dry in (True, False):
        with pytest.raises(EditError) as err:
            ws.edit_file("app.py", edits, dry_run=dry)
        errors.append(err.value.to_dict())
    assert errors[0] == errors[1]


def test_an_edit_that_changes_nothing_does_not_write(ws: Workspace, app: Path) -> None:
    snap = Snapshot.of(app)
    result = ws.edit_file("app.py", [{"old_text": "a + b", "new_text": "a + b"}])
    assert (result.would_modify, result.written, result.diff) == (False, False, "")
    assert result.version == result.previous_version
    assert Snapshot.of(app) == snap


@pytest.mark.parametrize("mode", [0o751, 0o4755, 0o2755, 0o6750])
def test_mode_bits_and_owner_are_kept(ws: Workspace, app: Path, mode: int) -> None:
    if os.geteuid() == 0:
        os.chown(app, 4242, 4343)
    app.chmod(mode)  # after the chown, which would clear setuid and setgid
    assert stat.S_IMODE(app.stat().st_mode) == mode
    ws.edit_file("app.py", [{"old_text": "a + b", "new_text": "a+b"}])
    st = app.stat()
    assert stat.S_IMODE(st.st_mode) == mode  # setuid and setgid too (a chown clears them)
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (4242, 4343)


def test_editing_through_a_symlink_edits_the_target_and_keeps_the_link(
    ws: Workspace, root: Path, app: Path
) -> None:
    link = root / "link.py"
    link.symlink_to("app.py")
    result = ws.edit_file("link.py", [{"old_text": "a - b", "new_text": "b - a"}])
    assert link.is_symlink()
    assert os.readlink(link) == "app.py"
    assert "b - a" in app.read_text()
    assert result.path == str(app)


def test_the_python_api_accepts_edit_objects_and_aliases(ws: Workspace, app: Path) -> None:
    from editguard import EditOperation
    from editguard.core.formats.search_replace import SearchReplace

    ws.edit_file(
        "app.py",
        [
            EditOperation(old_text="a + b", new_text="a + 1"),
            SearchReplace("a - b", "a - 1"),
            {"old_string": "def add", "new_string": "def plus"},
        ],
    )
    assert "def plus(a, b):\n    return a + 1" in app.read_text()


# -- errors: each leaves the file untouched ---------------------------------------------

ErrorCase = tuple[str, Callable[[Workspace, Path], Any]]

ERROR_CASES: dict[str, ErrorCase] = {
    "malformed edit": (
        "INVALID_REQUEST",
        lambda ws, r: ws.edit_file("app.py", [{"old": "a", "new_text": "b"}]),
    ),
    "too large": (
        "FILE_TOO_LARGE",
        lambda ws, r: Workspace([r], max_file_bytes=10).edit_file(
            "app.py", [{"old_text": "a", "new_text": "b"}]
        ),
    ),
}


@pytest.mark.parametrize(("code", "call"), ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_every_error_has_its_code_and_leaves_every_file_untouched(
    ws: Workspace, root: Path, app: Path, code: str, call: Callable[[Workspace, Path], Any]
) -> None:
    (root / "sub").mkdir()
    (root / "loop").symlink_to(root / "loop")
    (root / "blob.bin").write_bytes(b"\x7fELF\x00\x01a")
    (root / "legacy.txt").write_bytes("caf\u00e9\n".encode("cp1252"))
    (root.parent / "outside.py").write_text("a\n")
    files = [p for p in root.parent.rglob("*") if p.is_file()]
    for path in files:
        set_old_mtime(path)
    before = {p: Snapshot.of(p) for p in files}
    with pytest.raises(EditError) as err:
        call(ws, root)
    assert err.value.code == code
    assert err.value.to_dict()["code"] == code
    assert {p: Snapshot.of(p) for p in files} == before
    assert no_temp_files(root.parent)


def test_no_match_shows_the_search_the_similar_lines_and_what_differs(
    ws: Workspace, app: Path
) -> None:
    with pytest.raises(EditError) as err:
        ws.edit_file(
            "app.py",
            [
                {"old_text": "return a - b", "new_text": "return b - a"},
                {"old_text": "def sub(a, b):\n  return a - b", "new_text": "x"},
            ],
        )
    e = err.value
    assert (e.code, e.edit_index, e.total_edits) == ("NO_MATCH", 1, 2)
    assert e.data["search_text"] == "def sub(a, b):\n  return a - b"
    best = e.data["similar_content"][0]
    assert (best["start_line"], best["end_line"]) == (5, 6)
    assert best["content"] == "def sub(a, b):\n    return b - a"
    assert best["differences"][0]["type"] == "indentation"
    text = e.text()
    assert text.startswith("edit 2 of 2: old_text not found in app.py")
    assert ">>>def sub(a, b):\n  return a - b<<<" in text
    assert "5│def sub(a, b):\n6│    return b - a" in text
    assert "read_file" in " ".join(e.suggestions)


def test_no_match_says_when_the_edit_looks_already_applied(ws: Workspace, app: Path) -> None:
    edit = {"old_text": "return a + b", "new_text": "return a + b + 0"}
    ws.edit_file("app.py", [edit])
    with pytest.raises(EditError) as err:
        ws.edit_file("app.py", [{"old_text": "return a - c", "new_text": "x"}])
    assert "already_applied" not in err.value.data
    with pytest.raises(EditError) as err:
        ws.edit_file("app.py", [{"old_text": "return a + c", "new_text": "return a + b + 0"}])
    assert err.value.data["already_applied"] is True
    assert "already applied" in err.value.text()


def test_wrong_count_lists_every_match_with_line_column_and_context(
    ws: Workspace, root: Path
) -> None:
    (root / "log.js").write_text("".join(f"  console.log({i});\n" for i in range(14)))
    with pytest.raises(EditError) as err:
        ws.edit_file("log.js", [{"old_text": "console.log", "new_text": "log", "occurrences": 3}])
    d = err.value.data
    assert (d["expected_occurrences"], d["actual_occurrences"]) == (3, 14)
    assert len(d["match_locations"]) == 10
    assert d["more_matches"] == 4
    assert d["more_lines"] == [11, 12, 13, 14]
    # Issue 22: the first places with their lines, the others named by line.
    assert "and 9 more place(s), at lines 6, 7, 8, 9, 10, 11, 12, 13, 14" in err.value.text()
    first = d["match_locations"][1]
    assert first == {
        "line_number": 2,
        "column_start": 3,
        "column_end": 14,
        "line_content": "  console.log(1);",
        "context_before": "  console.log(0);",
        "context_after": "  console.log(2);",
    }
    assert "set occurrences to 14" in err.value.text()


def test_a_stale_version_names_both_versions(ws: Workspace, app: Path) -> None:
    old = ws.read_file("app.py").version
    app.write_text(APP + "# changed by someone else\n")
    with pytest.raises(EditError) as err:
        ws.edit_file("app.py", [{"old_text": "a + b", "new_text": "b"}], expected_version=old)
    assert err.value.code == "STALE_VERSION"
    assert err.value.data["expected_version"] == old
    assert err.value.data["actual_version"] == content_version([app.read_bytes()])


def test_the_matching_version_is_accepted(ws: Workspace, app: Path) -> None:
    version = ws.read_file("app.py").version
    result = ws.edit_file(
        "app.py", [{"old_text": "a + b", "new_text": "b"}], expected_version=version
    )
    assert result.written


def test_a_change_by_another_process_during_the_write_is_detected_not_overwritten(
    root: Path, app: Path
) -> None:
    base = content_version([app.read_bytes()])

    def chunks() -> Iterator[bytes]:
        yield b"new content\n"
        app.write_text("the other process wrote this\n")  # lands while we write the temp file

    with pytest.raises(EditError) as err, located(root, "app.py") as where:
        atomic.write_atomic(where, chunks(), display="app.py", base_version=base)
    assert err.value.code == "STALE_VERSION"
    assert app.read_text() == "the other process wrote this\n"
    assert no_temp_files(root)


def test_a_file_created_by_someone_else_meanwhile_is_not_overwritten(root: Path) -> None:
    target = root / "new.txt"

    def chunks() -> Iterator[bytes]:
        target.write_text("theirs\n")
        yield b"mine\n"

    with pytest.raises(EditError) as err, located(root, "new.txt") as where:
        atomic.write_atomic(where, chunks(), display="new.txt", base_version=None)
    assert err.value.code == "STALE_VERSION"
    assert target.read_text() == "theirs\n"


@pytest.mark.parametrize(
    ("failing", "err_no", "code"),
    [
        ("fsync", errno.ENOSPC, "WRITE_FAILED"),
        ("replace", errno.EACCES, "PERMISSION_DENIED"),
        ("fchmod", errno.EIO, "WRITE_FAILED"),
        ("_create_temp", errno.EACCES, "PERMISSION_DENIED"),
    ],
)
def test_a_write_that_fails_midway_leaves_the_original_and_no_temp_file(
    ws: Workspace,
    root: Path,
    app: Path,
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
    err_no: int,
    code: str,
) -> None:
    def fail(*_args: object, **_kwargs: object) -> None:
        raise OSError(err_no, os.strerror(err_no))

    monkeypatch.setattr(atomic if failing == "_create_temp" else os, failing, fail)
    snap = Snapshot.of(app)
    with pytest.raises(EditError) as err:
        ws.edit_file("app.py", [{"old_text": "a + b", "new_text": "b"}])
    assert err.value.code == code
    assert Snapshot.of(app) == snap
    assert no_temp_files(root)


def test_a_disk_that_fills_up_while_writing_leaves_the_original(root: Path, app: Path) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"partial"
        raise OSError(errno.ENOSPC, "No space left on device")

    snap = Snapshot.of(app)
    base = content_version([app.read_bytes()])
    with pytest.raises(EditError) as err, located(root, "app.py") as where:
        atomic.write_atomic(where, chunks(), display="app.py", base_version=base)
    assert err.value.code == "WRITE_FAILED"
    assert Snapshot.of(app) == snap
    assert no_temp_files(root)


def test_a_read_only_file_is_refused(
    ws: Workspace, app: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root may write anything, so the refusal the OS would give is injected.
    monkeypatch.setattr(os, "access", lambda *_a, **_k: False)
    with pytest.raises(EditError) as err:
        ws.edit_file("app.py", [{"old_text": "a + b", "new_text": "b"}])
    assert err.value.code == "PERMISSION_DENIED"


def test_an_unreadable_file_is_permission_denied(
    ws: Workspace, app: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def deny(path: Any, flags: int, *args: Any, **kwargs: Any) -> Any:
        if path == app.name:  # opened in its folder, by name
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(EditError) as err:
        ws.read_file("app.py")
    assert err.value.code == "PERMISSION_DENIED"


# -- read_file ----------------------------------------------------------------------------


def test_read_file_numbers_lines_and_reports_the_file(ws: Workspace, root: Path) -> None:
    (root / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree")
    r = read_text(ws, "w.txt")
    assert r.content == "1│one\n2│two\n3│three"
    assert (r.total_lines, r.encoding, r.bom, r.line_ending, r.ends_with_newline) == (
        3,
        "utf-8",
        True,
        "CRLF",
        False,
    )
    assert r.version == content_version([(root / "w.txt").read_bytes()])
    assert (r.truncated, r.next_start_line) == (False, None)


def test_read_file_shows_a_range_and_says_when_there_is_more(root: Path) -> None:
    (root / "long.txt").write_text("".join(f"{i}\n" for i in range(1, 101)))
    ws = Workspace([root], read_lines=10)
    r = read_text(ws, "long.txt", start_line=95)
    assert r.content.splitlines()[0] == " 95│95"
    assert (r.end_line, r.truncated) == (100, False)
    r = read_text(ws, "long.txt")
    assert (r.start_line, r.end_line, r.truncated, r.next_start_line) == (1, 10, True, 11)
    r = read_text(ws, "long.txt", start_line=20, end_line=22)
    assert r.content == "20│20\n21│21\n22│22"


@pytest.mark.parametrize(("start", "end"), [(5, 4), (200, None)])
def test_read_file_rejects_a_range_outside_the_file(
    ws: Workspace, app: Path, start: int, end: int | None
) -> None:
    with pytest.raises(EditError) as err:
        ws.read_file("app.py", start_line=start, end_line=end)
    assert err.value.code == "INVALID_REQUEST"


def test_an_empty_file_reads_as_no_lines(ws: Workspace, root: Path) -> None:
    (root / "empty").write_bytes(b"")
    r = read_text(ws, "empty")
    assert (r.content, r.total_lines, r.line_ending) == ("", 0, "none")


# -- write_file ---------------------------------------------------------------------------


def test_write_file_creates_parents_and_reports_created(ws: Workspace, root: Path) -> None:
    r = ws.write_file("a/b/c.txt", "hello\n")
    assert (root / "a/b/c.txt").read_bytes() == b"hello\n"
    assert (r.created, r.previous_version) == (True, None)
    assert r.version == content_version([b"hello\n"])
    assert stat.S_IMODE((root / "a/b/c.txt").stat().st_mode) == 0o666 & ~atomic.UMASK


def test_overwriting_keeps_encoding_bom_line_endings_and_mode(ws: Workspace, root: Path) -> None:
    path = root / "win.txt"
    path.write_bytes(b"\xef\xbb\xbfold\r\ntext\r\n")
    path.chmod(0o640)
    r = ws.write_file("win.txt", "new\ncontent\n")
    assert path.read_bytes() == b"\xef\xbb\xbfnew\r\ncontent\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert (r.created, r.line_ending) == (False, "CRLF")
    assert "-old\n-text\n+new\n+content" in r.diff


def test_explicit_crlf_in_content_is_written_as_sent(ws: Workspace, root: Path) -> None:
    (root / "x.txt").write_bytes(b"a\n")
    ws.write_file("x.txt", "b\r\nc\r\n")
    assert (root / "x.txt").read_bytes() == b"b\r\nc\r\n"


def test_write_file_checks_the_expected_version(ws: Workspace, root: Path) -> None:
    (root / "x.txt").write_text("one\n")
    good = ws.read_file("x.txt").version
    (root / "x.txt").write_text("two\n")
    with pytest.raises(EditError) as err:
        ws.write_file("x.txt", "three\n", expected_version=good)
    assert err.value.code == "STALE_VERSION"
    assert (root / "x.txt").read_text() == "two\n"
    with pytest.raises(EditError) as err:
        ws.write_file("gone.txt", "x", expected_version=good)
    assert err.value.code == "STALE_VERSION"
    assert not (root / "gone.txt").exists()


def test_write_file_refuses_characters_the_file_cannot_store(ws: Workspace, root: Path) -> None:
    path = root / "legacy.txt"
    path.write_bytes("caf\u00e9\n".encode("cp1252"))
    snap = Snapshot.of(path)
    with pytest.raises(EditError) as err:
        ws.write_file("legacy.txt", "snow ☃\n")
    assert err.value.code == "ENCODING_ERROR"
    assert Snapshot.of(path) == snap


def test_write_file_stays_inside_the_root(ws: Workspace, root: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.write_file("../escape.txt", "x")
    assert err.value.code == "OUTSIDE_ROOT"
    assert not (root.parent / "escape.txt").exists()


def test_wrong_count_names_the_lines_of_many_places_within_bounds(
    ws: Workspace, root: Path
) -> None:
    (root / "blank.txt").write_text("x\n" * 3000)
    with pytest.raises(EditError) as err:
        ws.edit_file("blank.txt", [{"old_text": "x\n", "new_text": "y\n"}])
    d = err.value.data
    assert d["more_matches"] == 2990
    assert d["more_lines"] == list(range(11, 1011))
    # Issue 22: five places with their lines, the next twenty by line, the rest counted.
    assert "and 2995 more place(s), at lines 6, 7," in err.value.text()
    assert "25 and 2975 other(s)" in err.value.text()


# -- FILE_NOT_FOUND names the nearest existing paths ---------------------------------------

MISSING_CALLS: dict[str, Callable[[Workspace, str], Any]] = {
    "read_file": lambda ws, p: ws.read_file(p),
    "edit_file": lambda ws, p: ws.edit_file(p, [{"old_text": "x", "new_text": "y"}]),
    "edit_lines": lambda ws, p: ws.edit_lines(
        p, [{"line_number": 1, "type": "Insert", "text": "y"}]
    ),
    "safe_edit": lambda ws, p: ws.safe_edit(p, search_replace={"search": "x", "replace": "y"}),
    "list_symbols": lambda ws, p: ws.list_symbols(p),
    "edit_symbol": lambda ws, p: ws.edit_symbol(p, "add", new_body="def add():\n    pass\n"),
    "apply_patch update": lambda ws, p: ws.apply_patch(
        f"*** Begin Patch\n*** Update File: {p}\n@@\n-x\n+y\n*** End Patch"
    ),
    "apply_patch delete": lambda ws, p: ws.apply_patch(
        f"*** Begin Patch\n*** Delete File: {p}\n*** End Patch"
    ),
    "apply_diff": lambda ws, p: ws.apply_diff(f"--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-x\n+y\n"),
    "batch": lambda ws, p: ws.batch(
        [
            {
                "tool": "edit_file",
                "arguments": {"path": p, "edits": [{"old_text": "x", "new_text": "y"}]},
            }
        ]
    ),
}


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "utils.py").write_text(APP)
    (root / "src" / "pkg" / "mod.py").write_text(APP)
    return root


@pytest.mark.parametrize("call", MISSING_CALLS.values(), ids=MISSING_CALLS.keys())
@pytest.mark.parametrize(
    ("asked", "near"),
    [
        ("src/util.py", "src/utils.py"),
        ("scr/pkg/mod.py", "src/pkg/mod.py"),
        ("utils.py", "src/utils.py"),
    ],
    ids=["misspelt name", "misspelt folder", "one folder too high"],
)
def test_file_not_found_names_the_nearest_existing_path(
    tree: Path, call: Callable[[Workspace, str], Any], asked: str, near: str
) -> None:
    snap = Snapshot.of(tree / near)
    with pytest.raises(EditError) as err:
        call(Workspace([tree]), asked)
    assert err.value.code == "FILE_NOT_FOUND"
    assert err.value.data["similar_paths"] == [near]
    assert near in err.value.suggestions[0]
    assert Snapshot.of(tree / near) == snap
    assert not (tree / asked).exists()


def test_file_not_found_without_anything_near_suggests_nothing(tree: Path) -> None:
    with pytest.raises(EditError) as err:
        Workspace([tree]).read_file("docs/guide.md")
    assert err.value.code == "FILE_NOT_FOUND"
    assert "similar_paths" not in err.value.data


def test_file_not_found_never_suggests_or_follows_a_symbolic_link(
    tree: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("x\n")
    (tree / "lib").symlink_to(outside)  # a folder link out of the root
    (tree / "src" / "secrets.py").symlink_to(outside / "secret.py")
    ws = Workspace([tree])
    for asked in ("lbi/secret.py", "src/secret.py", "secret.py"):
        with pytest.raises(EditError) as err:
            ws.read_file(asked)
        assert err.value.code == "FILE_NOT_FOUND"
        assert "similar_paths" not in err.value.data, asked


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize(
    "char", ["\N{RIGHTWARDS ARROW}", "\N{GRINNING FACE}"], ids=["arrow", "emoji"]
)
def test_a_large_file_beyond_latin1_is_written_like_a_naive_replace(
    root: Path, char: str, newline: str
) -> None:
    lines = [f"value_{n} = compute({n}) * 2  # entry" for n in range(100_000)]
    lines[0] = f"# {char} first line"
    data = (newline.join(lines) + newline).encode("utf-8")
    path = root / "big.py"
    path.write_bytes(data)
    old, new = lines[50_000], f"{lines[50_000]}  # {char} edited"
    result = Workspace([root]).edit_file("big.py", [{"old_text": old, "new_text": new}])
    expected = data.replace(old.encode(), new.encode(), 1)
    assert path.read_bytes() == expected
    assert result.version == content_version([expected])
