"""A unified or git diff's parts: its hunks, its file sections, and the headers that name them.

:class:`Hunk` and :class:`FileDiff` are what :func:`editguard.core.formats.diff_parse.parse_diff`
returns. ``Section`` gathers one file's headers as they are read (``diff --git``, ``---`` and
``+++``, git's extended headers) and, at its end, checks that they name one file on each side
and makes its :class:`FileDiff`. Paths are C-unquoted as git writes them
(``"a/sp\\303\\251cial"``) and lose their ``a/``/``b/`` prefixes and ``diff -u``'s timestamps.

Pure: strings in, values out.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from editguard.core.listing import excerpt
from editguard.errors import InvalidPatch

_DEV_NULL = "/dev/null"

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


def invalid(message: str, line: int, **data: Any) -> InvalidPatch:
    """INVALID_PATCH for the diff's ``line`` (1-based), with how a unified diff is written."""
    return InvalidPatch(
        message,
        data={"line": line, **data},
        suggestions=[
            "Send a unified diff: '--- a/path' and '+++ b/path' lines, then hunks that start "
            "with '@@ -old,count +new,count @@' and whose lines start with ' ', '-' or '+'."
        ],
    )


def unquote(value: str, line: int) -> str:
    """A path as git writes it: C-quoted (``"a/sp\\303\\251cial"``) or as is."""
    if not value.startswith('"'):
        return value
    if _closing_quote(value) != len(value) - 1:
        raise invalid(
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
            raise invalid(f"bad escape in the quoted path {value}", line)
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise invalid(f"the quoted path {value} is not UTF-8", line) from None


def split_quoted(rest: str) -> tuple[str, str] | None:
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


def header_path(value: str, line: int) -> str | None:
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
    path = unquote(value, line)
    return None if path == _DEV_NULL else path


def _strip(path: str | None, prefix: str) -> str | None:
    if path is not None and path.startswith(prefix):
        return path[len(prefix) :]
    return path


@dataclass(slots=True)
class Section:
    """One file's section of a diff as its headers are read, from its first ``line``."""

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
            raise invalid(
                f"line {self.line}: this file's section names no file (both sides are /dev/null, "
                "or it is both deleted and new, or its names cannot be read); give the path on "
                "'--- a/path' or '+++ b/path'",
                self.line,
            )
        if old == "" or new == "":
            raise invalid(
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
        return invalid(
            f"line {self.line}: this file's section names two different {side} files: "
            f"{first[1]!r} on its {first[0]} line and {second[1]!r} on its {second[0]} line; "
            "give one name on each side in every header",
            self.line,
            names=[first[1], second[1]],
        )


__all__ = ["FileDiff", "Hunk", "Section", "header_path", "invalid", "split_quoted", "unquote"]
