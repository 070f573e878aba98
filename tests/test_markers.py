"""Elision markers (issue 25): which comment lines stand for code that stays, in each comment
syntax; what is code or a real comment and never a marker."""

from __future__ import annotations

import pytest

from editguard.core.markers import elisions, is_marker, marker_lines, styles_for

MARKERS = [
    ("a.py", "# ... existing code ..."),
    ("a.py", "    # ...existing code..."),
    ("a.py", "# …"),
    ("a.py", "# ... rest of the function unchanged"),
    ("a.py", "# (... other methods ...)"),
    ("a.js", "// ... existing code ..."),
    ("a.js", "  /* ... */"),
    ("a.ts", "// ... rest of the class stays the same ..."),
    ("a.tsx", "{/* ... existing code ... */}"),
    ("a.go", "// ..."),
    ("a.rs", "    // ... remaining lines unchanged"),
    ("a.c", "/* ... previous code ... */"),
    ("a.html", "<!-- ... -->"),
    ("a.md", "<!-- ... rest of the file ... -->"),
    ("a.sql", "-- ... existing code ..."),
    ("a.lua", "-- ..."),
    ("a.clj", "; ... unchanged ..."),
    ("a.css", "/* ... existing rules ... */"),
    ("a.php", "# ..."),
    ("a.yaml", "# ... other keys unchanged"),
    ("Makefile", "# ... existing code ..."),
    ("notes.unknown", "// ... existing code ..."),
]

NOT_MARKERS = [
    ("a.py", "..."),  # Python's Ellipsis
    ("a.py", "    ..."),
    ("a.py", "x = ...  # ..."),  # code before the comment
    ("a.py", "# ... then wait for the lock"),  # a real comment
    ("a.py", "# see section 3 ..."),
    ("a.py", "# TODO ..."),
    ("a.py", "// ... existing code ..."),  # not Python's comment syntax
    ("a.js", "...rest"),
    ("a.js", "  ...args,"),
    ("a.js", "const x = [...a]; // ..."),
    ("a.js", "# ... existing code ..."),
    ("a.js", "/* ... */ foo();"),
    ("a.js", "/* a */ /* ... */"),
    ("a.html", "<!-- comment -->"),
    ("a.go", "// existing code"),  # no ellipsis
    ("a.go", "// ... 42 more ..."),  # a number is more than "elided"
]


@pytest.mark.parametrize(("name", "line"), MARKERS)
def test_a_marker_in_the_files_comment_syntax_is_a_marker(name: str, line: str) -> None:
    assert is_marker(line, styles_for(name))


@pytest.mark.parametrize(("name", "line"), NOT_MARKERS)
def test_code_and_real_comments_are_never_markers(name: str, line: str) -> None:
    assert not is_marker(line, styles_for(name))


def test_marker_lines_are_numbered_from_one() -> None:
    text = "def f():\n    # ... existing code ...\n    return 1\n"
    assert marker_lines(text, "a.py") == [2]


def test_a_marker_the_old_text_had_is_no_elision() -> None:
    old = "a = 1\n# ... existing code ...\nb = 2\n"
    new = "a = 1\n# ... existing code ...\nb = 3\n# ... existing code ...\n"
    [gone] = elisions(old, new, "a.py")
    assert gone.line == 4
    assert elisions(old, old, "a.py") == []
    assert elisions("x\n", "x\n...\n", "a.py") == []
