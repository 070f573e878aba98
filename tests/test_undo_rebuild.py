"""How undo rebuilds what it restores and finds what to undo: a rebuild stops at the state the
file is in now, the result's diff runs from the file to what is restored, and the latest
changes in effect are found past any number of undos."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from editguard import Workspace


def _edit(ws: Workspace, path: str, old: str, new: str) -> None:
    ws.edit_file(path, [{"old_text": old, "new_text": new}])


def test_undos_in_a_row_do_not_take_back_what_the_file_already_undid(
    ws: Workspace, root: Path
) -> None:
    big = root / "big.txt"
    big.write_bytes(b"".join(b"line %d\r\n" % i for i in range(20_000)))  # kept as deltas
    states = [big.read_bytes()]
    for i in (5, 7, 9):
        _edit(ws, "big.txt", f"line {i}\r\n", f"line {i} changed\r\n")
        states.append(big.read_bytes())
    ids = [c.id for c in reversed(ws.history().changes)]
    first_undo = ws.undo()
    assert big.read_bytes() == states[2]
    history = ws.context.history
    assert history is not None
    # The third change and its undo are not needed to go back further: the file holds the
    # bytes the second change left. Damaged, they must not be read.
    db = sqlite3.connect(history.path)
    with db:
        db.executemany(
            "UPDATE files SET restore = x'00' WHERE change = ?",
            [(ids[2],), (first_undo.change_id,)],
        )
    db.close()
    assert ws.undo().undone == [ids[1]]
    assert big.read_bytes() == states[1]
    assert ws.undo().undone == [ids[0]]
    assert big.read_bytes() == states[0]


def test_the_result_shows_what_the_undo_changes(ws: Workspace, root: Path) -> None:
    big = root / "big.txt"
    big.write_text("".join(f"row {i}\n" for i in range(20_000)))
    (root / "gone.txt").write_text("kept\n")
    (root / "data.bin").write_bytes(bytes(range(256)))
    _edit(ws, "big.txt", "row 17\n", "row seventeen\n")
    ws.apply_patch(
        "*** Begin Patch\n*** Add File: new.txt\n+fresh\n*** Delete File: gone.txt\n"
        "*** Delete File: data.bin\n*** End Patch\n"
    )
    files = {f.path: f for f in ws.undo().files}
    assert {p: f.action for p, f in files.items()} == {
        "new.txt": "deleted",
        "gone.txt": "added",
        "data.bin": "added",
    }
    assert "-fresh" in files["new.txt"].diff
    assert "+kept" in files["gone.txt"].diff
    assert files["data.bin"].diff == ""  # not text
    restored = ws.undo().files
    assert [(f.path, f.action) for f in restored] == [("big.txt", "updated")]
    assert "-row seventeen\n+row 17\n" in restored[0].diff
    assert restored[0].previous_version is not None
    assert restored[0].version == ws.read_file("big.txt").version


def test_the_latest_changes_in_effect_are_found_past_many_undos(ws: Workspace, root: Path) -> None:
    path = root / "a.txt"
    path.write_text("0\n")
    for i in range(30):
        _edit(ws, "a.txt", str(i), str(i + 1))
    ids = [c.id for c in reversed(ws.history(limit=30).changes)]
    for _ in range(25):
        ws.undo()
    assert path.read_text() == "5\n"
    result = ws.undo(steps=3)
    assert result.undone == ids[2:5]
    assert path.read_text() == "2\n"
    assert ws.undo(path="a.txt", steps=2).undone == ids[:2]
    assert path.read_text() == "0\n"
