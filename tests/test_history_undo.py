"""The undo logic of the history, without a tool, a transaction or a wire model: which changes an
undo takes back (past undos and redos, one file's part alone), and what it restores (bytes
rebuilt from deltas, folders, moves), refused when a file changed since."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from editguard.core.delta import between, pack_layers, pack_whole
from editguard.core.document import content_version
from editguard.errors import ChangeNotFound, StaleVersion
from editguard.fs.sandbox import Resolved, Sandbox
from editguard.history import Entry, FileRecord, History, records
from editguard.history.undo import FolderRestore, choose, paths, prepare

MODE = 0o644


def v(data: bytes) -> str:
    return content_version([data])


class Disk:
    """The files as an undo finds them: bytes and folders by real path, in memory."""

    max_file_bytes = 10_000_000

    def __init__(self, root: Path) -> None:
        self.sandbox = Sandbox([root])
        self.files: dict[str, bytes] = {}
        self.folders: set[str] = set()

    def found(self, where: Resolved) -> tuple[str | None, int | None]:
        data = self.files.get(where.real)
        return (None, None) if data is None else (v(data), MODE)

    def content(self, where: Resolved) -> bytes:
        return self.files[where.real]

    def folder(self, where: Resolved) -> bool:
        return where.real in self.folders


@pytest.fixture
def top(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    return Path(os.path.realpath(folder))


@pytest.fixture
def history(tmp_path: Path, top: Path) -> History:
    return History([str(top)], str(tmp_path / "history"))


@pytest.fixture
def disk(top: Path) -> Disk:
    return Disk(top)


def update(
    top: Path, name: str, old: bytes, new: bytes, *, delta: bool = True, after: int = MODE
) -> FileRecord:
    """The record of an update, kept as a delta (or whole)."""
    return records.record(
        path=name,
        real=str(top / name),
        action="updated",
        before=(v(old), MODE),
        after=(v(new), after),
        diff="",
        restore_data=pack_layers([between(old, new)]) if delta else pack_whole(old),
    )


def record(history: History, *files: FileRecord, undoes: Sequence[int] = ()) -> int:
    return history.record("edit_file", files, undoes)


def ids(chosen: Sequence[Entry]) -> list[int]:
    return [e.id for e in chosen]


def test_the_latest_changes_in_effect_are_chosen_past_undos_and_redos(
    history: History, top: Path
) -> None:
    a, b = str(top / "a"), str(top / "b")
    c1 = record(history, update(top, "a", b"a0", b"a1"))
    c2 = record(history, update(top, "b", b"b0", b"b1"))
    u3 = record(history, update(top, "b", b"b1", b"b0"), undoes=[c2])
    c4 = record(history, update(top, "a", b"a1", b"a2"))
    # The undo is no change to undo, and what it took back is not in effect.
    assert ids(choose(history, None, steps=2)) == [c4, c1]
    with pytest.raises(ChangeNotFound) as caught:
        choose(history, None, steps=3)
    assert caught.value.data == {"found": 2, "steps": 3}
    with pytest.raises(ChangeNotFound) as caught:
        choose(history, b, steps=1, path="b")
    assert caught.value.message == "there is no change of b to undo"
    # A redo (an undo of the undo) puts the change back in effect.
    record(history, update(top, "b", b"b0", b"b1"), undoes=[u3])
    assert ids(choose(history, None, steps=3)) == [c4, c2, c1]
    assert ids(choose(history, b, steps=1, path="b")) == [c2]
    assert paths(choose(history, None, steps=3), None) == {a, b}


def test_an_undo_of_one_file_leaves_the_change_s_other_files_in_effect(
    history: History, top: Path
) -> None:
    a, b = str(top / "a"), str(top / "b")
    c1 = record(history, update(top, "a", b"a0", b"a1"), update(top, "b", b"b0", b"b1"))
    record(history, update(top, "a", b"a1", b"a0"), undoes=[c1])
    [entry] = choose(history, None, steps=1)
    assert entry.id == c1
    assert [f.real for f in entry.files] == [b]
    assert paths([entry], None) == {b}
    with pytest.raises(ChangeNotFound) as caught:
        choose(history, a, steps=1, path="a")
    assert caught.value.data == {"found": 0, "steps": 1}


def test_a_change_chosen_by_id_must_exist_and_touch_the_file(history: History, top: Path) -> None:
    c1 = record(history, update(top, "a", b"a0", b"a1"))
    assert ids(choose(history, str(top / "a"), change_id=c1, path="a")) == [c1]
    with pytest.raises(ChangeNotFound) as caught:
        choose(history, None, change_id=c1 + 7)
    assert caught.value.data == {"change_id": c1 + 7, "newest": c1}
    with pytest.raises(ChangeNotFound) as caught:
        choose(history, str(top / "c"), change_id=c1, path="c")
    assert (caught.value.message, caught.value.data) == (
        f"change {c1} did not touch c",
        {"change_id": c1},
    )


def _lines(changed: dict[int, str]) -> bytes:
    return b"".join(b"%s\n" % changed.get(i, f"line {i}").encode() for i in range(5000))


def test_the_bytes_before_are_rebuilt_from_deltas_through_the_later_changes(
    history: History, disk: Disk, top: Path
) -> None:
    big = str(top / "big")
    v0, v1, v2 = _lines({}), _lines({10: "ten"}), _lines({10: "ten", 4000: "four thousand"})
    c1 = record(history, update(top, "big", v0, v1))
    c2 = record(history, update(top, "big", v1, v2))
    disk.files[big] = v2
    both = prepare(disk, history, choose(history, None, steps=2), None, force=False)
    [restore] = both.files
    assert (restore.content, restore.version, restore.found) == (v0, v(v0), v(v2))
    assert (restore.mode, restore.changes, restore.forced, restore.action) == (
        MODE,
        (c1, c2),
        False,
        "updated",
    )
    assert (both.undoes, both.kept) == ((c1, c2), frozenset({big}))
    # The older change alone: the newer one is taken back first, to find the bytes after it.
    [older] = prepare(disk, history, choose(history, None, change_id=c1), None, force=True).files
    assert (older.content, older.forced) == (v0, True)
    latest = prepare(disk, history, choose(history, None, steps=1), None, force=False)
    assert latest.files[0].content == v1


def test_a_rebuild_that_does_not_give_the_recorded_version_is_refused(
    history: History, disk: Disk, top: Path
) -> None:
    wrong = records.record(
        path="a",
        real=str(top / "a"),
        action="updated",
        before=(v(b"a0"), MODE),
        after=(v(b"a1"), MODE),
        diff="",
        restore_data=pack_layers([between(b"something else", b"a1")]),
    )
    c1 = record(history, wrong)
    disk.files[str(top / "a")] = b"a1"
    with pytest.raises(StaleVersion) as caught:
        prepare(disk, history, choose(history, None), None, force=False)
    assert caught.value.data == {"change_id": c1, "restorable": False}


def test_a_change_made_since_blocks_the_undo_and_says_by_what(
    history: History, disk: Disk, top: Path
) -> None:
    a = str(top / "a")
    c1 = record(history, update(top, "a", b"a0\n", b"a1\n", delta=False))
    disk.files[a] = b"outside\n"
    with pytest.raises(StaleVersion) as caught:
        prepare(disk, history, choose(history, None), None, force=False)
    data = caught.value.data
    assert {k: data[k] for k in data if k != "force_diff"} == {
        "expected_version": v(b"a1\n"),
        "actual_version": v(b"outside\n"),
        "changed_by": [],
        "outside_editguard": True,
    }
    assert "-outside\n+a0" in str(data["force_diff"])
    c2 = record(history, update(top, "a", b"a1\n", b"a2\n"))
    disk.files[a] = b"a2\n"
    with pytest.raises(StaleVersion) as caught:
        prepare(disk, history, choose(history, None, change_id=c1), None, force=False)
    assert caught.value.data["changed_by"] == [c2]
    assert caught.value.data["outside_editguard"] is False
    assert caught.value.message.startswith(
        f"a changed since change {c1}: by change {c2} (edit_file"
    )
    forced = prepare(disk, history, choose(history, None, change_id=c1), None, force=True)
    assert (forced.files[0].content, forced.files[0].forced) == (b"a0\n", True)


def test_permission_bits_changed_since_block_the_undo(
    history: History, disk: Disk, top: Path
) -> None:
    record(history, update(top, "a", b"a0", b"a1", after=0o755))
    disk.files[str(top / "a")] = b"a1"  # found with MODE, not 755
    with pytest.raises(StaleVersion) as caught:
        prepare(disk, history, choose(history, None), None, force=False)
    data = caught.value.data
    assert (data["expected_mode"], data["actual_mode"], data["outside_editguard"]) == (
        "755",
        "644",
        True,
    )


def _made_folder(top: Path) -> list[FileRecord]:
    """A change that made the folder d and the file d/x in it."""
    x = records.record(
        path="d/x",
        real=str(top / "d" / "x"),
        action="created",
        before=(None, None),
        after=(v(b"x"), MODE),
        diff="",
        restore_data=None,
    )
    return [x, records.folder_record("d", str(top / "d"), before=False, after=True)]


def test_a_folder_the_change_made_is_removed_and_one_gone_since_blocks(
    history: History, disk: Disk, top: Path
) -> None:
    c1 = record(history, *_made_folder(top))
    disk.files[str(top / "d" / "x")] = b"x"
    disk.folders.add(str(top / "d"))
    undo = prepare(disk, history, choose(history, None), None, force=False)
    [folder] = undo.folders
    assert (folder.where.real, folder.existed, folder.exists) == (str(top / "d"), True, False)
    assert (folder.changes, folder.forced, folder.action) == ((c1, c1), False, "deleted")
    [x] = undo.files
    assert (x.content, x.action) == (None, "deleted")
    # The folder is gone already: the change is not in effect as it left it.
    disk.folders.clear()
    with pytest.raises(StaleVersion) as caught:
        prepare(disk, history, choose(history, None), None, force=False)
    assert caught.value.data == {"expected_version": records.FOLDER, "actual_version": None}
    forced = prepare(disk, history, choose(history, None), None, force=True)
    assert forced.folders == (
        FolderRestore(folder.where, existed=False, exists=False, changes=(c1, c1), forced=True),
    )
    assert forced.folders[0].action == "updated"


def test_a_move_is_taken_back_as_a_move_its_content_rebuilt_from_its_new_path(
    history: History, disk: Disk, top: Path
) -> None:
    a, b = str(top / "a"), str(top / "b")
    content = b"moved\n"
    old_end = records.record(
        path="a",
        real=a,
        action="moved",
        before=(v(content), MODE),
        after=(None, None),
        diff="",
        restore_data=pack_layers([]),  # nothing to take back from b's bytes
        base=b,
        moved=b,
    )
    new_end = records.record(
        path="b",
        real=b,
        action="moved",
        before=(None, None),
        after=(v(content), MODE),
        diff="",
        restore_data=None,
        moved=a,
    )
    record(history, old_end, new_end)
    disk.files[b] = content
    undo = prepare(disk, history, choose(history, None), None, force=False)
    assert [(s.real, d.real) for s, d in undo.moves] == [(b, a)]
    back, away = (next(f for f in undo.files if f.where.real == p) for p in (a, b))
    source = back.moved_from
    assert source is not None
    assert (source.real, back.content, back.action) == (b, content, "moved")
    assert (away.content, away.action, away.moved_from) == (None, "deleted", None)
