"""Undo on real releases: every file of the corpus changed by every writing tool, then undone,
redone and undone again; the same in other encodings and line-ending styles; files over 64 KiB
(kept as byte deltas); a multi-file patch as one tree; one file walked back change by change;
and undo through the command line and the MCP server.

After each step the folder is compared with what it must be, file by file: names, bytes and
permission bits, and no file more or less (``tree``).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

from editguard import EditError, Workspace
from editguard.core.delta import LAYERS
from editguard.core.document import decode
from editguard.history.records import WHOLE_LIMIT

from .release_changes import (
    GENERATORS,
    VARIANTS,
    Change,
    Variant,
    apply_diff,
    batch,
    change_for,
    codex_update,
    edit_file,
    edit_lines,
    opcodes,
    release_path,
    tools_for,
    unified,
    write_file,
)
from .release_pairs import PAIRS, Pair, split_lines

Tree = dict[str, tuple[bytes, int]]
MODES = (0o640, 0o755, 0o600, 0o664)
CALL = [sys.executable, "-m", "editguard", "call", "--json"]


def tree(folder: Path) -> Tree:
    """Every file under ``folder``: its path, bytes and permission bits."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def differences(now: Tree, expected: Tree) -> list[str]:
    """What differs, readably (a failing comparison of two trees of 100 KB files is not)."""
    out = []
    for path in sorted(set(now) | set(expected)):
        if path not in now:
            out.append(f"{path}: missing")
        elif path not in expected:
            out.append(f"{path}: should not exist")
        elif now[path][0] != expected[path][0]:
            out.append(f"{path}: other bytes ({len(now[path][0])} for {len(expected[path][0])})")
        elif now[path][1] != expected[path][1]:
            out.append(f"{path}: mode {now[path][1]:o}, not {expected[path][1]:o}")
    return out


def same_tree(folder: Path, expected: Tree) -> None:
    assert not differences(tree(folder), expected)


def put(folder: Path, path: str, data: bytes, mode: int) -> None:
    target = folder / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    target.chmod(mode)


def run(ws: Workspace, change: Change) -> int:
    """Make the change through the Python API; the id of its history entry."""
    for tool, arguments in change.calls:
        getattr(ws, tool)(**arguments)
    [entry] = ws.history(limit=1).changes
    assert entry.tool == change.calls[-1][0]
    return entry.id


def check_changed(folder: Path, path: str, variant: Variant, change: Change, mode: int) -> None:
    """The change landed: the file differs from the older version, is the newer one where the
    tool expresses the whole change, holds the new text of a partial one, kept its mode."""
    after = (folder / path).read_bytes()
    assert after != variant.old
    if change.whole and variant.new is not None:
        assert after == variant.new
    if change.expect is not None:
        assert change.expect in decode(after).text
    assert stat.S_IMODE((folder / path).stat().st_mode) == mode


# -- every tool on every file, in every style ---------------------------------------------


def _cases() -> list[Any]:
    """Every (variant, tool). Quick: every file as released with every tool, and every other
    style with every tool on one or two files (a tenth of the files the tool applies to,
    rotating); the rest of the product is marked slow."""
    cases = []
    files = {tool: [p for p in PAIRS if tool in tools_for(p)] for tool in GENERATORS}
    for pair in PAIRS:
        for tool in tools_for(pair):
            rank, every = files[tool].index(pair), min(10, len(files[tool]))
            t = list(GENERATORS).index(tool)
            for s, variant in enumerate(VARIANTS[pair.name]):
                quick = s == 0 or (rank + 3 * s + t) % every == 0
                marks = () if quick else (pytest.mark.slow,)
                cases.append(pytest.param(variant, tool, id=f"{variant.id}-{tool}", marks=marks))
    return cases


@pytest.mark.parametrize(("variant", "tool"), _cases())
def test_undo_gives_back_the_older_release_exactly_and_redo_the_change(
    variant: Variant, tool: str, tmp_path: Path
) -> None:
    path = release_path(variant.pair)
    mode = MODES[len(path) % len(MODES)]
    put(tmp_path, path, variant.old, mode)
    put(tmp_path, "README.other", b"untouched\r\n", 0o644)  # an unrelated file stays as it is
    original = tree(tmp_path)
    ws = Workspace([tmp_path])
    change = change_for(tool, variant)

    change_id = run(ws, change)
    check_changed(tmp_path, path, variant, change, mode)
    changed = tree(tmp_path)

    undo = ws.undo()
    assert (undo.undone, undo.written) == ([change_id], True)
    same_tree(tmp_path, original)

    redo = ws.undo(change_id=undo.change_id)
    assert redo.undone == [undo.change_id]
    same_tree(tmp_path, changed)

    # The redo put the change back in effect: a plain undo takes it back again (rebuilt from
    # the file as it is now through the undo's and the redo's records).
    again = ws.undo()
    assert again.undone == [change_id]
    same_tree(tmp_path, original)


def test_the_matrix_covers_every_tool_and_style() -> None:
    styles = {v.style for vs in VARIANTS.values() for v in vs}
    assert styles == {
        "released",
        "crlf",
        "utf8_bom",
        "cp1252",
        "latin-1",
        "utf16_bom",
        "no_final_newline",
        "mixed_eol",
    }
    assert sum(len(tools_for(pair)) for pair in PAIRS) >= 19 * 9 + 2 * 9
    detected = {
        v.style: decode(v.old) for vs in VARIANTS.values() for v in vs if v.style != "released"
    }
    assert detected["cp1252"].encoding == "cp1252"
    assert detected["latin-1"].encoding == "latin-1"
    assert detected["utf16_bom"].encoding == "utf-16-le"
    assert detected["utf8_bom"].bom
    assert detected["crlf"].eol_style == "CRLF"
    assert detected["mixed_eol"].eol_style == "mixed"
    assert not detected["no_final_newline"].ends_with_newline


# -- files over 64 KiB: the history keeps byte deltas ------------------------------------


def _padded(pair: Pair) -> tuple[str, str]:
    """The pair with 2,000 comment lines above and below, and one of them changed at each
    end: a file of several times 64 KiB with changes from its first lines to its last."""

    def pad(which: str, changed: bool) -> str:
        lines = [f"# {which} padding line {k:04d}: nothing but length here\n" for k in range(2000)]
        if changed:
            lines[7] = f"# {which} padding line 0007: changed\n"
            lines[-3] = f"# {which} padding line 1997: changed too\n"
        return "".join(lines)

    old, new = pair.texts()
    return (
        pad("top", False) + old + pad("bottom", False),
        pad("top", True) + new + pad("bottom", True),
    )


def _large_changes(path: str, old: str, new: str) -> list[Change]:
    return [edit_file(path, old, new), apply_diff(path, old, new), batch(path, old, new)]


LARGE = [p for p in PAIRS if p.name == "pyperclip-1.8.0-1.8.1/src/pyperclip/__init__.py"]


@pytest.mark.parametrize("how", ["edit_file", "apply_diff", "batch"])
def test_a_file_over_64_kib_is_undone_from_byte_deltas_and_the_history_stays_small(
    how: str, tmp_path: Path
) -> None:
    [pair] = LARGE
    path = release_path(pair)
    old, new = _padded(pair)
    crlf = "\r\n"  # the release's own line endings
    old_bytes, new_bytes = (t.replace("\n", crlf).encode() for t in (old, new))
    assert len(old) > 3 * WHOLE_LIMIT
    put(tmp_path, path, old_bytes, 0o751)
    original = tree(tmp_path)
    ws = Workspace([tmp_path])
    history = ws.context.history
    assert history is not None
    [change] = [c for c in _large_changes(path, old, new) if c.tool == how]
    assert len(split_lines(old)) > 4000

    change_id = run(ws, change)
    assert (tmp_path / path).read_bytes() == new_bytes
    changed = tree(tmp_path)
    undo = ws.undo()
    same_tree(tmp_path, original)
    redo = ws.undo(change_id=undo.change_id)
    same_tree(tmp_path, changed)
    again = ws.undo()
    assert again.undone == [change_id]
    same_tree(tmp_path, original)

    for entry_id in (change_id, undo.change_id, redo.change_id, again.change_id):
        assert entry_id is not None
        entry = history.entry(entry_id)
        assert entry is not None
        [record] = [f for f in entry.files if f.path == path]
        assert record.restore is not None
        assert record.restore[:1] == LAYERS, f"entry {entry_id} keeps the whole file"
        assert record.added + record.removed < 200, f"entry {entry_id}: {record.diff[:300]}"
    entries, stored = history.stats()
    assert entries == 4
    # Four entries of a 14-hunk change, each far smaller than the file.
    assert stored < len(old_bytes) // 4, stored


# -- a multi-file patch: the whole tree ---------------------------------------------------

BINARY = bytes(range(256)) * 3


def _corpus_tree(folder: Path) -> None:
    """Every pair's older file at its release path (modes varied), and a binary file."""
    for k, pair in enumerate(PAIRS):
        put(folder, pair.name, pair.old_bytes, MODES[k % len(MODES)])
    put(folder, "assets/logo.bin", BINARY, 0o600)
    put(folder, "assets/icon.bin", BINARY[::-1], 0o644)


def _pair(name: str) -> Pair:
    [pair] = [p for p in PAIRS if p.name == name]
    return pair


def test_a_multi_file_patch_is_undone_and_redone_as_one_tree(tmp_path: Path) -> None:
    _corpus_tree(tmp_path)
    original = tree(tmp_path)
    ws = Workspace([tmp_path])
    six = _pair("six-1.15.0-1.16.0/six.py")
    cfg = _pair("configobj-5.0.8-5.0.9/src/configobj/__init__.py")
    clip = _pair("pyperclip-1.8.0-1.8.1/src/pyperclip/__init__.py")
    plimit = _pair("p-limit-6.2.0-7.0.0/index.js")
    bom = _pair("six-1.15.0-1.16.0/CHANGES.derived-utf8-bom-crlf")
    patch = (
        "*** Begin Patch\n"
        "*** Add File: new/deep/NOTES.md\n+# Notes\n+caf\u00e9 \u2013 na\u00efve\n"
        "*** Delete File: xlwt-1.2.0-1.3.0/tox.ini\n"
        "*** Delete File: xlwt-1.2.0-1.3.0/xlwt/BIFFRecords.py\n"
        "*** Delete File: assets/logo.bin\n"
        + codex_update(six.name, *six.texts())
        # A file over 64 KiB moved while changed; a CRLF one too.
        + codex_update(cfg.name, *cfg.texts(), move_to="moved/configobj.py")
        + codex_update(clip.name, *clip.texts(), move_to="pyperclip.py")
        # Moved onto an existing file, which the move replaces.
        + codex_update(plimit.name, *plimit.texts(), move_to="quick-lru-7.0.1-7.1.0/index.js")
        + codex_update(bom.name, *bom.texts())
        + "*** End Patch\n"
    )
    result = ws.apply_patch(patch)
    assert sorted(f.action for f in result.files) == [
        "added",
        "deleted",
        "deleted",
        "deleted",
        "moved",
        "moved",
        "moved",
        "updated",
        "updated",
    ]
    patched = tree(tmp_path)
    assert patched["moved/configobj.py"] == (cfg.new_bytes, original[cfg.name][1])
    assert patched["quick-lru-7.0.1-7.1.0/index.js"][0] == plimit.new_bytes
    assert patched[bom.name][0] == bom.new_bytes
    assert "assets/logo.bin" not in patched

    undo = ws.undo()
    same_tree(tmp_path, original)
    # Every path the patch touched: a move back is one line naming both ends; the move onto
    # an existing file is taken back as that file's old content and the moved file's re-adding.
    assert len(undo.files) == 10
    assert sorted((f.path, f.moved_from) for f in undo.files if f.action == "moved") == [
        (cfg.name, "moved/configobj.py"),
        (clip.name, "pyperclip.py"),
    ]
    ws.undo(change_id=undo.change_id)
    same_tree(tmp_path, patched)
    ws.undo()
    same_tree(tmp_path, original)


def test_git_renames_that_swap_names_with_modes_and_binaries_are_undone(tmp_path: Path) -> None:
    _corpus_tree(tmp_path)
    original = tree(tmp_path)
    ws = Workspace([tmp_path])
    a, b = _pair("p-limit-6.2.0-7.0.0/index.d.ts"), _pair("quick-lru-7.0.1-7.1.0/index.d.ts")
    utf16 = _pair("configobj-5.0.8-5.0.9/README.derived-utf16le-bom.md")
    cp1252 = _pair("xlwt-1.2.0-1.3.0/xlwt/UnicodeUtils.py")

    def renamed(src: Pair, dst: Pair) -> str:
        """``src`` renamed to ``dst``'s name, with its own release's change."""
        body = unified(*src.texts(), src.name, new_path=dst.name).split("\n", 2)[2]
        return (
            f"diff --git a/{src.name} b/{dst.name}\nsimilarity index 90%\n"
            f"rename from {src.name}\nrename to {dst.name}\n"
            f"--- a/{src.name}\n+++ b/{dst.name}\n{body}"
        )

    diff = (
        renamed(a, b)
        + renamed(b, a)
        + "diff --git a/assets/logo.bin b/assets/icon.bin\nsimilarity index 100%\n"
        "rename from assets/logo.bin\nrename to assets/icon.bin\n"
        "diff --git a/assets/icon.bin b/assets/logo.bin\nsimilarity index 100%\n"
        "rename from assets/icon.bin\nrename to assets/logo.bin\n"
        f"diff --git a/{cp1252.name} b/{cp1252.name}\nold mode 100755\nnew mode 100644\n"
        + unified(*cp1252.texts(), cp1252.name)
        + f"diff --git a/{utf16.name} b/{utf16.name}\ndeleted file mode 100644\n"
        + unified(utf16.texts()[0], "", utf16.name).replace(f"+++ b/{utf16.name}", "+++ /dev/null")
        + "diff --git a/tools/run.sh b/tools/run.sh\nnew file mode 100755\n"
        "--- /dev/null\n+++ b/tools/run.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo hi\n"
    )
    (tmp_path / cp1252.name).chmod(0o755)
    original = tree(tmp_path)
    ws.apply_diff(diff)
    swapped = tree(tmp_path)
    assert swapped[b.name][0] == a.new_bytes
    assert swapped[a.name][0] == b.new_bytes
    assert swapped["assets/icon.bin"] == original["assets/logo.bin"]
    assert swapped["assets/logo.bin"] == original["assets/icon.bin"]
    assert swapped[cp1252.name] == (cp1252.new_bytes, 0o644)
    assert utf16.name not in swapped
    assert stat.S_IMODE((tmp_path / "tools/run.sh").stat().st_mode) & 0o111

    undo = ws.undo()
    same_tree(tmp_path, original)
    ws.undo(change_id=undo.change_id)
    same_tree(tmp_path, swapped)
    ws.undo()
    same_tree(tmp_path, original)


# -- one file, several tools: undo with path and steps ------------------------------------


def _stages(old: str, new: str, cuts: list[int]) -> list[str]:
    """The texts on the way from ``old`` to ``new``: the first ``k`` changed groups of lines
    applied, for each ``k`` in ``cuts``."""
    a, b = split_lines(old), split_lines(new)
    hunks = [op for op in opcodes(old, new) if op[0] != "equal"]
    out = []
    for k in cuts:
        lines = list(a)
        for _, i1, i2, j1, j2 in reversed(hunks[:k]):
            lines[i1:i2] = b[j1:j2]
        out.append("".join(lines))
    return out


def test_undo_with_path_and_steps_walks_one_file_back(tmp_path: Path) -> None:
    clip = _pair("pyperclip-1.8.0-1.8.1/src/pyperclip/__init__.py")
    other = _pair("six-1.15.0-1.16.0/six.py")
    path, other_path = "pyperclip/__init__.py", "six.py"
    put(tmp_path, path, clip.old_bytes, 0o750)
    put(tmp_path, other_path, other.old_bytes, 0o644)
    ws = Workspace([tmp_path])
    old, new = clip.texts()
    s1, s2, s3 = _stages(old, new, [3, 6, 9])
    steps: list[tuple[str, Change]] = [
        (path, edit_file(path, old, s1)),
        (other_path, edit_file(other_path, *other.texts())),
        (path, apply_diff(path, s1, s2)),
        (path, edit_lines(path, s2, s3)),
        (path, write_file(path, s3, new)),
    ]
    states = [tree(tmp_path)]  # states[k]: after the first k changes
    ids = []
    for _, step in steps:
        ids.append(run(ws, step))
        states.append(tree(tmp_path))
    assert states[-1][path][0] == clip.new_bytes
    assert len({state[path][0] for state in states}) == 5

    def now(mine: int, others: int) -> Tree:
        return {path: states[mine][path], other_path: states[others][other_path]}

    # The file's three latest changes, and not the other file's change between them.
    undo = ws.undo(path=path, steps=3)
    assert undo.undone == ids[2:]
    same_tree(tmp_path, now(1, 5))
    # A plain undo skips that undo and the changes it took back: the other file's change.
    second = ws.undo()
    assert second.undone == [ids[1]]
    same_tree(tmp_path, now(1, 0))
    third = ws.undo()
    assert third.undone == [ids[0]]
    same_tree(tmp_path, now(0, 0))
    with pytest.raises(EditError) as info:
        ws.undo()
    assert info.value.code == "CHANGE_NOT_FOUND"

    # Redone in the opposite order, each undo taken back gives its state again.
    ws.undo(change_id=third.change_id)
    same_tree(tmp_path, now(1, 0))
    ws.undo(change_id=second.change_id)
    same_tree(tmp_path, now(1, 5))
    ws.undo(change_id=undo.change_id)
    same_tree(tmp_path, now(5, 5))

    # Walked back one change at a time by path, through the redone ones: each state in turn.
    for k in range(len(steps) - 1, -1, -1):
        if steps[k][0] == path:
            ws.undo(path=path)
            same_tree(tmp_path, now(k, 5))
    assert tree(tmp_path)[path] == (clip.old_bytes, 0o750)


@pytest.mark.parametrize("then", ["by_path", "plain"])
def test_a_file_undone_alone_leaves_the_rest_of_its_change_to_undo(
    then: str, tmp_path: Path
) -> None:
    six, uu = _pair("six-1.15.0-1.16.0/six.py"), _pair("xlwt-1.2.0-1.3.0/xlwt/UnicodeUtils.py")
    tox = _pair("xlwt-1.2.0-1.3.0/tox.ini")
    for k, pair in enumerate((six, uu, tox)):
        put(tmp_path, pair.name, pair.old_bytes, MODES[k])
    original = tree(tmp_path)
    ws = Workspace([tmp_path])
    first = run(ws, edit_file(tox.name, *tox.texts()))
    diff = unified(*six.texts(), six.name) + unified(*uu.texts(), uu.name)
    both = run(ws, Change("apply_diff", [("apply_diff", {"diff": diff})], whole=True))
    changed = tree(tmp_path)

    alone = ws.undo(path=six.name)
    assert alone.undone == [both]
    same_tree(tmp_path, {**changed, six.name: original[six.name]})
    # The other file of that change is still as the change left it, so the change is still
    # there to undo for it: by its path, or as the latest change.
    rest = ws.undo(path=uu.name) if then == "by_path" else ws.undo()
    assert rest.undone == [both]
    same_tree(tmp_path, {**original, tox.name: changed[tox.name]})
    assert ws.undo().undone == [first]
    same_tree(tmp_path, original)

    # Redoing the first file's undo puts that file's part of the change back in effect alone.
    ws.undo(change_id=alone.change_id)
    same_tree(tmp_path, {**original, six.name: changed[six.name]})
    assert ws.undo().undone == [both]
    same_tree(tmp_path, original)


def test_undo_of_the_latest_change_of_a_file_needs_that_change_still_in_place(
    tmp_path: Path,
) -> None:
    clip = _pair("pyperclip-1.8.0-1.8.1/src/pyperclip/__init__.py")
    path = "clip.py"
    put(tmp_path, path, clip.old_bytes, 0o640)
    ws = Workspace([tmp_path])
    first = run(ws, edit_file(path, *clip.texts()))
    changed = (tmp_path / path).read_bytes()
    (tmp_path / path).write_bytes(changed + b"# edited by hand\r\n")
    with pytest.raises(EditError) as info:
        ws.undo(change_id=first)
    assert info.value.code == "STALE_VERSION"
    assert (tmp_path / path).read_bytes() == changed + b"# edited by hand\r\n"
    ws.undo(change_id=first, force=True)
    assert (tmp_path / path).read_bytes() == clip.old_bytes
    assert stat.S_IMODE((tmp_path / path).stat().st_mode) == 0o640


# -- through the command and the MCP server -----------------------------------------------


def _changed_corpus(folder: Path, offset: int) -> tuple[Workspace, Tree, list[int]]:
    """Every pair's older file in ``folder``, each changed by another tool (rotating from
    ``offset``) through the Python API; the workspace, the tree before, and the changes' ids."""
    for k, pair in enumerate(PAIRS):
        put(folder, pair.name, pair.old_bytes, MODES[k % len(MODES)])
    original = tree(folder)
    ws = Workspace([folder])
    ids = []
    for k, pair in enumerate(PAIRS):
        tools = tools_for(pair)
        change = GENERATORS[tools[(k + offset) % len(tools)]](pair.name, *pair.texts())
        assert change is not None
        ids.append(run(ws, change))
    return ws, original, ids


def _call(folder: Path, history: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [*CALL, "--root", str(folder), "--history", history, tool, "--args-file", "-"],
        input=json.dumps(arguments),
        capture_output=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


def test_undo_and_redo_through_the_command(tmp_path: Path) -> None:
    folder = tmp_path / "root"
    ws, original, ids = _changed_corpus(folder, 0)
    changed = tree(folder)
    history = os.environ["EDITGUARD_HISTORY"]
    first, second = PAIRS[0].name, PAIRS[1].name

    def with_originals(names: list[str]) -> Tree:
        return {**changed, **{name: original[name] for name in names}}

    by_path = _call(folder, history, "undo", {"path": first})
    assert (by_path["undone"], by_path["written"]) == ([ids[0]], True)
    same_tree(folder, with_originals([first]))
    _call(folder, history, "undo", {"path": second})
    same_tree(folder, with_originals([first, second]))

    steps = _call(folder, history, "undo", {"steps": len(PAIRS) - 2})
    assert steps["undone"] == ids[2:]
    same_tree(folder, original)

    redo = _call(folder, history, "undo", {"change_id": steps["change_id"]})
    assert redo["undone"] == [steps["change_id"]]
    same_tree(folder, with_originals([first, second]))
    # The Python API sees what the command did: it is the same history.
    assert ws.history(limit=1).changes[0].undoes == [steps["change_id"]]


def _text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_undo_and_redo_through_the_mcp_server_over_stdio(tmp_path: Path) -> None:
    folder = tmp_path / "root"
    _, original, ids = _changed_corpus(folder, 5)
    changed = tree(folder)
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "editguard",
            "serve",
            str(folder),
            "--history",
            os.environ["EDITGUARD_HISTORY"],
            "--journal",
            str(tmp_path / "journal"),
            "--log-level",
            "WARNING",
        ],
    )
    redos = []
    async with Client(params) as client:
        for k in reversed(range(len(PAIRS))):
            result = await client.call_tool("undo", {"change_id": ids[k]})
            assert not result.is_error, _text(result)
            assert result.structured_content is not None
            redos.append(result.structured_content["change_id"])
            pair = PAIRS[k]
            assert (folder / pair.name).read_bytes() == pair.old_bytes
        same_tree(folder, original)
        for undo_id in reversed(redos):
            result = await client.call_tool("undo", {"change_id": undo_id})
            assert not result.is_error, _text(result)
        same_tree(folder, changed)
        listed = await client.call_tool("history", {"limit": 100})
        assert listed.structured_content is not None
        assert len(listed.structured_content["changes"]) == 3 * len(PAIRS)
