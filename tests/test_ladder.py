"""The match ladder through the tools: what the model meant lands, with the same correction on
new_text and the rung named; anything else is refused with the places shown, never guessed.

Each rule of the ladder has a test here that fails without it. The real-code corpus test
(tests/test_ladder_corpus.py) and the properties (tests/test_ladder_properties.py) check the
same invariants on many more edits.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from editguard import EditError, Workspace

from .conftest import run_cli as cli

CLASS = (
    "class Greeter:\n"
    "    def greet(self, name):\n"
    '        message = "Hello, " + name\n'
    "        return message\n"
    "\n"
    "    def part(self):\n"
    "        return 'bye'\n"
)


def edit(ws: Workspace, root: Path, text: str, old: str, new: str, **options: Any) -> Any:
    (root / "m.py").write_bytes(text.encode())
    return ws.edit_file("m.py", [{"old_text": old, "new_text": new}], **options)


def refused(ws: Workspace, root: Path, text: str, old: str, new: str, **options: Any) -> EditError:
    with pytest.raises(EditError) as caught:
        edit(ws, root, text, old, new, **options)
    assert (root / "m.py").read_bytes() == text.encode()
    return caught.value


def result_of(root: Path) -> str:
    return (root / "m.py").read_bytes().decode()


# -- each rung lands what was meant, with the correction carried over ----------------------

LANDS: dict[str, tuple[str, str, str, str, str]] = {
    # name: (file, old_text, new_text, expected file, rung)
    "trailing whitespace in old_text": (
        CLASS,
        '        message = "Hello, " + name   \n        return message\n',
        '        message = "Hi, " + name   \n        return message\n',
        CLASS.replace('"Hello, "', '"Hi, "'),
        "trailing_whitespace",
    ),
    "trailing whitespace the file has, kept on the untouched line": (
        "a = 1   \nb = 2\n",
        "a = 1\nb = 2\n",
        "a = 1\nb = 3\n",
        "a = 1   \nb = 3\n",
        "trailing_whitespace",
    ),
    "indentation one level short, new_text shifted too": (
        CLASS,
        "def part(self):\n    return 'bye'\n",
        "def part(self):\n    if self:\n        return 'bye'\n    return None\n",
        CLASS.replace(
            "        return 'bye'\n",
            "        if self:\n            return 'bye'\n        return None\n",
        ),
        "indentation",
    ),
    "indentation one level too deep": (
        CLASS,
        '            message = "Hello, " + name\n            return message\n',
        '            message = "Hey, " + name\n            return message\n',
        CLASS.replace('"Hello, "', '"Hey, "'),
        "indentation",
    ),
    "tabs for spaces, written with the file's spaces": (
        CLASS,
        '\tdef greet(self, name):\n\t\tmessage = "Hello, " + name\n',
        '\tdef greet(self, name):\n\t\tmessage = "Yo, " + name\n\t\tname = None\n',
        CLASS.replace(
            '        message = "Hello, " + name\n',
            '        message = "Yo, " + name\n        name = None\n',
        ),
        "indentation",
    ),
    "spaces for tabs, written with the file's tabs": (
        "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
        "    if x {\n        return 1\n    }\n",
        "    if x {\n        return 2\n    }\n",
        "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n",
        "indentation",
    ),
    "curly quotes for straight ones, mapped back in new_text": (
        CLASS,
        "        message = \u201cHello, \u201d + name\n",
        "        message = \u201cHowdy, \u201d + name\n",
        CLASS.replace('"Hello, "', '"Howdy, "'),
        "punctuation",
    ),
    "an en dash, an ellipsis and a non-breaking space": (
        "# range 1-2 ... done\nx = 1\n",
        "# range 1\u20132\u00a0\u2026 done\nx = 1\n",
        "# range 1\u20132\u00a0\u2026 done\nx = 2\n",
        "# range 1-2 ... done\nx = 2\n",
        "punctuation",
    ),
    "line-number prefixes pasted from read_file": (
        CLASS,
        '3\u2502        message = "Hello, " + name\n4\u2502        return message\n',
        '        message = "Hi, " + name\n        return message\n',
        CLASS.replace('"Hello, "', '"Hi, "'),
        "line_numbers",
    ),
    "line-number prefixes in new_text too, every style": (
        CLASS,
        '  L3:        message = "Hello, " + name\n  L4:        return message\n',
        '  L3:        message = "Hi, " + name\n  L4:        return message\n',
        CLASS.replace('"Hello, "', '"Hi, "'),
        "line_numbers",
    ),
    "cat -n prefixes (number, tab)": (
        CLASS,
        '     3\t        message = "Hello, " + name\n',
        '     3\t        message = "Hi, " + name\n',
        CLASS.replace('"Hello, "', '"Hi, "'),
        "line_numbers",
    ),
    "grep -n prefixes with one space of padding": (
        CLASS,
        '3: message = "Hello, " + name\n4: return message\n',
        '3: message = "Hi, " + name\n4: return message\n',
        CLASS.replace('"Hello, "', '"Hi, "'),
        "line_numbers+indentation",
    ),
    "trailing whitespace and an indentation shift together": (
        CLASS,
        "def part(self):  \n    return 'bye'  \n",
        "def part(self):\n    return 'ciao'\n",
        CLASS.replace("'bye'", "'ciao'"),
        "trailing_whitespace+indentation",
    ),
    "a first line without its indentation, the rest with trailing spaces": (
        CLASS,
        'message = "Hello, " + name \n        return message \n',
        'message = "Hi, " + name\n        return message\n',
        CLASS.replace('"Hello, "', '"Hi, "'),
        "trailing_whitespace",
    ),
    "a one-line fragment with curly quotes": (
        "print('it is')\nx = 'it is'\n",
        "x = \u2018it is\u2019",
        "x = \u2018it was\u2019",
        "print('it is')\nx = 'it was'\n",
        "punctuation",
    ),
}


@pytest.mark.parametrize(("text", "old", "new", "expected", "rung"), LANDS.values(), ids=LANDS)
def test_a_rung_lands_what_was_meant(
    ws: Workspace, root: Path, text: str, old: str, new: str, expected: str, rung: str
) -> None:
    result = edit(ws, root, text, old, new)
    assert result_of(root) == expected
    applied = result.edits_applied[0]
    assert applied.match == rung
    assert applied.note
    assert "differed from the file" in applied.note


def test_an_exact_match_says_exact_and_has_no_note(ws: Workspace, root: Path) -> None:
    applied = edit(ws, root, CLASS, "return message", "return message.upper()").edits_applied[0]
    assert (applied.match, applied.note) == ("exact", None)


def test_a_crlf_old_text_matches_an_lf_file_and_keeps_its_endings(
    ws: Workspace, root: Path
) -> None:
    edit(ws, root, "a = 1\nb = 2\n", "a = 1\r\nb = 2\r\n", "a = 1\r\nb = 3\r\n")
    assert result_of(root) == "a = 1\nb = 3\n"
    crlf = "a = 1\r\nb = 2  \r\n"
    edit(ws, root, crlf, "a = 1\nb = 2\n", "a = 1\nb = 5\n")
    assert (root / "m.py").read_bytes() == b"a = 1\r\nb = 5\r\n"


def test_a_file_that_mixes_endings_keeps_each_line_s_own(ws: Workspace, root: Path) -> None:
    text = "x = 1\r\ny = 2\nz = 3\r\n"
    edit(ws, root, text, "  y = 2\n  z = 3\n", "  y = 20\n  z = 3\n")
    assert (root / "m.py").read_bytes() == b"x = 1\r\ny = 20\nz = 3\r\n"


# -- the rules that keep it safe -------------------------------------------------------------


def test_the_first_rung_that_finds_anything_decides_and_refuses_too_many(
    ws: Workspace, root: Path
) -> None:
    # Trailing whitespace finds two places; indentation would find one: refused there.
    text = "if a:\n    x = 1 \nif b:\n    x = 1  \n  x = 1\n"
    error = refused(ws, root, text, "    x = 1\n", "    x = 2\n")
    assert error.code == "WRONG_COUNT"
    assert error.data["match"] == "trailing_whitespace"
    assert [loc["line_number"] for loc in error.data["match_locations"]] == [2, 4]


def test_a_block_twice_modulo_indentation_is_refused_listing_both(
    ws: Workspace, root: Path
) -> None:
    text = (
        "def f():\n    total = 0\n    return total\n\n"
        "class A:\n        total = 0\n        return total\n"
    )
    error = refused(ws, root, text, "total = 0\nreturn total\n", "total = 1\nreturn total\n")
    assert error.code == "WRONG_COUNT"
    assert [loc["line_number"] for loc in error.data["match_locations"]] == [2, 6]


def test_too_few_places_on_the_first_rung_is_refused(ws: Workspace, root: Path) -> None:
    text = "x = 1 \ny = 2\n"
    (root / "m.py").write_text(text)
    with pytest.raises(EditError) as caught:
        ws.edit_file("m.py", [{"old_text": "x = 1\n", "new_text": "x = 3\n", "occurrences": 2}])
    assert caught.value.code == "WRONG_COUNT"
    assert caught.value.data["actual_occurrences"] == 1
    assert (root / "m.py").read_text() == text


def test_occurrences_counts_on_the_rung(ws: Workspace, root: Path) -> None:
    text = "if a:\n    go()  \nif b:\n        go() \n"
    (root / "m.py").write_text(text)
    result = ws.edit_file(
        "m.py", [{"old_text": "go()\n", "new_text": "stop()\n", "occurrences": 2}]
    )
    assert (root / "m.py").read_text() == "if a:\n    stop()\nif b:\n        stop()\n"
    assert result.edits_applied[0].occurrences_replaced == 2


TRAPS: dict[str, tuple[str, str]] = {
    # name: (old_text, new_text) that must never land on CLASS
    "a digit changed": ("        return 'bye'\n    def part(self, x=1):\n", "x\n"),
    "a name changed": ("    def greet(self, nam):\n", "    def greet(self, n):\n"),
    "a letter's case changed": ("        Return message\n", "        return msg\n"),
    "a blank line dropped": (
        "        return message\n    def part(self):\n",
        "        return msg\n    def part(self):\n",
    ),
    "a blank line added": (
        "    def part(self):\n\n        return 'bye'\n",
        "    def part(self):\n        return 'ciao'\n",
    ),
    "whitespace collapsed inside a line": (
        '        message  =  "Hello, "  +  name\n',
        '        message = "Hi, " + name\n',
    ),
    "only the first and last lines right": (
        "    def greet(self, name):\n        msg = 1\n        return message\n",
        "    def greet(self, name):\n        return message\n",
    ),
    "lines shifted by different amounts": (
        "    def part(self):\n      return 'bye'\n",
        "    def part(self):\n      return 'ciao'\n",
    ),
    "line numbers that are not the lines": (
        '4\u2502        message = "Hello, " + name\n5\u2502        return message\n',
        '        message = "Hi, " + name\n        return message\n',
    ),
    "line numbers that are not consecutive": (
        '3\u2502        message = "Hello, " + name\n5\u2502        return message\n',
        '        message = "Hi, " + name\n        return message\n',
    ),
    "a typographic apostrophe for a letter": (
        "        return \u2018bye\u2019 + s\n",
        "        return 'x'\n",
    ),
}


@pytest.mark.parametrize(("old", "new"), TRAPS.values(), ids=TRAPS)
def test_a_trap_is_never_applied(ws: Workspace, root: Path, old: str, new: str) -> None:
    error = refused(ws, root, CLASS, old, new)
    assert error.code in {"NO_MATCH", "WRONG_COUNT"}


def test_an_added_line_at_column_0_under_a_short_indentation_is_refused(
    ws: Workspace, root: Path
) -> None:
    error = refused(
        ws,
        root,
        CLASS,
        "def part(self):\n    return 'bye'\n",
        "def part(self):\n    return 'bye'\ndef top():\n    pass\n",
    )
    assert error.code == "NO_MATCH"
    assert "column 0" in error.message
    assert error.data["match"] == "indentation"
    assert error.data["match_locations"][0]["line_number"] == 6


def test_a_changed_line_at_column_0_keeps_the_column_of_the_line_it_replaces(
    ws: Workspace, root: Path
) -> None:
    edit(
        ws,
        root,
        CLASS,
        'message = "Hello, " + name\nreturn message\n',
        "message = 1\nreturn message\n",
    )
    assert "        message = 1\n        return message\n" in result_of(root)


def test_new_text_pushed_before_column_0_is_refused(ws: Workspace, root: Path) -> None:
    text = "def f():\n    x = 1\n"
    error = refused(ws, root, text, "        x = 1\n", "  y = 0\n        x = 1\n")
    assert "before column 0" in error.message


def test_prefixes_on_some_new_lines_only_are_refused(ws: Workspace, root: Path) -> None:
    error = refused(
        ws,
        root,
        CLASS,
        "6\u2502    def part(self):\n7\u2502        return 'bye'\n",
        "6\u2502    def part(self):\n        return 'ciao'\n",
    )
    assert "prefix" in error.message


def test_ascii_quotes_where_the_file_has_typographic_ones_are_refused(
    ws: Workspace, root: Path
) -> None:
    text = "msg = \u201cHello\u201d\nother = 1\n"
    error = refused(ws, root, text, 'msg = "Hello"\nother = 1\n', 'msg = "Bye"\nother = 1\n')
    assert "typographic" in error.message
    # Unchanged lines are kept byte for byte, so a change elsewhere lands.
    edit(ws, root, text, 'msg = "Hello"\nother = 1\n', 'msg = "Hello"\nother = 2\n')
    assert result_of(root) == "msg = \u201cHello\u201d\nother = 2\n"


def test_typographic_characters_the_file_uses_are_left_as_sent(ws: Workspace, root: Path) -> None:
    text = "a = \u201cx\u201d\nb = 'y'\n"
    edit(
        ws,
        root,
        text,
        "a = \u201cx\u201d\nb = \u2018y\u2019\n",
        "a = \u201cz\u201d\nb = \u2018w\u2019\n",
    )
    assert result_of(root) == "a = \u201cz\u201d\nb = 'w'\n"


def test_an_edit_that_only_changes_what_the_rung_ignores_is_not_applied(
    ws: Workspace, root: Path
) -> None:
    # The file has what new_text says, old_text matches it only loosely: it is never written
    # again. Issue 22: a new_text long enough to tell is reported already applied (a success
    # that changed nothing); a short one is still NO_MATCH.
    text = "x = 1\ny = 2\n"
    result = edit(ws, root, text, "x = 1  \ny = 2\n", "x = 1\ny = 2\n")
    assert (result.written, result.already_applied) == (False, [0])
    assert result_of(root) == text
    error = refused(ws, root, 'a = "x"\n', "a = \u201cx\u201d\n", 'a = "x"\n')
    assert error.code == "NO_MATCH"


def test_blank_old_text_gets_no_tolerance(ws: Workspace, root: Path) -> None:
    error = refused(ws, root, "a\n\n\nb\n", "  \n", "x\n")
    assert error.code == "NO_MATCH"


# -- on top of the sequential semantics ------------------------------------------------------


def test_a_loose_edit_sees_the_edits_before_it_and_is_seen_by_those_after(
    ws: Workspace, root: Path
) -> None:
    (root / "m.py").write_text(CLASS)
    result = ws.edit_file(
        "m.py",
        [
            {"old_text": "return 'bye'", "new_text": "return 'ciao'"},
            {
                "old_text": "def part(self):\n    return 'ciao'\n",
                "new_text": "def part(self):\n    return 'arrivederci'\n",
            },
            {"old_text": "'arrivederci'", "new_text": "'addio'"},
        ],
    )
    assert [e.match for e in result.edits_applied] == ["exact", "indentation", "exact"]
    # The second edit rewrote the first one's text: both start where its new text starts.
    assert [e.lines for e in result.edits_applied] == [[6], [6], [7]]
    assert (root / "m.py").read_text() == CLASS.replace("'bye'", "'addio'")


def test_a_later_failure_writes_nothing(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text(CLASS)
    with pytest.raises(EditError) as caught:
        ws.edit_file(
            "m.py",
            [
                {
                    "old_text": "def part(self):\n    return 'bye'\n",
                    "new_text": "def part(self):\n    return 1\n",
                },
                {"old_text": "not there", "new_text": "x"},
            ],
        )
    assert caught.value.code == "NO_MATCH"
    assert caught.value.edit_index == 1
    assert (root / "m.py").read_text() == CLASS


def test_the_syntax_guard_judges_the_corrected_text(ws: Workspace, root: Path) -> None:
    error = refused(
        ws, root, CLASS, "def part(self):\n    return 'bye'\n", "def part(self):\n    return (\n"
    )
    assert error.code == "VALIDATION_FAILED"


def test_dry_run_reports_the_rung_and_writes_nothing(ws: Workspace, root: Path) -> None:
    result = edit(
        ws,
        root,
        CLASS,
        "def part(self):\n    return 'bye'\n",
        "def part(self):\n    return 2\n",
        dry_run=True,
    )
    assert result.edits_applied[0].match == "indentation"
    assert "+        return 2" in result.diff
    assert result_of(root) == CLASS


def test_exact_turns_the_ladder_off(ws: Workspace, root: Path, tmp_path: Path) -> None:
    old, new = "def part(self):\n    return 'bye'\n", "def part(self):\n    return 2\n"
    assert refused(ws, root, CLASS, old, new, exact=True).code == "NO_MATCH"
    strict = Workspace([root], exact=True)
    (root / "m.py").write_text(CLASS)
    with pytest.raises(EditError):
        strict.edit_file("m.py", [{"old_text": old, "new_text": new}])
    assert result_of(root) == CLASS


# -- safe_edit and edit_symbol ---------------------------------------------------------------


def test_safe_edit_literal_search_uses_the_ladder_and_regex_does_not(
    ws: Workspace, root: Path
) -> None:
    (root / "m.py").write_text(CLASS)
    result = ws.safe_edit(
        "m.py",
        search_replace={
            "search": "def part(self):\n    return 'bye'",
            "replace": "def part(self):\n    return 'x'",
        },
    )
    assert (result.match, result.replacements) == ("indentation", 1)
    assert "        return 'x'\n" in (root / "m.py").read_text()
    with pytest.raises(EditError) as caught:
        ws.safe_edit(
            "m.py",
            search_replace={
                "search": "def part\\(self\\):\n    return",
                "replace": "x",
                "regex": True,
            },
        )
    assert caught.value.code == "NO_MATCH"
    with pytest.raises(EditError):
        ws.safe_edit(
            "m.py",
            search_replace={
                "search": "def part(self):\n    return 'x'",
                "replace": "y",
                "exact": True,
            },
        )


def test_safe_edit_literal_ambiguity_is_refused(ws: Workspace, root: Path) -> None:
    text = "a:\n    go() \nb:\n  go()  \n"
    (root / "m.py").write_text(text)
    with pytest.raises(EditError) as caught:
        ws.safe_edit("m.py", search_replace={"search": "go()\n", "replace": "stop()\n"})
    assert caught.value.code == "WRONG_COUNT"
    assert (root / "m.py").read_text() == text


def test_edit_symbol_chunks_climb_the_ladder(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text(CLASS)
    result = ws.edit_symbol(
        "m.py",
        "Greeter/greet",
        chunks=[
            {
                "context_before": "def greet(self, name):",
                "old_lines": ["    message = \u201cHello, \u201d + name"],
                "new_lines": ["    message = \u201cHi, \u201d + name"],
                "context_after": "    return message",
            }
        ],
    )
    assert result.chunks_matched == ["punctuation+indentation"]
    assert (root / "m.py").read_text() == CLASS.replace('"Hello, "', '"Hi, "')


def test_edit_symbol_chunk_ambiguity_and_exact(ws: Workspace, root: Path) -> None:
    text = "def f():\n    if a:\n        x = 1\n    if b:\n      x = 1\n    return\n"
    (root / "m.py").write_text(text)
    chunk = {
        "context_before": "",
        "old_lines": ["x = 1"],
        "new_lines": ["x = 2"],
        "context_after": "",
    }
    with pytest.raises(EditError) as caught:
        ws.edit_symbol("m.py", "f", chunks=[{**chunk, "context_after": "if b:"}])
    assert caught.value.code == "CHUNK_MISMATCH"
    (root / "m.py").write_text(CLASS)
    loose = {
        "context_before": "def part(self):",
        "old_lines": ["    return 'bye'"],
        "new_lines": ["    return 'x'"],
        "context_after": "",
    }
    with pytest.raises(EditError) as exact:
        ws.edit_symbol("m.py", "Greeter/part", chunks=[loose], exact=True)
    assert exact.value.code == "CHUNK_MISMATCH"
    result = ws.edit_symbol("m.py", "Greeter/part", chunks=[loose])
    assert result.chunks_matched == ["indentation"]
    assert (root / "m.py").read_text().endswith("        return 'x'\n")


def test_a_chunk_that_deletes_lines_needs_them_exactly(ws: Workspace, root: Path) -> None:
    (root / "m.py").write_text(CLASS)
    with pytest.raises(EditError) as caught:
        ws.edit_symbol(
            "m.py",
            "Greeter/greet",
            chunks=[
                {
                    "context_before": "def greet(self, name):",
                    "old_lines": ['    message = "Hello, " + name'],
                    "new_lines": [],
                    "context_after": "    return message",
                }
            ],
        )
    assert caught.value.code == "CHUNK_MISMATCH"


# -- through the CLI and the MCP server ------------------------------------------------------


def test_the_cli_reports_the_rung_and_its_exact_flag_turns_it_off(root: Path) -> None:
    (root / "m.py").write_text(CLASS)
    arguments = json.dumps(
        {
            "path": "m.py",
            "edits": [
                {
                    "old_text": "def part(self):\n    return 'bye'\n",
                    "new_text": "def part(self):\n    return 0\n",
                }
            ],
        }
    )
    code, out = cli(root, "call", "edit_file", arguments, "--exact")
    assert code == 1
    assert out["error"]["code"] == "NO_MATCH"
    code, out = cli(root, "call", "edit_file", arguments)
    assert code == 0
    assert out["edits_applied"][0]["match"] == "indentation"
    assert (root / "m.py").read_text().endswith("        return 0\n")


# -- found by an adversarial audit: each of these once landed a wrong file -------------------

AUDIT: dict[str, tuple[bytes, list[dict[str, str]], bytes | None]] = {
    # name: (file, edits, the file after, or None for a refusal)
    "a dict key is no pasted line number": (
        b'CODES = {\n    1: "one",\n    2: "two",\n}\n',
        [
            {
                "old_text": '2\u2502    1: "one",\n3\u2502    2: "two",',
                "new_text": '    1: "uno",\n    2: "dos",',
            }
        ],
        b'CODES = {\n    1: "uno",\n    2: "dos",\n}\n',
    ),
    "a TSV row is no pasted line number": (
        b"id\tname\n1\talice\n2\tbob\n",
        [{"old_text": "2\t1\talice", "new_text": "1\talicia"}],
        b"id\tname\n1\talicia\n2\tbob\n",
    ),
    "a one-line text also in the middle of another line": (
        b'x = f("a")\ny = f("a") + 1\n',
        [{"old_text": "f(\u201ca\u201d)", "new_text": "g(\u201ca\u201d)"}],
        None,
    ),
    "curly quotes that stand for ASCII on the line and for themselves in its comment": (
        b"const s = 'say \"hi\"'; // the \xe2\x80\x9cgreeting\xe2\x80\x9d\n",
        [
            {
                "old_text": "const s = 'say \u201chi\u201d'; // the \u201cgreeting\u201d",
                "new_text": "const s = 'say \u201cbye\u201d'; // the \u201cgreeting\u201d",
            }
        ],
        None,
    ),
    "a changed Makefile recipe keeps its tab in a region mostly of spaces": (
        b"CFLAGS = \\\n    -O2 \\\n    -g\nall:\n\tgcc $(CFLAGS) a.c\n",
        [
            {
                "old_text": "    -g\nall:\n    gcc $(CFLAGS) a.c",
                "new_text": "    -g\nall:\n    gcc $(CFLAGS) -Wall a.c",
            }
        ],
        b"CFLAGS = \\\n    -O2 \\\n    -g\nall:\n\tgcc $(CFLAGS) -Wall a.c\n",
    ),
    "prefixes that fit with and without a space of padding, new_text without them": (
        b"def f():\n    if x:\n        y = 1\n",
        [{"old_text": "3:     y = 1", "new_text": "    y = 2"}],
        None,
    ),
    "the same with the prefixes on new_text too": (
        b"def f():\n    if x:\n        y = 1\n",
        [{"old_text": "3:     y = 1", "new_text": "3:     y = 2"}],
        b"def f():\n    if x:\n        y = 2\n",
    ),
    "pasted numbers are the file's as read, also after an earlier edit of the batch": (
        b"import os\n\nx = 0\nx = 0\ny = 1\n",
        [
            {"old_text": "import os\n", "new_text": "import os\nimport sys\n"},
            {"old_text": "4: x = 0", "new_text": "4: x = 9"},
        ],
        b"import os\nimport sys\n\nx = 0\nx = 9\ny = 1\n",
    ),
}


@pytest.mark.parametrize(("data", "edits", "after"), AUDIT.values(), ids=AUDIT)
def test_audit_cases(
    ws: Workspace, root: Path, data: bytes, edits: list[dict[str, str]], after: bytes | None
) -> None:
    (root / "m.txt").write_bytes(data)
    if after is None:
        with pytest.raises(EditError):
            ws.edit_file("m.txt", edits)
        assert (root / "m.txt").read_bytes() == data
    else:
        ws.edit_file("m.txt", edits)
        assert (root / "m.txt").read_bytes() == after


def test_a_chunk_s_padded_prefixes_keep_the_indentation(ws: Workspace, root: Path) -> None:
    text = "class A {\n  m() {\n    let x = 1;\n    let y = 2;\n    return x;\n  }\n}\n"
    (root / "a.js").write_text(text)
    ws.edit_symbol(
        "a.js",
        "A/m",
        chunks=[
            {
                "context_before": "3:     let x = 1;",
                "old_lines": ["4:     let y = 2;"],
                "new_lines": ["4:     let y = 3;"],
                "context_after": "5:     return x;",
            }
        ],
    )
    assert (root / "a.js").read_text() == text.replace("y = 2", "y = 3")
