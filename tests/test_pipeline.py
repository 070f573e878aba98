"""One pipeline for every writer: each refuses the same inputs with the same code and leaves
every file as it was (bytes, mtime, no temp file); and whether a call writes is decided once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from editguard import EditError, FileLocks, Workspace
from editguard.core.document import content_version
from editguard.tools import TOOLS

from .conftest import Snapshot, no_temp_files, set_old_mtime

SOURCE = "def f():\n    return 1\n"

# Each writer changes the line "    return 1" of ``path`` into ``new``.
Writer = Callable[..., Any]
WRITERS: dict[str, Writer] = {
    "edit_file": lambda ws, path, new, **kw: ws.edit_file(
        path, [{"old_text": "    return 1", "new_text": new}], **kw
    ),
    "edit_lines": lambda ws, path, new, **kw: ws.edit_lines(
        path, [{"line_number": 2, "type": "Replace", "text": new}], **kw
    ),
    "safe_edit line_edits": lambda ws, path, new, **kw: ws.safe_edit(
        path, line_edits=[{"start_line": 2, "end_line": 2, "new_content": new}], **kw
    ),
    "safe_edit search_replace": lambda ws, path, new, **kw: ws.safe_edit(
        path, search_replace={"search": "    return 1", "replace": new}, **kw
    ),
    "safe_edit content": lambda ws, path, new, **kw: ws.safe_edit(
        path, content=f"def f():\n{new}\n", **kw
    ),
    "write_file": lambda ws, path, new, **kw: ws.write_file(path, f"def f():\n{new}\n", **kw),
    "edit_symbol": lambda ws, path, new, **kw: ws.edit_symbol(
        path,
        "f",
        chunks=[
            {
                "context_before": "def f():",
                "old_lines": ["    return 1"],
                "new_lines": [new],
                "context_after": "",
            }
        ],
        **kw,
    ),
}

# name: (path, new line, keywords, Workspace options, code)
REFUSALS: dict[str, tuple[str, str, dict[str, Any], dict[str, Any], str]] = {
    "outside the root": ("../outside.py", "    return 2", {}, {}, "OUTSIDE_ROOT"),
    "a folder": ("sub", "    return 2", {}, {}, "NOT_A_FILE"),
    "a symlink loop": ("loop.py", "    return 2", {}, {}, "NOT_A_FILE"),
    "a binary file": ("blob.py", "    return 2", {}, {}, "BINARY_FILE"),
    "a file over the size limit": (
        "app.py",
        "    return 2",
        {},
        {"max_file_bytes": 10},
        "FILE_TOO_LARGE",
    ),
    "a stale version": (
        "app.py",
        "    return 2",
        {"expected_version": "0" * 16},
        {},
        "STALE_VERSION",
    ),
    "a character the encoding cannot store": (
        "legacy.py",
        "    return '\u2603'",
        {},
        {},
        "ENCODING_ERROR",
    ),
    "a NUL character": ("app.py", "    return '\x00'", {}, {}, "INVALID_REQUEST"),
    "a syntax error in strict mode": ("app.py", "    return (", {}, {}, "VALIDATION_FAILED"),
}


@pytest.fixture
def tree(root: Path) -> list[Path]:
    """Files every refusal must leave alone (the root's parent included), mtimes in the past."""
    (root / "app.py").write_text(SOURCE)
    (root / "legacy.py").write_bytes((SOURCE + "# caf\u00e9\n").encode("cp1252"))
    (root / "sub").mkdir()
    (root / "loop.py").symlink_to(root / "loop.py")
    (root / "blob.py").write_bytes(b"\x7fELF\x00\x01def f():\n")
    (root.parent / "outside.py").write_text(SOURCE)
    files = [p for p in root.parent.rglob("*") if p.is_file()]
    for path in files:
        set_old_mtime(path)
    return files


@pytest.mark.parametrize("writer", WRITERS.values(), ids=WRITERS.keys())
@pytest.mark.parametrize(
    ("path", "new", "keywords", "options", "code"), REFUSALS.values(), ids=REFUSALS.keys()
)
def test_every_writer_refuses_alike_and_leaves_every_file_untouched(
    root: Path,
    tree: list[Path],
    writer: Writer,
    path: str,
    new: str,
    keywords: dict[str, Any],
    options: dict[str, Any],
    code: str,
) -> None:
    before = {p: Snapshot.of(p) for p in tree}
    with pytest.raises(EditError) as err:
        writer(Workspace([root], **options), path, new, **keywords)
    assert err.value.code == code, err.value
    assert {p: Snapshot.of(p) for p in tree} == before
    assert no_temp_files(root.parent)


@pytest.mark.parametrize("writer", WRITERS.values(), ids=WRITERS.keys())
def test_every_writer_writes_the_same_bytes(root: Path, writer: Writer) -> None:
    (root / "app.py").write_bytes(SOURCE.replace("\n", "\r\n").encode())
    result = writer(Workspace([root]), "app.py", "    return 2")
    assert (root / "app.py").read_bytes() == b"def f():\r\n    return 2\r\n"
    assert result.written
    assert result.version == content_version([b"def f():\r\n    return 2\r\n"])


@pytest.mark.parametrize("writer", WRITERS.values(), ids=WRITERS.keys())
def test_an_edit_to_the_same_bytes_writes_nothing(root: Path, writer: Writer) -> None:
    app = root / "app.py"
    app.write_text(SOURCE)
    set_old_mtime(app)
    before = Snapshot.of(app)
    result = writer(Workspace([root]), "app.py", "    return 1")
    assert not result.written
    assert result.version == result.previous_version == content_version([SOURCE.encode()])
    assert Snapshot.of(app) == before


@pytest.mark.parametrize("writer", WRITERS.values(), ids=WRITERS.keys())
def test_verify_only_reports_the_version_the_file_would_have(root: Path, writer: Writer) -> None:
    app = root / "app.py"
    app.write_text(SOURCE)
    set_old_mtime(app)
    before = Snapshot.of(app)
    result = writer(Workspace([root]), "app.py", "    return 2", mode="verify_only")
    assert not result.written
    assert result.version == content_version([b"def f():\n    return 2\n"])
    assert Snapshot.of(app) == before


def test_edits_that_give_back_the_same_text_leave_a_mixed_file_alone(root: Path) -> None:
    mixed = root / "f.txt"
    mixed.write_bytes(b"a\r\nb\n")
    set_old_mtime(mixed)
    before = Snapshot.of(mixed)
    edits = [{"old_text": "a\nb", "new_text": "Z"}, {"old_text": "Z", "new_text": "a\nb"}]
    result = Workspace([root]).edit_file("f.txt", edits)
    assert (result.would_modify, result.written, result.diff) == (False, False, "")
    assert Snapshot.of(mixed) == before


def test_the_python_api_takes_core_edits_but_the_wire_takes_only_its_names(root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    edit_lines = next(t for t in TOOLS if t.name == "edit_lines")
    with pytest.raises(EditError) as err:
        edit_lines.call(
            Workspace([root]).context,
            {"path": "a.txt", "edits": [{"line_number": 1, "kind": "Delete"}]},
        )
    assert err.value.code == "INVALID_REQUEST"
    assert (root / "a.txt").read_text() == "one\n"


@pytest.mark.parametrize(
    ("field", "value"), [("start_line", "[1]"), ("start_line", "{}"), ("end_line", "[2]")]
)
def test_a_number_sent_as_json_text_is_refused_as_it_is(root: Path, field: str, value: str) -> None:
    (root / "a.txt").write_text("one\n")
    read_file = next(t for t in TOOLS if t.name == "read_file")
    with pytest.raises(EditError) as err:
        read_file.call(Workspace([root]).context, {"path": "a.txt", field: value})
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", field)
    with pytest.raises(ValidationError) as invalid:
        read_file.arguments.model_validate({"path": "a.txt", field: value})
    assert invalid.value.errors()[0]["input"] == value  # refused as the text it is, not parsed


@pytest.mark.parametrize(
    ("keywords"), [{"dry_run": True}, {"mode": "verify_only"}], ids=["dry run", "verify_only"]
)
def test_a_call_that_cannot_write_takes_no_lock(
    root: Path, tmp_path: Path, keywords: dict[str, Any]
) -> None:
    (root / "app.py").write_text(SOURCE)
    locks = FileLocks(folder=str(tmp_path / "locks"), timeout=0.2)
    ws = Workspace([root], locks=locks)
    with locks.hold(str(root / "app.py"), "app.py"):  # another writer holds the file
        result = ws.edit_file(
            "app.py", [{"old_text": "return 1", "new_text": "return 2"}], **keywords
        )
        assert (result.written, result.would_modify) == (False, True)
        with pytest.raises(EditError) as err:
            ws.edit_file("app.py", [{"old_text": "return 1", "new_text": "return 2"}])
        assert err.value.code == "FILE_BUSY"  # a call that may write waits for it
