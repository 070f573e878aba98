"""The history of changes and undo, through the Python API: what is recorded, how it is
stored, and what undo restores or refuses."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from editguard import EditError, History, Workspace
from editguard.core.delta import (
    CorruptDelta,
    Splice,
    between,
    pack_layers,
    pack_whole,
    take_back,
    unpack,
)
from editguard.core.document import decode
from editguard.core.plan import Plan, Replacement, render, render_tracked
from editguard.history import FileRecord, database
from tests.conftest import Snapshot


def _edit(ws: Workspace, path: str, old: str, new: str) -> None:
    ws.edit_file(path, [{"old_text": old, "new_text": new}])


# -- deltas ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_tracked_rendering_takes_every_change_back_exactly(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        eol = rng.choice(["\n", "\r\n", "\r"])
        lines = [rng.choice(["a", "bb", "é", "", " x", "€"]) for _ in range(rng.randint(0, 9))]
        text = eol.join(lines)
        if rng.random() < 0.3:
            text = text.replace(eol, "\r\n", 1)  # mixed endings
        encoding, bom = rng.choice(
            [
                ("utf-8", b""),
                ("utf-8", b"\xef\xbb\xbf"),
                ("utf-16-le", b"\xff\xfe"),
                ("cp1252", b""),
            ]
        )
        doc = decode(bom + text.encode(encoding))
        size, reps, pos = len(doc.text), [], 0
        for _ in range(rng.randint(0, 4)):
            if pos > size:
                break
            start = rng.randint(pos, size)
            end = rng.randint(start, size)
            reps.append(Replacement(start, end, rng.choice(["", "z", "\n", "q\nw", "é"])))
            pos = end + 1
        plan = Plan(tuple(reps))
        splices: list[Splice] = []
        new = b"".join(render_tracked(doc, plan, splices))
        assert new == b"".join(render(doc, plan))
        old = b"".join(render(doc, Plan()))
        assert take_back(new, splices) == old
        assert sum(len(s.old) for s in splices) <= len(old)


def test_a_one_line_change_keeps_about_one_line() -> None:
    doc = decode(b"".join(b"line %d\n" % i for i in range(200_000)))
    start = doc.text.index("line 100000")
    splices: list[Splice] = []
    b"".join(render_tracked(doc, Plan((Replacement(start, start + 4, "LINE"),)), splices))
    assert splices == [Splice(start, 4, b"line")]


def test_between_finds_the_one_changed_span() -> None:
    rng = random.Random(7)
    old = bytes(rng.getrandbits(8) for _ in range(50_000))
    for new in (old[:100] + b"xyz" + old[900:], old + b"tail", b"head" + old, old[:0], old):
        layer = between(old, new)
        assert take_back(new, layer) == old
    assert between(old, old) == ()
    (splice,) = between(old, old[:100] + b"xyz" + old[900:])
    assert (splice.start, splice.length, len(splice.old)) == (100, 3, 800)


def test_stored_changes_round_trip_and_damage_is_refused() -> None:
    layers = [(Splice(0, 1, b"a"), Splice(5, 0, b"bc")), ()]
    assert unpack(pack_layers(layers), 1000) == layers
    assert unpack(pack_whole(b"x" * 100), 1000) == b"x" * 100
    with pytest.raises(CorruptDelta):
        unpack(pack_whole(b"x" * 2000), 1000)  # grows past its limit: refused, not inflated
    with pytest.raises(CorruptDelta):
        unpack(b"Q" + zlib.compress(b"x"), 1000)
    with pytest.raises(CorruptDelta):
        unpack(b"L" + zlib.compress(b"\x01" + b"\x00" * 7), 1000)  # one layer, cut short
    with pytest.raises(CorruptDelta):
        take_back(b"abc", [Splice(2, 5, b"")])


# -- what is recorded --------------------------------------------------------------------


def test_every_writing_tool_records_one_entry(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    ws.edit_file("a.py", [{"old_text": "return 1", "new_text": "return 2"}])
    ws.edit_lines("a.py", [{"line_number": 3, "type": "Insert", "text": "X = 1"}])
    ws.safe_edit("a.py", search_replace={"search": "X = 1", "replace": "X = 2"})
    ws.write_file("b.txt", "b\n")
    ws.edit_symbol("a.py", "f", new_body="def f():\n    return 3\n")
    ws.apply_patch("*** Begin Patch\n*** Add File: c.txt\n+c\n*** End Patch")
    ws.apply_diff("--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-c\n+C\n")
    ws.batch([{"tool": "write_file", "arguments": {"path": "d.txt", "content": "d\n"}}])
    changes = ws.history(limit=20).changes
    assert [c.tool for c in changes] == [
        "batch",
        "apply_diff",
        "apply_patch",
        "edit_symbol",
        "write_file",
        "safe_edit",
        "edit_lines",
        "edit_file",
    ]
    assert [c.id for c in changes] == sorted((c.id for c in changes), reverse=True)
    first = changes[-1].files[0]
    assert (first.path, first.action, first.added, first.removed) == ("a.py", "updated", 1, 1)
    assert changes[4].files[0].action == "created"
    full = ws.history(change_id=changes[-1].id).changes[0]
    assert full.files[0].diff is not None
    assert "-    return 1\n+    return 2\n" in full.files[0].diff
    assert ws.history("b.txt").changes[0].tool == "write_file"
    assert len(ws.history("a.py", limit=20).changes) == 4


def test_nothing_is_recorded_for_what_writes_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    ws.edit_file("a.py", [{"old_text": "x = 1", "new_text": "x = 2"}], dry_run=True)
    ws.edit_file("a.py", [{"old_text": "x = 1", "new_text": "x = 2"}], mode="verify_only")
    ws.edit_file("a.py", [{"old_text": "x = 1", "new_text": "x = 1"}])
    ws.apply_patch("*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch", dry_run=True)
    with pytest.raises(EditError):
        ws.edit_file("a.py", [{"old_text": "nope", "new_text": "x"}])
    assert ws.history().changes == []


def test_history_off_records_nothing_and_undo_says_so(root: Path, tmp_path: Path) -> None:
    folder = tmp_path / "hist"
    ws = Workspace([root], history=False)
    (root / "a.txt").write_text("a\n")
    _edit(ws, "a.txt", "a", "b")
    with pytest.raises(EditError) as info:
        ws.undo()
    assert info.value.code == "CHANGE_NOT_FOUND"
    with pytest.raises(EditError):
        ws.history()
    assert not folder.exists()


def test_a_large_file_keeps_only_the_changed_spans(ws: Workspace, root: Path) -> None:
    big = root / "big.txt"
    big.write_bytes(b"".join(b"row %06d of the table\r\n" % i for i in range(40_000)))
    original = big.read_bytes()
    ws.edit_file("big.txt", [{"old_text": "row 020000 of", "new_text": "ROW 020000 of"}])
    ws.batch(
        [
            {
                "tool": "edit_file",
                "arguments": {
                    "path": "big.txt",
                    "edits": [{"old_text": "row 000001 of", "new_text": "first"}],
                },
            },
            {
                "tool": "edit_file",
                "arguments": {
                    "path": "big.txt",
                    "edits": [{"old_text": "row 039998 of", "new_text": "last"}],
                },
            },
        ]
    )
    history = ws.context.history
    assert history is not None
    entries, stored = history.stats()
    assert entries == 2
    assert stored < 5_000, stored  # the file is about 1 MB
    ws.undo()
    ws.undo()
    assert big.read_bytes() == original


def test_a_history_that_cannot_record_refuses_the_edit_before_writing(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One file or many, a change is recorded before it is made (the transaction's way): a
    # history that cannot record it leaves the file as it was.
    from editguard.errors import WriteFailed

    def full_disk(*args: object, **kwargs: object) -> int:
        raise WriteFailed("database or disk is full")

    (root / "a.txt").write_text("a\n")
    before = Snapshot.of(root / "a.txt")
    monkeypatch.setattr(History, "recording", full_disk)  # a full disk cannot be made here
    with pytest.raises(EditError) as info:
        ws.edit_file("a.txt", [{"old_text": "a", "new_text": "b"}])
    assert info.value.code == "WRITE_FAILED"
    assert Snapshot.of(root / "a.txt") == before
    assert [p.name for p in root.iterdir()] == ["a.txt"]  # no temporary file left


def test_an_unusable_history_refuses_before_writing(root: Path, tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    ws = Workspace([root], history=folder)
    (root / "a.txt").write_text("a\n")
    before = Snapshot.of(root / "a.txt")
    with pytest.raises(EditError) as info:
        _edit(ws, "a.txt", "a", "b")
    assert info.value.code == "PERMISSION_DENIED"
    assert info.value.data["history"].startswith(str(folder))
    assert Snapshot.of(root / "a.txt") == before
    with pytest.raises(EditError):
        ws.apply_patch("*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch")
    assert not (root / "b.txt").exists()


def test_the_database_is_owner_only_and_passes_its_check(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    _edit(ws, "a.txt", "a", "b")
    history = ws.context.history
    assert history is not None
    assert os.stat(history.folder).st_mode & 0o777 == 0o700
    assert os.stat(history.path).st_mode & 0o777 == 0o600
    with sqlite3.connect(history.path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_retention_drops_the_oldest(root: Path, tmp_path: Path) -> None:
    ws = Workspace([root], history=tmp_path / "h", history_entries=3)
    (root / "a.txt").write_text("0\n")
    for i in range(6):
        _edit(ws, "a.txt", str(i), str(i + 1))
    changes = ws.history().changes
    assert len(changes) == 3
    oldest = changes[-1].id
    with pytest.raises(EditError) as info:
        ws.undo(oldest - 1)
    assert info.value.code == "CHANGE_NOT_FOUND"
    small = Workspace([root], history=tmp_path / "h2", history_bytes=1)
    for i in range(6, 9):
        _edit(small, "a.txt", str(i), str(i + 1))
    assert len(small.history().changes) == 1  # over the bytes: only the newest stays


def test_what_retention_frees_goes_back_to_the_disk_also_in_an_older_database(
    tmp_path: Path,
) -> None:
    history = History([str(tmp_path)], str(tmp_path / "h"), max_bytes=200_000)
    history.ready()
    history.close()
    # A database made before the history gave pages back: no auto-vacuum.
    raw = sqlite3.connect(history.path, isolation_level=None)
    raw.execute("PRAGMA auto_vacuum=NONE")
    raw.execute("VACUUM")
    assert raw.execute("PRAGMA auto_vacuum").fetchone() == (0,)
    raw.close()
    rng = random.Random(7)

    def entry(size: int) -> FileRecord:
        blob = rng.randbytes(size)
        real = str(tmp_path / "a.bin")
        return FileRecord("a.bin", real, "updated", "v0", "v1", None, None, 1, 1, "", blob)

    for _ in range(20):
        history.record("write_file", [entry(60_000)])
    history.record("write_file", [entry(10)])  # retention drops every big one
    history.close()
    assert os.path.getsize(history.path) < 200_000 + database.FREE_RESERVE * 4096 + 64 * 1024
    assert not os.path.exists(history.path + "-wal")  # closed: no log left behind
    raw = sqlite3.connect(history.path)
    try:
        assert raw.execute("PRAGMA auto_vacuum").fetchone() == (2,)  # converted: incremental
        assert raw.execute("PRAGMA freelist_count").fetchone()[0] <= database.FREE_RESERVE
    finally:
        raw.close()


def test_the_store_keeps_names_that_are_not_utf8(tmp_path: Path) -> None:
    history = History([str(tmp_path)], str(tmp_path / "h"))
    name = os.fsdecode(b"caf\xe9.txt")
    record = FileRecord(name, str(tmp_path / name), "created", None, "v1", None, None, 1, 0, "+x")
    change = history.record("write_file", [record])
    entry = history.entry(change)
    assert entry is not None
    assert entry.files[0].path == name
    assert history.entries(str(tmp_path / name))[0].id == change


# -- undo --------------------------------------------------------------------------------


def test_undo_restores_bytes_and_mode_and_redo_puts_the_change_back(
    ws: Workspace, root: Path
) -> None:
    path = root / "a.txt"
    path.write_bytes("\ufeffna\u00efve\r\nline two\r\nno end".encode("utf-8"))
    path.chmod(0o751)
    original = Snapshot.of(path)
    _edit(ws, "a.txt", "line two", "line 2")
    changed = path.read_bytes()
    undone = ws.undo()
    assert undone.written
    assert path.read_bytes() == original.data
    assert path.stat().st_mode == original.mode
    assert undone.change_id is not None
    ws.undo(undone.change_id)
    assert path.read_bytes() == changed


def test_plain_undo_walks_back_and_skips_what_is_taken_back(ws: Workspace, root: Path) -> None:
    path = root / "a.txt"
    path.write_text("0\n")
    for i in range(3):
        _edit(ws, "a.txt", str(i), str(i + 1))
    first = ws.undo()
    assert path.read_text() == "2\n"
    ws.undo()
    assert path.read_text() == "1\n"
    ws.undo()  # the first change is the last one still in effect
    with pytest.raises(EditError) as info:
        ws.undo()
    assert info.value.code == "CHANGE_NOT_FOUND"
    assert path.read_text() == "0\n"
    # Redoing the newest undo: the file is not as that undo left it ("2"), so only by force.
    with pytest.raises(EditError) as info:
        ws.undo(first.change_id)
    assert info.value.data["changed_by"] != []
    ws.undo(first.change_id, force=True)
    assert path.read_text() == "3\n"


def test_steps_restore_the_state_before_the_last_changes_of_a_file(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("0\n")
    (root / "b.txt").write_text("b\n")
    for i in range(4):
        _edit(ws, "a.txt", str(i), str(i + 1))
        _edit(ws, "b.txt", "b" * (i + 1), "b" * (i + 2))
    result = ws.undo(path="a.txt", steps=3)
    assert (root / "a.txt").read_text() == "1\n"
    assert (root / "b.txt").read_text() == "bbbbb\n"  # only the named file
    assert len(result.undone) == 3
    with pytest.raises(EditError) as info:
        ws.undo(path="a.txt", steps=5)
    assert (info.value.code, info.value.data["found"]) == ("CHANGE_NOT_FOUND", 1)


def test_a_file_changed_since_is_refused_unless_forced(ws: Workspace, root: Path) -> None:
    path = root / "a.txt"
    path.write_text("one\ntwo\n")
    _edit(ws, "a.txt", "one", "ONE")
    change = ws.history().changes[0].id
    path.write_text("ONE\ntwo\nthree (by hand)\n")
    before = Snapshot.of(path)
    with pytest.raises(EditError) as info:
        ws.undo(change)
    err = info.value
    assert err.code == "STALE_VERSION"
    assert err.data["outside_editguard"] is True
    assert "+one" in err.data["force_diff"]
    assert "-three (by hand)" in err.data["force_diff"]
    assert Snapshot.of(path) == before
    forced = ws.undo(change, force=True)
    assert path.read_text() == "one\ntwo\n"
    ws.undo(forced.change_id)
    assert path.read_text() == "ONE\ntwo\nthree (by hand)\n"


def test_a_later_change_by_editguard_is_named(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    _edit(ws, "a.txt", "a", "b")
    _edit(ws, "a.txt", "b", "c")
    first, second = (c.id for c in reversed(ws.history().changes))
    with pytest.raises(EditError) as info:
        ws.undo(first)
    assert info.value.data["changed_by"] == [second]
    assert info.value.data["outside_editguard"] is False
    assert f"change {second} (edit_file" in info.value.message
    ws.undo(first, force=True)
    assert (root / "a.txt").read_text() == "a\n"


def test_an_undo_and_its_redo_are_not_blamed_for_a_later_hand_edit(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("one\ntwo\n")
    _edit(ws, "a.txt", "one", "ONE")  # change 1
    ws.undo()  # change 2
    ws.undo(2)  # change 3: the redo
    assert (root / "a.txt").read_text() == "ONE\ntwo\n"
    (root / "a.txt").write_text("ONE\ntwo\nthree\n")  # by hand
    with pytest.raises(EditError) as info:
        ws.undo(1)
    assert info.value.code == "STALE_VERSION"
    assert info.value.data["changed_by"] == []  # 2 and 3 cancel out
    assert info.value.data["outside_editguard"] is True
    # A change that stays in effect is named; an undo and its redo around it are not.
    _edit(ws, "a.txt", "three", "THREE")  # change 4
    ws.undo()  # change 5 undoes 4
    ws.undo(5)  # change 6 redoes 4
    with pytest.raises(EditError) as info:
        ws.undo(1)
    assert info.value.data["changed_by"] == [4]
    assert info.value.data["clients"] == ["python"]
    ws.undo(6)  # change 7 undoes the redo: 4, 5, 6 and 7 cancel out
    with pytest.raises(EditError) as info:
        ws.undo(1)
    assert info.value.data["changed_by"] == []


def test_a_stale_edit_names_the_change_and_the_client_that_made_the_file_so(
    ws: Workspace, root: Path
) -> None:
    (root / "a.txt").write_text("one\n")
    version = ws.read_file("a.txt").version
    arguments = '{"path": "a.txt", "edits": [{"old_text": "one", "new_text": "uno"}]}'
    cli = subprocess.run(
        [sys.executable, "-m", "editguard", "call", "edit_file", "--root", str(root), arguments],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert cli.returncode == 0, cli.stdout + cli.stderr
    with pytest.raises(EditError) as info:
        ws.edit_file("a.txt", [{"old_text": "uno", "new_text": "eins"}], expected_version=version)
    assert info.value.code == "STALE_VERSION"
    [change] = ws.history().changes
    assert (change.tool, change.client) == ("edit_file", "cli")
    assert info.value.data["changed_by"] == [change.id]
    assert info.value.data["clients"] == ["cli"]
    ws.edit_file("a.txt", [{"old_text": "uno", "new_text": "eins"}])
    assert ws.history().changes[0].client == "python"
    # Changed outside editguard since: no recorded change is named.
    (root / "a.txt").write_text("by hand\n")
    with pytest.raises(EditError) as info:
        ws.edit_file("a.txt", [{"old_text": "by", "new_text": "BY"}], expected_version=version)
    assert "changed_by" not in info.value.data


def test_a_large_file_changed_outside_cannot_be_rebuilt(ws: Workspace, root: Path) -> None:
    big = root / "big.txt"
    big.write_text("".join(f"line {i}\n" for i in range(20_000)))
    original = big.read_bytes()
    _edit(ws, "big.txt", "line 5\n", "line five\n")
    _edit(ws, "big.txt", "line 7\n", "line seven\n")
    first = ws.history().changes[-1].id
    forced = ws.undo(first, force=True)  # rebuilt through the later change, recorded too
    assert big.read_bytes() == original
    ws.undo(forced.change_id)  # the forced undo, taken back
    with big.open("a") as handle:
        handle.write("by hand\n")
    snap = Snapshot.of(big)
    with pytest.raises(EditError) as info:
        ws.undo(first, force=True)
    assert info.value.code == "STALE_VERSION"
    assert info.value.data["restorable"] is False
    assert Snapshot.of(big) == snap


def test_undo_of_a_patch_brings_the_tree_back(ws: Workspace, root: Path) -> None:
    (root / "keep.py").write_text("k = 1\n")
    (root / "gone.py").write_text("g = 1\n")
    (root / "old.py").write_text("o = 1\n")
    (root / "target.py").write_text("t = 1\n")
    (root / "mover.py").write_text("m = 1\n")
    (root / "old.py").chmod(0o700)
    before = {p.name: Snapshot.of(p) for p in root.iterdir()}
    ws.apply_patch(
        "*** Begin Patch\n"
        "*** Add File: new.py\n+n = 1\n"
        "*** Delete File: gone.py\n"
        "*** Update File: keep.py\n@@\n-k = 1\n+k = 2\n"
        "*** Update File: old.py\n*** Move to: renamed.py\n@@\n-o = 1\n+o = 2\n"
        "*** Update File: mover.py\n*** Move to: target.py\n@@\n-m = 1\n+m = 2\n"
        "*** End Patch"
    )
    after = {p.name: p.read_bytes() for p in root.iterdir()}
    assert set(after) == {"keep.py", "new.py", "renamed.py", "target.py"}
    ws.undo()
    now = {p.name: p for p in root.iterdir()}
    assert set(now) == set(before)
    for name, snap in before.items():
        assert now[name].read_bytes() == snap.data, name
        assert now[name].stat().st_mode == snap.mode, name
    redo = ws.history().changes[0].id
    ws.undo(redo)  # the undo, taken back: a redo
    assert {p.name: p.read_bytes() for p in root.iterdir()} == after


def test_undo_a_move_by_either_path(ws: Workspace, root: Path) -> None:
    (root / "a.py").write_text("a = 1\n")
    (root / "b.py").write_text("b = 1\n")
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: c.py\n@@\n-a = 1\n+a = 2\n"
        "*** Update File: b.py\n@@\n-b = 1\n+b = 2\n*** End Patch"
    )
    result = ws.undo(path="c.py")
    assert [(f.path, f.action, f.moved_from) for f in result.files] == [("a.py", "moved", "c.py")]
    assert (root / "a.py").read_text() == "a = 1\n"
    assert not (root / "c.py").exists()
    assert (root / "b.py").read_text() == "b = 2\n"  # not part of the file's undo


def test_undoing_a_move_says_it_moved_back_with_no_diff_of_unchanged_content(
    ws: Workspace, root: Path
) -> None:
    lines = [f"def f{n}():\n    return {n}\n" for n in range(100)]
    (root / "a.py").write_text("".join(lines))
    original = (root / "a.py").read_bytes()
    ws.move_file("a.py", "b.py")
    undo = ws.undo()
    assert [(f.path, f.action, f.moved_from, f.diff) for f in undo.files] == [
        ("a.py", "moved", "b.py", "")
    ]
    assert undo.files[0].version == undo.files[0].previous_version
    assert (root / "a.py").read_bytes() == original
    assert not (root / "b.py").exists()
    # Moved with a change: the move back shows that change alone.
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: c.py\n@@\n"
        "-    return 7\n+    return 'seven'\n*** End Patch"
    )
    [back] = ws.undo().files
    assert (back.path, back.action, back.moved_from) == ("a.py", "moved", "c.py")
    changed = [line for line in back.diff.splitlines()[2:] if line[:1] in "+-"]
    assert changed == ["-    return 'seven'", "+    return 7"]
    assert (root / "a.py").read_bytes() == original
    # The redo moves it away again, and says so too.
    [redo] = ws.undo(ws.history().changes[0].id).files
    assert (redo.path, redo.action, redo.moved_from) == ("c.py", "moved", "a.py")


def test_a_dry_run_undo_writes_and_records_nothing(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    _edit(ws, "a.txt", "a", "b")
    snap = Snapshot.of(root / "a.txt")
    result = ws.undo(dry_run=True)
    assert not result.written
    assert result.change_id is None
    assert "-b\n+a\n" in result.files[0].diff
    assert Snapshot.of(root / "a.txt") == snap
    assert len(ws.history().changes) == 1


def test_bad_undo_requests(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with pytest.raises(EditError) as info:
        ws.undo()
    assert info.value.code == "CHANGE_NOT_FOUND"
    _edit(ws, "a.txt", "a", "b")
    with pytest.raises(EditError) as info:
        ws.undo(99)
    assert info.value.code == "CHANGE_NOT_FOUND"
    assert "newest is" in info.value.message
    with pytest.raises(EditError) as info:
        ws.undo(1, steps=2)
    assert info.value.code == "INVALID_REQUEST"
    with pytest.raises(EditError) as info:
        ws.batch([{"tool": "undo", "arguments": {}}])
    assert info.value.code == "INVALID_REQUEST"
    (root / "b.txt").write_text("b\n")
    with pytest.raises(EditError) as info:
        ws.undo(1, path="b.txt")
    assert info.value.code == "CHANGE_NOT_FOUND"


# -- audit findings ------------------------------------------------------------------------


def test_a_refused_commit_leaves_no_entry(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from editguard.errors import WriteFailed
    from editguard.fs.journal import Journal

    def full_disk(self: Journal, steps: object) -> None:
        raise WriteFailed("no space left on device")

    monkeypatch.setattr(Journal, "commit", full_disk)  # a full disk cannot be made here
    with pytest.raises(EditError):
        ws.batch(  # two files: a commit of one alone is an atomic write (the test below)
            [
                {"tool": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}},
                {"tool": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}},
            ]
        )
    history = ws.context.history
    assert history is not None
    assert history.pending() == []
    assert history.stats() == (0, 0)


def test_a_refused_write_of_one_file_leaves_no_entry(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from editguard.errors import WriteFailed
    from editguard.fs import atomic

    def full_disk(*args: object) -> None:
        raise WriteFailed("no space left on device")

    # Refused after the entry is committed as pending, just before the file is replaced.
    monkeypatch.setattr(atomic, "_check_unchanged", full_disk)
    with pytest.raises(EditError):
        ws.write_file("a.txt", "a\n")
    assert not (root / "a.txt").exists()
    history = ws.context.history
    assert history is not None
    assert history.pending() == []
    assert history.stats() == (0, 0)


def test_a_pending_entry_is_settled_by_the_files(ws: Workspace, root: Path) -> None:
    history = ws.context.history
    assert history is not None
    (root / "a.txt").write_text("a\n")
    real = str(root / "a.txt")
    ws.write_file("a.txt", "b\n")  # change 1
    now = ws.read_file("a.txt").version
    # Two entries whose process died mid-commit: one whose files were written, one not.
    written = history._write_entry(
        "batch",
        [FileRecord("a.txt", real, "updated", "older", now, 0o644, 0o644, 1, 1, "")],
        (),
        pending=True,
    )
    dropped = history._write_entry(
        "batch",
        [FileRecord("a.txt", real, "updated", now, "never", 0o644, 0o644, 1, 1, "")],
        (),
        pending=True,
    )
    assert [e.id for e in history.entries()] == [1]  # pending: out of view
    assert len(history.pending()) == 2
    Workspace([root])  # a start settles them (so does history, and undo)
    assert history.pending() == []
    assert [c.id for c in ws.history().changes] == [written, 1]
    assert history.entry(dropped) is None


def test_an_entry_that_cannot_be_settled_leaves_the_others_settled(
    ws: Workspace, root: Path, tmp_path: Path
) -> None:
    history = ws.context.history
    assert history is not None
    (root / "a.txt").write_text("a\n")
    ws.write_file("a.txt", "b\n")
    now = ws.read_file("a.txt").version
    outside = str(tmp_path / "elsewhere.txt")  # not inside the roots: never settled here
    stuck = history._write_entry(
        "batch",
        [FileRecord("x", outside, "updated", "v1", "v2", 0o644, 0o644, 1, 1, "")],
        (),
        pending=True,
    )
    written = history._write_entry(
        "batch",
        [FileRecord("a.txt", str(root / "a.txt"), "updated", "older", now, None, None, 1, 1, "")],
        (),
        pending=True,
    )
    ws.history()
    assert [e.id for e in history.pending()] == [stuck]
    assert history.entry(written) is not None


def test_a_pending_mode_change_counts_only_if_the_mode_changed(ws: Workspace, root: Path) -> None:
    history = ws.context.history
    assert history is not None
    path = root / "s.sh"
    path.write_text("echo\n")
    path.chmod(0o644)
    version = ws.read_file("s.sh").version
    real = str(path)

    def pending() -> int:
        rec = FileRecord("s.sh", real, "updated", version, version, 0o644, 0o755, 0, 0, "")
        return history._write_entry("safe_edit", [rec], (), pending=True)

    never = pending()  # the process died before the chmod
    ws.history()
    assert history.entry(never) is None
    made = pending()
    path.chmod(0o755)  # this time it landed
    ws.history()
    assert history.entry(made) is not None
    assert history.pending() == []


def test_a_pending_change_is_judged_by_the_next_change_of_its_file(
    ws: Workspace, root: Path
) -> None:
    history = ws.context.history
    assert history is not None
    real = str(root / "a.txt")
    (root / "a.txt").write_text("b\n")
    before = ws.read_file("a.txt").version
    (root / "a.txt").write_text("c\n")
    after = ws.read_file("a.txt").version
    (root / "a.txt").write_text("b\n")
    # A change from b to c whose process died before it wrote anything ...
    dead = history._write_entry(
        "batch",
        [FileRecord("a.txt", real, "updated", before, after, None, None, 1, 1, "")],
        (),
        pending=True,
    )
    # ... then the same change, made by a later call, which is recorded.
    ws.edit_file("a.txt", [{"old_text": "b", "new_text": "c"}])
    assert ws.read_file("a.txt").version == after  # the file holds what the dead one meant
    changes = ws.history().changes
    assert history.entry(dead) is None  # the later change found b: the dead one never landed
    assert [c.id for c in changes] == [dead + 1]


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE changes SET undoes = 'x'",
        "UPDATE changes SET undone_by = 'x'",
        "UPDATE changes SET tool = x'ff'",
        "UPDATE changes SET time = 'soon'",
        "UPDATE files SET before_mode = 'abc'",
        "UPDATE files SET after_mode = 99999999",
        "UPDATE files SET restore = 5",
        "UPDATE files SET added = 'x'",
        "UPDATE files SET removed = -1",
        "UPDATE files SET action = 'burned'",
        "UPDATE files SET before_version = x'ff'",
        "UPDATE files SET path = 3",
        "UPDATE files SET diff = 'not compressed'",
    ],
)
def test_a_damaged_record_is_an_error_with_a_code(ws: Workspace, root: Path, damage: str) -> None:
    (root / "a.txt").write_text("a\n")
    _edit(ws, "a.txt", "a", "b")
    history = ws.context.history
    assert history is not None
    with sqlite3.connect(history.path) as db:
        db.execute(damage)
    with pytest.raises(EditError) as info:
        ws.history(change_id=1)  # every column read
    assert info.value.code == "CHANGE_NOT_FOUND"
    with pytest.raises(EditError) as info:
        ws.undo()
    assert info.value.code == "CHANGE_NOT_FOUND"
    assert (root / "a.txt").read_text() == "b\n"


def test_undo_does_not_write_through_a_link_planted_since(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    _edit(ws, "a.txt", "a", "A")
    (root / "a.txt").unlink()
    (root / "a.txt").symlink_to(root / "b.txt")
    with pytest.raises(EditError) as info:
        ws.undo(force=True)
    assert info.value.code == "NOT_A_FILE"
    assert (root / "b.txt").read_text() == "b\n"


def test_a_mode_changed_since_counts_as_changed(ws: Workspace, root: Path) -> None:
    path = root / "s.sh"
    path.write_text("echo a\n")
    path.chmod(0o644)
    _edit(ws, "s.sh", "echo a", "echo b")
    path.chmod(0o755)
    with pytest.raises(EditError) as info:
        ws.undo()
    assert info.value.code == "STALE_VERSION"
    assert "permission bits outside editguard (644 to 755)" in str(info.value)
    assert info.value.data["outside_editguard"] is True
    assert (info.value.data["expected_mode"], info.value.data["actual_mode"]) == ("644", "755")
    assert path.stat().st_mode & 0o777 == 0o755
    ws.undo(force=True)
    assert path.read_text() == "echo a\n"
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_batch_keeps_its_net_change_whatever_its_calls_did(root: Path, tmp_path: Path) -> None:
    ws = Workspace([root], history=tmp_path / "h", max_file_bytes=1_000_000)
    path = root / "f.txt"
    path.write_bytes(b"".join(b"line %08d\n" % i for i in range(40_000)))
    original = path.read_bytes()
    whole = {"search": "(?s)\\A(.+)\\Z", "replace": "#\\1", "regex": True}
    back = {"search": "(?s)\\A#(.+)\\Z", "replace": "\\1", "regex": True}
    edit = {"old_text": "line 00000005\n", "new_text": "line five\n"}
    ws.batch(
        [
            {"tool": "safe_edit", "arguments": {"path": "f.txt", "search_replace": whole}},
            {"tool": "safe_edit", "arguments": {"path": "f.txt", "search_replace": back}},
            {"tool": "edit_file", "arguments": {"path": "f.txt", "edits": [edit]}},
        ]
    )
    history = ws.context.history
    assert history is not None
    assert history.stats()[1] < 2_000  # the net change is one line
    ws.undo()
    assert path.read_bytes() == original


@pytest.mark.parametrize("change_id", [0, -1, 2**63, "1"])
def test_out_of_range_ids_are_malformed_requests(ws: Workspace, change_id: object) -> None:
    with pytest.raises(EditError) as info:
        ws.undo(change_id)  # type: ignore[arg-type]
    assert info.value.code == "INVALID_REQUEST"
    with pytest.raises(EditError) as info:
        ws.history(change_id=change_id)  # type: ignore[arg-type]
    assert info.value.code == "INVALID_REQUEST"


def test_undo_of_a_move_moves_back_and_keeps_no_copy(ws: Workspace, root: Path) -> None:
    path = root / "big.txt"
    path.write_bytes(b"".join(b"line %d of the big file\n" % i for i in range(20_000)))
    original = path.read_bytes()
    ws.apply_patch(
        "*** Begin Patch\n*** Update File: big.txt\n*** Move to: moved.txt\n@@\n"
        "-line 5 of the big file\n+line five\n*** End Patch"
    )
    moved = (root / "moved.txt").read_bytes()
    history = ws.context.history
    assert history is not None
    ws.undo()
    assert path.read_bytes() == original
    assert not (root / "moved.txt").exists()
    assert history.stats()[1] < 5_000  # the file is 500 KB: neither entry holds a copy
    redo = ws.history().changes[0]
    assert [f.action for f in redo.files] == ["moved"]
    ws.undo(redo.id)
    assert (root / "moved.txt").read_bytes() == moved
    assert not path.exists()


def test_an_undo_records_the_files_it_found_already_restored(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    big = root / "big.txt"
    big.write_bytes(b"".join(b"line %d\n" % i for i in range(100_000)))
    original = big.read_bytes()
    ws.batch(
        [
            {"tool": "write_file", "arguments": {"path": "a.txt", "content": "A\n"}},
            {
                "tool": "edit_file",
                "arguments": {
                    "path": "big.txt",
                    "edits": [{"old_text": "line 7\n", "new_text": "seven\n"}],
                },
            },
        ]
    )
    big.write_bytes(original)  # put back outside editguard
    history = ws.context.history
    assert history is not None
    stored = history.stats()[1]
    undo = ws.undo(force=True)
    assert undo.undone == [1]
    assert (root / "a.txt").read_text() == "a\n"
    assert big.read_bytes() == original
    entry = history.entry(undo.change_id or 0)
    assert entry is not None
    assert sorted(f.path for f in entry.files) == ["a.txt", "big.txt"]
    assert history.stats()[1] - stored < 2_000  # the file found restored is not copied
    with pytest.raises(EditError) as info:
        ws.undo()  # the change is taken back for both files: nothing is left to undo
    assert info.value.code == "CHANGE_NOT_FOUND"
    ws.undo(undo.change_id)  # redo
    assert (root / "a.txt").read_text() == "A\n"
    assert big.read_bytes() == original  # the undo did not change it: neither does its redo


def test_content_moved_away_and_back_is_an_update(ws: Workspace, root: Path) -> None:
    (root / "c.txt").write_text("c\n")

    def move(a: str, b: str) -> dict[str, object]:
        patch = (
            f"*** Begin Patch\n*** Update File: {a}\n*** Move to: {b}\n@@\n-c\n+c\n*** End Patch"
        )
        return {"tool": "apply_patch", "arguments": {"patch": patch}}

    write = {"tool": "write_file", "arguments": {"path": "c.txt", "content": "C\n"}}
    ws.batch([move("c.txt", "d.txt"), move("d.txt", "e.txt"), move("e.txt", "c.txt"), write])
    history = ws.context.history
    assert history is not None
    [entry] = history.entries()
    assert [(f.path, f.action, f.moved) for f in entry.files] == [("c.txt", "updated", None)]
    ws.undo()
    assert sorted(p.name for p in root.iterdir()) == ["c.txt"]
    assert (root / "c.txt").read_text() == "c\n"
