"""grep: content search on real files, with the real ripgrep and with the Python scan it falls
back to (forced by pointing $EDITGUARD_RG at nothing); both engines answer the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from editguard import Workspace
from editguard.core.hits import Hits
from editguard.errors import EditError
from editguard.fs import ripgrep, scan
from editguard.fs.ripgrep import Query
from editguard.fs.searched import Folders
from editguard.mcp_server import EditguardServer
from editguard.tools.grep import GrepResult

from .conftest import read_text

SRC = Path(__file__).resolve().parent.parent / "src"
ENGINES = ("ripgrep", "python")


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test that takes it runs once with ripgrep and once with the Python scan."""
    name: str = request.param
    if name == "python":
        monkeypatch.setenv(ripgrep.RG_ENV, "/nonexistent/rg")
        assert ripgrep.find_rg() is None
    else:
        monkeypatch.delenv(ripgrep.RG_ENV, raising=False)
        assert ripgrep.find_rg() is not None, "rg is missing: install the ripgrep wheel"
    return name


def test_rg_is_found_beside_python_first_or_where_the_variable_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ripgrep.RG_ENV, raising=False)
    beside = Path(sys.executable).parent / "rg"
    if beside.exists():  # the ripgrep wheel installs it in the environment's scripts folder
        assert ripgrep.find_rg() == str(beside)
    monkeypatch.setenv(ripgrep.RG_ENV, str(tmp_path))  # a folder: no rg
    assert ripgrep.find_rg() is None
    monkeypatch.setenv(ripgrep.RG_ENV, "")
    assert ripgrep.find_rg() is None
    monkeypatch.setenv(ripgrep.RG_ENV, sys.executable)  # any executable file is taken
    assert ripgrep.find_rg() == sys.executable


def grep(ws: Workspace, engine: str, pattern: str, **kwargs: object) -> GrepResult:
    result = ws.grep(pattern, **kwargs)  # type: ignore[arg-type]
    assert result.engine == engine
    return result


def error_of(ws: Workspace, pattern: str, **kwargs: object) -> EditError:
    with pytest.raises(EditError) as caught:
        ws.grep(pattern, **kwargs)  # type: ignore[arg-type]
    return caught.value


def write(root: Path, name: str, data: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, newline="")
    return path


# -- what is found ------------------------------------------------------------------------


def test_a_literal_pattern_matches_its_metacharacters_as_text(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "a.py", "x = f(a.b)\ny = f(axb)\n")
    result = grep(ws, engine, "f(a.b)")
    assert result.content == "a.py\n1│x = f(a.b)"
    assert (result.matches, result.files, result.shown, result.truncated) == (1, 1, 1, False)


def test_a_regex_pattern_is_a_regular_expression(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "a.py", "x = f(a.b)\ny = f(axb)\nz = g(a)\n")
    result = grep(ws, engine, r"f\(a.b\)", regex=True)
    assert result.content == "a.py\n1│x = f(a.b)\n2│y = f(axb)"
    assert grep(ws, engine, r"^z = \w+\(a\)$", regex=True).content == "a.py\n3│z = g(a)"


def test_an_invalid_regex_is_invalid_regex(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "a.py", "x\n")
    error = error_of(ws, "f(unclosed", regex=True)
    assert error.code == "INVALID_REGEX"
    assert error.data["field"] == "pattern"
    # The same text, literal, is fine.
    assert grep(ws, engine, "f(unclosed").matches == 0


@pytest.mark.parametrize(
    ("pattern", "case", "lines"),
    [
        ("needle", "smart", [1, 2, 3]),
        ("Needle", "smart", [2]),
        ("needle", "sensitive", [1]),
        ("NEEDLE", "insensitive", [1, 2, 3]),
        ("Needle", "insensitive", [1, 2, 3]),
    ],
)
def test_case_modes(
    ws: Workspace, root: Path, engine: str, pattern: str, case: str, lines: list[int]
) -> None:
    write(root, "a.txt", "needle\nNeedle\nNEEDLE\n")
    result = grep(ws, engine, pattern, case=case)
    assert result.content == "a.txt\n" + "\n".join(
        f"{n}│{['needle', 'Needle', 'NEEDLE'][n - 1]}" for n in lines
    )


def test_smart_case_in_a_regex_ignores_escapes(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "a.txt", "Word one\n")
    # \W is a class, not a capital letter: the pattern is all lowercase, so insensitive.
    assert grep(ws, engine, r"word\Wone", regex=True).matches == 1


def test_context_lines_are_numbered_and_groups_are_separated(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "a.txt", "".join(f"line {n}\n" for n in range(1, 21)).replace("line 5", "hit 5"))
    (root / "a.txt").write_text((root / "a.txt").read_text().replace("line 15", "hit 15"))
    result = grep(ws, engine, "hit", context=2)
    assert result.content == (
        "a.txt (matches on lines 5, 15)\n"
        " 3│line 3\n 4│line 4\n 5│hit 5\n 6│line 6\n 7│line 7\n"
        "--\n"
        "13│line 13\n14│line 14\n15│hit 15\n16│line 16\n17│line 17"
    )
    assert (result.matches, result.shown) == (2, 2)


def test_overlapping_context_makes_one_group(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "a.txt", "a\nhit\nb\nhit\nc\nd\n")
    result = grep(ws, engine, "hit", context=1)
    assert result.content == "a.txt (matches on lines 2, 4)\n1│a\n2│hit\n3│b\n4│hit\n5│c"


def test_files_come_in_path_order_each_under_its_header(
    ws: Workspace, root: Path, engine: str
) -> None:
    for name in ("b.py", "a.py", "sub/c.py", "sub/deeper/d.py"):
        write(root, name, f"# {name}\nneedle\n")
    result = grep(ws, engine, "needle")
    assert result.content == (
        "a.py\n2│needle\n\nb.py\n2│needle\n\nsub/c.py\n2│needle\n\nsub/deeper/d.py\n2│needle"
    )
    assert (result.matches, result.files) == (4, 4)


def test_a_path_narrows_the_search_to_a_folder_or_a_file(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "a.py", "needle\n")
    write(root, "sub/b.py", "needle\n")
    write(root, "sub/c.txt", "needle\n")
    assert grep(ws, engine, "needle", path="sub").content == (
        "sub/b.py\n1│needle\n\nsub/c.txt\n1│needle"
    )
    assert grep(ws, engine, "needle", path="sub/c.txt").content == "sub/c.txt\n1│needle"
    assert grep(ws, engine, "needle", path=str(root / "a.py")).content == "a.py\n1│needle"


def test_a_glob_keeps_or_excludes_files(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "a.py", "needle\n")
    write(root, "sub/b.py", "needle\n")
    write(root, "sub/c.txt", "needle\n")
    assert grep(ws, engine, "needle", glob="*.py").content == (
        "a.py\n1│needle\n\nsub/b.py\n1│needle"
    )
    assert grep(ws, engine, "needle", glob="!*.py").content == "sub/c.txt\n1│needle"
    assert grep(ws, engine, "needle", glob="sub/*.py").content == "sub/b.py\n1│needle"


def test_a_pattern_that_starts_with_a_dash_is_searched_for(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "a.txt", "run --files here\n-e x\nplain\n")
    assert grep(ws, engine, "--files").content == "a.txt\n1│run --files here"
    assert grep(ws, engine, "-e").content == "a.txt\n2│-e x"
    assert grep(ws, engine, "--version").matches == 0
    assert grep(ws, engine, "-.", regex=True).content == "a.txt\n1│run --files here\n2│-e x"


# -- what is skipped ----------------------------------------------------------------------


def test_gitignored_and_hidden_files_are_skipped_unless_included(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, ".gitignore", "build/\n*.log\n")
    write(root, "app.py", "needle\n")
    write(root, "build/out.py", "needle\n")
    write(root, "debug.log", "needle\n")
    write(root, ".hidden/conf.py", "needle\n")
    write(root, ".env", "needle\n")
    assert grep(ws, engine, "needle").content == "app.py\n1│needle"
    every = grep(ws, engine, "needle", include_ignored=True)
    assert every.content == (
        ".env\n1│needle\n\n.hidden/conf.py\n1│needle\n\napp.py\n1│needle\n\n"
        "build/out.py\n1│needle\n\ndebug.log\n1│needle"
    )
    assert every.files == 5


def test_nothing_found_says_how_many_gitignored_or_hidden_files_hold_matches(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, ".gitignore", "*.log\n")
    write(root, "app.py", "print()\n")
    write(root, "run.log", "needle\nneedle again\n")
    write(root, ".env", "needle\n")
    result = grep(ws, engine, "needle")
    assert (result.matches, result.files, result.content) == (0, 0, "")
    assert result.note is not None
    assert "3 matching line(s) in 2 .gitignored or hidden file(s)" in result.note
    assert "include_ignored" in result.note
    # Something found: the ignored files are not searched for a count (their cost is why they
    # are left out); nothing in them at all: nothing said.
    write(root, "app.py", "needle\n")
    assert grep(ws, engine, "needle").note is None
    assert grep(ws, engine, "absent").note is None


def test_a_count_of_ignored_matches_cut_short_says_at_least(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Python scan: the search of the ignored files stops at a line its regex backtracks on.
    monkeypatch.setenv(ripgrep.RG_ENV, "")
    monkeypatch.setattr(scan, "LINE_TIMEOUT", 0.05)
    write(root, ".gitignore", "*.log\n")
    write(root, "app.py", "print()\n")
    write(root, "a.log", "aa\na\n")
    write(root, "b.log", "a" * 40 + "c\n")
    result = ws.grep("^(a|aa)+$", regex=True)
    assert (result.engine, result.matches) == ("python", 0)
    assert result.note is not None
    assert result.note.startswith("at least 2 matching line(s) in 1 .gitignored or hidden")


def test_git_metadata_is_never_searched(ws: Workspace, root: Path, engine: str) -> None:
    write(root, ".git/config", "needle\n")
    write(root, "a.txt", "needle\n")
    assert grep(ws, engine, "needle", include_ignored=True).content == "a.txt\n1│needle"


def test_binary_files_are_skipped(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "text.txt", "needle\n")
    # A match before the NUL byte, and one after, far from the start.
    write(root, "blob.bin", b"needle\n" + b"a" * 100_000 + b"\x00needle\n")
    write(root, "small.bin", b"needle\x00\n")
    result = grep(ws, engine, "needle")
    assert result.content == "text.txt\n1│needle"
    assert (result.matches, result.files) == (1, 1)
    alone = grep(ws, engine, "needle", path="small.bin")
    assert (alone.matches, alone.content) == (0, "")
    assert alone.note == "small.bin is a binary file: not searched."


def test_a_symlink_out_of_the_root_is_never_searched(
    tmp_path: Path, ws: Workspace, root: Path, engine: str
) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.txt", "needle secret\n")
    write(outside, "folder/inner.txt", "needle inner\n")
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside / "folder", root / "linkdir")
    os.symlink(outside, root / "up")
    write(root, "mine.txt", "needle mine\n")
    for include in (False, True):
        result = grep(ws, engine, "needle", include_ignored=include)
        assert result.content == "mine.txt\n1│needle mine"
    for path in ("link.txt", "linkdir", "up", "up/folder", str(outside)):
        assert error_of(ws, "needle", path=path).code == "OUTSIDE_ROOT"


def test_a_symlink_inside_the_root_is_not_followed_but_its_target_is_searched(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "real/a.txt", "needle\n")
    os.symlink(root / "real", root / "alias")
    assert grep(ws, engine, "needle").content == "real/a.txt\n1│needle"
    # Named on purpose, the link resolves to its target, shown by its real path.
    assert grep(ws, engine, "needle", path="alias").content == "real/a.txt\n1│needle"


# -- how lines are shown ------------------------------------------------------------------


def test_crlf_lines_are_shown_without_the_carriage_return(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "win.txt", "first\r\nneedle here\r\nlast\r\n")
    result = grep(ws, engine, "here$", regex=True, context=1)
    assert result.content == "win.txt (matches on lines 2)\n1│first\n2│needle here\n3│last"
    assert "\r" not in result.content


def test_a_shown_line_can_be_copied_into_an_edit(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "win.py", "def f():\r\n    return 1  # needle\r\n")
    result = grep(ws, engine, "needle")
    text = result.content.splitlines()[1].split("│", 1)[1]
    ws.edit_file("win.py", [{"old_text": text, "new_text": "    return 2  # needle"}])
    assert (root / "win.py").read_bytes() == b"def f():\r\n    return 2  # needle\r\n"


def test_a_file_that_is_not_utf8_is_searched_and_shown_decoded(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "latin.txt", "caf\xe9 needle\nna\xefve\n".encode("latin-1"))
    write(root, "bom.txt", b"\xef\xbb\xbfneedle with bom\n")
    write(root, "wide.txt", "\ufeffneedle in utf-16\r\nnext\r\n".encode("utf-16-le"))
    result = grep(ws, engine, "needle")
    assert result.content == (
        "bom.txt\n1│needle with bom\n\nlatin.txt\n1│café needle\n\nwide.txt\n1│needle in utf-16"
    )
    text = result.content.splitlines()[4].split("│", 1)[1]
    assert read_text(ws, "latin.txt").content.splitlines()[0] == f"1│{text}"


def test_a_long_line_is_cut_with_a_note(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "min.js", "x" * 800 + "needle" + "y" * 200 + "\n")
    result = grep(ws, engine, "needle")
    assert result.content == (
        "min.js\n1│" + "x" * 500 + "... (506 more characters: read_file shows the whole line)"
    )


def test_a_line_over_a_megabyte_is_counted_not_shown(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "huge.txt", "short needle\n" + "z" * 2_000_000 + " needle\n")
    result = grep(ws, engine, "needle")
    assert (result.matches, result.shown, result.files) == (2, 1, 1)
    assert result.content == (
        "huge.txt (1 matching line(s) too long to show)\n1│short needle\n\n"
        "1 matching line(s) too long to show (over 1 MB)."
    )


def test_a_file_name_with_a_line_break_or_undecodable_bytes_is_quoted(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "new\nline.txt", "needle\n")
    (root.joinpath(os.fsdecode(b"caf\xe9.txt"))).write_text("needle\n")
    result = grep(ws, engine, "needle")
    assert result.content == '"caf\\udce9.txt"\n1│needle\n\n"new\\nline.txt"\n1│needle'
    # The quoted name, read as JSON, is a path the tools take.
    name = json.loads(result.content.split("\n")[0])
    assert read_text(ws, name).content == "1│needle"


# -- caps ---------------------------------------------------------------------------------


def test_max_results_caps_the_lines_and_says_how_many_more(
    ws: Workspace, root: Path, engine: str
) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        write(root, name, "needle\nhay\nneedle\nneedle\n")
    result = grep(ws, engine, "needle", max_results=4)
    assert result.content == (
        "a.txt\n1│needle\n3│needle\n4│needle\n\nb.txt\n1│needle\n\n"
        "5 more matching line(s) not shown: narrow the path, glob or pattern, or raise "
        "max_results."
    )
    assert (result.matches, result.files, result.shown, result.truncated) == (9, 3, 4, True)


def test_the_cap_keeps_the_first_files_in_path_order(
    ws: Workspace, root: Path, engine: str
) -> None:
    for n in range(200):
        write(root, f"d{n % 7}/f{n:03}.txt", "needle\n")
    result = grep(ws, engine, "needle", max_results=3)
    assert result.content.split("\n\n")[:3] == [
        "d0/f000.txt\n1│needle",
        "d0/f007.txt\n1│needle",
        "d0/f014.txt\n1│needle",
    ]
    assert (result.matches, result.files, result.shown) == (200, 200, 3)


def test_one_file_with_many_matches_is_capped_too(ws: Workspace, root: Path, engine: str) -> None:
    write(root, "many.txt", "needle\n" * 5000)
    result = grep(ws, engine, "needle", max_results=2, context=1)
    assert result.content.startswith("many.txt (matches on lines 1, 2)\n1│needle\n2│needle\n")
    assert (result.matches, result.shown) == (5000, 2)


def test_ripgrep_is_killed_when_its_output_passes_the_cap(root: Path) -> None:
    for n in range(100):
        write(root, f"f{n}.txt", "needle\n" * 20)
    rg = ripgrep.find_rg()
    assert rg is not None
    hits = Hits(max_results=10, context=0)
    query = Query("needle", False, "smart", None, False, (str(root),))
    with Folders((str(root),)) as folders:
        outcome = ripgrep.search(
            rg, query, hits, lambda real: real, folders, max_bytes=1 << 20, max_output=20_000
        )
    assert outcome.stopped == "the search printed over 20,000 bytes"
    assert 0 < hits.matches < 100 * 20


def test_ripgrep_is_killed_at_the_timeout(root: Path) -> None:
    # A FIFO nobody writes to: rg, given it by name, blocks reading it until it is killed.
    fifo = root / "pipe"
    os.mkfifo(fifo)
    rg = ripgrep.find_rg()
    assert rg is not None
    hits = Hits(max_results=10, context=0)
    query = Query("needle", False, "smart", None, False, (str(fifo),))
    with Folders((str(root),)) as folders:
        outcome = ripgrep.search(
            rg, query, hits, lambda real: real, folders, max_bytes=1 << 20, timeout=0.2
        )
    assert outcome.stopped == "the search took over 0.2 s"
    assert hits.matches == 0


def test_the_python_scan_stops_at_its_timeout(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ripgrep.RG_ENV, "")
    monkeypatch.setattr(ripgrep, "TIMEOUT", 0.0)
    write(root, "a.txt", "needle\n")
    result = ws.grep("needle")
    assert result.engine == "python"
    assert result.truncated
    assert result.note == "Stopped early (the search took over 0 s): the counts are lower bounds."


def test_a_regex_that_backtracks_forever_stops_the_python_scan(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(root, "a.txt", "a" * 40 + "c\n")
    monkeypatch.delenv(ripgrep.RG_ENV, raising=False)
    # ripgrep's automaton runs in linear time: no match, no note.
    fast = ws.grep("(a|aa)+$", regex=True)
    assert (fast.engine, fast.matches, fast.note) == ("ripgrep", 0, None)
    monkeypatch.setenv(ripgrep.RG_ENV, "")
    monkeypatch.setattr(scan, "LINE_TIMEOUT", 0.05)
    slow = ws.grep("(a|aa)+$", regex=True)
    assert slow.engine == "python"
    assert slow.truncated
    assert slow.note == (
        "Stopped early (the regex took over 0.05 s on one line): the counts are lower bounds."
    )


# -- refusals -----------------------------------------------------------------------------


def test_paths_outside_or_missing_and_bad_patterns_are_refused(
    tmp_path: Path, ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "a.txt", "needle\n")
    os.mkfifo(root / "pipe")
    assert error_of(ws, "needle", path="../").code == "OUTSIDE_ROOT"
    assert error_of(ws, "needle", path=str(tmp_path)).code == "OUTSIDE_ROOT"
    missing = error_of(ws, "needle", path="nope/none.txt")
    assert (missing.code, missing.path) == ("FILE_NOT_FOUND", "nope/none.txt")
    assert error_of(ws, "needle", path="pipe").code == "NOT_A_FILE"
    for pattern in ("", "two\nlines", "x" * 10_001):
        assert error_of(ws, pattern).code == "INVALID_REQUEST"
    for limits in ({"context": 11}, {"context": -1}, {"max_results": 0}, {"max_results": 1001}):
        error = error_of(ws, "needle", **limits)
        assert (error.code, error.data["field"]) == ("INVALID_REQUEST", *limits)
    assert error_of(ws, "needle", case="upper").code == "INVALID_REQUEST"
    assert error_of(ws, "needle", glob="x" * 1001).code == "INVALID_REQUEST"


def test_an_invalid_glob_is_invalid_request(ws: Workspace, root: Path) -> None:
    write(root, "a.txt", "needle\n")
    error = error_of(ws, "needle", glob="{a,b")
    assert (error.code, error.data["field"]) == ("INVALID_REQUEST", "glob")


# -- bounds: sizes, patterns, characters -------------------------------------------------


def test_a_sparse_file_of_three_gigabytes_is_left_out_unread(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "a.txt", "needle\n")
    big = root / "big.log"
    with big.open("wb") as handle:  # no line break in 3 GB; no disk used
        handle.truncate(3 * 1024**3)
    result = grep(ws, engine, "needle")
    assert (result.content, result.matches) == ("a.txt\n1│needle", 1)
    if engine == "python":  # ripgrep, which reads it, finds a NUL at once: binary
        assert result.note == (
            f"1 file(s) over the size limit ({100 * 1024 * 1024:,} bytes) left out."
        )
    error = error_of(ws, "needle", path="big.log")
    assert (error.code, error.path) == ("FILE_TOO_LARGE", "big.log")
    assert error.data == {"size": 3 * 1024**3, "limit": 100 * 1024 * 1024}


def test_a_file_over_the_size_limit_is_left_out_by_both_engines_and_the_note_says_so(
    root: Path, engine: str
) -> None:
    ws = Workspace([root], max_file_bytes=1000)
    write(root, "small.txt", "needle\n")
    write(root, "large.txt", "needle\n" + "hay\n" * 500)
    result = grep(ws, engine, "needle")
    assert (result.content, result.matches, result.files) == ("small.txt\n1│needle", 1, 1)
    assert result.note == "1 file(s) over the size limit (1,000 bytes) left out."
    assert error_of(ws, "needle", path="large.txt").code == "FILE_TOO_LARGE"


@pytest.mark.parametrize(
    ("pattern", "limit"),
    [
        ("a{100000000}", "repetition_count"),
        ("(?:ab){20000000}", "repetition_count"),
        ("(?:(?:ab){999}){999}", "repetition_expansion"),
        ("(a(?1)?b)", "recursion"),
        ("x(?R)?y", "recursion"),
    ],
)
def test_a_pattern_too_costly_to_compile_is_invalid_regex_in_both_engines(
    ws: Workspace, root: Path, engine: str, pattern: str, limit: str
) -> None:
    # The Python scan took gigabytes or minutes compiling these; safe_edit's checks refuse
    # them before any engine sees them, so both engines answer the same.
    write(root, "a.txt", "ab\n")
    error = error_of(ws, pattern, regex=True)
    assert (error.code, error.data["field"], error.data["limit"]) == (
        "INVALID_REGEX",
        "pattern",
        limit,
    )
    # Literal, the same text is searched for as it is.
    assert grep(ws, engine, pattern).matches == 0
    assert grep(ws, engine, "(?:ab){2}", regex=True).matches == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("pattern", "\ud800"),
        ("pattern", "needle\udfff"),
        ("pattern", "need\x00le"),
        ("glob", "*\ud800.txt"),
        ("glob", "\udce9*"),
        ("glob", "a\x00"),
    ],
)
def test_a_nul_or_a_lone_surrogate_in_the_pattern_or_glob_is_invalid_request(
    ws: Workspace, root: Path, engine: str, field: str, value: str
) -> None:
    write(root, "a.txt", "needle\n")
    for regex in (False, True):
        arguments: dict[str, object] = {"regex": regex, field: value}
        error = error_of(ws, str(arguments.pop("pattern", "needle")), **arguments)
        assert (error.code, error.data["field"]) == ("INVALID_REQUEST", field)
        assert value[error.data["position"]] in "\x00\ud800\udfff\udce9"
    assert grep(ws, engine, "needle").matches == 1


def test_a_path_with_a_lone_surrogate_a_nul_or_a_huge_length_is_refused(
    ws: Workspace, root: Path, engine: str
) -> None:
    write(root, "a.txt", "needle\n")
    for path, code in (
        ("\ud800", "INVALID_REQUEST"),
        ("a\udce9.txt", "FILE_NOT_FOUND"),  # a name's undecodable byte: a valid path
        ("a\x00.txt", "OUTSIDE_ROOT"),
        ("a" * 100_000, "INVALID_REQUEST"),
        ("a/" * 3000, "INVALID_REQUEST"),
    ):
        assert error_of(ws, "needle", path=path).code == code, path
    assert error_of(ws, "needle" * 2000).code == "INVALID_REQUEST"
    assert error_of(ws, "needle", glob="*" * 100_000).code == "INVALID_REQUEST"


# -- both engines agree -------------------------------------------------------------------

CORPUS = {
    "src/app.py": "import os\n\ndef main(argv):\n    path = os.path.join('a', 'b')\n    return 0\n",
    "src/util.py": "def join(a, b):\n    return a + b  # TODO: check\n",
    "README.md": "# Project\n\nTODO: write docs\nUse `main(argv)`.\n",
    "docs/guide.txt": "Step 1: run main\r\nStep 2: todo\r\n",
    ".gitignore": "dist/\n",
    "dist/app.min.js": "function main(){}\n",
    ".config/settings.toml": "main = true\n",
}


@pytest.mark.parametrize(
    "call",
    [
        {"pattern": "main"},
        {"pattern": "TODO"},
        {"pattern": "todo"},
        {"pattern": "todo", "case": "sensitive"},
        {"pattern": "os.path", "context": 1},
        {"pattern": "main", "include_ignored": True},
        {"pattern": "main", "glob": "*.py"},
        {"pattern": "a", "max_results": 3, "context": 2},
        {"pattern": "(argv)"},
        {"pattern": "return", "path": "src"},
        {"pattern": "main", "path": "dist"},
        {"pattern": "main", "path": ".config"},
        {"pattern": "main", "path": "src/app.py", "glob": "*.md"},
        {"pattern": "main", "path": "dist/app.min.js"},
        {"pattern": "step", "glob": "docs/*", "context": 1},
        {"pattern": "main", "glob": "*.{py,md}"},
        {"pattern": "main", "glob": "!{src,docs}"},
    ],
)
def test_both_engines_answer_a_literal_search_the_same(
    root: Path, monkeypatch: pytest.MonkeyPatch, call: dict[str, object]
) -> None:
    for name, text in CORPUS.items():
        write(root, name, text)
    ws = Workspace([root])
    monkeypatch.delenv(ripgrep.RG_ENV, raising=False)
    fast = ws.grep(**call)  # type: ignore[arg-type]
    monkeypatch.setenv(ripgrep.RG_ENV, "/nonexistent/rg")
    slow = ws.grep(**call)  # type: ignore[arg-type]
    assert (fast.engine, slow.engine) == ("ripgrep", "python")
    assert fast.matches > 0
    assert fast.model_dump(exclude={"engine"}) == slow.model_dump(exclude={"engine"})


# -- every front end ----------------------------------------------------------------------


def test_several_roots_are_searched_the_first_relative_the_others_absolute(
    tmp_path: Path, root: Path, engine: str
) -> None:
    other = tmp_path / "other"
    write(root, "a.txt", "needle\n")
    write(other, "b.txt", "needle\n")
    ws = Workspace([root, other])
    result = grep(ws, engine, "needle")
    assert result.content == f"a.txt\n1│needle\n\n{other / 'b.txt'}\n1│needle"
    # Each shown path reads back as it is written.
    assert read_text(ws, str(other / "b.txt")).content == "1│needle"


def test_the_cli_runs_grep(root: Path) -> None:
    write(root, "a.py", "x = 1  # needle\n")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    env.pop(ripgrep.RG_ENV, None)
    proc = subprocess.run(
        [sys.executable, "-m", "editguard", "call", "grep", '{"pattern": "needle"}'],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    out = json.loads(proc.stdout)
    assert (out["content"], out["engine"]) == ("a.py\n1│x = 1  # needle", "ripgrep")
    bad = subprocess.run(
        [sys.executable, "-m", "editguard", "call", "grep", '{"pattern": "(", "regex": true}'],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 1
    assert json.loads(bad.stdout)["error"]["code"] == "INVALID_REGEX"
    # A lone surrogate, as JSON carries it (it was INTERNAL_ERROR: ripgrep cannot take it).
    lone = subprocess.run(
        [sys.executable, "-m", "editguard", "call", "grep", '{"pattern": "\\ud800"}'],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert lone.returncode == 1
    error = json.loads(lone.stdout)["error"]
    assert (error["code"], error["field"]) == ("INVALID_REQUEST", "pattern")


def test_mcp_serves_grep(root: Path) -> None:
    write(root, "app.py", "def add(a, b):\n    return a + b\n")
    server = EditguardServer(Workspace([root]), log_level="WARNING")

    async def main() -> None:
        async with Client(server, raise_exceptions=True) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["grep"].annotations is not None
            assert listed["grep"].annotations.read_only_hint is True
            found = await client.call_tool("grep", {"pattern": "a + b", "context": 1})
            assert not found.is_error
            assert found.structured_content is not None
            assert found.structured_content["content"] == (
                "app.py (matches on lines 2)\n1│def add(a, b):\n2│    return a + b"
            )
            refused = await client.call_tool("grep", {"pattern": "x", "path": "/"})
            assert refused.is_error

    anyio.run(main)


def test_the_tool_list_entry_is_lean() -> None:
    from editguard.tools import tool_named

    entry = json.dumps(tool_named("grep").describe(), separators=(",", ":"))
    assert len(entry) <= 900
