"""Unified and git diffs: parsing what real tools and models write, and placing each hunk."""

from __future__ import annotations

import re
import shutil
import subprocess
from difflib import SequenceMatcher
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editguard.core.document import Document, decode
from editguard.core.formats import Compiled, diff_parse
from editguard.core.formats import unified_diff as ud
from editguard.core.formats.place.lines import MAX_LISTED, FileLines, lines_of
from editguard.core.formats.unified_diff import (
    FileDiff,
    Hunk,
    compile_hunks,
    new_file_text,
    parse_diff,
)
from editguard.core.listing import listing
from editguard.core.plan import render
from editguard.core.seek import LADDER, indent_unit, seek
from editguard.errors import EditError

from .conftest import examples
from .release_pairs import PAIRS, Pair, configobj_commit

NO_EOL = "\\ No newline at end of file"


# -- helpers -------------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    if not text:
        return []
    return text.removesuffix("\n").split("\n")


def _range(start: int, stop: int) -> str:
    """A hunk range as diff -u writes it (difflib's rule)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def unified(a: str, b: str, path: str = "f.txt", context: int = 3) -> str:
    """The unified diff of two ``\\n`` texts, with the no-newline markers diff -u writes."""
    la, lb = _lines(a), _lines(b)
    a_open = bool(a) and not a.endswith("\n")
    b_open = bool(b) and not b.endswith("\n")
    # A last line without a break differs from the same text with one.
    ka: list[tuple[str, bool]] = [(x, a_open and k == len(la) - 1) for k, x in enumerate(la)]
    kb: list[tuple[str, bool]] = [(x, b_open and k == len(lb) - 1) for k, x in enumerate(lb)]
    out = [f"--- a/{path}", f"+++ b/{path}"]
    matcher = SequenceMatcher(None, ka, kb, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for k in range(a1, a2):
                    out.append(" " + la[k])
                    if ka[k][1]:
                        out.append(NO_EOL)
                continue
            for k in range(a1, a2):
                out.append("-" + la[k])
                if ka[k][1]:
                    out.append(NO_EOL)
            for k in range(b1, b2):
                out.append("+" + lb[k])
                if kb[k][1]:
                    out.append(NO_EOL)
    return "\n".join(out) + "\n"


def apply(before: str | bytes, diff: str, *, exact: bool = False) -> tuple[bytes, Compiled]:
    doc = decode(before.encode() if isinstance(before, str) else before)
    files = parse_diff(diff)
    assert len(files) == 1
    compiled = compile_hunks(doc, files[0], exact=exact)
    return b"".join(render(doc, compiled.plan)), compiled


def fails(before: str, diff: str, *, exact: bool = False) -> EditError:
    with pytest.raises(EditError) as info:
        apply(before, diff, exact=exact)
    return info.value


def shift_numbers(diff: str, by: int) -> str:
    """``diff`` with every hunk's line numbers moved by ``by`` (not below 1)."""

    def moved(m: re.Match[str]) -> str:
        o, oc, n, nc = m.groups()
        return f"@@ -{max(int(o) + by, 1)}{oc or ''} +{max(int(n) + by, 1)}{nc or ''} @@"

    return re.sub(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", moved, diff, flags=re.MULTILINE)


TEN = "".join(f"line {k}\n" for k in range(1, 11))


# -- parsing -------------------------------------------------------------------------------


def test_diff_run_output_with_timestamps_gives_both_files() -> None:
    diff = (
        "diff -ruN a/one.txt b/one.txt\n"
        "--- a/one.txt\t2024-01-02 10:00:00.000000000 +0100\n"
        "+++ b/one.txt\t2024-01-02 11:00:00.000000000 +0100\n"
        "@@ -1,2 +1,2 @@\n"
        " keep\n"
        "-old\n"
        "+new\n"
        "diff -ruN a/two.txt b/two.txt\n"
        "--- a/two.txt\t1970-01-01 01:00:00.000000000 +0100\n"
        "+++ b/two.txt\t2024-01-02 11:00:00.000000000 +0100\n"
        "@@ -0,0 +1 @@\n"
        "+hello\n"
    )
    one, two = parse_diff(diff)
    assert (one.old_path, one.new_path, one.line) == ("one.txt", "one.txt", 2)
    assert one.hunks[0].lines == ((" ", "keep"), ("-", "old"), ("+", "new"))
    assert one.hunks[0].old == ("keep", "old")
    assert one.hunks[0].new == ("keep", "new")
    assert (one.hunks[0].old_start, one.hunks[0].new_start, one.hunks[0].line) == (1, 1, 4)
    assert (two.old_path, two.new_path) == ("two.txt", "two.txt")
    assert two.hunks[0].new == ("hello",)


@pytest.mark.parametrize(
    ("diff", "expected"),
    [
        pytest.param(
            "diff --git a/run.sh b/run.sh\nnew file mode 100755\nindex 0000000..e69de29\n"
            "--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n+echo hi\n",
            (None, "run.sh", None, 0o100755, 1, False),
            id="new file",
        ),
        pytest.param(
            "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\nindex e69de29..0000000\n"
            "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n",
            ("gone.py", None, 0o100644, None, 1, False),
            id="deleted file",
        ),
        pytest.param(
            "diff --git a/tool b/tool\nold mode 100644\nnew mode 100755\n",
            ("tool", "tool", 0o100644, 0o100755, 0, False),
            id="mode change without hunks",
        ),
        pytest.param(
            "diff --git a/old name.py b/new name.py\nsimilarity index 100%\n"
            "rename from old name.py\nrename to new name.py\n",
            ("old name.py", "new name.py", None, None, 0, False),
            id="rename without hunks",
        ),
        pytest.param(
            "diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n"
            "index 1111111..2222222 100644\n--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n",
            ("a.py", "b.py", 0o100644, 0o100644, 1, False),
            id="rename with a hunk",
        ),
        pytest.param(
            "diff --git a/x.py b/x.py\nindex 1111111..2222222 100755\n--- a/x.py\n+++ b/x.py\n"
            "@@ -1 +1 @@\n-x\n+y\n",
            ("x.py", "x.py", 0o100755, 0o100755, 1, False),
            id="modes from the index line",
        ),
        pytest.param(
            'diff --git "a/sp\\303\\251cial name" "b/sp\\303\\251cial name"\n'
            "index 1111111..2222222 100644\n"
            '--- "a/sp\\303\\251cial name"\n+++ "b/sp\\303\\251cial name"\n@@ -1 +1 @@\n-x\n+y\n',
            ("spécial name", "spécial name", 0o100644, 0o100644, 1, False),
            id="C-quoted paths",
        ),
        pytest.param(
            'diff --git "a/tab\\there" "b/tab\\there"\nold mode 100644\nnew mode 100755\n',
            ("tab\there", "tab\there", 0o100644, 0o100755, 0, False),
            id="C-quoted paths without hunks",
        ),
        pytest.param(
            "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\n"
            "Binary files a/logo.png and b/logo.png differ\n",
            ("logo.png", "logo.png", 0o100644, 0o100644, 0, True),
            id="binary, git without --binary",
        ),
        pytest.param(
            "diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..1111111\n"
            "GIT binary patch\nliteral 5\nMcmZ?wbhEHP00E5vVE_OC\n\nliteral 0\nHcmV?d00001\n\n",
            (None, "logo.png", None, 0o100644, 0, True),
            id="GIT binary patch",
        ),
        pytest.param(
            "Binary files old/logo.png and new/logo.png differ\n",
            ("old/logo.png", "new/logo.png", None, None, 0, True),
            id="binary, diff -r",
        ),
        pytest.param(
            "--- src/app.py\n+++ src/app.py\n@@ -1 +1 @@\n-x\n+y\n",
            ("src/app.py", "src/app.py", None, None, 1, False),
            id="no prefixes",
        ),
        pytest.param(
            "--- a/src/app.py\n+++ src/app.py\n@@ -1 +1 @@\n-x\n+y\n",
            ("a/src/app.py", "src/app.py", None, None, 1, False),
            id="a/ kept when only one side has its prefix",
        ),
    ],
)
def test_file_headers_give_paths_modes_and_binary(
    diff: str, expected: tuple[str | None, str | None, int | None, int | None, int, bool]
) -> None:
    (found,) = parse_diff(diff)
    assert (
        found.old_path,
        found.new_path,
        found.old_mode,
        found.new_mode,
        len(found.hunks),
        found.binary,
    ) == expected


def test_a_git_copy_is_refused_at_its_line() -> None:
    diff = "diff --git a/a.py b/b.py\nsimilarity index 100%\ncopy from a.py\ncopy to b.py\n"
    with pytest.raises(EditError) as info:
        parse_diff(diff)
    assert info.value.code == "INVALID_PATCH"
    assert info.value.data["line"] == 3


def test_several_git_files_and_a_commit_message_before_them() -> None:
    diff = (
        "From 1234abcd Mon Sep 17 00:00:00 2001\n"
        "From: Someone <someone@example.com>\n"
        "Subject: [PATCH] fix both\n"
        "\n"
        "--- a/this line is in the message\n"
        "---\n"
        " a.py | 2 +-\n"
        "\n"
        "diff --git a/a.py b/a.py\n"
        "index 1111111..2222222 100644\n"
        "--- a/a.py\n"
        "+++ b/a.py\n"
        "@@ -1,3 +1,3 @@ def f():\n"
        " one\n"
        "-two\n"
        "+TWO\n"
        " three\n"
        "diff --git a/b.py b/b.py\n"
        "index 1111111..2222222 100644\n"
        "--- a/b.py\n"
        "+++ b/b.py\n"
        "@@ -5 +5 @@\n"
        "-x\n"
        "+y\n"
        "-- \n"
        "2.39.5\n"
        "\n"
    )
    a, b = parse_diff(diff)
    assert (a.old_path, a.line, a.hunks[0].line) == ("a.py", 9, 13)
    assert (b.old_path, b.line) == ("b.py", 18)
    assert b.hunks[0].lines == (("-", "x"), ("+", "y"))


@pytest.mark.parametrize(
    ("body", "old", "new"),
    [
        pytest.param("@@ -3 +3 @@\n-a\n+b\n", ("a",), ("b",), id="counts omitted mean 1"),
        pytest.param("@@ -3,1 +3,1\n-a\n+b\n", ("a",), ("b",), id="closing @@ left out"),
        pytest.param(
            "@@ -1,2 +1,2 @@\n x\n-a\n+b\n y\n",
            ("x", "a", "y"),
            ("x", "b", "y"),
            id="counts too small: the body wins",
        ),
        pytest.param(
            "@@ -1,9 +1,9 @@\n x\n-a\n+b\n", ("x", "a"), ("x", "b"), id="counts too large"
        ),
        pytest.param(
            "@@\n x\n-a\n+b\n\n", ("x", "a"), ("x", "b"), id="bare @@, blank line after it"
        ),
        pytest.param(
            "@@ @@ def f():\n x\n-a\n+b\n", ("x", "a"), ("x", "b"), id="bare @@ with a heading"
        ),
        pytest.param(
            "@@ -1,3 +1,3 @@\n x\n\n-a\n+b\n",
            ("x", "", "a"),
            ("x", "", "b"),
            id="an empty line is empty context",
        ),
        pytest.param(
            "@@ -1,2 +1,2 @@\n--- a\n+++ b\n x\n",
            ("-- a", "x"),
            ("++ b", "x"),
            id="consistent counts take '--- ' lines as hunk lines",
        ),
        pytest.param(
            "@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n",
            ("a",),
            ("b",),
            id="format-patch signature after the hunk",
        ),
    ],
)
def test_hunk_bodies_as_written_by_tools_and_models(
    body: str, old: tuple[str, ...], new: tuple[str, ...]
) -> None:
    (found,) = parse_diff("--- a/f\n+++ b/f\n" + body)
    (hunk,) = found.hunks
    assert (hunk.old, hunk.new) == (old, new)


def test_a_bare_hunk_has_no_numbers() -> None:
    (found,) = parse_diff("--- a/f\n+++ b/f\n@@\n-a\n+b\n@@\n-c\n+d\n")
    assert [(h.old_start, h.new_start, h.line) for h in found.hunks] == [
        (None, None, 3),
        (None, None, 6),
    ]


def test_no_newline_markers_belong_to_the_side_of_the_line_before() -> None:
    diff = f"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-a\n{NO_EOL}\n+b\n{NO_EOL}\n"
    (hunk,) = parse_diff(diff)[0].hunks
    assert (hunk.old_ends_without_newline, hunk.new_ends_without_newline) == (True, True)
    (hunk,) = parse_diff(f"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n{NO_EOL}\n+a\n")[0].hunks
    assert (hunk.old_ends_without_newline, hunk.new_ends_without_newline) == (True, False)


def test_a_crlf_diff_is_read_without_its_carriage_returns() -> None:
    diff = "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n x\r\n-a\r\n+b\r\n"
    (found,) = parse_diff(diff)
    assert found.crlf
    assert found.new_path == "f"
    assert found.hunks[0].new == ("x", "b")
    assert not parse_diff(diff.replace("\r\n", "\n"))[0].crlf


@pytest.mark.parametrize(
    ("diff", "line"),
    [
        pytest.param("", 1, id="empty"),
        pytest.param("just some text\n", 1, id="no file"),
        pytest.param("@@ -1 +1 @@\n-a\n+b\n", 1, id="hunk before any file header"),
        pytest.param("--- a/f\n+++ b/f\n@@ -1,x +1 @@\n-a\n", 3, id="malformed header"),
        pytest.param("--- a/f\n+++ b/f\n@@ -1 +1 @@\nzzz\n", 3, id="hunk with no lines"),
        pytest.param("--- a/f\n+++ b/f\n@@@ -1 -1 +1 @@@\n", 3, id="combined diff"),
        pytest.param('diff --git "a/\\q" "b/\\q"\n', 1, id="bad escape in a quoted path"),
        pytest.param("diff --git a/f b/f\nold mode 644\n", 2, id="bad mode"),
        pytest.param("diff --git a/f b/f\nold mode 100644\nnew mode 104755\n", 3, id="setuid"),
        pytest.param("diff --git a/f b/f\nnew file mode 102755\n", 2, id="setgid"),
        pytest.param("diff --git a/f b/f\ndeleted file mode 101644\n", 2, id="sticky"),
        pytest.param("diff --git a/f b/f\nindex 1..2 100664\n", 2, id="group-writable mode"),
        pytest.param("diff --git a/f b/f\nnew file mode 040000\n", 2, id="directory mode"),
        pytest.param("diff --git a/f b/f\nold mode 100644\nnew mode 100700\n", 3, id="0700"),
        pytest.param(
            "x\n--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n", 2, id="no path, /dev/null twice"
        ),
        pytest.param(
            "diff --git a/f b/f\ndeleted file mode 100644\nnew file mode 100644\n",
            1,
            id="no path, both deleted and new",
        ),
        pytest.param(
            "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\nBinary files  and /dev/null differ\n",
            6,
            id="no path, binary names unread",
        ),
        pytest.param(
            "Binary files /dev/null and /dev/null differ\n", 1, id="no path, binary /dev/null"
        ),
        pytest.param("diff --git \n", 1, id="diff --git without names"),
        pytest.param("diff --git a/f\n--- a/f\n+++ b/f\n", 1, id="diff --git with one name"),
        pytest.param(
            '--- "a/f\\\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n', 1, id="unterminated quoted path"
        ),
        pytest.param('diff --git "a/f b/f\n', 1, id="unterminated quote on diff --git"),
        pytest.param("--- \n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", 1, id="empty old path"),
        pytest.param("--- a/\n+++ b/\n@@ -1 +1 @@\n-a\n+b\n", 1, id="only the prefixes"),
        pytest.param(
            "diff --git a/f b/g\nrename from \nrename to g\n", 1, id="empty rename source"
        ),
        pytest.param('diff --git a/f b/f\n--- ""\n+++ b/f\n', 1, id="empty quoted path"),
    ],
)
def test_malformed_diffs_are_invalid_patch_at_their_line(diff: str, line: int) -> None:
    with pytest.raises(EditError) as info:
        parse_diff(diff)
    assert info.value.code == "INVALID_PATCH"
    assert info.value.data["line"] == line


def test_absurd_sizes_are_refused_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(diff_parse, "MAX_DIFF_CHARS", 100)
    with pytest.raises(EditError) as info:
        parse_diff("--- a/f\n+++ b/f\n" + "@@ -1 +1 @@\n-a\n+b\n" * 10)
    assert info.value.code == "INVALID_PATCH"
    monkeypatch.setattr(diff_parse, "MAX_DIFF_CHARS", 1 << 20)
    monkeypatch.setattr(diff_parse, "MAX_HUNKS", 3)
    with pytest.raises(EditError) as info:
        parse_diff("--- a/f\n+++ b/f\n" + "@@ -1 +1 @@\n-a\n+b\n" * 4)
    assert info.value.code == "INVALID_PATCH"
    assert info.value.data["line"] == 12


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("@@ -0,0 +1,2 @@\n+a\n+b\n", "a\nb\n"),
        (f"@@ -0,0 +1,2 @@\n+a\n+b\n{NO_EOL}\n", "a\nb"),
        ("@@ -0,0 +0,0 @@\n", ""),
    ],
)
def test_new_file_text_honours_no_newline(body: str, text: str) -> None:
    if body.endswith("@@\n"):
        diff = FileDiff(None, "n", None, 0o100644, (), binary=False, crlf=False, line=1)
    else:
        (diff,) = parse_diff("--- /dev/null\n+++ b/n\n" + body)
    assert diff.old_path is None
    assert new_file_text(diff) == text


def test_new_file_text_refuses_context_lines() -> None:
    (diff,) = parse_diff("--- /dev/null\n+++ b/n\n@@ -1 +1,2 @@\n a\n+b\n")
    with pytest.raises(EditError) as info:
        new_file_text(diff)
    assert info.value.code == "INVALID_PATCH"


# -- diffs made by real tools --------------------------------------------------------------


def _run(args: list[str], cwd: Path) -> str:
    result = subprocess.run(args, cwd=cwd, capture_output=True, check=False)
    assert result.returncode in (0, 1), result.stderr
    return result.stdout.decode()


@pytest.mark.skipif(shutil.which("diff") is None, reason="no diff command")
def test_diff_u_output_applies_and_round_trips(tmp_path: Path) -> None:
    old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk"
    new = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "old" / "x.txt").write_text(old)
    (tmp_path / "new" / "x.txt").write_text(new)
    (tmp_path / "new" / "added.txt").write_text("fresh\n")
    diff = _run(["diff", "-ruN", "old", "new"], tmp_path)
    files = {f.new_path: f for f in parse_diff(diff)}
    assert set(files) == {"new/added.txt", "new/x.txt"}
    assert files["new/x.txt"].old_path == "old/x.txt"
    assert new_file_text(files["new/added.txt"]) == "fresh\n"
    doc = decode(old.encode())
    compiled = compile_hunks(doc, files["new/x.txt"])
    assert b"".join(render(doc, compiled.plan)) == new.encode()


@pytest.mark.skipif(shutil.which("git") is None, reason="no git command")
def test_git_diff_no_index_with_a_quoted_name_applies(tmp_path: Path) -> None:
    old = "\u00e9t\u00e9\r\nb\r\nc\r\n"
    new = "\u00e9t\u00e9\r\nb2\r\nc\r\n"
    (tmp_path / "spécial old.txt").write_bytes(old.encode())
    (tmp_path / "spécial new.txt").write_bytes(new.encode())
    diff = _run(
        [
            "git",
            "-c",
            "core.quotepath=true",
            "diff",
            "--no-index",
            "--no-color",
            "spécial old.txt",
            "spécial new.txt",
        ],
        tmp_path,
    )
    assert '"a/sp\\303\\251cial old.txt"' in diff
    (found,) = parse_diff(diff)
    assert (found.old_path, found.new_path) == ("spécial old.txt", "spécial new.txt")
    assert found.crlf
    doc = decode(old.encode())
    assert b"".join(render(doc, compile_hunks(doc, found).plan)) == new.encode()


@pytest.mark.skipif(shutil.which("git") is None, reason="no git command")
def test_git_diff_of_a_repository_with_every_kind_of_change(tmp_path: Path) -> None:
    env_args = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.quotepath=true"]

    def git(*args: str) -> str:
        return _run(["git", *env_args, *args], tmp_path)

    git("init", "-q")
    (tmp_path / "edit.txt").write_text(TEN)
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "moved.txt").write_text("same\ncontent\nhere\nfor\nrename\n")
    (tmp_path / "tool.sh").write_text("echo\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    git("add", "-A")
    git("commit", "-qm", "start")
    (tmp_path / "edit.txt").write_text(TEN.replace("line 5\n", "line five\n"))
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "moved.txt").rename(tmp_path / "renamed.txt")
    (tmp_path / "tool.sh").chmod(0o755)
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x03")
    (tmp_path / "new.txt").write_text("one\ntwo")
    git("add", "-A")
    diff = git("diff", "--cached", "-M", "--no-color")
    files = {f.new_path or f.old_path: f for f in parse_diff(diff)}
    assert files["edit.txt"].hunks[0].old_start == 2
    assert (files["gone.txt"].old_path, files["gone.txt"].new_path) == ("gone.txt", None)
    assert (files["renamed.txt"].old_path, files["renamed.txt"].hunks) == ("moved.txt", ())
    assert (files["tool.sh"].old_mode, files["tool.sh"].new_mode) == (0o100644, 0o100755)
    assert files["blob.bin"].binary
    assert files["new.txt"].old_path is None
    assert new_file_text(files["new.txt"]) == "one\ntwo"
    doc = decode(TEN.encode())
    compiled = compile_hunks(doc, files["edit.txt"])
    assert b"".join(render(doc, compiled.plan)) == TEN.replace("line 5\n", "line five\n").encode()


# -- placing hunks -------------------------------------------------------------------------

PLACEMENTS: dict[str, tuple[str, str, str]] = {
    "exact at the stated line": (
        TEN,
        "@@ -4,3 +4,3 @@\n line 4\n-line 5\n+line five\n line 6\n",
        TEN.replace("line 5\n", "line five\n"),
    ),
    "a pure insertion into an empty file": ("", "@@ -0,0 +1,2 @@\n+a\n+b\n", "a\nb\n"),
    "a pure insertion at its stated line": (
        "a\nb\nc\n",
        "@@ -2,0 +3 @@\n+new\n",
        "a\nb\nnew\nc\n",
    ),
    "a pure deletion without context": ("a\nb\nc\n", "@@ -2 +1,0 @@\n-b\n", "a\nc\n"),
    "two hunks, the second shifted by the first's offset": (
        TEN,
        "@@ -3,2 +3,2 @@\n line 5\n-line 6\n+six\n@@ -7,2 +7,2 @@\n line 9\n-line 10\n+ten\n",
        TEN.replace("line 6\n", "six\n").replace("line 10\n", "ten\n"),
    ),
    "a bare hunk at its one place": (
        TEN,
        "@@\n line 2\n-line 3\n+three\n",
        TEN.replace("line 3\n", "three\n"),
    ),
    "trailing whitespace in the diff": (
        "def f():\n    return 1\n",
        "@@ -1,2 +1,2 @@\n def f():  \n-    return 1 \n+    return 2\n",
        "def f():\n    return 2\n",
    ),
    "indentation shifted in the diff": (
        "class A:\n    def f(self):\n        return 1\n",
        "@@ -2,2 +2,2 @@\n def f(self):\n-    return 1\n+    return 2\n",
        "class A:\n    def f(self):\n        return 2\n",
    ),
    "new side without a newline at the end": (
        "a\nb\n",
        f"@@ -1,2 +1,2 @@\n a\n-b\n+c\n{NO_EOL}\n",
        "a\nc",
    ),
    "old side without a newline gains one": (
        "a\nb",
        f"@@ -1,2 +1,2 @@\n a\n-b\n{NO_EOL}\n+c\n",
        "a\nc\n",
    ),
    "no markers keep a missing final newline": ("a\nb", "@@ -1,2 +1,3 @@\n a\n b\n+c\n", "a\nb\nc"),
    "both sides without a newline": (
        "a\nb",
        f"@@ -1,2 +1,2 @@\n a\n-b\n{NO_EOL}\n+c\n{NO_EOL}\n",
        "a\nc",
    ),
    "only the final newline added": ("a\nb", f"@@ -2 +2 @@\n-b\n{NO_EOL}\n+b\n", "a\nb\n"),
    "only the final newline removed": ("a\nb\n", f"@@ -2 +2 @@\n-b\n+b\n{NO_EOL}\n", "a\nb"),
    "the last lines deleted from a file without a final newline": (
        "a\nb\nc",
        f"@@ -1,3 +1 @@\n a\n-b\n-c\n{NO_EOL}\n",
        "a\n",
    ),
    "every line deleted": ("a\nb\n", "@@ -1,2 +0,0 @@\n-a\n-b\n", ""),
}


@pytest.mark.parametrize(("before", "body", "after"), PLACEMENTS.values(), ids=PLACEMENTS.keys())
def test_hunks_land_where_their_old_lines_are(before: str, body: str, after: str) -> None:
    out, _ = apply(before, "--- a/f\n+++ b/f\n" + body)
    assert out.decode() == after


def test_a_hunk_found_below_its_stated_line_reports_the_offset() -> None:
    out, compiled = apply(TEN, "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n line 5\n-line 6\n+six\n")
    assert out.decode() == TEN.replace("line 6\n", "six\n")
    (edit,) = compiled.applied
    assert (edit.offset, edit.lines, edit.match, edit.occurrences_replaced) == (3, (5,), "exact", 1)


def test_new_file_lines_count_the_earlier_hunks() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n line 1\n+extra\n line 2\n@@ -8 +9 @@\n-line 8\n+8\n"
    _, compiled = apply(TEN, diff)
    assert [e.lines for e in compiled.applied] == [(1,), (9,)]
    assert [e.offset for e in compiled.applied] == [0, 0]


def test_wrong_numbers_between_several_places_are_refused_showing_each_places_lines() -> None:
    text = "x\n" * 3 + "dup\nold\n" + "y\n" * 10 + "dup\nold\n" + "z\n"
    # Stated at line 12: the second copy (line 16) is nearer than the first (line 4), but the
    # numbers are wrong, so nearness says nothing about which one is meant.
    error = fails(text, "--- a/f\n+++ b/f\n@@ -12,2 +12,2 @@\n dup\n-old\n+new\n")
    assert error.code == "AMBIGUOUS_MATCH"
    assert (error.data["lines"], error.data["stated_line"], error.data["match"]) == (
        [4, 16],
        12,
        "exact",
    )
    lines = text.splitlines()
    assert listing(lines[3:5], 4) in error.message
    assert listing(lines[15:17], 16) in error.message


def test_a_hunk_that_fits_at_one_place_lands_there_however_far_its_numbers_are() -> None:
    text = "x\n" * 3 + "dup\nold\n" + "y\n" * 500 + "z\n"
    out, compiled = apply(text, "--- a/f\n+++ b/f\n@@ -400,2 +400,2 @@\n dup\n-old\n+new\n")
    assert out.decode() == text.replace("old", "new")
    assert compiled.applied[0].offset == -396


def test_of_several_places_the_one_at_the_stated_line_after_the_earlier_offset_is_taken() -> None:
    text = "a\nx\n" + "dup\nold\n" + "y\n" * 3 + "dup\nold\n"
    # Hunk 1 is stated 2 lines late: hunk 2, stated at line 10, is then meant at line 8.
    diff = "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n a\n-x\n+X\n@@ -10,2 +10,2 @@\n dup\n-old\n+new\n"
    out, compiled = apply(text, diff)
    assert out.decode() == "a\nX\n" + "dup\nold\n" + "y\n" * 3 + "dup\nnew\n"
    assert [e.offset for e in compiled.applied] == [-2, 0]


def test_a_hunk_that_fits_twice_lands_at_the_first_when_only_it_leaves_room_for_the_next() -> None:
    text = "dup\nold\nmid\n" + "y\n" * 5 + "dup\nold\n"
    # Numbers far off: hunk 1 fits at lines 1 and 9, but hunk 2's "mid" is only at line 3.
    diff = "--- a/f\n+++ b/f\n@@ -50,2 +50,2 @@\n dup\n-old\n+new\n@@ -60 +60 @@\n-mid\n+MID\n"
    out, _ = apply(text, diff)
    assert out.decode() == "dup\nnew\nMID\n" + "y\n" * 5 + "dup\nold\n"


def test_two_places_equally_near_are_ambiguous() -> None:
    text = "dup\nold\n" + "y\n" * 4 + "dup\nold\n"
    error = fails(text, "--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n dup\n-old\n+new\n")
    assert error.code == "AMBIGUOUS_MATCH"
    assert error.data["lines"] == [1, 7]
    assert (error.edit_index, error.total_edits, error.data["hunk"]) == (0, 1, 1)


def test_a_bare_hunk_that_fits_twice_is_ambiguous() -> None:
    error = fails("a\nb\na\nb\n", "--- a/f\n+++ b/f\n@@\n a\n-b\n+c\n")
    assert error.code == "AMBIGUOUS_MATCH"
    assert error.data["lines"] == [1, 3]


def test_the_ladder_refuses_several_places_none_at_the_stated_line() -> None:
    block = "    if x:\n        go()\n"
    text = block + "    pass\n" * 6 + block + "    pass\n" * 20
    diff = "--- a/f\n+++ b/f\n@@ -7,2 +7,2 @@\n if x:\n-    go()\n+    stop()\n"
    error = fails(text, diff)
    assert (error.code, error.data["lines"], error.data["match"]) == (
        "AMBIGUOUS_MATCH",
        [1, 9],
        "indentation",
    )
    # At the stated line, the ladder's place is taken.
    out, compiled = apply(text, diff.replace("-7,2 +7,2", "-9,2 +9,2"))
    assert (
        out.decode() == block + "    pass\n" * 6 + block.replace("go", "stop") + "    pass\n" * 20
    )
    (edit,) = compiled.applied
    assert (edit.match, edit.offset) == ("indentation", 0)
    assert edit.note


def test_ladder_places_equally_near_are_ambiguous() -> None:
    block = "    if x:\n        go()\n"
    text = block + "    pass\n" * 4 + block
    error = fails(text, "--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n if x:\n-    go()\n+    stop()\n")
    assert error.code == "AMBIGUOUS_MATCH"
    assert error.data["match"] == "indentation"


def test_exact_refuses_what_only_the_ladder_finds() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n def f():  \n-    return 1\n+    return 2\n"
    assert fails("def f():\n    return 1\n", diff, exact=True).code == "NO_MATCH"


def test_a_hunk_that_changes_only_what_the_rung_ignores_lands_as_sent() -> None:
    # Its old line's trailing whitespace is not the file's, but the change is to remove it.
    out, compiled = apply("a  \nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a \n+a\n b\n")
    assert out == b"a\nb\n"
    assert compiled.applied[0].match == "trailing_whitespace"


def test_a_hunk_that_removes_trailing_whitespace_with_a_slip_on_its_context_keeps_the_removal() -> (
    None
):
    before = "def f():\n    x = 1   \n    y = 2\n"
    diff = (
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n"
        " def f(): \n-    x = 1   \n-    y = 2\n+    x = 1\n+    y = 3\n"
    )
    out, _ = apply(before, diff)
    assert out == b"def f():\n    x = 1\n    y = 3\n"


def test_overlapping_hunks_are_refused_with_both_numbers() -> None:
    diff = (
        "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+three\n line 4\n"
        "@@ -4,2 +4,2 @@\n line 4\n-line 5\n+five\n"
    )
    error = fails(TEN, diff)
    assert error.code == "OVERLAPPING_EDITS"
    assert error.data["hunks"] == [1, 2]
    assert error.data["edits"] == [0, 1]


def test_hunks_out_of_order_are_refused() -> None:
    diff = "--- a/f\n+++ b/f\n@@ -8 +8 @@\n-line 8\n+eight\n@@ -2 +2 @@\n-line 2\n+two\n"
    error = fails(TEN, diff)
    assert error.code == "OVERLAPPING_EDITS"
    assert error.data["hunks"] == [1, 2]


def test_a_missing_hunk_names_itself_and_shows_the_file() -> None:
    diff = (
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-line 1\n+one\n"
        "@@ -5,2 +5,2 @@\n line 5\n-line 66\n+six\n"
    )
    error = fails(TEN, diff)
    assert error.code == "NO_MATCH"
    assert (error.edit_index, error.total_edits) == (1, 2)
    assert error.data["hunk"] == 2
    assert error.data["diff_line"] == 6
    assert error.data["stated_line"] == 5
    assert error.data["stated_region"]["start_line"] == 2
    assert error.data["similar_content"][0]["start_line"] == 5
    assert "hunk 2 of 2 of src/app.py" in error.message


def test_a_hunk_already_applied_lands_as_already_applied_changing_nothing() -> None:
    out, compiled = apply("a\nnew\nc\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-old\n+new\n c\n")
    assert out == b"a\nnew\nc\n"
    assert compiled.plan.replacements == ()
    (edit,) = compiled.applied
    assert (edit.already_applied, edit.occurrences_replaced, edit.lines) == (True, 0, (1,))


def test_a_hunk_whose_new_lines_are_not_at_its_place_is_still_not_found() -> None:
    error = fails("a\nnew\nc\nx\n", "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n a\n-old\n+new\n c\n")
    assert error.code == "NO_MATCH"


@pytest.mark.parametrize(
    ("before", "diff", "lines"),
    [
        # Lines added after the hunk's context: its old lines are still there, so a second
        # copy would go in.
        (
            "def f():\n    return 1\n\ndef g():\n    return 2\n\ndef h():\n    return 3\n",
            "@@ -4,2 +4,5 @@\n def g():\n     return 2\n+\n+def h():\n+    return 3\n",
            (4,),
        ),
        # Lines added before it.
        (
            "import re\nimport os\nimport sys\n\nx = 1\n",
            "@@ -1,2 +1,3 @@\n+import re\n import os\n import sys\n",
            (1,),
        ),
        # Only added lines, at the stated line.
        ("a\nfirst added line\nb\n", "@@ -1,0 +2 @@\n+first added line\n", (2,)),
        # Two hunks, the second stated in the numbers of the file before the first.
        (
            "a\nb\nnew line one\nc\nd\ne\nf\ng\nh\nnew line two\n",
            "@@ -1,2 +1,3 @@\n a\n b\n+new line one\n@@ -7,2 +8,3 @@\n g\n h\n+new line two\n",
            (1, 8),
        ),
    ],
    ids=["after", "before", "insertion", "two hunks"],
)
def test_a_diff_sent_again_is_already_applied_not_applied_twice(
    before: str, diff: str, lines: tuple[int, ...]
) -> None:
    out, compiled = apply(before, "--- a/f\n+++ b/f\n" + diff)
    assert out.decode() == before
    assert all(edit.already_applied for edit in compiled.applied)
    assert tuple(edit.lines[0] for edit in compiled.applied) == lines


def test_a_diff_half_applied_applies_the_rest_and_says_which_was_there() -> None:
    before = "a\nb\nnew line one\nc\nd\ne\nf\ng\nh\n"
    diff = (
        "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n b\n+new line one\n"
        "@@ -7,2 +8,3 @@\n g\n h\n+new line two\n"
    )
    out, compiled = apply(before, diff)
    assert out.decode() == before + "new line two\n"
    assert [edit.already_applied for edit in compiled.applied] == [True, False]


def test_new_lines_the_file_encoding_cannot_hold_are_refused() -> None:
    doc = decode("caf\xe9\n".encode("cp1252"))
    (diff,) = parse_diff("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-caf\xe9\n+caf\u20ac\u4e2d\n")
    with pytest.raises(EditError) as info:
        compile_hunks(doc, diff)
    assert info.value.code == "ENCODING_ERROR"
    assert info.value.edit_index == 0


@pytest.mark.parametrize(
    ("before", "diff_newline", "after"),
    [
        pytest.param(
            b"a\r\nb\r\nc\r\n", "\n", b"a\r\nB\r\nadded\r\nc\r\n", id="LF diff, CRLF file"
        ),
        pytest.param(b"a\nb\nc\n", "\r\n", b"a\nB\nadded\nc\n", id="CRLF diff, LF file"),
        pytest.param(b"a\nb\r\nc\n", "\n", b"a\nB\r\nadded\nc\n", id="mixed file keeps its own"),
        pytest.param(b"a\r\nb\nc\r\n", "\r\n", b"a\r\nB\nadded\r\nc\r\n", id="mixed, CRLF diff"),
    ],
)
def test_line_endings_of_the_file_are_kept(before: bytes, diff_newline: str, after: bytes) -> None:
    diff = "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+added\n c\n"
    out, _ = apply(before, diff.replace("\n", diff_newline))
    assert out == after


def test_context_lines_keep_their_bytes_on_a_tolerant_match() -> None:
    before = b"x = 1   \r\ny = 2\r\n"
    out, compiled = apply(before, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n")
    assert out == b"x = 1   \r\ny = 3\r\n"
    assert compiled.applied[0].match == "trailing_whitespace"


def test_a_hunk_with_a_no_newline_marker_lands_only_at_the_end() -> None:
    text = "a\nb\nx\na\nb"
    out, _ = apply(text, f"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n{NO_EOL}\n+c\n")
    assert out.decode() == "a\nb\nx\na\nc\n"


def test_a_built_hunk_compiles_like_a_parsed_one() -> None:
    hunk = Hunk(2, 2, ("line 2",), ("two",), (("-", "line 2"), ("+", "two")), False, False, 3)
    diff = FileDiff("f", "f", None, None, (hunk,), binary=False, crlf=False, line=1)
    compiled = compile_hunks(Document(TEN), diff)
    assert compiled.plan.apply_to_text(TEN) == TEN.replace("line 2\n", "two\n")


# -- real code -----------------------------------------------------------------------------


def _pair_cases() -> list[Pair]:
    return [p for p in PAIRS if p.old_bytes != p.new_bytes]


# (context lines, shift of every hunk's numbers). Without context, a hunk's removed lines alone
# are searched, and the nearest copy of a short line may not be the one meant: never shifted.
DIFF_KINDS = [(3, 0), (3, 7), (3, -3), (1, 0), (1, 7), (1, -3), (0, 0)]


@pytest.mark.parametrize(("context", "shift"), DIFF_KINDS, ids=str)
@pytest.mark.parametrize("pair", _pair_cases(), ids=lambda p: p.name)
def test_release_diffs_rebuild_the_newer_file_byte_for_byte(
    pair: Pair, context: int, shift: int
) -> None:
    old_doc = decode(pair.old_bytes)
    new_text = decode(pair.new_bytes).text
    diff = shift_numbers(unified(old_doc.text, new_text, pair.file_name, context), shift)
    (found,) = parse_diff(diff)
    assert found.hunks
    compiled = compile_hunks(old_doc, found)
    assert b"".join(render(old_doc, compiled.plan)) == pair.new_bytes
    assert all(e.match == "exact" for e in compiled.applied)
    if shift:
        assert compiled.applied[0].offset == -shift or found.hunks[0].old_start == 1


def test_the_release_corpus_covers_many_hunks() -> None:
    """19 files; 60 hunks with 3 lines of context, 72 with 1, 89 with none (221 in all)."""
    hunks = {
        context: sum(
            len(parse_diff(unified(*pair.texts(), context=context))[0].hunks)
            for pair in _pair_cases()
        )
        for context in (3, 1, 0)
    }
    assert len(_pair_cases()) >= 19
    assert hunks[3] >= 60
    assert sum(hunks.values()) >= 220


# -- properties ----------------------------------------------------------------------------

_text_lines = st.lists(st.sampled_from(["a", "b", "c", "", "  d", "e\t"]), max_size=30)


@settings(max_examples=examples(300), deadline=None)
@given(a=_text_lines, b=_text_lines, a_eol=st.booleans(), b_eol=st.booleans())
def test_a_diff_of_a_to_b_applied_to_a_gives_b(
    a: list[str], b: list[str], a_eol: bool, b_eol: bool
) -> None:
    before = "\n".join(a) + ("\n" if a and a_eol else "")
    after = "\n".join(b) + ("\n" if b and b_eol else "")
    diff = unified(before, after)
    if "@@" not in diff:
        assert before == after
        return
    out, _ = apply(before, diff)
    assert out.decode() == after


def test_lines_a_hunk_adds_before_its_old_ones_are_looked_for_only_there() -> None:
    # Found by hypothesis: a fourth "a" added above three was taken as sent already, found
    # below them (where the hunk never puts it) in the file's four "a"; nothing was written.
    before, after = "a\na\na\na", "a\na\na\na\na"
    out, compiled = apply(before, unified(before, after))
    assert out.decode() == after
    assert not compiled.applied[0].already_applied
    # Where the hunk puts them, its added lines read as a retry: the file is left as it is.
    line = "value = compute(x)"
    before = f"{line}\n{line}\n"
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,2 @@\n " + line + "\n+" + line + "\n"
    out, compiled = apply(before, diff)
    assert out.decode() == before
    assert compiled.applied[0].already_applied


# -- search cost ---------------------------------------------------------------------------


def _repeated(k: int, blocks: int, line: str = "x") -> str:
    """Blocks of ``k - 1`` copies of ``line`` then ``y``: a window of ``k`` copies of ``line``
    nearly fits everywhere, and fails only at its last line."""
    return (f"{line}\n" * (k - 1) + "y\n") * blocks


def test_a_long_hunk_of_a_common_line_is_found_in_linear_time() -> None:
    # Checking every place of the common line costs lines x hunk lines: about 2e10 steps here
    # (minutes); one search of the joined text takes well under a second.
    k, blocks = 10_000, 200
    text = _repeated(k, blocks) + "x\n" * k + "z\n"
    diff = f"--- a/f\n+++ b/f\n@@ -1,{k} +1,1 @@\n" + "-x\n" * k + "+gone\n"
    out, compiled = apply(text, diff, exact=True)
    assert out.decode() == _repeated(k, blocks) + "gone\nz\n"
    assert compiled.applied[0].offset == k * blocks
    assert fails(_repeated(k, blocks), diff, exact=True).code == "NO_MATCH"


def _places_by_brute_force(lines: list[str], old: list[str], low: int, high: int) -> list[int]:
    return [p for p in range(low, high + 1) if lines[p : p + len(old)] == old][:MAX_LISTED]


@settings(max_examples=examples(500), deadline=None)
@given(
    lines=st.lists(st.sampled_from(["a", "b", "", "a b"]), max_size=14),
    old=st.lists(st.sampled_from(["a", "b", ""]), min_size=1, max_size=4),
    low=st.integers(0, 15),
    high=st.integers(-2, 15),
    common=st.booleans(),
)
def test_exact_places_are_every_place_that_fits(
    lines: list[str], old: list[str], low: int, high: int, common: bool
) -> None:
    high = min(high, len(lines) - len(old))
    text = "".join(x + "\n" for x in lines)
    file = FileLines(lines_of(text), text)
    if common:  # as a hunk of common lines is searched: in the joined text
        file.compare_limit = 0
    got = file.exact_places(old, low, high, False)
    assert got == _places_by_brute_force(lines, old, low, high)


def test_a_long_hunk_of_a_common_line_is_found_on_the_ladder_in_linear_time() -> None:
    # seek checks every place of the hunk's rarest line, and each fails only at its last
    # line: about 2.5e8 steps here (minutes); the places where every line's text fits are few.
    k, blocks = 5_000, 19
    text = _repeated(k, blocks) + "x  \n" * k + "z\n"
    diff = f"--- a/f\n+++ b/f\n@@ -1,{k} +1,1 @@\n" + "-x\n" * k + "+gone\n"
    out, compiled = apply(text, diff)
    assert out.decode() == _repeated(k, blocks) + "gone\nz\n"
    assert (compiled.applied[0].match, compiled.applied[0].offset) == (
        "trailing_whitespace",
        k * blocks,
    )
    assert fails(_repeated(k, blocks), diff).code == "NO_MATCH"


_LOOSE_LINES = ["a", "a ", "  a", "\ta", "b", "\u201cb\u201d", '"b"', "", "1: a", "2: b", "2:  b"]


@settings(max_examples=examples(500), deadline=None)
@given(
    lines=st.lists(st.sampled_from(_LOOSE_LINES), max_size=12),
    old=st.lists(st.sampled_from(_LOOSE_LINES), min_size=1, max_size=3),
    low=st.integers(0, 12),
)
def test_the_ladder_finds_what_one_seek_of_the_file_finds(
    lines: list[str], old: list[str], low: int
) -> None:
    text = "".join(x + "\n" for x in lines)
    got = FileLines(lines_of(text), text).loose(old, low)
    want = seek(lines, old, start=low, ladder=LADDER[1:], indent_unit=indent_unit(lines))
    assert sorted(got, key=lambda h: h.line) == sorted(want, key=lambda h: h.line)


# -- renames, sections without a path, modes -----------------------------------------------


@pytest.mark.parametrize(
    ("diff", "rename"),
    [
        pytest.param(
            "diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n"
            "--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n",
            True,
            id="git rename",
        ),
        pytest.param(
            "diff --git a/a.py b/b.py\nsimilarity index 100%\nrename old a.py\nrename new b.py\n",
            True,
            id="old git's rename headers",
        ),
        pytest.param(
            "--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n", False, id="two names, no headers"
        ),
        pytest.param(
            "diff --git a/a.py b/b.py\n--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n",
            False,
            id="git, two names, no rename headers",
        ),
        pytest.param("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n", False, id="one name"),
    ],
)
def test_only_git_rename_headers_make_a_rename(diff: str, rename: bool) -> None:
    (found,) = parse_diff(diff)
    assert (found.old_path, found.new_path, found.rename) == (
        "a.py",
        "b.py" if "b.py" in diff else "a.py",
        rename,
    )


@pytest.mark.parametrize("mode", [0o100644, 0o100755, 0o120000, 0o160000])
def test_the_modes_git_writes_are_recorded_as_given(mode: int) -> None:
    (found,) = parse_diff(f"diff --git a/f b/f\nnew file mode {mode:06o}\n")
    assert (found.old_mode, found.new_mode) == (None, mode)


@pytest.mark.parametrize(
    "diff",
    [
        pytest.param("diff --git a/f b/g\nrename from f\n", id="from without to"),
        pytest.param("diff --git a/f b/g\nrename to g\n", id="to without from"),
        pytest.param(
            "diff --git a/f b/g\nrename old f\n--- a/f\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n",
            id="old without new, with hunks",
        ),
    ],
)
def test_an_incomplete_rename_is_refused(diff: str) -> None:
    with pytest.raises(EditError) as info:
        parse_diff(diff)
    assert info.value.code == "INVALID_PATCH"
    assert info.value.data["line"] == 1
    assert "rename" in str(info.value)


@pytest.mark.parametrize(
    ("diff", "names"),
    [
        pytest.param(
            "diff --git a/f b/g\nrename from f\nrename to h\n--- a/f\n+++ b/k\n"
            "@@ -1 +1 @@\n-x\n+y\n",
            ["h", "k"],
            id="rename to vs +++",
        ),
        pytest.param(
            "diff --git a/f b/g\nrename from f\nrename to h\n", ["h", "g"], id="rename vs git line"
        ),
        pytest.param(
            "diff --git a/f b/g\nrename from e\nrename to g\n", ["e", "f"], id="rename from vs git"
        ),
        pytest.param(
            "diff --git a/f b/f\n--- a/f\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n",
            ["g", "f"],
            id="+++ vs git line",
        ),
        pytest.param(
            "diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/g\n@@ -0,0 +1 @@\n+x\n",
            ["g", "f"],
            id="new file vs git line",
        ),
    ],
)
def test_a_git_section_whose_names_disagree_is_refused(diff: str, names: list[str]) -> None:
    with pytest.raises(EditError) as info:
        parse_diff(diff)
    assert info.value.code == "INVALID_PATCH"
    assert info.value.data["names"] == names
    assert all(repr(name) in str(info.value) for name in names)


@pytest.mark.parametrize(
    ("diff", "old", "new"),
    [
        pytest.param(
            "diff --git a/f b/g\nrename from f\nrename to g\n--- a/f\n+++ b/g\n", "f", "g", id="all"
        ),
        pytest.param(
            "diff --git a/p b/q b/r\nrename from p b/q\nrename to r\n", "p b/q", "r", id="space"
        ),
        pytest.param(
            "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n",
            None,
            "n",
            id="new file",
        ),
        pytest.param(
            "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n"
            "@@ -1 +0,0 @@\n-x\n",
            "d",
            None,
            id="deleted file",
        ),
        pytest.param(
            'diff --git "a/sp ace" "b/sp ace"\n--- "a/sp ace"\n+++ "b/sp ace"\n',
            "sp ace",
            "sp ace",
            id="quoted",
        ),
    ],
)
def test_a_git_section_whose_names_agree_is_read(
    diff: str, old: str | None, new: str | None
) -> None:
    (found,) = parse_diff(diff)
    assert (found.old_path, found.new_path) == (old, new)


RENAME_A = "diff --git a/a.txt b/{0}\nsimilarity index 100%\nrename from a.txt\nrename to {0}\n"


@pytest.mark.parametrize(
    ("diff", "path", "twice"),
    [
        pytest.param(
            RENAME_A.format("b.txt") + RENAME_A.format("c.txt"),
            "a.txt",
            "renamed or deleted",
            id="renamed twice",
        ),
        pytest.param(
            RENAME_A.format("b.txt") + "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n",
            "a.txt",
            "renamed or deleted",
            id="renamed and deleted",
        ),
        pytest.param(
            "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n" * 2,
            "a.txt",
            "renamed or deleted",
            id="deleted twice",
        ),
        pytest.param(
            "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n" * 2, "n", "created", id="created twice"
        ),
        pytest.param(
            RENAME_A.format("b.txt")
            + "diff --git a/c.txt b/b.txt\nrename from c.txt\nrename to b.txt\n",
            "b.txt",
            "created",
            id="two renames to one name",
        ),
    ],
)
def test_a_file_moved_twice_in_one_diff_is_refused(diff: str, path: str, twice: str) -> None:
    with pytest.raises(EditError) as info:
        parse_diff(diff)
    assert info.value.code == "INVALID_PATCH"
    assert (info.value.data["path"], info.value.data["twice"]) == (path, twice)
    assert info.value.data["sections"][0] == 1


def test_a_diff_may_delete_a_file_and_create_it_or_swap_names() -> None:
    retyped = (
        "diff --git a/f b/f\ndeleted file mode 100644\n"
        "diff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n"
    )
    assert [(fd.old_path, fd.new_path) for fd in parse_diff(retyped)] == [("f", None), (None, "f")]
    chain = (
        RENAME_A.format("b.txt")
        + "diff --git a/c.txt b/a.txt\nrename from c.txt\nrename to a.txt\n"
    )
    assert [(fd.old_path, fd.new_path) for fd in parse_diff(chain)] == [
        ("a.txt", "b.txt"),
        ("c.txt", "a.txt"),
    ]


THOUSAND = [f"row {k}" for k in range(1000)]


def _hunks(stated: list[int], context: str = "") -> str:
    """Hunks changing every tenth line of THOUSAND, each stated at ``stated[h]`` (1-based)."""
    out = ["--- a/f", "+++ b/f"]
    for h, line in enumerate(stated):
        k = h * 20
        out += [
            f"@@ -{line},2 +{line},2 @@",
            f" {THOUSAND[k]}{context}",
            f"-{THOUSAND[k + 1]}",
            "+x",
        ]
    return "\n".join(out) + "\n"


def test_hunks_searched_past_the_budget_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ud, "SEARCH_PASSES", 0)
    monkeypatch.setattr(ud, "SEARCH_LINES", 5000)
    before = "\n".join(THOUSAND) + "\n"
    # A trailing space on each context line: every hunk needs a tolerant search of the file.
    error = fails(before, _hunks([h * 20 + 1 for h in range(50)], context=" "))
    assert error.code == "NO_MATCH"
    assert error.data["search_spent"] is True
    assert 1 < error.data["hunk"] < 10
    assert "stated lines" in str(error)
    # Hunks far from their stated lines (each stated past the end of the file) cost only
    # the places of their rarest line: they land within this budget.
    out, _ = apply(before, _hunks([2000 + 1000 * h for h in range(50)]))
    assert out.count(b"\nx\n") == 50
    # With the default budget they land.
    monkeypatch.undo()
    out, _ = apply(before, _hunks([h * 20 + 1 for h in range(50)], context=" "))
    assert out.count(b"\nx\n") == 50


def test_hunks_not_at_their_stated_lines_cost_only_the_places_of_their_rarest_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ud, "SEARCH_PASSES", 0)
    monkeypatch.setattr(ud, "SEARCH_LINES", 2000)
    before = "\n".join(THOUSAND) + "\n"
    # Every other hunk 5 lines off (50 searches: 50 times the whole file would be 50,000 lines).
    stated = [h * 20 + 1 + (5 if h % 2 else 0) for h in range(50)]
    out, compiled = apply(before, _hunks(stated))
    assert out.count(b"\nx\n") == 50
    assert [e.offset for e in compiled.applied[:4]] == [0, -5, 5, -5]
    # The one place is taken, however far.
    far = "\n".join([*THOUSAND[:100], "a", *THOUSAND[100:]]) + "\n"
    out, compiled = apply(far, "--- a/f\n+++ b/f\n@@ -60 +60 @@\n-a\n+b\n")
    assert compiled.applied[0].offset == 41


# -- the order of the hunks decides between two places (issue 23) ---------------------------


def _numbers_from(diff: str, hunk: int, by: int) -> str:
    """``diff`` with the line numbers of its hunks from the ``hunk``-th (1-based) on moved by
    ``by``: what a model writes that numbers a hunk by another place its lines are at."""
    seen = 0

    def moved(m: re.Match[str]) -> str:
        nonlocal seen
        seen += 1
        if seen < hunk:
            return m.group(0)
        o, oc, n, nc = m.groups()
        return f"@@ -{int(o) + by}{oc or ''} +{int(n) + by}{nc or ''} @@"

    return re.sub(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", moved, diff, flags=re.MULTILINE)


def test_a_hunk_at_two_places_lands_at_the_one_that_leaves_room_for_the_later_hunks() -> None:
    before, after, diff = configobj_commit()
    lines = before.split("\n")
    hunks = parse_diff(diff)[0].hunks
    assert len(hunks) == 5
    places = {
        k: [s + 1 for s in range(len(lines)) if lines[s : s + len(h.old)] == list(h.old)]
        for k, h in enumerate(hunks, 1)
    }
    # The premises, on the real file: hunks 3 and 4 fit twice each, hunk 5 once, in between.
    assert places[3] == [745, 1363]
    assert places[4] == [924, 2335]
    assert places[5] == [1134]
    # Hunk 3 numbered at the other copy of its lines (618 lines on), the rest numbered on from
    # there: at its stated line, hunk 3 would leave hunk 5 no room after it (hunk 4 then fits
    # only at line 2335, past hunk 5), so the order of the hunks says it is the first copy.
    moved = _numbers_from(diff, 3, 1363 - 745)
    out, compiled = apply(before, moved)
    assert out.decode() == after
    # Hunk 3 is 618 lines before its numbers; the hunks after it are where that says.
    assert [e.offset for e in compiled.applied] == [0, 0, -618, 0, 0]
    # As committed, the diff lands the same.
    assert apply(before, diff)[0].decode() == after


def test_a_hunk_that_still_fits_two_places_after_the_order_is_refused() -> None:
    before, _, diff = configobj_commit()
    # Hunks 3 and 4 only: both copies of each leave room for what follows, and hunk 3's
    # numbers are at neither copy, so nothing tells them apart.
    head, *hunks = re.split(r"(?m)^(?=@@)", diff)
    two = head + hunks[2] + hunks[3]
    error = fails(before, _numbers_from(two, 1, 300))
    assert (error.code, error.data["lines"], error.data["hunk"]) == (
        "AMBIGUOUS_MATCH",
        [745, 1363],
        1,
    )
    lines = before.split("\n")
    assert listing(lines[744:747], 745) in error.message
    assert listing(lines[1362:1365], 1363) in error.message


def test_of_two_hunks_the_first_leaves_its_stated_place_when_only_the_other_leaves_room() -> None:
    text = "dup\nold\nmid\n" + "y\n" * 5 + "dup\nold\n"
    # Hunk 1 is stated at the second copy (line 9), but hunk 2's "mid" is only at line 3.
    diff = "--- a/f\n+++ b/f\n@@ -9,2 +9,2 @@\n dup\n-old\n+new\n@@ -11 +11 @@\n-mid\n+MID\n"
    out, compiled = apply(text, diff)
    assert out.decode() == "dup\nnew\nMID\n" + "y\n" * 5 + "dup\nold\n"
    assert [e.offset for e in compiled.applied] == [-8, 0]
