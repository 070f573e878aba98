"""The pipeline every tool runs through, behind one entry point: :class:`Workspace`.

request -> resolve in sandbox -> read -> compile to a plan -> apply in one pass -> diff
        -> commit (version check, atomic write) -> result

Every check runs before the first byte is written; a failure anywhere leaves the file as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from editguard.core.diagnosis import mismatch_error, numbered
from editguard.core.diff import render_diff
from editguard.core.document import (
    CR,
    Document,
    content_version,
    decode_stream,
    eol_style,
    normalize_newlines,
    restore_endings,
)
from editguard.core.formats.search_replace import (
    SearchReplace,
    compile_search_replace,
    validate_edits,
)
from editguard.core.plan import Plan, Replacement, render
from editguard.errors import EditError, InvalidRequest, StaleVersion
from editguard.fs.atomic import FileReader, os_error, write_atomic
from editguard.fs.lock import SHARED, FileLocks
from editguard.fs.sandbox import Resolved, Sandbox
from editguard.schema import (
    AppliedEdit,
    EditFileResult,
    EditOperation,
    ReadFileResult,
    WriteFileResult,
)

DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024
DEFAULT_MAX_EDITS = 1000
DEFAULT_READ_LINES = 2000

EditLike = SearchReplace | EditOperation | Mapping[str, Any]


class Workspace:
    """Edit files inside a set of allowed folders, exactly or not at all.

    Args:
        roots: the folders that may be read and written (default: the current directory).
            Relative paths start at the first one.
        max_file_bytes: files larger than this are refused with FILE_TOO_LARGE.
        max_edits: requests with more edits are refused with TOO_MANY_EDITS.
        read_lines: how many lines read_file shows when no end_line is given.
        locks: the per-file locks that writers hold (default: shared by every Workspace, and
            across processes through lock files).
    """

    def __init__(
        self,
        roots: Iterable[str | os.PathLike[str]] = (".",),
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        max_edits: int = DEFAULT_MAX_EDITS,
        read_lines: int = DEFAULT_READ_LINES,
        locks: FileLocks | None = None,
    ) -> None:
        self.sandbox = Sandbox(roots)
        self.locks = locks or SHARED
        self.max_file_bytes = max_file_bytes
        self.max_edits = max_edits
        self.read_lines = read_lines

    @property
    def roots(self) -> tuple[str, ...]:
        """The allowed folders, resolved."""
        return self.sandbox.roots

    # -- read_file -----------------------------------------------------------------------

    def read_file(
        self, path: str, start_line: int | None = None, end_line: int | None = None
    ) -> ReadFileResult:
        """Read a text file as numbered lines, with its version.

        Raises:
            EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE, PERMISSION_DENIED,
                FILE_TOO_LARGE, BINARY_FILE, INVALID_REQUEST (a bad line range).
        """
        where = self.sandbox.resolve(path)
        doc, version = self._load(where)
        total = doc.line_count
        first = start_line or 1
        if end_line is not None and end_line < first:
            raise InvalidRequest(
                f"end_line {end_line} is before start_line {first}",
                path=where.display,
                data={"field": "end_line"},
            )
        if first > max(total, 1):
            raise InvalidRequest(
                f"start_line {first} is past the end of {where.display}, which has {total} line(s)",
                path=where.display,
                data={"field": "start_line", "total_lines": total},
            )
        last = min(total, end_line if end_line is not None else first + self.read_lines - 1)
        lines = _line_slice(doc.text, first, last)
        truncated = last < total and end_line is None
        return ReadFileResult(
            path=where.real,
            content=numbered(lines, first) if lines else "",
            start_line=first,
            end_line=last,
            total_lines=total,
            truncated=truncated,
            next_start_line=last + 1 if truncated else None,
            encoding=doc.encoding,
            bom=bool(doc.bom),
            line_ending=doc.eol_style,
            ends_with_newline=doc.ends_with_newline,
            version=version,
        )

    # -- edit_file -----------------------------------------------------------------------

    def edit_file(
        self,
        path: str,
        edits: Sequence[EditLike],
        *,
        dry_run: bool = False,
        expected_version: str | None = None,
    ) -> EditFileResult:
        """Apply exact search/replace edits in sequence; all of them or none.

        Raises:
            EditError: NO_MATCH, WRONG_COUNT, INVALID_REQUEST, TOO_MANY_EDITS, STALE_VERSION,
                ENCODING_ERROR and the file errors of read_file, plus WRITE_FAILED.
        """
        specs = [_as_spec(e, i, len(edits)) for i, e in enumerate(edits)]
        validate_edits(specs, self.max_edits)
        where = self.sandbox.resolve(path)
        with self._writer(where, dry_run):
            return self._edit(where, specs, dry_run, expected_version)

    def _edit(
        self,
        where: Resolved,
        specs: list[SearchReplace],
        dry_run: bool,
        expected_version: str | None,
    ) -> EditFileResult:
        doc, version = self._load(where, expected_version)
        for index, spec in enumerate(specs):
            _check_encodable(doc, spec.new_text, index, len(specs), where.display)
        compiled = compile_search_replace(doc, specs)
        if compiled.mismatch is not None:
            k = compiled.mismatch.index
            raise mismatch_error(
                compiled.mismatch,
                normalize_newlines(specs[k].old_text),
                normalize_newlines(specs[k].new_text),
                where.display,
                len(specs),
            )
        plan = compiled.plan
        modifies = plan.changes(doc.text)
        new_version, written = self._commit(where, doc, plan, version, modifies, dry_run)
        applied = [
            AppliedEdit(
                index=e.index, occurrences_replaced=e.occurrences_replaced, lines=list(e.lines)
            )
            for e in compiled.edits
        ]
        return EditFileResult(
            path=where.real,
            diff=render_diff(doc.text, plan, where.display),
            edits_applied=applied,
            total_replacements=sum(e.occurrences_replaced for e in applied),
            version=new_version,
            previous_version=version,
            dry_run=dry_run,
            would_modify=modifies,
            written=written,
        )

    # -- write_file ----------------------------------------------------------------------

    def write_file(
        self, path: str, content: str, *, expected_version: str | None = None
    ) -> WriteFileResult:
        """Create a file, or overwrite one whole, atomically; parent folders are created.

        Overwriting keeps the file's encoding, BOM and line-ending style.

        Raises:
            EditError: OUTSIDE_ROOT, STALE_VERSION, ENCODING_ERROR, NOT_A_FILE, BINARY_FILE,
                PERMISSION_DENIED, WRITE_FAILED.
        """
        where = self.sandbox.resolve(path)
        with self._writer(where, dry_run=False):
            return self._write(where, content, expected_version)

    def _write(
        self, where: Resolved, content: str, expected_version: str | None
    ) -> WriteFileResult:
        exists = Path(where.real).exists()
        if exists:
            old, version = self._load(where, expected_version)
            target = Document("", old.encoding, old.bom, old.newline)
            # \n takes the file's usual line ending; explicit \r\n or \r is written as sent.
            raw = content if CR in content else restore_endings(content, None, old.newline)
        else:
            if expected_version is not None:
                raise StaleVersion(
                    f"{where.display} does not exist (expected version {expected_version})",
                    path=where.display,
                    data={"expected_version": expected_version, "actual_version": None},
                )
            old, version, target, raw = Document(""), None, Document(""), content
        _check_encodable(target, raw, None, None, where.display)
        if not exists:
            try:
                Path(where.real).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise os_error(exc, where.display, "create the folder of") from None
        new_version = write_atomic(
            where.real,
            [target.bom, raw.encode(target.encoding)],
            display=where.display,
            base_version=version,
        )
        plan = Plan((Replacement(0, len(old.text), normalize_newlines(content)),))
        return WriteFileResult(
            path=where.real,
            created=not exists,
            version=new_version,
            previous_version=version,
            diff=render_diff(old.text, plan, where.display),
            encoding=target.encoding,
            line_ending=eol_style(raw),
        )

    # -- shared steps --------------------------------------------------------------------

    def with_roots(self, roots: Iterable[str | os.PathLike[str]]) -> Workspace:
        """The same workspace (limits, locks) with other allowed folders."""
        return Workspace(
            roots,
            max_file_bytes=self.max_file_bytes,
            max_edits=self.max_edits,
            read_lines=self.read_lines,
            locks=self.locks,
        )

    def _writer(self, where: Resolved, dry_run: bool) -> AbstractContextManager[None]:
        """The file's lock for a call that may write it (none for a dry run)."""
        if dry_run:
            return nullcontext()
        return self.locks.hold(where.real, where.display)

    def _load(self, where: Resolved, expected_version: str | None = None) -> tuple[Document, str]:
        reader = FileReader(where.real, where.display, self.max_file_bytes)
        try:
            doc = decode_stream(reader.head(), reader)
        except EditError as exc:
            exc.path = where.display
            raise
        version = reader.version
        if expected_version is not None and expected_version != version:
            raise StaleVersion(
                f"{where.display} has changed since version {expected_version} was read "
                f"(it is now {version})",
                path=where.display,
                data={"expected_version": expected_version, "actual_version": version},
                suggestions=[
                    "Re-read the file (read_file) and make the edit again on what it holds now."
                ],
            )
        return doc, version

    def _commit(
        self,
        where: Resolved,
        doc: Document,
        plan: Plan,
        version: str,
        modifies: bool,
        dry_run: bool,
    ) -> tuple[str, bool]:
        if not modifies:
            return version, False
        if dry_run:
            return content_version(render(doc, plan)), False
        return write_atomic(
            where.real, render(doc, plan), display=where.display, base_version=version
        ), True


def _as_spec(edit: EditLike, index: int, total: int) -> SearchReplace:
    if isinstance(edit, SearchReplace):
        return edit
    if isinstance(edit, EditOperation):
        return SearchReplace(edit.old_text, edit.new_text, edit.occurrences)
    try:
        op = EditOperation.model_validate(edit)
    except ValueError as exc:
        raise InvalidRequest(
            f"edit {index + 1} of {total} is malformed: {exc}",
            edit_index=index,
            total_edits=total,
            data={"field": f"edits[{index}]"},
        ) from None
    return SearchReplace(op.old_text, op.new_text, op.occurrences)


def _check_encodable(
    doc: Document, text: str, index: int | None, total: int | None, display: str
) -> None:
    try:
        doc.check_encodable(text)
    except EditError as exc:
        exc.path, exc.edit_index, exc.total_edits = display, index, total
        raise


def _line_slice(text: str, first: int, last: int) -> list[str]:
    """Lines first..last (1-based, inclusive) of normalized text."""
    if last < first:
        return []
    pos = 0
    for _ in range(first - 1):
        pos = text.index("\n", pos) + 1
    out: list[str] = []
    for _ in range(last - first + 1):
        nl = text.find("\n", pos)
        if nl < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:nl])
        pos = nl + 1
    return out
