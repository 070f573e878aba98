"""Where an error happened: frames that each level adds on the way up, rendered once."""

from __future__ import annotations

from pathlib import Path

import pytest

from editguard import Workspace
from editguard.core.images import image_type
from editguard.errors import EditError, EncodingError, FileTooLarge, Frame, NoMatch, error_context
from editguard.mcp_server import unsaid
from editguard.tools import read_file

CHUNK_MISS = (
    "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n@@\n-zzz\n+y\n*** End Patch\n"
)


def raised(error: EditError, *contexts: Frame) -> EditError:
    """``error`` as it comes out of ``contexts`` (outermost first)."""

    def nest(level: int) -> None:
        if level == len(contexts):
            raise error
        with error_context(contexts[level]):
            nest(level + 1)

    with pytest.raises(EditError) as info:
        nest(0)
    return info.value


def test_an_error_without_frames_renders_as_before() -> None:
    error = NoMatch("old_text not found", data={"search_text": "x"}, suggestions=["Read it."])
    assert error.where == ()
    assert error.text() == "old_text not found\n\nSuggestions:\n1. Read it."
    assert str(error) == "NO_MATCH: " + error.text()
    assert error.to_dict() == {
        "code": "NO_MATCH",
        "message": error.text(),
        "search_text": "x",
        "suggestions": ["Read it."],
    }
    assert (error.path, error.edit_index, error.total_edits) == (None, None, None)


def test_the_keywords_of_a_raise_site_are_frames() -> None:
    error = NoMatch("gone", path="a.py", edit_index=1, total_edits=2)
    assert error.where == (Frame("file", name="a.py"), Frame("edit", 1, 2))
    assert error.text() == "edit 2 of 2: gone"
    assert list(error.to_dict()) == ["code", "message", "path", "edit_index", "total_edits"]


def test_nested_frames_render_once_outermost_first() -> None:
    error = raised(
        NoMatch("its old lines are not in the file"),
        Frame("call", 1, 3, "apply_diff"),
        Frame("file", name="src/a.py", data={"diff_line": 7}),
        Frame("hunk", 0, 2),
    )
    assert [f.kind for f in error.where] == ["call", "file", "hunk"]
    assert error.text() == (
        "call 2 of 3 (apply_diff): hunk 1 of 2: its old lines are not in the file"
    )
    assert error.message == "its old lines are not in the file"  # never rewritten
    assert error.to_dict() == {
        "code": "NO_MATCH",
        "message": error.text(),
        "path": "src/a.py",
        "edit_index": 0,
        "total": 2,
        "diff_line": 7,
        "call": 1,
        "tool": "apply_diff",
    }


def test_a_frame_added_from_outside_still_lands_at_its_depth() -> None:
    # The file is named by the raise site, inside the edit loop: the edit stays innermost.
    error = raised(NoMatch("x", path="a.py"), Frame("call", 0, 2, "edit_file"), Frame("edit", 0, 1))
    assert [f.kind for f in error.where] == ["call", "file", "edit"]
    assert error.text() == "call 1 of 2 (edit_file): edit 1 of 1: x"


def test_two_contexts_of_one_kind_name_the_place_once_and_the_innermost_wins() -> None:
    error = raised(
        NoMatch("x", edit_index=1),
        Frame("call", 0, 2, "batch"),
        Frame("call", 1, 3, "edit_file"),
        Frame("file", name="outer.py"),
        Frame("file", name="inner.py"),
        Frame("edit", 0, 4),
    )
    assert error.text() == "call 2 of 3 (edit_file): edit 2 of 4: x"  # the total filled in
    assert error.text().count("call") == 1
    assert (error.path, error.data["call"], error.data["tool"]) == ("inner.py", 1, "edit_file")
    # An edit, a chunk and a hunk are one depth: a chunk's own frame is not wrapped in an edit.
    chunk = raised(NoMatch("x", where=[Frame("chunk", 1, 3)]), Frame("edit", 0, 9))
    assert chunk.where == (Frame("chunk", 1, 3),)
    assert chunk.text() == "chunk 2 of 3: x"


def test_a_place_the_message_names_itself_is_not_rendered_again() -> None:
    said = Frame("chunk", 1, 2, said=True)
    error = raised(
        NoMatch("chunk 2 of 2 of the update of a.txt (patch line 6): not there", where=[said]),
        Frame("call", 0, 1, "apply_patch"),
    )
    assert error.text() == "call 1 of 1 (apply_patch): chunk 2 of 2 of the update of a.txt " + (
        "(patch line 6): not there"
    )
    assert (error.edit_index, error.total_edits) == (1, 2)
    wire = error.to_dict()
    assert (wire["edit_index"], wire["total"]) == (1, 2)
    assert "total_edits" not in wire


def test_a_frames_data_never_replaces_the_errors_own() -> None:
    error = raised(
        NoMatch("x", data={"patch_line": 9}), Frame("file", name="a", data={"patch_line": 2})
    )
    assert error.data["patch_line"] == 9
    # A notebook's cells go by their 0-based index, as `cell` and read_file name them.
    assert Frame("cell", 2, 5).label() == "cell 2"
    assert Frame("cell", 2, 5, name="a1b2").label() == 'cell 2 (id "a1b2")'
    assert Frame("file", name="a.py").label() is None
    assert Frame("edit", 2).label() is None  # no total, nothing to say "of"


def test_a_batch_names_the_call_before_an_apply_patch_chunk(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    ws = Workspace([tmp_path], prewarm=False, history=False, journal=tmp_path.parent / "j")
    with pytest.raises(NoMatch) as info:
        ws.batch(
            [
                {"tool": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}},
                {"tool": "apply_patch", "arguments": {"patch": CHUNK_MISS}},
            ]
        )
    error = info.value
    assert error.text().startswith(
        "call 2 of 2 (apply_patch): chunk 2 of 2 of the update of a.txt (patch line 6): "
    )
    assert [f.kind for f in error.where] == ["call", "file", "chunk"]
    wire = error.to_dict()
    assert {k: wire[k] for k in ("path", "edit_index", "chunk", "total", "call", "tool")} == {
        "path": "a.txt",
        "edit_index": 1,
        "chunk": 2,
        "total": 2,
        "call": 1,
        "tool": "apply_patch",
    }
    assert wire["patch_line"] == 6
    assert "total_edits" not in wire
    with pytest.raises(NoMatch) as alone:
        ws.apply_patch(CHUNK_MISS)
    # The same error outside the batch: the same text after the call, the same fields besides.
    assert error.text() == "call 2 of 2 (apply_patch): " + alone.value.text()
    assert {**alone.value.to_dict(), "message": "", "call": 1, "tool": "apply_patch"} == {
        **wire,
        "message": "",
    }


def test_a_batch_keeps_an_edits_fields_where_a_lone_call_has_them(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    ws = Workspace([tmp_path], prewarm=False, history=False, journal=tmp_path.parent / "j")
    edits = [{"old_text": "one", "new_text": "1"}, {"old_text": "zzz", "new_text": "y"}]
    with pytest.raises(NoMatch) as info:
        ws.batch([{"tool": "edit_file", "arguments": {"path": "a.txt", "edits": edits}}])
    error = info.value
    assert error.text().startswith("call 1 of 1 (edit_file): edit 2 of 2: old_text not found")
    wire = error.to_dict()
    assert (wire["edit_index"], wire["total_edits"], wire["call"]) == (1, 2, 0)
    # The MCP text says "edit 2 of 2", so its data leaves edit_index and total_edits out, as
    # for the same call outside a batch.
    assert not {"edit_index", "total_edits"} & set(unsaid(error, str(error)))


def test_a_chunk_that_cannot_be_written_is_named_a_chunk(tmp_path: Path) -> None:
    (tmp_path / "l1.txt").write_bytes("caf\xe9\n".encode("cp1252"))
    ws = Workspace([tmp_path], prewarm=False, history=False, journal=tmp_path.parent / "j")
    patch = "*** Begin Patch\n*** Update File: l1.txt\n@@\n-caf\xe9\n+\u4e2d\n*** End Patch\n"
    with pytest.raises(EncodingError) as info:
        ws.apply_patch(patch)
    assert info.value.text().startswith("chunk 1 of 1: the new text contains")
    wire = info.value.to_dict()
    assert (wire["path"], wire["edit_index"], wire["total"], wire["patch_line"]) == (
        "l1.txt",
        0,
        1,
        2,
    )


def test_an_image_that_grew_after_its_check_is_refused_naming_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The size seen when the file was opened passes (the sniff lets it through); the bytes read
    # are over the cap, as when the image grew in between.
    monkeypatch.setattr(read_file, "_sniff", lambda limit: lambda head, size: image_type(head))
    (tmp_path / "big.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * read_file.IMAGE_BYTES)
    ws = Workspace([tmp_path], prewarm=False, history=False, journal=tmp_path.parent / "j")
    with pytest.raises(FileTooLarge) as info:
        ws.read_file("big.png")
    assert info.value.path == "big.png"
    assert info.value.where == (Frame("file", name="big.png"),)
    assert info.value.text().startswith("the image (image/png) is ")
