"""Unified and git diffs (``apply_diff``): the parser, and the matcher that places each hunk.

:func:`parse_diff` reads what ``diff -u``, ``diff -ruN``, ``git diff`` and ``git format-patch``
write, and what models write in their style: several files, ``a/``/``b/`` prefixes,
``/dev/null``, git's extended headers (modes, renames, binary patches), C-quoted paths,
``\\ No newline at end of file``, CRLF diffs, hunk headers without counts, with wrong counts or
without numbers at all (a bare ``@@``). Lines before the first file header (a commit message, an
e-mail header) are ignored. A git copy (``copy from``/``copy to``) is refused: applying it as a
rename would delete its source, and as a new file it would need the source's text.

Hunk counts: when the counts a header gives are consistent with the body (the lines they count
are hunk lines, and what follows them is not), the hunk ends exactly where they say, so that a
removed line ``-- x`` is never read as a file header. Otherwise the body wins: the hunk runs
until the next ``@@``, file header or a line that cannot be a hunk line, and empty lines at its
end are dropped (they are more often a blank line after the diff than context an editor
stripped, and dropping context never changes what the hunk writes).

:func:`compile_hunks` places the hunks of one file, in order, without fuzz (no context line
is ever dropped): each at its stated line, shifted by the offset of the hunk before it, when its
old lines are there; else at the one place after the previous hunk where they are, however far;
else on the first tolerant rung of :data:`~editguard.core.seek.LADDER` that finds them after the
previous hunk, at its one place there, with the new lines corrected as the old ones were. Unlike
GNU ``patch``, which takes the nearest of several places, a hunk that fits at several (none at
its stated line) is refused as ambiguous, each place shown, unless only the first leaves room
for the hunks after it (they must follow it). Only the runs of removed and added lines become
replacements, so context lines keep their bytes and line endings. The searches for hunks not at
their stated line share a budget of :data:`SEARCH_PASSES` passes over the file plus
:data:`SEARCH_LINES` lines; the exact one compares only the places of the hunk's rarest line.

Pure: text in, plans out.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from editguard.core.diagnosis import CountMismatch, mismatch_error, uncorrectable_error
from editguard.core.document import LF, Document, line_offsets
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.listing import excerpt, listing
from editguard.core.listing import places as list_places
from editguard.core.plan import Plan, Replacement
from editguard.core.seek import (
    LADDER,
    MAX_PLACES,
    PUNCTUATION_MAP,
    TYPOGRAPHIC,
    OnlyIgnored,
    SeekHit,
    Uncorrectable,
    correct,
    explain,
    file_uses_tabs,
    indent_unit,
    seek,
    strip_numbers,
    tolerance_names,
    used,
)
from editguard.errors import (
    AmbiguousMatch,
    Frame,
    InvalidPatch,
    NoMatch,
    OverlappingEdits,
    error_context,
)

MAX_DIFF_CHARS = 64 << 20  # a diff longer than this is no edit a model sends
MAX_DIFF_LINES = 2_000_000
MAX_FILES = 10_000
MAX_HUNKS = 100_000  # in one diff, all files together
NEAR = 3  # lines shown on each side of the stated place when a hunk is not found
# How many lines of the file (times over it, plus a fixed allowance) one compile_hunks may
# search for hunks not at their stated line: each search covers up to the whole file, so
# thousands of misplaced hunks would cost hunks x file. Past it such a hunk is not found.
SEARCH_PASSES = 50
SEARCH_LINES = 1_000_000
MAX_LISTED = 20  # places of one hunk looked for and listed when it fits at several

_DEV_NULL = "/dev/null"
# The closing "@@" is optional (models drop it); after it, a section heading.
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))?(?: @@.*| *)")
_MODE = re.compile(r"[0-7]{6}")
# What git writes: a regular file, an executable one, a symbolic link, a submodule (the tool
# refuses the last two itself).
_GIT_MODES = frozenset({0o100644, 0o100755, 0o120000, 0o160000})
_GIT_HEADERS = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "similarity index ",
    "dissimilarity index ",
    "rename from ",
    "rename to ",
    "rename old ",
    "rename new ",
    "copy from ",
    "copy to ",
    "index ",
)
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``@@`` hunk: its stated place, and its lines without line endings."""

    old_start: int | None  # 1-based as in "@@ -old_start,old_count"; None for a bare "@@"
    new_start: int | None
    old: tuple[str, ...]  # context and removed lines, in order
    new: tuple[str, ...]  # context and added lines, in order
    lines: tuple[tuple[str, str], ...]  # (kind, text), kind in " ", "-", "+"
    old_ends_without_newline: bool  # "\ No newline at end of file" after the old side's last line
    new_ends_without_newline: bool
    line: int  # 1-based line of the @@ header in the diff text


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One file's section of a diff. Paths are without their ``a/``/``b/`` prefixes."""

    old_path: str | None  # None: /dev/null (a new file)
    new_path: str | None  # None: /dev/null (a deleted file)
    old_mode: int | None
    new_mode: int | None
    hunks: tuple[Hunk, ...]
    binary: bool  # "Binary files ... differ" / "GIT binary patch": the tool refuses
    crlf: bool  # the diff's own lines ended in CRLF (a new file then gets CRLF)
    line: int  # 1-based line where this file's section starts
    # git's "rename from"/"rename to" headers: a move. Two different names on "---"/"+++"
    # alone are one file's change, as GNU patch reads them.
    rename: bool = False


# -- parsing -------------------------------------------------------------------------------


def parse_diff(text: str) -> tuple[FileDiff, ...]:
    """Every file section of a unified or git diff, in order.

    Raises:
        InvalidPatch: no file section, a malformed hunk header or hunk, a hunk outside a file
            section, a copy, a section that names no file (/dev/null on both sides), a mode
            git does not write, a C-quoted path that is not valid, or a diff past the size limits;
            ``data["line"]`` is the 1-based line of the diff at fault.
    """
    if len(text) > MAX_DIFF_CHARS:
        raise InvalidPatch(
            f"the diff has {len(text):,} characters; the limit is {MAX_DIFF_CHARS:,}",
            data={"line": 1, "limit": MAX_DIFF_CHARS},
            suggestions=["Split the diff into several calls, a few files each."],
        )
    raw = text.split(LF)
    if raw and not raw[-1]:
        raw.pop()
    if len(raw) > MAX_DIFF_LINES:
        raise InvalidPatch(
            f"the diff has {len(raw):,} lines; the limit is {MAX_DIFF_LINES:,}",
            data={"line": 1, "limit": MAX_DIFF_LINES},
            suggestions=["Split the diff into several calls, a few files each."],
        )
    crs = [line.endswith("\r") for line in raw]
    lines = [line[:-1] if cr else line for line, cr in zip(raw, crs, strict=True)]
    for number, line in enumerate(lines, 1):
        if "\r" in line:
            # The file would get a line break there that the diff does not show.
            raise _invalid(
                f"line {number} of the diff holds a carriage return (\\r) inside it; each line "
                "of a diff is one line of the file",
                number,
            )
    return _Parser(lines, crs).run()


def _invalid(message: str, line: int, **data: Any) -> InvalidPatch:
    return InvalidPatch(
        message,
        data={"line": line, **data},
        suggestions=[
            "Send a unified diff: '--- a/path' and '+++ b/path' lines, then hunks that start "
            "with '@@ -old,count +new,count @@' and whose lines start with ' ', '-' or '+'."
        ],
    )


def _unquote(value: str, line: int) -> str:
    """A path as git writes it: C-quoted (``"a/sp\\303\\251cial"``) or as is."""
    if not value.startswith('"'):
        return value
    if _closing_quote(value) != len(value) - 1:
        raise _invalid(
            f"line {line}: the quoted path {excerpt(value, 200)} does not end with its closing "
            "quote",
            line,
        )
    out = bytearray()
    body = value[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode()
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif re.fullmatch(r"[0-3][0-7][0-7]", body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            raise _invalid(f"bad escape in the quoted path {value}", line)
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise _invalid(f"the quoted path {value} is not UTF-8", line) from None


def _split_quoted(rest: str) -> tuple[str, str] | None:
    """The two paths of ``diff --git A B`` when one of them is quoted."""
    if rest.startswith('"'):
        end = _closing_quote(rest)
        if end < 0:
            return None
        return rest[: end + 1], rest[end + 1 :].lstrip(" ")
    if rest.endswith('"'):
        start = rest.rfind(' "')
        if start < 0:
            return None
        return rest[:start], rest[start + 1 :]
    return None


def _closing_quote(value: str) -> int:
    i = 1
    while i < len(value):
        if value[i] == "\\":
            i += 2
            continue
        if value[i] == '"':
            return i
        i += 1
    return -1


def _header_path(value: str, line: int) -> str | None:
    """The path of a ``---``/``+++`` line: without its timestamp; None for /dev/null."""
    if value.startswith('"'):
        end = _closing_quote(value)
        value = value[: end + 1] if end > 0 else value
    elif "\t" in value:
        value = value.split("\t", 1)[0]
    else:
        # diff -u with a space before the timestamp (some tools), or a model's trailing space.
        stamp = re.search(r" \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", value)
        value = (value[: stamp.start()] if stamp else value).rstrip(" ")
    path = _unquote(value, line)
    return None if path == _DEV_NULL else path


def _strip(path: str | None, prefix: str) -> str | None:
    if path is not None and path.startswith(prefix):
        return path[len(prefix) :]
    return path


@dataclass(slots=True)
class _Section:
    line: int
    git: bool = False
    old_path: str | None = None
    new_path: str | None = None
    git_old: str | None = None  # the paths of the "diff --git" line
    git_new: str | None = None
    git_rest: str = ""  # the "diff --git" line after its "diff --git "
    renamed: tuple[str, str] | None = None
    headers: bool = False  # "---"/"+++" seen
    old_mode: int | None = None
    new_mode: int | None = None
    index_mode: int | None = None
    created: bool = False
    deleted: bool = False
    binary: bool = False
    hunks: list[Hunk] = dataclasses.field(default_factory=list)
    body_lines: int = 0  # hunk lines read, and how many ended in CRLF
    body_crs: int = 0
    header_lines: int = 0
    header_crs: int = 0

    def finish(self) -> FileDiff:
        if self.git:
            self._check_names()
        old, new = self.old_path, self.new_path
        if not self.headers:
            old, new = self.git_old, self.git_new
        prefixed = self.git or (
            (old is None or old.startswith("a/"))
            and (new is None or new.startswith("b/"))
            and (old is not None or new is not None)
        )
        if prefixed:
            old, new = _strip(old, "a/"), _strip(new, "b/")
        if self.renamed is not None:
            old, new = self.renamed
        if self.created:
            old = None
        if self.deleted:
            new = None
        if old is None and new is None:
            raise _invalid(
                f"line {self.line}: this file's section names no file (both sides are /dev/null, "
                "or it is both deleted and new, or its names cannot be read); give the path on "
                "'--- a/path' or '+++ b/path'",
                self.line,
            )
        if old == "" or new == "":
            raise _invalid(
                f"line {self.line}: this file's section has an empty file name; give the path "
                "on '--- a/path' and '+++ b/path'",
                self.line,
            )
        old_mode, new_mode = self.old_mode, self.new_mode
        if self.index_mode is not None:
            old_mode = self.index_mode if old_mode is None and old is not None else old_mode
            new_mode = self.index_mode if new_mode is None and new is not None else new_mode
        if self.body_lines:
            crlf = self.body_crs == self.body_lines
        else:
            crlf = bool(self.header_lines) and self.header_crs == self.header_lines
        return FileDiff(
            old,
            new,
            old_mode,
            new_mode,
            tuple(self.hunks),
            self.binary,
            crlf,
            self.line,
            rename=self.renamed is not None,
        )

    def _check_names(self) -> None:
        """Refuse a git section whose names disagree: its "diff --git" line, its "rename
        from"/"rename to" lines and its "---"/"+++" lines (without a/ and b/) name one file
        each side (a new or deleted file's "diff --git" line names it on both sides)."""
        said: list[tuple[str, str | None, str | None]] = []  # (where, old, new)
        if self.renamed is not None:
            said.append(("'rename from'/'rename to'", *self.renamed))
        if self.headers:
            dashes = (_strip(self.old_path, "a/"), _strip(self.new_path, "b/"))
            if dashes != (None, None):
                said.append(("'---'/'+++'", *dashes))
        if not said:
            return
        where, want_old, want_new = said[0]
        for other, old, new in said[1:]:
            for side, want, got in (("old", want_old, old), ("new", want_new, new)):
                if want is not None and got is not None and want != got:
                    raise self._conflict(side, (where, want), (other, got))
            want_old = want_old if want_old is not None else old
            want_new = want_new if want_new is not None else new
        want_old = want_old if want_old is not None else want_new
        want_new = want_new if want_new is not None else want_old
        git = (_strip(self.git_old, "a/"), _strip(self.git_new, "b/"))
        rest = self.git_rest
        if git == (want_old, want_new) or rest in (
            f"a/{want_old} b/{want_new}",
            f"{want_old} {want_new}",
        ):
            return
        side, want, got = (
            ("old", want_old, git[0]) if git[0] != want_old else ("new", want_new, git[1])
        )
        raise self._conflict(side, (where, want), ("'diff --git'", got))

    def _conflict(
        self, side: str, first: tuple[str, str | None], second: tuple[str, str | None]
    ) -> InvalidPatch:
        return _invalid(
            f"line {self.line}: this file's section names two different {side} files: "
            f"{first[1]!r} on its {first[0]} line and {second[1]!r} on its {second[0]} line; "
            "give one name on each side in every header",
            self.line,
            names=[first[1], second[1]],
        )


class _Parser:
    def __init__(self, lines: list[str], crs: list[bool]) -> None:
        self.lines = lines
        self.crs = crs
        self.i = 0
        self.files: list[FileDiff] = []
        self.section: _Section | None = None
        self.hunk_count = 0

    def run(self) -> tuple[FileDiff, ...]:
        lines = self.lines
        while self.i < len(lines):
            line = lines[self.i]
            if line.startswith("diff --git "):
                self._start(_Section(self.i + 1, git=True))
                self._git_line(line)
                self._note_header()
                self.i += 1
                self._git_headers()
            elif self._file_headers_at(self.i):
                if self._fresh():
                    self._start(_Section(self.i + 1))
                self._file_headers()
            elif line.startswith("@@"):
                if self.section is None or not (self.section.headers or self.section.git):
                    raise _invalid(
                        f"line {self.i + 1}: a hunk before any file header; start the diff "
                        "with '--- a/path' and '+++ b/path'",
                        self.i + 1,
                    )
                self._hunk()
            elif line.startswith("Binary files ") and line.endswith(" differ"):
                self._binary_line(line)
            else:
                # A commit message, an e-mail header, "Only in ..." or "Index: ..." lines, a
                # "diff -ruN a b" line: nothing to apply.
                self.i += 1
        self._start(None)
        if not self.files:
            raise _invalid(
                "no file in the diff: expected '--- a/path' and '+++ b/path' lines (or "
                "'diff --git a/path b/path') before the hunks",
                1,
            )
        _check_moves(self.files)
        return tuple(self.files)

    def _start(self, section: _Section | None) -> None:
        if self.section is not None:
            self.files.append(self.section.finish())
            if len(self.files) > MAX_FILES:
                raise _invalid(f"more than {MAX_FILES:,} files in one diff", self.section.line)
        self.section = section

    def _fresh(self) -> bool:
        """Whether file headers here start a new section (not the rest of a "diff" line's)."""
        section = self.section
        return section is None or section.git or section.headers or bool(section.hunks)

    def _binary_line(self, line: str) -> None:
        """``Binary files A and B differ`` from diff -r (git's is among its headers)."""
        section = self.section
        if section is None or self._fresh():
            section = _Section(self.i + 1)
            self._start(section)
            match = re.fullmatch(r"Binary files (.+) and (.+) differ", line)
            if match:
                section.old_path = _header_path(match.group(1), self.i + 1)
                section.new_path = _header_path(match.group(2), self.i + 1)
                section.headers = True
        section.binary = True
        self.i += 1

    def _note_header(self) -> None:
        assert self.section is not None
        self.section.header_lines += 1
        self.section.header_crs += self.crs[self.i]

    def _file_headers_at(self, i: int) -> bool:
        lines = self.lines
        return (
            i + 1 < len(lines) and lines[i].startswith("--- ") and lines[i + 1].startswith("+++ ")
        )

    def _file_headers(self) -> None:
        section = self.section
        assert section is not None
        section.old_path = _header_path(self.lines[self.i][4:], self.i + 1)
        self._note_header()
        self.i += 1
        section.new_path = _header_path(self.lines[self.i][4:], self.i + 1)
        self._note_header()
        self.i += 1
        section.headers = True

    def _git_line(self, line: str) -> None:
        section = self.section
        assert section is not None
        rest = line[len("diff --git ") :]
        quoted = _split_quoted(rest)
        if quoted is not None:
            first, second = quoted
        else:
            half = (len(rest) - 1) // 2
            if len(rest) % 2 == 1 and rest[half] == " " and rest[:half][2:] == rest[half + 3 :]:
                first, second = rest[:half], rest[half + 1 :]  # "a/x b/x"
            elif " b/" in rest:
                first, second = rest.split(" b/", 1)
                second = "b/" + second
            else:
                first, _, second = rest.partition(" ")
        section.git_rest = rest
        section.git_old = _unquote(first, self.i + 1)
        section.git_new = _unquote(second, self.i + 1)
        if not section.git_old or not section.git_new:
            raise _invalid(
                f"line {self.i + 1}: 'diff --git' without two file names; write it as "
                "'diff --git a/path b/path'",
                self.i + 1,
            )

    def _git_headers(self) -> None:
        section = self.section
        assert section is not None
        lines = self.lines
        renamed: list[str | None] = [None, None]
        while self.i < len(lines):
            line = lines[self.i]
            number = self.i + 1
            if not line.startswith(_GIT_HEADERS) and not line.startswith(
                ("Binary files ", "GIT binary patch")
            ):
                break
            self._note_header()
            if line.startswith(("copy from ", "copy to ")):
                raise _invalid(
                    f"line {number}: git copies are not supported; send the copy as a new "
                    "file ('--- /dev/null', '+++ b/new/path' and its whole text)",
                    number,
                )
            if line.startswith(("rename from ", "rename old ")):
                renamed[0] = _unquote(line.split(" ", 2)[2], number)
            elif line.startswith(("rename to ", "rename new ")):
                renamed[1] = _unquote(line.split(" ", 2)[2], number)
            elif line.startswith("old mode "):
                section.old_mode = self._mode(line.rsplit(" ", 1)[1], number)
            elif line.startswith("new mode "):
                section.new_mode = self._mode(line.rsplit(" ", 1)[1], number)
            elif line.startswith("new file mode "):
                section.created = True
                section.new_mode = self._mode(line.rsplit(" ", 1)[1], number)
            elif line.startswith("deleted file mode "):
                section.deleted = True
                section.old_mode = self._mode(line.rsplit(" ", 1)[1], number)
            elif line.startswith("index "):
                parts = line.split()
                if len(parts) == 3:
                    section.index_mode = self._mode(parts[2], number)
            elif line.startswith("Binary files "):
                section.binary = True
            elif line.startswith("GIT binary patch"):
                section.binary = True
                self.i += 1
                # The literal/delta blocks, up to the next file.
                while self.i < len(lines) and not lines[self.i].startswith("diff "):
                    self.i += 1
                return
            self.i += 1
        if (renamed[0] is None) != (renamed[1] is None):
            given, missing = ("from", "to") if renamed[1] is None else ("to", "from")
            raise _invalid(
                f"line {section.line}: this file's section has 'rename {given}' but no "
                f"'rename {missing}'; a rename gives both names",
                section.line,
            )
        if renamed[0] is not None and renamed[1] is not None:
            section.renamed = (renamed[0], renamed[1])
        if self._file_headers_at(self.i):
            self._file_headers()

    def _mode(self, value: str, number: int) -> int:
        if not _MODE.fullmatch(value):
            raise _invalid(f"line {number}: {value!r} is not a file mode like 100644", number)
        mode = int(value, 8)
        if mode & 0o7000:
            raise _invalid(
                f"line {number}: mode {value} has setuid, setgid or sticky bits, which git never "
                "writes; use 100644 or 100755",
                number,
            )
        if mode not in _GIT_MODES:
            raise _invalid(
                f"line {number}: mode {value} is not one git writes; a file's is 100644, or "
                "100755 when it is executable",
                number,
            )
        return mode

    # -- hunks -----------------------------------------------------------------------------

    def _hunk(self) -> None:
        section = self.section
        assert section is not None
        header = self.lines[self.i]
        number = self.i + 1
        self.hunk_count += 1
        if self.hunk_count > MAX_HUNKS:
            raise _invalid(f"more than {MAX_HUNKS:,} hunks in one diff", number)
        match = _HUNK.fullmatch(header)
        counts: tuple[int, int] | None = None
        starts: tuple[int | None, int | None] = (None, None)
        if match:
            old_start, old_count, new_start, new_count = match.groups()
            starts = (int(old_start), int(new_start))
            counts = (
                1 if old_count is None else int(old_count),
                1 if new_count is None else int(new_count),
            )
        elif header.startswith(("@@ -", "@@@")):
            raise _invalid(
                f"line {number}: malformed hunk header {excerpt(header, 200)!r}; write it as "
                "'@@ -12,5 +12,6 @@' (or a bare '@@')",
                number,
            )
        self.i += 1
        body = self._counted(counts) if counts is not None else None
        if body is None:
            body = self._until_header()
        hunk = self._build(body, starts, number)
        section.hunks.append(hunk)

    def _is_body(self, i: int) -> bool:
        line = self.lines[i]
        return not line or line[0] in " +-\\"

    def _counted(self, counts: tuple[int, int]) -> list[int] | None:
        """The indexes of the hunk's lines as its counts say, or None when the counts do not
        fit the body."""
        want_old, want_new = counts
        got_old = got_new = 0
        i = self.i
        out: list[int] = []
        lines = self.lines
        while got_old < want_old or got_new < want_new:
            if i >= len(lines) or not self._is_body(i):
                return None
            line = lines[i]
            kind = line[:1] or " "
            if kind == "\\":
                out.append(i)
                i += 1
                continue
            if kind in " -":
                got_old += 1
            if kind in " +":
                got_new += 1
            if got_old > want_old or got_new > want_new:
                return None
            out.append(i)
            i += 1
        if i < len(lines) and lines[i].startswith("\\"):
            out.append(i)
            i += 1
        if i < len(lines) and self._continues(i):
            return None
        self.i = i
        return out

    def _continues(self, i: int) -> bool:
        """Whether line ``i``, just past what the counts cover, is more of the same hunk."""
        line = self.lines[i]
        if not line or line[0] not in " +-":
            return False
        if self._file_headers_at(i):
            return False
        return not self._signature(i)

    def _signature(self, i: int) -> bool:
        """``-- `` then a version line: git format-patch's signature, not a removed line."""
        lines = self.lines
        return lines[i] == "-- " and (
            i + 1 >= len(lines) or bool(re.fullmatch(r"\d+(\.\d+)+.*", lines[i + 1]))
        )

    def _until_header(self) -> list[int]:
        lines = self.lines
        out: list[int] = []
        i = self.i
        while i < len(lines) and self._is_body(i):
            if self._file_headers_at(i) or self._signature(i):
                break
            out.append(i)
            i += 1
        while out and not lines[out[-1]]:
            out.pop()  # a blank line after the hunk, not context (see the module doc)
        self.i = out[-1] + 1 if out else self.i
        return out

    def _build(self, body: list[int], starts: tuple[int | None, int | None], number: int) -> Hunk:
        section = self.section
        assert section is not None
        old: list[str] = []
        new: list[str] = []
        kinds: list[tuple[str, str]] = []
        old_eof = new_eof = False
        for i in body:
            line = self.lines[i]
            kind = line[:1] or " "
            if kind == "\\":
                if not kinds:
                    raise _invalid(
                        f"line {i + 1}: '\\ No newline at end of file' before any hunk line",
                        i + 1,
                    )
                last = kinds[-1][0]
                old_eof = old_eof or last in " -"
                new_eof = new_eof or last in " +"
                continue
            section.body_lines += 1
            section.body_crs += self.crs[i]
            text = line[1:]
            kinds.append((kind, text))
            if kind in " -":
                old.append(text)
            if kind in " +":
                new.append(text)
        if not kinds:
            raise _invalid(
                f"line {number}: the hunk has no lines; each of its lines starts with ' ' "
                "(context), '-' (removed) or '+' (added)",
                number,
            )
        return Hunk(
            starts[0], starts[1], tuple(old), tuple(new), tuple(kinds), old_eof, new_eof, number
        )


def _check_moves(files: Sequence[FileDiff]) -> None:
    """Refuse a diff that renames or deletes one file twice (two renames of one source would
    make a copy), or that creates one name twice (as a new file or a rename's target)."""
    gone: dict[str, FileDiff] = {}  # renamed or deleted: the section that does it
    made: dict[str, FileDiff] = {}  # created or renamed to
    for fd in files:
        moves: list[tuple[dict[str, FileDiff], str | None, str]] = []
        if fd.rename or fd.new_path is None:
            moves.append((gone, fd.old_path, "renames or deletes"))
        if fd.rename or fd.old_path is None:
            moves.append((made, fd.new_path, "creates or renames to"))
        for seen, path, verb in moves:
            if path is None:
                continue
            first = seen.get(path)
            if first is not None:
                raise _invalid(
                    f"line {fd.line}: this file's section {verb} {path!r}, which the section at "
                    f"line {first.line} already does; a diff moves, deletes or creates each file "
                    "once",
                    fd.line,
                    path=path,
                    sections=[first.line, fd.line],
                    twice="renamed or deleted" if seen is gone else "created",
                )
            seen[path] = fd


def new_file_text(diff: FileDiff) -> str:
    """The text (``\\n`` breaks) of a file the diff creates: its added lines, ending with a
    line break unless the diff says ``\\ No newline at end of file``.

    Raises:
        InvalidPatch: a hunk of a new file has context or removed lines.
    """
    lines: list[str] = []
    final = True
    for hunk in diff.hunks:
        if hunk.old:
            raise _invalid(
                f"line {hunk.line}: a hunk of the new file {diff.new_path} has context or "
                "removed lines; every line of a new file's hunk starts with '+'",
                hunk.line,
            )
        lines.extend(hunk.new)
        final = not hunk.new_ends_without_newline
    if not lines:
        return ""
    return LF.join(lines) + (LF if final else "")


# -- placing hunks -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Placed:
    """Hunk ``index`` placed with its old lines at ``lines[at : at + len(old)]``."""

    index: int
    at: int
    new: tuple[str, ...]  # its new lines as written (corrected on a tolerant rung)
    rung: str
    note: str | None
    offset: int | None
    already: bool = False  # its new lines are there already (a retried diff): nothing to do


_LineRep = tuple[int, int, list[str]]  # lines [a, b) of the file become these lines


_ALREADY = (
    "its new lines are in the file already, as a diff sent a second time finds them; nothing "
    "was changed there"
)
_ALREADY_CHARS = 8  # characters of added text below which its being there says nothing


class _Spent(Exception):
    """The search budget of one compile_hunks is used up."""


def compile_hunks(doc: Document, diff: FileDiff, *, exact: bool = False) -> Compiled:
    """Compile the hunks of one file's diff into a plan on ``doc`` (the file as read).

    Each hunk lands where its old lines (context and removed) are: at its stated line shifted
    by the previous hunk's offset, else at the one place after the previous hunk where they
    are, else (unless ``exact``) at the one place where the first tolerant rung of the match
    ladder that finds them there does, its new lines corrected the same way. Of several places
    none at the stated line, the first is taken only when the later hunks fit after it alone.
    ``\\ No newline at end of file`` decides the file's last line break.

    Raises:
        NoMatch: a hunk's old lines are nowhere after the previous hunk (with the file's lines
            at the stated place and the most similar region), or its tolerant match cannot be
            carried over to its new lines, or the hunks before it used up the lines one
            call may search for hunks not at their stated line (``search_spent``).
        AmbiguousMatch: the hunk fits at several places, none at its stated line.
        OverlappingEdits: a hunk fits only before the end of the hunk before it.
        EncodingError, InvalidRequest: a new line the file's encoding cannot store (or a NUL).
    """
    return _Placer(doc, diff, exact=exact).run()


def _header_of(hunk: Hunk) -> str:
    if hunk.old_start is None:
        return "@@"
    return f"@@ -{hunk.old_start},{len(hunk.old)} +{hunk.new_start},{len(hunk.new)} @@"


class _Placer:
    compare_limit = 4  # lines compared at candidate places, per line searched, at most

    def __init__(self, doc: Document, diff: FileDiff, *, exact: bool) -> None:
        self.doc = doc
        self.diff = diff
        self.exact = exact
        text = doc.text
        self.final = text.endswith(LF) or not text
        self.lines = (text[:-1] if text.endswith(LF) else text).split(LF) if text else []
        self.path = doc.name or diff.new_path or diff.old_path or "the file"
        self.total = len(diff.hunks)
        self._index: dict[str, list[int]] | None = None  # where each line is
        self._text: tuple[str, list[int]] | None = None
        self._keys: tuple[str, list[int]] | None = None  # every line's text, as _seek has it
        # Lines the searches for hunks not at their stated line may still look at.
        self.budget = SEARCH_PASSES * len(self.lines) + SEARCH_LINES
        self.spent = False

    def _charge(self, lines: int) -> None:
        """Count ``lines`` searched against the budget; past it, stop searching."""
        self.budget -= max(lines, 0)
        if self.budget < 0:
            self.spent = True
            raise _Spent

    # -- the main loop ---------------------------------------------------------------------

    def run(self) -> Compiled:
        placed: list[_Placed] = []
        offset = 0  # where the previous hunk was found minus where it said it was
        low = 0  # the first line the next hunk may start at
        for index, hunk in enumerate(self.diff.hunks):
            with error_context(Frame("hunk", index, self.total), path=self.path):
                expected = None
                if hunk.old_start is not None:
                    stated = hunk.old_start - 1 if hunk.old else hunk.old_start
                    expected = stated + offset
                spot = self._place(index, hunk, expected, low, placed)
                size = len(spot.new) if spot.already else len(hunk.old)
                if expected is not None and hunk.old_start is not None:
                    # Where its old lines end against where it said they did: the hunks after
                    # it are that far off too (past new lines already there, by their count).
                    offset = spot.at + size - (expected - offset + len(hunk.old))
                placed.append(spot)
                low = spot.at + size
                self.doc.check_writable(LF.join(spot.new), f"hunks[{index}]")
        return self._compiled(placed)

    def _place(
        self, index: int, hunk: Hunk, expected: int | None, low: int, placed: list[_Placed]
    ) -> _Placed:
        n = len(self.lines)
        old = hunk.old
        at_eof = hunk.old_ends_without_newline or hunk.new_ends_without_newline
        if not old:
            return self._insertion(index, hunk, expected, low, placed)
        if expected is not None and self._exact_at(expected, old, low, at_eof=at_eof):
            return self._done_around(index, expected, old, hunk.new, low, expected) or _Placed(
                index, expected, hunk.new, "exact", None, 0
            )
        try:
            places = self._exact_places(old, low, n - len(old), at_eof)
            if places:
                at = self._choose(index, hunk, places, expected, "exact")
                return self._done_around(index, at, old, hunk.new, low, expected) or _Placed(
                    index, at, hunk.new, "exact", None, self._offset(at, expected)
                )
            before = self._exact_places(old, 0, min(low - 1, n - len(old)), at_eof)
            if before:
                raise self._overlap(index, hunk, before[0], placed)
            if not self.exact:
                loose = self._loose(index, hunk, expected, low, at_eof)
                if loose is not None:
                    return loose
        except _Spent:
            pass
        done = self._new_lines_there(index, hunk, expected, low)
        if done is not None:
            return done
        raise self._not_found(index, hunk, expected)

    def _insertion(
        self, index: int, hunk: Hunk, expected: int | None, low: int, placed: list[_Placed]
    ) -> _Placed:
        """A hunk without old lines: at its stated line (a bare one only where one place is
        left: an empty file, or the end of the file right after the previous hunk)."""
        n = len(self.lines)
        if expected is None:
            there = n - len(hunk.new)
            if self._added_already(hunk.new, there, low):
                return self._already(index, there, None, hunk.new)
            if low != n:
                raise self._ambiguous(index, hunk, [low, n], "exact", None)
            return _Placed(index, n, hunk.new, "exact", None, None)
        if self._added_already(hunk.new, expected, low):
            return self._already(index, expected, expected, hunk.new)
        if expected < low:
            raise self._overlap(index, hunk, expected, placed)
        if expected > n:
            raise self._not_found(index, hunk, expected)
        return _Placed(index, expected, hunk.new, "exact", None, 0)

    # -- a diff sent again -------------------------------------------------------------

    def _already(self, index: int, at: int, expected: int | None, new: Sequence[str]) -> _Placed:
        """Hunk ``index``, whose ``new`` lines start at line ``at`` already: placed there."""
        return _Placed(index, at, tuple(new), "exact", _ALREADY, self._offset(at, expected), True)

    def _done_around(
        self,
        index: int,
        at: int,
        old: Sequence[str],
        new: Sequence[str],
        low: int,
        expected: int | None,
    ) -> _Placed | None:
        """The hunk as already applied when the file reads as its new lines around its old
        ones, found at ``at``: new lines that hold the old ones (lines added before or after
        them) and are there in full. Sent again, it would add its lines a second time."""
        if len(new) <= len(old):
            return None
        for d in range(len(new) - len(old) + 1):
            start = at - d
            if start < low or tuple(new[d : d + len(old)]) != tuple(old):
                continue
            if self.lines[start : start + len(new)] == list(new):
                return self._already(index, start, expected, new)
        return None

    def _added_already(self, new: Sequence[str], at: int, low: int) -> bool:
        """Whether lines a hunk only adds are at ``at`` already (and are enough text that a
        second copy is no edit a model means: a lone ``}`` may well be added twice)."""
        return (
            low <= at
            and len(LF.join(new).strip()) >= _ALREADY_CHARS
            and self.lines[at : at + len(new)] == list(new)
        )

    def _new_lines_there(
        self, index: int, hunk: Hunk, expected: int | None, low: int
    ) -> _Placed | None:
        """A hunk whose old lines are not in the file, as already applied when its new lines
        are: at its stated place, or at their one place after the previous hunk."""
        new = hunk.new
        if new == hunk.old or not new:
            return None
        if expected is not None and self._exact_at(expected, new, low, at_eof=False):
            at: int | None = expected
        elif len(LF.join(new).strip()) < _ALREADY_CHARS:
            return None
        else:
            try:
                places = self._exact_places(new, low, len(self.lines) - len(new), False)
            except _Spent:
                places = []
            at = places[0] if len(places) == 1 else None
        if at is None:
            return None
        return self._already(index, at, expected, new)

    def _exact_at(self, at: int, old: Sequence[str], low: int, *, at_eof: bool) -> bool:
        n = len(self.lines)
        if at < low or at + len(old) > n or (at_eof and at + len(old) != n):
            return False
        return self.lines[at : at + len(old)] == list(old)

    def _exact_places(self, old: Sequence[str], low: int, high: int, at_eof: bool) -> list[int]:
        """Where ``old`` starts exactly, between ``low`` and ``high`` included, in text order:
        every place up to :data:`MAX_LISTED` (one place is a hunk's place at any distance from
        its stated line; two or more are a choice that only the stated line may make). Only
        the places of the hunk's rarest line are compared, found in an index of the file's
        lines made once: a hunk costs its candidates, not the file."""
        if high < low:
            return []
        if at_eof:  # a hunk with a no-newline marker ends where the file ends
            return [high] if self._exact_at(high, old, low, at_eof=True) else []
        if self.spent:
            raise _Spent
        index = self._line_index()
        k, positions = min(
            ((k, index.get(line, [])) for k, line in enumerate(old)), key=lambda kp: len(kp[1])
        )
        candidates = positions[bisect_left(positions, low + k) : bisect_right(positions, high + k)]
        found: list[int] = []
        if len(candidates) * len(old) <= self.compare_limit * (high - low + len(old)):
            self._charge(len(candidates) + len(old))
            want = list(old)
            for pos in candidates:
                at = pos - k
                if self.lines[at : at + len(want)] == want:
                    found.append(at)
                    if len(found) == MAX_LISTED:
                        break
            return found
        # A hunk of common lines: comparing at every place of its rarest one would cost those
        # places times the hunk; a search of the joined text is linear.
        self._charge(high - low + 1 + len(old))
        text, starts = self._joined()
        needle = LF + LF.join(old) + LF
        place = _first_place(text, starts, needle, low, high)
        while place is not None and len(found) < MAX_LISTED:
            found.append(place)
            place = _first_place(text, starts, needle, place + 1, high)
        return found

    def _joined(self) -> tuple[str, list[int]]:
        """The file's lines as one text between line breaks (``\\n`` + lines + ``\\n``), and
        where each line starts in it (built once, for a hunk of common lines)."""
        if self._text is None:
            self._text = _joined(self.lines)
        return self._text

    def _line_index(self) -> dict[str, list[int]]:
        """Where each line of the file is (built once, when a hunk is not at its stated line)."""
        if self._index is None:
            self._charge(len(self.lines))
            index: dict[str, list[int]] = {}
            for number, line in enumerate(self.lines):
                index.setdefault(line, []).append(number)
            self._index = index
        return self._index

    def _choose(
        self,
        index: int,
        hunk: Hunk,
        places: list[int],
        expected: int | None,
        rung: str,
    ) -> int:
        """The one place to use of those found on one rung: the only one, at any distance from
        the stated line; of several, the one exactly at the stated line (shifted by the offset
        of the hunks before), or the first when only it leaves room for the hunks after it
        (they must follow it in the file); else refuse them all."""
        if len(places) == 1:
            return places[0]
        if expected is not None and expected in places:
            return expected
        if not self._room_after(places[1] + len(hunk.old), index + 1):
            return places[0]
        raise self._ambiguous(index, hunk, places, rung, expected)

    def _room_after(self, low: int, following: int) -> bool:
        """Whether the hunks from index ``following`` on could all be placed, in order, from
        line ``low`` on: each at the earliest place where its old lines' text is (on any rung:
        without indentation, trailing whitespace, typographic punctuation or line numbers),
        which leaves the most room for the next."""
        text, starts = self._key_text()
        for hunk in self.diff.hunks[following:]:
            if not hunk.old:
                continue
            variants = [tuple(hunk.old)]
            for padding in (False, True):
                stripped = strip_numbers(hunk.old, padding=padding)
                if stripped is not None:
                    variants.append(stripped[0])
            ends = []
            for variant in variants:
                needle = LF + LF.join(x.translate(PUNCTUATION_MAP).strip() for x in variant) + LF
                at = _first_place(text, starts, needle, low, len(self.lines) - len(variant))
                if at is not None:
                    ends.append(at + len(variant))
            if not ends:
                return False
            low = min(ends)
        return True

    def _key_text(self) -> tuple[str, list[int]]:
        """Every line's text as all rungs compare it, joined as :func:`_joined` has it."""
        if self._keys is None:
            self._keys = _joined(
                [x.strip() for x in LF.join(self.lines).translate(PUNCTUATION_MAP).split(LF)]
            )
        return self._keys

    @staticmethod
    def _offset(at: int, expected: int | None) -> int | None:
        return None if expected is None else at - expected

    # -- the ladder ----------------------------------------------------------------------

    def _loose(
        self, index: int, hunk: Hunk, expected: int | None, low: int, at_eof: bool
    ) -> _Placed | None:
        """The hunk on the first tolerant rung that finds its old lines after ``low``, at the
        nearest place; None when no rung finds them (or the hunk only changes what the rung
        ignores, which is explained as not found)."""
        old = hunk.old
        if not any(line.strip() for line in old):
            return None
        lines = self.lines
        hits = self._seek(old, low)
        if at_eof:
            hits = [h for h in hits if h.line + len(old) == len(lines)]
        if not hits:
            return None
        by_line = {h.line: h for h in hits}
        at = self._choose(index, hunk, sorted(by_line), expected, hits[0].rung)
        hit: SeekHit = by_line[at]
        found = lines[at : at + len(old)]
        try:
            new = correct(
                hit,
                found,
                hunk.new,
                file_uses_tabs=file_uses_tabs(lines),
                file_typographic=frozenset(c for c in TYPOGRAPHIC if c in self.doc.text),
            )
        except OnlyIgnored:
            # It changes only what the rung ignores, and the file already reads so.
            return self._already(index, at, expected, found)
        except Uncorrectable as exc:
            raise uncorrectable_error(
                self.doc.text,
                LF.join(old) + LF,
                (at + 1, at + len(old)),
                hit.rung,
                str(exc),
                self.path,
                index,
                self.total,
                what=self._name(index, hunk) + "'s old lines",
            ) from None
        done = self._done_around(index, at, found, new, low, expected)
        if done is not None:
            return done
        return _Placed(
            index,
            at,
            tuple(new),
            used(hit, found),
            explain(hit, found, "the hunk"),
            self._offset(at, expected),
        )

    def _seek(self, old: Sequence[str], low: int) -> list[SeekHit]:
        """What ``seek`` finds of ``old`` from line ``low`` on the tolerant rungs, looking only
        at the places where every line's text (without indentation, trailing whitespace and
        typographic punctuation, as every rung compares it) is the hunk's, found with linear
        searches. One ``seek`` of the whole file checks every place of the hunk's rarest line,
        which costs the file times the hunk when that line is common."""
        lines = self.lines
        high = len(lines) - len(old)
        if high < low:
            return []
        self._charge(high - low + 1 + len(old))
        text, starts = self._key_text()
        # The hunk as sent, and without pasted line numbers (with and without a space after).
        variants = [tuple(old)]
        for padding in (False, True):
            stripped = strip_numbers(old, padding=padding)
            if stripped is not None:
                variants.append(stripped[0])
        candidates: set[int] = set()
        for variant in variants:
            needle = LF + LF.join(x.translate(PUNCTUATION_MAP).strip() for x in variant) + LF
            found: list[int] = []
            at = _first_place(text, starts, needle, low, high)
            while at is not None and len(found) <= MAX_PLACES:
                found.append(at)
                at = _first_place(text, starts, needle, at + 1, high)
            if len(found) <= MAX_PLACES:  # more: no rung could pick one (as seek has it)
                candidates.update(found)
        unit = indent_unit(lines[:5000])
        rank = {rung.name: k for k, rung in enumerate(LADDER)}
        best: list[SeekHit] = []
        self._charge(len(candidates) * len(old))
        for at in sorted(candidates):
            hits = seek(
                lines, old, start=at, end=at + len(old), ladder=LADDER[1:], indent_unit=unit
            )
            if hits and (not best or rank[hits[0].rung] < rank[best[0].rung]):
                best = hits
            elif hits and hits[0].rung == best[0].rung:
                best += hits
        # On a rung, seek prefers the hunk read without padding after its numbers.
        if any(not hit.padded for hit in best):
            best = [hit for hit in best if not hit.padded]
        return best

    # -- the plan ------------------------------------------------------------------------

    def _compiled(self, placed: list[_Placed]) -> Compiled:
        reps: list[_LineRep] = []
        applied: list[AppliedEdit] = []
        shift = 0  # lines added so far minus lines removed
        desired = self.final
        n = len(self.lines)
        for spot in placed:
            hunk = self.diff.hunks[spot.index]
            applied.append(
                AppliedEdit(
                    spot.index,
                    0 if spot.already else 1,
                    (spot.at + shift + 1,),
                    match=spot.rung,
                    note=spot.note,
                    offset=spot.offset,
                    already_applied=spot.already,
                )
            )
            if spot.already:
                continue
            shift += len(hunk.new) - len(hunk.old)
            reps.extend(_runs(hunk, spot))
            if spot.at + len(hunk.old) == n:
                if hunk.new_ends_without_newline:
                    desired = False
                elif hunk.old_ends_without_newline:
                    desired = True
        touches_end = bool(reps) and reps[-1][1] == n
        # The text's last break needs setting unless it is there and stays.
        if not (self.final and desired) and (touches_end or desired != self.final):
            reps = self._with_tail(reps, desired)
        return Compiled(Plan(tuple(self._replacements(reps, desired))), tuple(applied))

    def _with_tail(self, reps: list[_LineRep], desired: bool) -> list[_LineRep]:
        """``reps`` with the last one (or a new one) reaching the end of the file and holding
        at least one whole line when it can, so that the final line break can be set there."""
        n = len(self.lines)
        if reps and reps[-1][1] == n:
            a, _b, tail = reps.pop()
            tail = list(tail)
        elif n:
            a, tail = n - 1, [self.lines[n - 1]]
        else:
            a, tail = 0, []
        while a > 0 and (not tail or a == n):
            if reps and reps[-1][1] == a:
                a, _b, before = reps.pop()
                tail = [*before, *tail]
            else:
                a -= 1
                tail = [self.lines[a], *tail]
        reps.append((a, n, tail))
        return reps

    def _replacements(self, reps: list[_LineRep], desired: bool) -> list[Replacement]:
        text = self.doc.text
        n = len(self.lines)
        wanted = {a for a, _b, _ in reps} | {b for _a, b, _ in reps}
        offsets = line_offsets(self.lines, wanted)
        out = []
        for a, b, new in reps:
            if b == n and not (self.final and desired):
                # The tail: up to the end of the text, its last break as the diff says.
                body = LF.join(new) + (LF if new and desired else "")
                out.append(Replacement(offsets[a] if a < n else len(text), len(text), body))
            else:
                out.append(Replacement(offsets[a], offsets[b], "".join(x + LF for x in new)))
        return out

    # -- errors --------------------------------------------------------------------------

    def _name(self, index: int, hunk: Hunk) -> str:
        return (
            f"hunk {index + 1} of {self.total} of {self.path} ({_header_of(hunk)}, diff line "
            f"{hunk.line})"
        )

    def _where(self, index: int) -> tuple[Frame]:
        """A hunk's frame; the messages that carry :meth:`_data` start with :meth:`_name`,
        which says it already."""
        return (Frame("hunk", index, self.total, said=True),)

    def _data(self, index: int, hunk: Hunk, expected: int | None) -> dict[str, Any]:
        return {
            "hunk": index + 1,
            "diff_line": hunk.line,
            "stated_line": None if expected is None else expected + 1,
        }

    def _ambiguous(
        self, index: int, hunk: Hunk, places: list[int], rung: str, expected: int | None
    ) -> AmbiguousMatch:
        where = [p + 1 for p in places]
        loosely = "" if rung == "exact" else f" (with tolerance for {tolerance_names(rung)})"
        near = (
            "after the previous hunk"
            if expected is None
            else f"none of them at its stated line {expected + 1}"
        )
        more = " and maybe more" if len(places) >= MAX_LISTED else ""
        return AmbiguousMatch(
            f"{self._name(index, hunk)} fits{loosely} at lines "
            f"{', '.join(map(str, where))}{more}, {near}, so which one is meant cannot be told; "
            "add context lines that only the place you mean has, or give the line numbers of "
            "the place you mean. The places:\n" + list_places(self.lines, places, len(hunk.old)),
            path=self.path,
            where=self._where(index),
            data={**self._data(index, hunk, expected), "lines": where, "match": rung},
            suggestions=[
                "Give the hunk the line numbers of the place you mean (its old lines must be "
                "there), or add a context line that only that place has."
            ],
        )

    def _overlap(self, index: int, hunk: Hunk, at: int, placed: list[_Placed]) -> OverlappingEdits:
        end = at + len(hunk.old)
        other = placed[-1]
        for spot in placed:
            size = len(self.diff.hunks[spot.index].old)
            if spot.at < end and at < spot.at + size:
                other = spot
                break
        return OverlappingEdits(
            f"{self._name(index, hunk)} fits only at line {at + 1}, which is not after hunk "
            f"{other.index + 1} (lines {other.at + 1}-"
            f"{other.at + len(self.diff.hunks[other.index].old)}); hunks must be in file order "
            "and must not share lines: merge them into one hunk",
            path=self.path,
            where=self._where(index),
            data={
                **self._data(index, hunk, None),
                "edits": [other.index, index],
                "hunks": [other.index + 1, index + 1],
                "line": at + 1,
            },
        )

    def _not_found(self, index: int, hunk: Hunk, expected: int | None) -> NoMatch:
        old = LF.join(hunk.old) + LF
        new = LF.join(hunk.new) + LF
        base = mismatch_error(
            CountMismatch(index, 1, 0, self.doc.text, (), False),
            old,
            new,
            self.path,
            self.total,
            what="the hunk's old lines",
        )
        data = {**self._data(index, hunk, expected), **base.data}
        parts = [
            f"{self._name(index, hunk)}: its old lines (context and removed) are not in "
            "the file" + (" after the previous hunk" if index else "")
        ]
        n = len(self.lines)
        if expected is not None and n:
            first = min(max(expected - NEAR, 0), max(n - 1, 0))
            last = min(n, expected + len(hunk.old) + NEAR)
            shown = self.lines[first:last]
            data["stated_region"] = {
                "start_line": first + 1,
                "end_line": first + len(shown),
                "content": excerpt(LF.join(shown)),
            }
            parts += [
                "",
                f"The file's lines at the stated place (lines {first + 1}-{first + len(shown)}):",
                listing([excerpt(x, 200) for x in shown], first + 1),
            ]
        if (
            expected is not None
            and self._exact_at(expected, hunk.new, 0, at_eof=False)
            and hunk.new != hunk.old
        ):
            data["already_applied"] = True
            parts += ["", "The hunk's new lines are at the stated place: it looks already applied."]
        if self.spent:
            data["search_spent"] = True
            parts += [
                "",
                f"So many hunks of this diff were not at their stated lines (searching the file "
                f"over {SEARCH_PASSES} times) that the rest are looked for only at their stated "
                "lines; give hunks the line numbers where their old lines are.",
            ]
        detail = base.message.split(LF, 1)[1] if LF in base.message else ""
        return NoMatch(
            LF.join(parts) + (LF + detail if detail else ""),
            path=self.path,
            where=self._where(index),
            data=data,
            suggestions=[
                "Copy the context and removed lines exactly from the numbered lines above "
                "(without the numbers), or re-read the file and make the diff again.",
            ],
        )


def _joined(lines: Sequence[str]) -> tuple[str, list[int]]:
    """``lines`` as one text, each between line breaks, and where each line starts in it."""
    starts = list(itertools.accumulate((len(x) + 1 for x in lines), initial=1))
    return LF + LF.join(lines) + LF, starts


def _first_place(text: str, starts: list[int], needle: str, a: int, b: int) -> int | None:
    """The first line from ``a`` to ``b`` included where the lines of ``needle`` (joined, each
    between line breaks) start in ``text`` (as :func:`_joined` gives it). ``str.find`` is linear
    for a long needle, however common its lines are."""
    if b < a:
        return None
    at = text.find(needle, starts[a] - 1, starts[b] - 1 + len(needle))
    return None if at < 0 else bisect_left(starts, at + 1)


def _runs(hunk: Hunk, spot: _Placed) -> list[_LineRep]:
    """The changed runs of a placed hunk, as line replacements (context lines stay)."""
    out: list[_LineRep] = []
    i = j = 0  # in the hunk's old and new lines
    run: tuple[int, int] | None = None  # where the current run started (old, new)
    for kind, _text in [*hunk.lines, (" ", "")]:
        if kind == " ":
            if run is not None:
                out.append((spot.at + run[0], spot.at + i, list(spot.new[run[1] : j])))
                run = None
            i += 1
            j += 1
            continue
        if run is None:
            run = (i, j)
        if kind == "-":
            i += 1
        else:
            j += 1
    return out


__all__ = ["FileDiff", "Hunk", "compile_hunks", "new_file_text", "parse_diff"]
