"""safe_edit: its three edit modes and three validation modes, category by category, on real
files."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, Workspace
from editguard.tools import tool_named
from editguard.validate import Linter

from .conftest import Snapshot, set_old_mtime

THREE = "line 1\nline 2\nline 3\n"


@pytest.fixture
def temp_file(root: Path) -> Path:
    path = root / "test.txt"
    path.write_text(THREE)
    set_old_mtime(path)
    return path


def call(ws: Workspace, **arguments: Any) -> Any:
    return tool_named("safe_edit").call(ws.context, arguments)


# 1. Input validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "At least one edit mode must be specified (content, line_edits, or search_replace)"),
        (
            {"content": "x", "search_replace": {"search": "a", "replace": "b"}},
            "Only one edit mode can be specified at a time",
        ),
        (
            {"line_edits": [{"start_line": 3, "end_line": 2, "new_content": "x"}]},
            "end_line (2) must be >= start_line (3)",
        ),
        (
            {"search_replace": {"search": "a", "replace": "b", "count": -1}},
            "count must be >= 0",
        ),
    ],
    ids=[
        "requires one edit mode",
        "rejects several modes",
        "validates the range",
        "validates the count",
    ],
)
def test_input_validation(
    ws: Workspace, temp_file: Path, arguments: dict[str, Any], message: str
) -> None:
    snap = Snapshot.of(temp_file)
    with pytest.raises(EditError) as err:
        call(ws, path="test.txt", **arguments)
    assert err.value.code == "INVALID_REQUEST"
    assert message in err.value.message
    assert Snapshot.of(temp_file) == snap


# 2. Content mode -----------------------------------------------------------------------------


def test_content_mode_full_file_rewrite(ws: Workspace, temp_file: Path) -> None:
    result = ws.safe_edit("test.txt", content="new\n")
    assert temp_file.read_text() == "new\n"
    assert (result.edit_mode, result.written, result.created) == ("content", True, False)


def test_content_mode_creates_a_file(ws: Workspace, root: Path) -> None:
    result = ws.safe_edit("new/dir/made.py", content="x = 1\n")
    assert (root / "new/dir/made.py").read_text() == "x = 1\n"
    assert result.created


def test_content_mode_with_validation(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text("x = 1\n")
    with pytest.raises(EditError) as err:
        ws.safe_edit("m.py", content="def broken(:\n")
    assert err.value.code == "VALIDATION_FAILED"
    assert (root / "m.py").read_text() == "x = 1\n"


# 3. Line edits -------------------------------------------------------------------------------


def test_line_edit_single_line(ws: Workspace, temp_file: Path) -> None:
    ws.safe_edit("test.txt", line_edits=[{"start_line": 2, "end_line": 2, "new_content": "two"}])
    assert temp_file.read_text() == "line 1\ntwo\nline 3\n"


def test_line_edit_multiple_lines(ws: Workspace, temp_file: Path) -> None:
    ws.safe_edit(
        "test.txt", line_edits=[{"start_line": 1, "end_line": 2, "new_content": "a\nb\nc\n"}]
    )
    assert temp_file.read_text() == "a\nb\nc\nline 3\n"


def test_line_edit_multiple_ranges(ws: Workspace, temp_file: Path) -> None:
    ws.safe_edit(
        "test.txt",
        line_edits=[
            {"start_line": 3, "end_line": 3, "new_content": "three"},
            {"start_line": 1, "end_line": 1, "new_content": ""},
        ],
    )
    assert temp_file.read_text() == "line 2\nthree\n"


def test_line_edit_out_of_bounds(ws: Workspace, temp_file: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "test.txt", line_edits=[{"start_line": 2, "end_line": 500, "new_content": "x"}]
        )
    assert err.value.code == "LINE_OUT_OF_RANGE"
    assert err.value.data == {"line": 500, "total_lines": 3}


def test_line_edit_overlapping_ranges(ws: Workspace, temp_file: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "test.txt",
            line_edits=[
                {"start_line": 1, "end_line": 2, "new_content": "x"},
                {"start_line": 2, "end_line": 3, "new_content": "y"},
            ],
        )
    assert err.value.code == "OVERLAPPING_EDITS"
    assert "lines 1-2 and 2-3" in err.value.message


def test_line_endings_follow_the_file(ws: Workspace, root: Path) -> None:
    (root / "w.txt").write_bytes(b"a\r\nb\r\n")
    ws.safe_edit("w.txt", line_edits=[{"start_line": 2, "end_line": 2, "new_content": "b\nc"}])
    assert (root / "w.txt").read_bytes() == b"a\r\nb\r\nc\r\n"


# 4. Search/replace ---------------------------------------------------------------------------


def test_search_replace_literal(ws: Workspace, temp_file: Path) -> None:
    result = ws.safe_edit("test.txt", search_replace={"search": "line", "replace": "row"})
    assert temp_file.read_text() == "row 1\nrow 2\nrow 3\n"
    assert result.replacements == 3


def test_search_replace_literal_treats_regex_characters_literally(
    ws: Workspace, root: Path
) -> None:
    (root / "r.txt").write_text("a.b a+b\n")
    ws.safe_edit("r.txt", search_replace={"search": "a.b", "replace": "X"})
    assert (root / "r.txt").read_text() == "X a+b\n"


@pytest.mark.parametrize(
    ("search", "replace", "expected"),
    [
        (r"line (\d)", r"L\1", "L1\nL2\nL3\n"),
        (r"line (?P<n>\d)", r"\g<n>!", "1!\n2!\n3!\n"),
        (r"(\d)\n(line)", "\\1;\n\\2", "line 1;\nline 2;\nline 3\n"),
    ],
    ids=["numbered group", "named group", "across line breaks"],
)
def test_search_replace_regex(
    ws: Workspace, temp_file: Path, search: str, replace: str, expected: str
) -> None:
    ws.safe_edit("test.txt", search_replace={"search": search, "replace": replace, "regex": True})
    assert temp_file.read_text() == expected


@pytest.mark.parametrize("flags", ["IGNORECASE|MULTILINE", "i|m", 2 | 8])
def test_search_replace_flags_as_names_or_int(
    ws: Workspace, temp_file: Path, flags: int | str
) -> None:
    ws.safe_edit(
        "test.txt",
        search_replace={"search": "^LINE 2$", "replace": "two", "regex": True, "flags": flags},
    )
    assert temp_file.read_text() == "line 1\ntwo\nline 3\n"


def test_search_replace_count_limit(ws: Workspace, temp_file: Path) -> None:
    result = ws.safe_edit(
        "test.txt", search_replace={"search": "line", "replace": "row", "count": 2}
    )
    assert temp_file.read_text() == "row 1\nrow 2\nline 3\n"
    assert result.replacements == 2


@pytest.mark.parametrize("regex", [False, True], ids=["literal", "regex"])
def test_a_count_above_the_matches_is_refused_with_where_they_are(
    ws: Workspace, temp_file: Path, regex: bool
) -> None:
    snap = Snapshot.of(temp_file)
    search = "line 2" if not regex else "line [2]"
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "test.txt",
            search_replace={"search": search, "replace": "x", "count": 2, "regex": regex},
        )
    found = err.value
    assert found.code == "WRONG_COUNT"
    assert (found.data["expected_occurrences"], found.data["actual_occurrences"]) == (2, 1)
    assert [m["line_number"] for m in found.data["match_locations"]] == [2]
    assert "count" in found.suggestions[0]
    assert "occurrences" not in found.text()  # edit_file's field, not safe_edit's
    assert Snapshot.of(temp_file) == snap


def test_a_count_above_the_matches_warns_in_interactive_mode(
    ws: Workspace, temp_file: Path
) -> None:
    result = ws.safe_edit(
        "test.txt",
        search_replace={"search": "line 2", "replace": "x", "count": 2},
        mode="interactive",
    )
    assert temp_file.read_text() == "line 1\nx\nline 3\n"
    assert result.replacements == 1
    assert "count is 2 but search matched 1 place(s), at line(s) 2" in result.warnings[0]


def test_no_match_names_safe_edits_own_field(ws: Workspace, temp_file: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.safe_edit("test.txt", search_replace={"search": "lien 2\nline 3", "replace": "x"})
    assert err.value.code == "NO_MATCH"
    assert "old_text" not in err.value.text()
    assert "copy search from it" in err.value.suggestions[0]


def test_search_replace_pattern_not_found_strict(ws: Workspace, temp_file: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.safe_edit("test.txt", search_replace={"search": "lien 2", "replace": "x"})
    assert err.value.code == "NO_MATCH"
    assert err.value.data["similar_content"][0]["start_line"] == 2


def test_search_replace_pattern_not_found_interactive(ws: Workspace, temp_file: Path) -> None:
    snap = Snapshot.of(temp_file)
    result = ws.safe_edit(
        "test.txt", search_replace={"search": "zzz", "replace": "x"}, mode="interactive"
    )
    assert (result.written, result.replacements) == (False, 0)
    assert "not found" in result.warnings[0]
    assert Snapshot.of(temp_file) == snap


def test_search_replace_invalid_regex(ws: Workspace, temp_file: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "test.txt", search_replace={"search": "line (\\d", "replace": "x", "regex": True}
        )
    assert err.value.code == "INVALID_REGEX"
    assert err.value.data["position"] == 8  # regex notices the missing ")" at the end
    assert "missing )" in err.value.message


def test_a_missing_group_in_the_replacement_is_an_invalid_regex(
    ws: Workspace, temp_file: Path
) -> None:
    with pytest.raises(EditError) as err:
        ws.safe_edit("test.txt", search_replace={"search": "line", "replace": "\\3", "regex": True})
    assert err.value.code == "INVALID_REGEX"


def test_a_catastrophic_pattern_times_out_instead_of_hanging(ws: Workspace, root: Path) -> None:
    # Even a short line is enough for (a|aa)+$ (regex answers (a+)+$ at once on 40 a's).
    (root / "a.txt").write_text("a" * 40 + "b\n")
    snap = Snapshot.of(root / "a.txt")
    with pytest.raises(EditError) as err:
        ws.safe_edit("a.txt", search_replace={"search": "(a|aa)+$", "replace": "x", "regex": True})
    assert err.value.code == "REGEX_TIMEOUT"
    assert Snapshot.of(root / "a.txt") == snap


@pytest.mark.parametrize("flags", ["ASCII", 256])  # re.ASCII is 256 (in regex, 256 is VERSION1)
def test_the_ascii_flag_means_python_re_ascii_by_name_and_by_value(
    ws: Workspace, root: Path, flags: int | str
) -> None:
    (root / "u.txt").write_text("café crème\n")
    result = ws.safe_edit(
        "u.txt", search_replace={"search": r"\w+", "replace": "W", "regex": True, "flags": flags}
    )
    assert (root / "u.txt").read_text() == "Wé WèW\n"  # é and è are not ASCII word characters
    assert result.replacements == 3
    (root / "u.txt").write_text("café crème\n")
    ws.safe_edit("u.txt", search_replace={"search": r"\w+", "replace": "W", "regex": True})
    assert (root / "u.txt").read_text() == "W W\n"  # without the flag, they are


@pytest.mark.parametrize("flags", [1, 128, 4096])
def test_unknown_flag_values_are_invalid(ws: Workspace, temp_file: Path, flags: int) -> None:
    snap = Snapshot.of(temp_file)
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "test.txt",
            search_replace={"search": "a", "replace": "b", "regex": True, "flags": flags},
        )
    assert err.value.code == "INVALID_REQUEST"
    assert "unknown regex flag value" in err.value.message
    assert Snapshot.of(temp_file) == snap


def test_unknown_flag_names_are_invalid(ws: Workspace, temp_file: Path) -> None:
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "test.txt",
            search_replace={"search": "a", "replace": "b", "regex": True, "flags": "SHOUTY"},
        )
    assert err.value.code == "INVALID_REQUEST"


# 5. Diff preview -----------------------------------------------------------------------------


def test_diff_preview_shown_by_default(ws: Workspace, temp_file: Path) -> None:
    result = ws.safe_edit("test.txt", search_replace={"search": "line 2", "replace": "two"})
    assert result.diff is not None
    assert "-line 2\n+two" in result.diff


def test_diff_preview_can_be_disabled(ws: Workspace, temp_file: Path) -> None:
    result = ws.safe_edit(
        "test.txt", search_replace={"search": "line 2", "replace": "two"}, show_diff=False
    )
    assert result.diff is None
    assert result.written


def test_diff_preview_empty_for_no_changes(ws: Workspace, temp_file: Path) -> None:
    result = ws.safe_edit("test.txt", search_replace={"search": "line 2", "replace": "line 2"})
    assert (result.diff, result.would_modify, result.written) == ("", False, False)


# 6. Modes ------------------------------------------------------------------------------------


def test_verify_only_no_write(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text("x = 1\n")
    snap = Snapshot.of(root / "m.py")
    result = ws.safe_edit(
        "m.py", search_replace={"search": "1", "replace": "(1"}, mode="verify_only"
    )
    assert (result.written, result.validation.passed) == (False, False)
    assert Snapshot.of(root / "m.py") == snap


def test_strict_rejects_invalid(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text("x = 1\n")
    with pytest.raises(EditError) as err:
        ws.safe_edit("m.py", search_replace={"search": "1", "replace": "(1"})
    assert err.value.code == "VALIDATION_FAILED"
    finding = err.value.data["findings"][0]
    assert (finding["line"], finding["line_text"]) == (1, "x = (1")


def test_interactive_writes_with_warnings(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text("x = 1\n")
    result = ws.safe_edit(
        "m.py", search_replace={"search": "1", "replace": "(1"}, mode="interactive"
    )
    assert result.written
    assert result.validation.findings
    assert (root / "m.py").read_text() == "x = (1\n"


# 7. Integration with real validators --------------------------------------------------------

needs_ruff = pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")


@needs_ruff
def test_line_edit_with_a_python_linter_warns_about_what_it_introduced(root: Path) -> None:
    (root / "m.py").write_text("import os\n\nprint(os.sep)\n")
    ws = Workspace([root], linters=["ruff"])
    result = ws.safe_edit(
        "m.py",
        line_edits=[{"start_line": 1, "end_line": 1, "new_content": "import os\nimport sys"}],
    )
    assert result.written
    codes = [(f.source, f.code) for f in result.validation.findings]
    assert codes == [("ruff", "F401")]
    assert result.validation.passed  # a warning, not a block


@needs_ruff
def test_a_blocking_linter_refuses_in_strict_mode(root: Path) -> None:
    (root / "m.py").write_text("import os\n\nprint(os.sep)\n")
    ws = Workspace(
        [root],
        linters=[
            Linter(
                "ruff",
                ("ruff", "check", "--no-cache", "--output-format=concise", "{file}"),
                (".py",),
                r"^.*?:(?P<line>\d+):(?P<column>\d+): "
                r"(?P<code>[A-Z]+\d+) (?P<message>.*)$",
                blocking=True,
            )
        ],
    )
    snap = Snapshot.of(root / "m.py")
    with pytest.raises(EditError) as err:
        ws.edit_file("m.py", [{"old_text": "import os\n", "new_text": "import os\nimport sys\n"}])
    assert err.value.code == "VALIDATION_FAILED"
    assert Snapshot.of(root / "m.py") == snap


@needs_ruff
def test_findings_already_there_are_not_reported(root: Path) -> None:
    (root / "m.py").write_text("import sys\nimport os\n\nprint(os.sep)\n")
    ws = Workspace([root], linters=["ruff"])
    result = ws.edit_file("m.py", [{"old_text": "print(os.sep)", "new_text": "print(os.sep, 1)"}])
    assert result.validation.findings == []


def test_the_linter_sees_a_temporary_copy_never_the_real_file(root: Path) -> None:
    seen = root.parent / "seen.txt"
    script = (
        f"import sys; open({str(seen)!r}, 'a').write(sys.argv[1] + '\\n'); "
        "print(sys.argv[1] + ':1:1: X1 something')"
    )
    (root / "m.py").write_text("x = 1\n")
    spy = Linter(
        "spy",
        (sys.executable, "-c", script, "{file}"),
        (".py",),
        r"^.*?:(?P<line>\d+):(?P<column>\d+): (?P<code>\w+) (?P<message>.*)$",
    )
    ws = Workspace([root], linters=[spy])
    result = ws.edit_file("m.py", [{"old_text": "1", "new_text": "2"}])
    paths = seen.read_text().splitlines()  # a TMPDIR may hold spaces
    assert len(paths) == 2  # the old and the new text
    assert all(str(root) not in p and p.endswith("m.py") for p in paths)
    assert result.validation.findings == []  # the same finding before and after


def test_a_linter_that_hangs_is_skipped_after_its_timeout(root: Path) -> None:
    (root / "m.py").write_text("x = 1\n")
    slow = Linter(
        "slow",
        (sys.executable, "-c", "import time; time.sleep(30)", "{file}"),
        (".py",),
        r"(?P<line>\d+) (?P<message>.*)",
        timeout=0.5,
    )
    ws = Workspace([root], linters=[slow])
    result = ws.edit_file("m.py", [{"old_text": "1", "new_text": "2"}])
    assert result.written
    assert "slow: timed out" in result.validation.notes[0]


def test_a_linter_that_is_not_installed_is_noted(root: Path) -> None:
    (root / "m.py").write_text("x = 1\n")
    missing = Linter(
        "ghost",
        ("no-such-linter-here", "{file}"),
        (".py",),
        r"(?P<line>\d+)"
        r" (?P<message>.*)",
    )
    result = Workspace([root], linters=[missing]).edit_file(
        "m.py", [{"old_text": "1", "new_text": "2"}]
    )
    assert result.validation.notes == ["ghost: not installed, skipped"]


def test_an_unknown_linter_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown linter"):
        Workspace(["."], linters=["lintomatic"])


def test_all_modes_are_validated_consistently(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text("a = 1\nb = 2\n")
    broken = "b = (2\n"
    attempts: list[Callable[[], object]] = [
        lambda: ws.edit_file("m.py", [{"old_text": "b = 2\n", "new_text": broken}]),
        lambda: ws.edit_lines("m.py", [{"line_number": 2, "type": "Replace", "text": broken}]),
        lambda: ws.safe_edit(
            "m.py", line_edits=[{"start_line": 2, "end_line": 2, "new_content": broken}]
        ),
        lambda: ws.safe_edit("m.py", search_replace={"search": "b = 2", "replace": "b = (2"}),
        lambda: ws.safe_edit("m.py", content="a = 1\n" + broken),
        lambda: ws.write_file("m.py", "a = 1\n" + broken),
    ]
    for attempt in attempts:
        with pytest.raises(EditError) as err:
            attempt()
        assert err.value.code == "VALIDATION_FAILED"
    assert (root / "m.py").read_text() == "a = 1\nb = 2\n"


needs_mypy = pytest.mark.skipif(shutil.which("mypy") is None, reason="mypy is not installed")


@needs_mypy
def test_mypy_reports_the_type_error_an_edit_introduces(root: Path) -> None:
    (root / "typed.py").write_text("def double(x: int) -> int:\n    return x * 2\n")
    ws = Workspace([root], linters=["mypy"])
    result = ws.edit_file("typed.py", [{"old_text": "return x * 2", "new_text": 'return "x"'}])
    assert result.written
    (finding,) = result.validation.findings
    assert (finding.source, finding.code, finding.line) == ("mypy", "return-value", 2)
    assert finding.line_text == '    return "x"'


def test_the_issues_own_example_times_out_on_a_long_line(ws: Workspace, root: Path) -> None:
    (root / "a.txt").write_text("a" * 5000 + "b\n")
    snap = Snapshot.of(root / "a.txt")
    with pytest.raises(EditError) as err:
        ws.safe_edit("a.txt", search_replace={"search": "(a+)+$", "replace": "x", "regex": True})
    assert err.value.code == "REGEX_TIMEOUT"
    assert Snapshot.of(root / "a.txt") == snap


@pytest.mark.parametrize(
    "call",
    [
        lambda ws: ws.safe_edit("test.txt", search_replace={"search": "1", "replace": "\x00"}),
        lambda ws: ws.safe_edit("test.txt", content="a\x00"),
        lambda ws: ws.safe_edit(
            "test.txt", line_edits=[{"start_line": 1, "end_line": 1, "new_content": "\x00"}]
        ),
        lambda ws: ws.write_file("test.txt", "\x00"),
        lambda ws: ws.edit_symbol("m.py", "f", new_body="def f():\n    return '\x00'\n"),
    ],
    ids=["search_replace", "content", "line_edits", "write_file", "edit_symbol"],
)
def test_no_tool_writes_a_nul_character(
    ws: Workspace, root: Path, temp_file: Path, call: Any
) -> None:
    (root / "m.py").write_text("def f():\n    return 1\n")
    before = {p.name: Snapshot.of(p) for p in (temp_file, root / "m.py")}
    with pytest.raises(EditError) as err:
        call(ws)
    assert err.value.code == "INVALID_REQUEST"
    assert "NUL" in err.value.message
    assert {p.name: Snapshot.of(p) for p in (temp_file, root / "m.py")} == before


@pytest.mark.parametrize(
    ("replace", "says", "position"),
    [
        (r"C:\Users\new", "the replacement is not a valid template: incomplete escape", 5),
        (r"\2", "refers to a group the pattern does not have", None),
        (r"\g<name>", "refers to a group the pattern does not have", None),
    ],
)
def test_a_bad_replacement_template_says_what_is_wrong(
    ws: Workspace, temp_file: Path, replace: str, says: str, position: int | None
) -> None:
    snap = Snapshot.of(temp_file)
    with pytest.raises(EditError) as err:
        ws.safe_edit(
            "test.txt", search_replace={"search": "(line)", "replace": replace, "regex": True}
        )
    assert err.value.code == "INVALID_REGEX"
    assert says in err.value.message
    assert err.value.data.get("position") == position
    assert err.value.data["field"] == "search_replace.replace"
    assert Snapshot.of(temp_file) == snap


def test_many_matches_of_a_simple_pattern_are_not_a_timeout(ws: Workspace, root: Path) -> None:
    # The 1 s budget is for matching; turning 200,000 matches into replacements comes after.
    (root / "many.txt").write_text("abc def ghi\n" * 200_000)
    result = ws.safe_edit(
        "many.txt", search_replace={"search": "def", "replace": "DEF", "regex": True}
    )
    assert result.replacements == 200_000


class _Stretchy:
    """A compiled pattern whose every ``finditer`` gives up (``TimeoutError``) after ``every``
    matches, as the regex engine's timeout does on a slow machine: a fault no real run can be
    made to produce at a chosen match."""

    def __init__(self, pattern: Any, every: int) -> None:
        self.pattern, self.every = pattern, every

    def finditer(self, text: str, *, pos: int, timeout: float) -> Any:
        for k, found in enumerate(self.pattern.finditer(text, pos=pos, timeout=timeout)):
            if k == self.every:
                raise TimeoutError("regex timed out")
            yield found


@pytest.mark.parametrize(
    "search", ["def", "", "x*", r"\b", "(?<=a)", "^", "(?m)^", "(?m)$", "a|", "(?=b)|b", r"\w+"]
)
# At least two a stretch: a stretch resumed after an empty match meets that match again first.
@pytest.mark.parametrize("every", [2, 3, 5])
def test_matching_resumed_after_a_timeout_finds_what_finditer_finds(
    search: str, every: int
) -> None:
    import regex

    from editguard.core.formats import regex_replace

    text = "abc def\nab  xx b\n\nbaab def def\n"
    pattern = regex.compile(search)
    expected = [m.span() for m in pattern.finditer(text)]
    got = regex_replace._collect(_Stretchy(pattern, every), text, None, 1.0)
    assert [m.span() for m in got] == expected


def test_matching_that_finds_nothing_in_its_time_is_a_timeout() -> None:
    import regex

    from editguard.core.formats import regex_replace

    with pytest.raises(TimeoutError):
        regex_replace._collect(_Stretchy(regex.compile("def"), 0), "abc def", None, 1.0)
