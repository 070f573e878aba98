"""Every input has a limit, checked before any work, and an answer that names it: regular
expressions, arguments, the size of a result, what an error echoes; arguments of the wrong type
are refused, never coerced into a write."""

from __future__ import annotations

import difflib
import errno
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from editguard import EditError, Workspace
from editguard.core import diff as diff_module
from editguard.core.formats import regex_replace
from editguard.fs import atomic
from editguard.tools import TOOLS

from .conftest import Snapshot, no_temp_files

TEXT = "alpha = 1\nbeta = 2\n"


@pytest.fixture
def text_file(root: Path) -> Path:
    path = root / "a.txt"
    path.write_text(TEXT)
    return path


# -- regular expressions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "limit"),
    [
        ("a" * 10_001, "pattern_length"),
        ("a{100000000}", "repetition_count"),
        ("a{10000000}", "repetition_count"),
        ("(?:(?:a{100}){100}){100}", "repetition_expansion"),
        ("(?:a{1000}){100}" * 2, "repetition_expansion"),
        ("a{1000}" * 200, "repetition_expansion"),
        ("(" * 50_000 + "a" + ")" * 50_000, "pattern_length"),
        ("(" * 3000 + "a" + ")" * 3000, "nesting"),
        ("(?#[)a{5000000}", "repetition_count"),
        ("(?<=x)a{10000000}>", "repetition_count"),
        ("(?x)#[\na{5000000}]", "repetition_count"),
        ("(?:(?:(?:a{1000})(?#c){1000})(?#c){10})", "repetition_expansion"),
        ("(?x)(?:(?:a{1000}) {1000}) {5}", "repetition_expansion"),
        ("(?R)", "recursion"),
        ("(a)(?1)", "recursion"),
        ("(?P<x>a(?&x)?b)", "recursion"),
    ],
    ids=[
        "long",
        "a{1e8}",
        "a{1e7}",
        "nested counts",
        "counts in sequence",
        "many counts",
        "deep groups",
        "deeper groups",
        "a count behind a comment's [",
        "a count behind a lookbehind",
        "a count behind a verbose comment's [",
        "counts after comments",
        "counts after verbose spaces",
        "(?R)",
        "(?1)",
        "(?&x)",
    ],
)
def test_a_costly_regex_is_refused_naming_the_limit(
    root: Path, text_file: Path, pattern: str, limit: str
) -> None:
    snap = Snapshot.of(text_file)
    ws = Workspace([root], max_argument_bytes=10**6)
    with pytest.raises(EditError) as err:
        ws.safe_edit("a.txt", search_replace={"search": pattern, "replace": "x", "regex": True})
    assert (err.value.code, err.value.data["limit"]) == ("INVALID_REGEX", limit)
    assert len(err.value.message) < 3000
    assert Snapshot.of(text_file) == snap


def test_ordinary_counted_repetitions_still_work(root: Path, text_file: Path) -> None:
    ws = Workspace([root])
    ws.safe_edit(
        "a.txt",
        search_replace={"search": r"(\w{2,5})a = (\d{1})", "replace": r"\1 = \2", "regex": True},
    )
    assert text_file.read_text() == "alph = 1\nbet = 2\n"


# -- arguments -------------------------------------------------------------------------------


def test_an_argument_over_its_limit_is_refused_before_any_work(root: Path, text_file: Path) -> None:
    ws = Workspace([root], max_argument_bytes=1000)
    with pytest.raises(EditError) as err:
        ws.edit_file("a.txt", [{"old_text": "x" * 1001, "new_text": "y"}])
    e = err.value
    assert (e.code, e.data["field"], e.data["limit"]) == (
        "INVALID_REQUEST",
        "edits[0].old_text",
        1000,
    )
    with pytest.raises(EditError) as err:
        ws.edit_file("a.txt", [{"old_text": "é" * 600, "new_text": "y"}])  # 1,200 bytes
    assert err.value.data["field"] == "edits[0].old_text"


def test_a_request_over_its_limit_is_refused(root: Path, text_file: Path) -> None:
    ws = Workspace([root], max_argument_bytes=1000, max_request_bytes=5000)
    edits = [{"old_text": "x" * 900, "new_text": "y"}] * 10
    with pytest.raises(EditError) as err:
        ws.edit_file("a.txt", edits)
    assert (err.value.code, err.value.data["limit"]) == ("INVALID_REQUEST", 5000)


def test_arguments_nested_too_deeply_are_refused(root: Path, text_file: Path) -> None:
    deep: Any = "x"
    for _ in range(100):
        deep = [deep]
    with pytest.raises(EditError) as err:
        next(t for t in TOOLS if t.name == "edit_file").call(
            Workspace([root]).context, {"path": "a.txt", "edits": deep}
        )
    assert err.value.code == "INVALID_REQUEST"


def test_a_huge_search_text_is_answered_fast_and_echoed_in_part(
    root: Path, text_file: Path
) -> None:
    old = "x = compute(value) + 1\n" * 300_000  # 6.9 MB
    with pytest.raises(EditError) as err:
        Workspace([root]).edit_file("a.txt", [{"old_text": old, "new_text": "y"}])
    e = err.value
    assert e.code == "NO_MATCH"
    assert len(str(e.to_dict())) < 20_000
    assert e.data["search_text"].endswith("more characters)")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_lines", {"edits": [{"line_number": True, "type": "Delete"}]}),
        ("edit_lines", {"edits": [{"line_number": "1", "type": "Delete"}]}),
        ("edit_lines", {"edits": [{"line_number": 1.0, "type": "Delete"}]}),
        ("edit_file", {"edits": [{"old_text": "alpha", "new_text": "A", "occurrences": "1"}]}),
        ("edit_file", {"edits": [{"old_text": "alpha", "new_text": "A"}], "dry_run": "false"}),
        ("safe_edit", {"search_replace": {"search": "a", "replace": "b", "regex": "yes"}}),
        ("safe_edit", {"search_replace": {"search": "a", "replace": "b", "count": True}}),
        ("safe_edit", {"search_replace": {"search": "a", "replace": "b", "flags": True}}),
        ("safe_edit", {"line_edits": [{"start_line": "1", "end_line": 1, "new_content": ""}]}),
        ("read_file", {"start_line": True}),
    ],
)
def test_arguments_of_the_wrong_type_are_refused_and_nothing_is_written(
    root: Path, text_file: Path, tool: str, arguments: dict[str, Any]
) -> None:
    snap = Snapshot.of(text_file)
    with pytest.raises(EditError) as err:
        next(t for t in TOOLS if t.name == tool).call(
            Workspace([root]).context, {"path": "a.txt", **arguments}
        )
    assert err.value.code == "INVALID_REQUEST"
    assert Snapshot.of(text_file) == snap


# -- results ---------------------------------------------------------------------------------


def test_a_result_over_the_file_size_limit_is_refused_before_writing(root: Path) -> None:
    small = root / "small.txt"
    small.write_text("x\n" * 100)
    snap = Snapshot.of(small)
    ws = Workspace([root], max_file_bytes=1000)
    with pytest.raises(EditError) as err:
        ws.edit_file("small.txt", [{"old_text": "x\n", "new_text": "y" * 20, "occurrences": 100}])
    assert (err.value.code, err.value.data["result"]) == ("FILE_TOO_LARGE", True)
    with pytest.raises(EditError) as err:
        ws.write_file("new.txt", "z" * 1001)
    assert err.value.code == "FILE_TOO_LARGE"
    # Characters that take several bytes are only counted while they are encoded.
    with pytest.raises(EditError) as err:
        ws.write_file("small.txt", "é" * 600)
    assert err.value.code == "FILE_TOO_LARGE"
    assert Snapshot.of(small) == snap
    assert not (root / "new.txt").exists()
    assert no_temp_files(root)


def test_a_long_diff_is_cut_with_the_count_of_the_rest(root: Path) -> None:
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(5000)))
    result = Workspace([root]).write_file("big.txt", "".join(f"LINE {n}\n" for n in range(5000)))
    last = result.diff.rstrip("\n").split("\n")[-1]
    assert result.diff.count("\n") == 2003
    assert last.startswith("... 8,001 more lines of diff not shown")


# -- paths -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("a" * 50_000_000, "path"),
        ("x/" * 3000 + "a.txt", "path"),
        ("b" * 300 + ".txt", "path"),
        ("\ud800.txt", "path"),
    ],
    ids=["50 MB", "6,000 bytes", "a name of 304 bytes", "a high surrogate"],
)
def test_a_path_no_file_system_can_hold_is_an_invalid_request(
    root: Path, path: str, field: str
) -> None:
    with pytest.raises(EditError) as err:
        Workspace([root], max_argument_bytes=10**8, max_request_bytes=10**8).read_file(path)
    assert (err.value.code, err.value.data["field"]) == ("INVALID_REQUEST", field)


def test_a_name_of_250_bytes_can_be_edited(root: Path) -> None:
    name = "n" * 246 + ".txt"
    (root / name).write_text("x\n")
    Workspace([root]).edit_file(name, [{"old_text": "x", "new_text": "y"}])
    assert (root / name).read_text() == "y\n"


def test_a_parent_that_is_a_file_is_named_as_such(root: Path, text_file: Path) -> None:
    with pytest.raises(EditError) as err:
        Workspace([root]).write_file("a.txt/b.txt", "x")
    assert (err.value.code, err.value.data["not_a_folder"]) == ("NOT_A_FILE", "a.txt")


def test_a_file_that_vanishes_mid_edit_is_stale_not_permission_denied(
    root: Path, text_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_access = os.access

    def vanish(name: Any, mode: int, **kwargs: Any) -> bool:
        os.unlink(name, dir_fd=kwargs.get("dir_fd"))  # another process removes it right now
        return real_access(name, mode, **kwargs)

    monkeypatch.setattr(os, "access", vanish)
    with pytest.raises(EditError) as err:
        Workspace([root]).edit_file("a.txt", [{"old_text": "alpha", "new_text": "A"}])
    assert err.value.code == "STALE_VERSION"


def test_a_failed_write_removes_the_folders_it_created(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)  # a full disk cannot be produced otherwise here
    with pytest.raises(EditError) as err:
        Workspace([root]).write_file("new/deeper/x.txt", "x\n")
    assert err.value.code == "WRITE_FAILED"
    assert list(root.iterdir()) == []


def test_an_in_place_rewrite_after_the_last_hash_is_seen(
    root: Path, text_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = atomic.version_now

    def rewritten_meanwhile(*args: Any) -> Any:
        now = real(*args)
        with open(text_file, "r+b") as handle:  # same size, other bytes, same inode
            handle.write(b"ALPHA")
        return now

    monkeypatch.setattr(atomic, "version_now", rewritten_meanwhile)
    with pytest.raises(EditError) as err:
        Workspace([root]).edit_file("a.txt", [{"old_text": "beta", "new_text": "B"}])
    assert err.value.code == "STALE_VERSION"
    assert text_file.read_text() == "ALPHA = 1\nbeta = 2\n"


def test_a_search_that_matches_too_many_places_is_refused_early(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = root / "big.txt"
    big.write_text("x" * 600_000 + "\n")
    snap = Snapshot.of(big)
    ws = Workspace([root])
    with pytest.raises(EditError) as err:
        ws.edit_file("big.txt", [{"old_text": "x", "new_text": "y"}])
    assert (err.value.code, err.value.data["field"]) == ("TOO_MANY_EDITS", "edits[0].old_text")
    # A lower limit, so that collecting the matches stays far inside the regex's time budget
    # on a loaded machine (past it, the refusal is REGEX_TIMEOUT instead).
    monkeypatch.setattr(regex_replace, "MAX_MATCHES", 50_000)
    for regex in (False, True):
        with pytest.raises(EditError) as err:
            ws.safe_edit("big.txt", search_replace={"search": "x", "replace": "y", "regex": regex})
        assert err.value.code == "TOO_MANY_EDITS"
    ws.safe_edit("big.txt", search_replace={"search": "x", "replace": "y", "count": 2})
    assert big.read_text().startswith("yyx")
    big.write_text(snap.data.decode())


def test_replacements_that_would_grow_past_the_limit_stop_while_they_are_made(
    root: Path, text_file: Path
) -> None:
    snap = Snapshot.of(text_file)
    ws = Workspace([root], max_file_bytes=10_000)
    for regex in (False, True):
        with pytest.raises(EditError) as err:
            ws.safe_edit(
                "a.txt", search_replace={"search": "a", "replace": "z" * 5000, "regex": regex}
            )
        assert (err.value.code, err.value.data["result"]) == ("FILE_TOO_LARGE", True)
    assert Snapshot.of(text_file) == snap


def test_edit_symbol_chunks_count_against_the_edit_limit(root: Path) -> None:
    (root / "m.py").write_text("def f():\n    return 1\n")
    chunk = {"context_before": "def f():", "old_lines": [], "new_lines": ["    x = 1"]}
    with pytest.raises(EditError) as err:
        Workspace([root], max_edits=3).edit_symbol(
            "m.py", "f", chunks=[{**chunk, "context_after": ""}] * 4
        )
    assert (err.value.code, err.value.data["limit"]) == ("TOO_MANY_EDITS", 3)


def test_a_socket_in_place_of_the_file_is_not_a_file(root: Path) -> None:
    import socket

    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root / "sock"))
        with pytest.raises(EditError) as err:
            Workspace([root]).read_file("sock")
    assert err.value.code == "NOT_A_FILE"


def test_diffs_stay_small_and_fast_whatever_the_lines(root: Path) -> None:
    ws = Workspace([root])
    # One long line, changed everywhere: linear work, and a cut line instead of megabytes.
    (root / "line.txt").write_text("a" * 400_000)
    result = ws.safe_edit("line.txt", search_replace={"search": "a", "replace": "b", "count": 0})
    assert result.diff is not None
    assert len(result.diff) < 20_000
    assert "more characters)" in result.diff
    # Alternating lines against uniform ones: the worst case of a line matcher.
    (root / "alt.txt").write_text("a\n" * 4000)
    result2 = ws.write_file("alt.txt", "a\nb\n" * 2000)
    assert result2.diff.count("\n") <= 2003


def test_a_diff_of_many_hunks_or_wide_characters_stays_bounded(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace([root])
    blocks = "".join("x\n" * 500 + "".join(f"s{k}_{j}\n" for j in range(8)) for k in range(20))
    (root / "a.txt").write_text(blocks)
    compared: list[int] = []

    class Counted(difflib.SequenceMatcher):  # type: ignore[type-arg]
        def __init__(self, isjunk: None, a: list[str], b: list[str], autojunk: bool) -> None:
            compared.append(len(a) * len(b))
            super().__init__(isjunk, a, b, autojunk)

    # Each hunk used to get its own matcher budget (a second each): the line pairs compared
    # for one diff stay within one budget, however many hunks it has.
    monkeypatch.setattr(diff_module, "difflib", SimpleNamespace(SequenceMatcher=Counted))
    result = ws.safe_edit(
        "a.txt", search_replace={"search": r"x\nx\n", "replace": "x\ny\n", "regex": True}
    )
    monkeypatch.undo()
    assert compared
    assert sum(compared) <= diff_module._MATCH_BUDGET
    assert result.diff is not None
    (root / "e.txt").write_text(("\U0001f600" * 1990 + "\n") * 200)
    wide = ws.write_file("e.txt", ("b" + "\U0001f600" * 1989 + "\n") * 200)
    assert len(json.dumps(wide.diff)) < 300_000
