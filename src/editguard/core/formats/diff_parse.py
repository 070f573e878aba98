"""Unified and git diffs (``apply_diff``): the parser.

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

Pure: text in, values out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from editguard.core.document import LF
from editguard.core.formats.diff_sections import (
    FileDiff,
    Hunk,
    Section,
    header_path,
    invalid,
    split_quoted,
    unquote,
)
from editguard.core.listing import excerpt
from editguard.errors import InvalidPatch

MAX_DIFF_CHARS = 64 << 20  # a diff longer than this is no edit a model sends
MAX_DIFF_LINES = 2_000_000
MAX_FILES = 10_000
MAX_HUNKS = 100_000  # in one diff, all files together

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
            raise invalid(
                f"line {number} of the diff holds a carriage return (\\r) inside it; each line "
                "of a diff is one line of the file",
                number,
            )
    return _Parser(lines, crs).run()


class _Parser:
    def __init__(self, lines: list[str], crs: list[bool]) -> None:
        self.lines = lines
        self.crs = crs
        self.i = 0
        self.files: list[FileDiff] = []
        self.section: Section | None = None
        self.hunk_count = 0

    def run(self) -> tuple[FileDiff, ...]:
        lines = self.lines
        while self.i < len(lines):
            line = lines[self.i]
            if line.startswith("diff --git "):
                self._start(Section(self.i + 1, git=True))
                self._git_line(line)
                self._note_header()
                self.i += 1
                self._git_headers()
            elif self._file_headers_at(self.i):
                if self._fresh():
                    self._start(Section(self.i + 1))
                self._file_headers()
            elif line.startswith("@@"):
                if self.section is None or not (self.section.headers or self.section.git):
                    raise invalid(
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
            raise invalid(
                "no file in the diff: expected '--- a/path' and '+++ b/path' lines (or "
                "'diff --git a/path b/path') before the hunks",
                1,
            )
        _check_moves(self.files)
        return tuple(self.files)

    def _start(self, section: Section | None) -> None:
        if self.section is not None:
            self.files.append(self.section.finish())
            if len(self.files) > MAX_FILES:
                raise invalid(f"more than {MAX_FILES:,} files in one diff", self.section.line)
        self.section = section

    def _fresh(self) -> bool:
        """Whether file headers here start a new section (not the rest of a "diff" line's)."""
        section = self.section
        return section is None or section.git or section.headers or bool(section.hunks)

    def _binary_line(self, line: str) -> None:
        """``Binary files A and B differ`` from diff -r (git's is among its headers)."""
        section = self.section
        if section is None or self._fresh():
            section = Section(self.i + 1)
            self._start(section)
            match = re.fullmatch(r"Binary files (.+) and (.+) differ", line)
            if match:
                section.old_path = header_path(match.group(1), self.i + 1)
                section.new_path = header_path(match.group(2), self.i + 1)
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
        section.old_path = header_path(self.lines[self.i][4:], self.i + 1)
        self._note_header()
        self.i += 1
        section.new_path = header_path(self.lines[self.i][4:], self.i + 1)
        self._note_header()
        self.i += 1
        section.headers = True

    def _git_line(self, line: str) -> None:
        section = self.section
        assert section is not None
        rest = line[len("diff --git ") :]
        quoted = split_quoted(rest)
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
        section.git_old = unquote(first, self.i + 1)
        section.git_new = unquote(second, self.i + 1)
        if not section.git_old or not section.git_new:
            raise invalid(
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
                raise invalid(
                    f"line {number}: git copies are not supported; send the copy as a new "
                    "file ('--- /dev/null', '+++ b/new/path' and its whole text)",
                    number,
                )
            if line.startswith(("rename from ", "rename old ")):
                renamed[0] = unquote(line.split(" ", 2)[2], number)
            elif line.startswith(("rename to ", "rename new ")):
                renamed[1] = unquote(line.split(" ", 2)[2], number)
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
            raise invalid(
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
            raise invalid(f"line {number}: {value!r} is not a file mode like 100644", number)
        mode = int(value, 8)
        if mode & 0o7000:
            raise invalid(
                f"line {number}: mode {value} has setuid, setgid or sticky bits, which git never "
                "writes; use 100644 or 100755",
                number,
            )
        if mode not in _GIT_MODES:
            raise invalid(
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
            raise invalid(f"more than {MAX_HUNKS:,} hunks in one diff", number)
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
            raise invalid(
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
                    raise invalid(
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
            raise invalid(
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
                raise invalid(
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
            raise invalid(
                f"line {hunk.line}: a hunk of the new file {diff.new_path} has context or "
                "removed lines; every line of a new file's hunk starts with '+'",
                hunk.line,
            )
        lines.extend(hunk.new)
        final = not hunk.new_ends_without_newline
    if not lines:
        return ""
    return LF.join(lines) + (LF if final else "")


__all__ = ["FileDiff", "Hunk", "new_file_text", "parse_diff"]
