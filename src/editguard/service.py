"""The pipeline every tool runs through, behind one entry point: :class:`Workspace`.

request -> resolve in sandbox -> read -> compile to a plan -> apply in one pass -> diff
        -> commit (version check, atomic write) -> result

Every check runs before the first byte is written; a failure anywhere leaves the file as it was.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, ValidationError

from editguard import prewarm
from editguard.core.diagnosis import mismatch_error, not_found, numbered
from editguard.core.diff import render_diff
from editguard.core.document import (
    CR,
    Document,
    content_version,
    decode_stream,
    eol_style,
    line_numbers,
    normalize_newlines,
    restore_endings,
)
from editguard.core.formats.chunks import apply_chunks_with_endings, make_chunk
from editguard.core.formats.lines import LineKind, LineOp, compile_line_edits, compile_line_ops
from editguard.core.formats.pattern import compile_pattern
from editguard.core.formats.search_replace import (
    SearchReplace,
    compile_search_replace,
    validate_edits,
)
from editguard.core.plan import Plan, Replacement, render
from editguard.errors import (
    EditError,
    InvalidRequest,
    StaleVersion,
    TooManyEdits,
    ValidationFailed,
)
from editguard.fs.atomic import FileReader, os_error, write_atomic
from editguard.fs.lock import SHARED, FileLocks
from editguard.fs.sandbox import Resolved, Sandbox
from editguard.languages import language_of
from editguard.schema import (
    AppliedEdit,
    ChunkModel,
    EditFileResult,
    EditOperation,
    EditSymbolArgs,
    EditSymbolResult,
    FindingModel,
    LineEdit,
    LineEditOp,
    ListSymbolsArgs,
    ListSymbolsResult,
    Mode,
    ReadFileResult,
    SafeEditArgs,
    SafeEditResult,
    SearchReplaceOp,
    SymbolModel,
    Validation,
    WriteFileResult,
    arguments_of,
)
from editguard.symbols import Symbol, find_symbol, symbols_of
from editguard.symbols.locate import shares_lines
from editguard.validate import Finding, Linter, Report, validate
from editguard.validate.linters import linter_named

DEFAULT_MAX_FILE_BYTES = 100 * 1024 * 1024
DEFAULT_MAX_EDITS = 1000
DEFAULT_READ_LINES = 2000
# Above this size the syntax guard and linters are skipped (and the result says so): parsing a
# huge file twice would cost more than the edit itself.
VALIDATE_LIMIT = 5_000_000

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
        linters: external linters to run on a temporary copy of each edited file (names of
            known ones, e.g. ``"ruff"``, or :class:`~editguard.validate.Linter` objects); their
            introduced findings are warnings unless the linter is blocking.
        prewarm: parse a source file in a background thread after it is read or written, so
            that the next edit finds its symbols and parse tree cached (a long-lived process
            wants this; a one-shot command does not).
    """

    def __init__(
        self,
        roots: Iterable[str | os.PathLike[str]] = (".",),
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        max_edits: int = DEFAULT_MAX_EDITS,
        read_lines: int = DEFAULT_READ_LINES,
        locks: FileLocks | None = None,
        linters: Iterable[Linter | str] = (),
        prewarm: bool = True,
    ) -> None:
        self.sandbox = Sandbox(roots)
        self.prewarm = prewarm
        self.locks = locks or SHARED
        self.linters: tuple[Linter, ...] = tuple(
            linter_named(x) if isinstance(x, str) else x for x in linters
        )
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
        self._warm(where, doc.text, None)
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
        edits: Sequence[EditLike] | str,
        *,
        dry_run: bool = False,
        expected_version: str | None = None,
        mode: Mode = "strict",
    ) -> EditFileResult:
        """Apply exact search/replace edits in sequence; all of them or none.

        ``mode`` decides what a syntax error the edits would introduce does: ``strict`` refuses
        (VALIDATION_FAILED), ``interactive`` writes and warns, ``verify_only`` never writes.

        Raises:
            EditError: NO_MATCH, WRONG_COUNT, INVALID_REQUEST, TOO_MANY_EDITS, STALE_VERSION,
                ENCODING_ERROR, VALIDATION_FAILED, FILE_BUSY and the file errors of read_file,
                plus WRITE_FAILED.
        """
        edits = _edit_list(edits)
        specs = [_as_spec(e, i, len(edits)) for i, e in enumerate(edits)]
        validate_edits(specs, self.max_edits)
        where = self.sandbox.resolve(path)
        no_write = dry_run or mode == "verify_only"
        with self._writer(where, no_write):
            return self._edit(where, specs, dry_run, expected_version, mode)

    def _edit(
        self,
        where: Resolved,
        specs: list[SearchReplace],
        dry_run: bool,
        expected_version: str | None,
        mode: Mode,
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
        applied = [
            AppliedEdit(
                index=e.index, occurrences_replaced=e.occurrences_replaced, lines=list(e.lines)
            )
            for e in compiled.edits
        ]
        return self._plan_result(where, doc, version, compiled.plan, applied, dry_run, mode)

    def _plan_result(
        self,
        where: Resolved,
        doc: Document,
        version: str,
        plan: Plan,
        applied: list[AppliedEdit],
        dry_run: bool,
        mode: Mode,
    ) -> EditFileResult:
        """Validate, commit and describe a compiled plan (edit_file and edit_lines)."""
        outcome = self._apply(where, doc, version, plan, dry_run, mode)
        return EditFileResult(
            path=where.real,
            diff=render_diff(doc.text, plan, where.display),
            edits_applied=applied,
            total_replacements=sum(e.occurrences_replaced for e in applied),
            version=outcome.version,
            previous_version=version,
            dry_run=dry_run,
            would_modify=outcome.modifies,
            written=outcome.written,
            mode=mode,
            validation=outcome.validation,
        )

    def _apply(
        self,
        where: Resolved,
        doc: Document,
        version: str,
        plan: Plan,
        dry_run: bool,
        mode: Mode,
        extra: tuple[Finding, ...] = (),
    ) -> _Outcome:
        _refuse_nul(doc, (r.text for r in plan.replacements), where.display)
        modifies = plan.changes(doc.text)
        validation = self._validated(where, doc.text, plan, mode, extra)
        new_version, written = self._commit(
            where, doc, plan, version, modifies, dry_run or mode == "verify_only"
        )
        if written:
            self._warm(where, doc.text, plan)
        return _Outcome(modifies, validation, new_version, written)

    # -- edit_lines ----------------------------------------------------------------------

    def edit_lines(
        self,
        path: str,
        edits: Sequence[LineOp | LineEditOp | Mapping[str, Any]] | str,
        *,
        dry_run: bool = False,
        expected_version: str | None = None,
        mode: Mode = "strict",
    ) -> EditFileResult:
        """Insert, delete and replace lines by number; every number refers to the file as read.

        Raises:
            EditError: LINE_OUT_OF_RANGE, OVERLAPPING_EDITS, INVALID_REQUEST, NO_MATCH and
                WRONG_COUNT (old_text inside a line), STALE_VERSION, VALIDATION_FAILED, and the
                file errors of edit_file.
        """
        edits = _edit_list(edits)
        ops = [_as_line_op(e, i, len(edits)) for i, e in enumerate(edits)]
        if not ops:
            raise InvalidRequest(
                "edits is empty: send at least one line edit", data={"field": "edits"}
            )
        if len(ops) > self.max_edits:
            raise TooManyEdits(
                f"{len(ops)} edits in one call; the limit is {self.max_edits}",
                data={"edits": len(ops), "limit": self.max_edits},
            )
        for index, op in enumerate(ops):
            if op.text is not None and "\x00" in op.text:
                raise InvalidRequest(
                    "text contains a NUL character (\\u0000)",
                    edit_index=index,
                    total_edits=len(ops),
                    data={"field": f"edits[{index}].text"},
                )
        where = self.sandbox.resolve(path)
        with self._writer(where, dry_run or mode == "verify_only"):
            doc, version = self._load(where, expected_version)
            try:
                compiled = compile_line_ops(doc.text, ops)
            except EditError as exc:
                exc.path = where.display
                raise
            for index, op in enumerate(ops):
                _check_encodable(doc, op.text or "", index, len(ops), where.display)
            applied = [
                AppliedEdit(index=i, occurrences_replaced=1, lines=[line])
                for i, line in enumerate(compiled.lines)
            ]
            return self._plan_result(where, doc, version, compiled.plan, applied, dry_run, mode)

    # -- safe_edit -----------------------------------------------------------------------

    def safe_edit(
        self,
        path: str,
        *,
        content: str | None = None,
        line_edits: Sequence[LineEdit | Mapping[str, Any]] | None = None,
        search_replace: SearchReplaceOp | Mapping[str, Any] | None = None,
        mode: Mode = "strict",
        show_diff: bool = True,
        expected_version: str | None = None,
    ) -> SafeEditResult:
        """One of: the whole ``content``, ``line_edits``, or a ``search_replace``; validated.

        Raises:
            EditError: INVALID_REQUEST (not exactly one edit mode, bad ranges), LINE_OUT_OF_RANGE,
                OVERLAPPING_EDITS, NO_MATCH (pattern not found, strict mode), INVALID_REGEX,
                REGEX_TIMEOUT, VALIDATION_FAILED, STALE_VERSION and the file errors.
        """
        args = arguments_of(
            SafeEditArgs,
            "safe_edit",
            {
                "path": path,
                "content": content,
                "line_edits": line_edits,
                "search_replace": search_replace,
                "mode": mode,
                "show_diff": show_diff,
                "expected_version": expected_version,
            },
        )
        if args.line_edits is not None:
            if not args.line_edits:
                raise InvalidRequest(
                    "line_edits is empty: send at least one line edit",
                    data={"field": "line_edits"},
                )
            if len(args.line_edits) > self.max_edits:
                raise TooManyEdits(
                    f"{len(args.line_edits)} line edits in one call; the limit is {self.max_edits}",
                    data={"edits": len(args.line_edits), "limit": self.max_edits},
                )
        where = self.sandbox.resolve(path)
        if args.content is not None:
            with self._writer(where, mode == "verify_only"):
                written = self._write(where, args.content, expected_version, mode)
            return SafeEditResult(
                path=written.path,
                edit_mode="content",
                mode=mode,
                diff=written.diff if show_diff else None,
                replacements=0,
                created=written.created,
                would_modify=bool(written.diff) or written.created,
                written=written.written,
                version=written.version or None,
                previous_version=written.previous_version,
                validation=written.validation,
                warnings=[],
            )
        with self._writer(where, mode == "verify_only"):
            doc, version = self._load(where, expected_version)
            try:
                if args.line_edits is not None:
                    edit_mode: Literal["line_edits", "search_replace"] = "line_edits"
                    texts = [(e.start_line, e.end_line, e.new_content) for e in args.line_edits]
                    plan = compile_line_edits(doc.text, texts).plan
                    count = len(texts)
                    for index, (_, _, new) in enumerate(texts):
                        _check_encodable(doc, new, index, len(texts), where.display)
                else:
                    assert args.search_replace is not None
                    edit_mode = "search_replace"
                    sr = args.search_replace
                    found = compile_pattern(
                        doc.text,
                        sr.search,
                        sr.replace,
                        is_regex=sr.regex,
                        count=sr.count,
                        flags=sr.flags,
                    )
                    plan, count = found.plan, found.replacements
                    _check_encodable(
                        doc, "".join(r.text for r in plan.replacements), None, None, where.display
                    )
            except EditError as exc:
                exc.path = where.display
                raise
            warnings: list[str] = []
            if edit_mode == "search_replace" and count == 0:
                assert args.search_replace is not None
                if mode == "strict":
                    raise not_found(doc.text, args.search_replace.search, where.display)
                warnings.append(
                    f"pattern {args.search_replace.search!r} not found; nothing was changed"
                )
            outcome = self._apply(where, doc, version, plan, dry_run=False, mode=mode)
            return SafeEditResult(
                path=where.real,
                edit_mode=edit_mode,
                mode=mode,
                diff=render_diff(doc.text, plan, where.display) if show_diff else None,
                replacements=count,
                created=False,
                would_modify=outcome.modifies,
                written=outcome.written,
                version=outcome.version,
                previous_version=version,
                validation=outcome.validation,
                warnings=warnings,
            )

    # -- symbols -------------------------------------------------------------------------

    def list_symbols(self, path: str, depth: int | None = None) -> ListSymbolsResult:
        """Every definition of a source file: kind, name path and line range, in file order.

        Raises:
            EditError: INVALID_REQUEST (a file type without symbols) and the file errors.
        """
        arguments_of(ListSymbolsArgs, "list_symbols", {"path": path, "depth": depth})
        where = self.sandbox.resolve(path)
        doc, version = self._load(where)
        found = self._symbols(where, doc.text)
        return ListSymbolsResult(
            path=where.real,
            symbols=[_symbol_model(s) for s in found if depth is None or s.depth < depth],
            version=version,
        )

    def edit_symbol(
        self,
        path: str,
        symbol: str | None = None,
        *,
        line: int | None = None,
        column: int | None = None,
        chunks: Sequence[ChunkModel | Mapping[str, Any]] | None = None,
        new_body: str | None = None,
        insert_before: str | None = None,
        insert_after: str | None = None,
        expected_version: str | None = None,
        mode: Mode = "strict",
    ) -> EditSymbolResult:
        """Edit one definition: context chunks inside it, a new body, or lines before/after it.

        Everything outside the symbol stays identical. After the edit the syntax guard runs,
        and every other symbol must still exist with its name path (a structure check).

        Raises:
            EditError: SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CHUNK_MISMATCH, AMBIGUOUS_MATCH,
                OVERLAPPING_EDITS, VALIDATION_FAILED, INVALID_REQUEST, STALE_VERSION and the
                file errors.
        """
        args = arguments_of(
            EditSymbolArgs,
            "edit_symbol",
            {
                "path": path,
                "symbol": symbol,
                "line": line,
                "column": column,
                "chunks": chunks,
                "new_body": new_body,
                "insert_before": insert_before,
                "insert_after": insert_after,
                "expected_version": expected_version,
                "mode": mode,
            },
        )
        where = self.sandbox.resolve(path)
        with self._writer(where, mode == "verify_only"):
            doc, version = self._load(where, expected_version)
            found = self._symbols(where, doc.text)
            try:
                target = find_symbol(
                    found, name_path=args.symbol, line=args.line, column=args.column
                )
                replacement = _symbol_replacement(doc, target, args)
            except EditError as exc:
                exc.path = where.display
                raise
            _check_encodable(doc, replacement.text, None, None, where.display)
            plan = Plan((replacement,))
            extra = _structure_findings(where.real, doc.text, plan, found, target, args)
            outcome = self._apply(where, doc, version, plan, False, mode, extra)
            new_first, new_last = _lines_of(doc.text, replacement)
            return EditSymbolResult(
                path=where.real,
                symbol=_symbol_model(target),
                new_start_line=new_first,
                new_end_line=new_last,
                diff=render_diff(doc.text, plan, where.display),
                version=outcome.version,
                previous_version=version,
                would_modify=outcome.modifies,
                written=outcome.written,
                mode=mode,
                validation=outcome.validation,
            )

    def _symbols(self, where: Resolved, text: str) -> tuple[Symbol, ...]:
        try:
            return symbols_of(where.real, text)
        except EditError as exc:
            exc.path = where.display
            raise

    # -- write_file ----------------------------------------------------------------------

    def write_file(
        self,
        path: str,
        content: str,
        *,
        expected_version: str | None = None,
        mode: Mode = "strict",
    ) -> WriteFileResult:
        """Create a file, or overwrite one whole, atomically; parent folders are created.

        Overwriting keeps the file's encoding, BOM and line-ending style.

        Raises:
            EditError: OUTSIDE_ROOT, STALE_VERSION, ENCODING_ERROR, NOT_A_FILE, BINARY_FILE,
                PERMISSION_DENIED, WRITE_FAILED.
        """
        where = self.sandbox.resolve(path)
        with self._writer(where, mode == "verify_only"):
            return self._write(where, content, expected_version, mode)

    def _write(
        self, where: Resolved, content: str, expected_version: str | None, mode: Mode
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
        _refuse_nul(target, (content,), where.display, "content")
        plan = Plan((Replacement(0, len(old.text), normalize_newlines(content)),))
        validation = self._validated(where, old.text, plan, mode)

        def result(created: bool, new_version: str, written: bool) -> WriteFileResult:
            return WriteFileResult(
                path=where.real,
                created=created,
                version=new_version,
                previous_version=version,
                diff=render_diff(old.text, plan, where.display),
                encoding=target.encoding,
                line_ending=eol_style(raw),
                written=written,
                mode=mode,
                validation=validation,
            )

        if mode == "verify_only":
            return result(False, version or "", False)
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
        self._warm(where, old.text, plan)
        return result(not exists, new_version, True)

    # -- shared steps --------------------------------------------------------------------

    def with_roots(self, roots: Iterable[str | os.PathLike[str]]) -> Workspace:
        """The same workspace (limits, locks) with other allowed folders."""
        return Workspace(
            roots,
            max_file_bytes=self.max_file_bytes,
            max_edits=self.max_edits,
            read_lines=self.read_lines,
            locks=self.locks,
            linters=self.linters,
            prewarm=self.prewarm,
        )

    def _warm(self, where: Resolved, text: str, plan: Plan | None) -> None:
        """Parse the file's text (``text``, after ``plan`` if given) in the background, for the
        edit that may follow. The new text is built only when it will be parsed."""
        if not self.prewarm:
            return
        size = len(text) + (plan.size_change() if plan is not None else 0)
        if prewarm.Prewarmer.wants(where.real, size):
            prewarm.SHARED.schedule(where.real, plan.apply_to_text(text) if plan else text)

    def _writer(self, where: Resolved, dry_run: bool) -> AbstractContextManager[None]:
        """The file's lock for a call that may write it (none for a dry run)."""
        if dry_run:
            return nullcontext()
        return self.locks.hold(where.real, where.display)

    def _validated(
        self, where: Resolved, old: str, plan: Plan, mode: Mode, extra: tuple[Finding, ...] = ()
    ) -> Validation:
        """Validate the new text; in strict mode, refuse an edit that introduces problems.

        Raises:
            ValidationFailed: strict mode and a blocking finding.
        """
        name = where.real
        checked = language_of(name) is not None or any(
            linter.applies_to(name) for linter in self.linters
        )
        if (not checked and not extra) or not plan.changes(old):
            return Validation(passed=True, findings=[], notes=[])
        if max(len(old), len(old) + plan.size_change()) > VALIDATE_LIMIT:
            note = f"validation skipped: the file is over {VALIDATE_LIMIT // 1_000_000} MB"
            return Validation(passed=True, findings=[], notes=[note])
        new = plan.apply_to_text(old)
        report = validate(name, old, new, plan, self.linters)
        report = Report(report.findings + extra, report.notes)
        validation = Validation(
            passed=not report.blocking,
            findings=[FindingModel(**dataclasses.asdict(f)) for f in report.findings],
            notes=list(report.notes),
        )
        if mode == "strict" and report.blocking:
            raise validation_failed(where.display, report, _changed_lines(new, plan))
        return validation

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


@dataclasses.dataclass(frozen=True, slots=True)
class _Outcome:
    modifies: bool
    validation: Validation
    version: str
    written: bool


_M = TypeVar("_M", bound=BaseModel)


def _symbol_model(symbol: Symbol) -> SymbolModel:
    return SymbolModel(
        name=symbol.name,
        kind=symbol.kind,
        name_path=symbol.name_path,
        start_line=symbol.start_line,
        end_line=symbol.end_line,
        depth=symbol.depth,
    )


def _as_lines(text: str, final_break: bool) -> str:
    """``text`` as whole lines: normalized, with a final break unless the file has none."""
    text = normalize_newlines(text)
    if not text:
        return ""
    return text if text.endswith("\n") or not final_break else text + "\n"


def _symbol_replacement(doc: Document, target: Symbol, args: EditSymbolArgs) -> Replacement:
    text = doc.text
    body = text[target.start : target.end]
    at_end_without_break = target.end == len(text) and not text.endswith("\n")
    if args.chunks is not None:
        newline = doc.newline
        chunks = [
            make_chunk(
                c.context_before,
                c.old_lines,
                c.new_lines,
                c.context_after,
                index=i,
                newline=newline,
            )
            for i, c in enumerate(args.chunks)
        ]
        # A file that mixes line endings: lines the chunks leave alone keep their own.
        endings = doc.line_endings
        body_codes = None
        if endings is not None:
            first_break = target.start_line - 1  # the symbol starts a line
            body_codes = endings[first_break : first_break + body.count("\n")]
        new, codes = apply_chunks_with_endings(
            body, chunks, target.start_line, target.name_path, body_codes
        )
        return Replacement(target.start, target.end, new, codes)
    if args.new_body is not None:
        if shares_lines(target):
            first, last = target.start_line, target.end_line
            shared = "\n".join(
                f"{n:>6}│{line}"
                for n, line in enumerate(body.split("\n")[: last - first + 1], first)
                if n in (first, last)
            )
            raise InvalidRequest(
                f"{target.name_path} shares a line with other code; new_body replaces whole "
                f"lines {first}-{last} and would change that code too:\n{shared}",
                data={"field": "new_body", "start_line": first, "end_line": last},
                suggestions=[
                    "Use chunks (old_lines hold whole lines, so you decide what the rest of "
                    "the line becomes), or edit_file with the exact text."
                ],
            )
        new = _as_lines(args.new_body, not at_end_without_break)
        if at_end_without_break:
            new = new.removesuffix("\n")
        return Replacement(target.start, target.end, new)
    if args.insert_before is not None:
        return Replacement(target.start, target.start, _as_lines(args.insert_before, True))
    inserted = _as_lines(args.insert_after or "", True)
    if at_end_without_break:
        return Replacement(target.end, target.end, "\n" + inserted.removesuffix("\n"))
    return Replacement(target.end, target.end, inserted)


def _lines_of(old: str, replacement: Replacement) -> tuple[int, int]:
    """The first and last line of the new file that ``replacement``'s text occupies."""
    text = replacement.text
    first = line_numbers(old, [replacement.start])[0]
    if text.startswith("\n") and replacement.start > 0 and old[replacement.start - 1] != "\n":
        first, text = first + 1, text[1:]  # appended after a last line without a break
    lines = text.count("\n") + (0 if text.endswith("\n") else 1) if text else 1
    return first, first + lines - 1


def _structure_findings(
    name: str,
    old: str,
    plan: Plan,
    before: tuple[Symbol, ...],
    target: Symbol,
    args: EditSymbolArgs,
) -> tuple[Finding, ...]:
    """Every other symbol must still exist with its name path after the edit."""
    replaced = args.chunks is not None or args.new_body is not None
    prefix = target.name_path + "/"
    kept = Counter(
        s.name_path
        for s in before
        if not (replaced and (s is target or s.name_path.startswith(prefix)))
    )
    new_text = plan.apply_to_text(old)
    try:
        new_symbols = symbols_of(name, new_text, (old, plan))
    except EditError:
        return ()
    after = Counter(s.name_path for s in new_symbols)
    missing = kept - after
    lines = new_text.split("\n")
    out = []
    parent = target.name_path.rpartition("/")[0]
    replacement = plan.replacements[0]
    first = line_numbers(new_text, [replacement.start])[0]
    last = first + replacement.text.count("\n")
    edited = [s for s in new_symbols if first <= s.start_line <= last]

    def finding(row: int, message: str) -> Finding:
        return Finding("structure", row, 1, message, lines[row - 1] if row <= len(lines) else "")

    if replaced and parent and replacement.text.strip():
        still = [
            s
            for s in edited
            if s.depth == target.depth and s.name_path.rpartition("/")[0] == parent
        ]
        moved = [s for s in edited if s.name == target.name]
        if moved and not still:
            out.append(
                finding(
                    moved[0].start_line,
                    f"after the edit, {target.name_path} would be {moved[0].name_path}: it "
                    f"leaves {parent} (a dedent moves a method out of its class); keep its "
                    "indentation",
                )
            )
        elif not still:
            out.append(
                finding(
                    first,
                    f"after the edit, the edited lines define nothing directly inside {parent}: "
                    f"the new text must hold the whole definition of {target.name} (send an "
                    "empty new_body to delete it)",
                )
            )
    if replaced:
        # A member of the edited symbol that reappears outside it was dedented out of it.
        members = {s.name: s for s in before if s.name_path.startswith(prefix)}
        for s in edited:
            origin = members.get(s.name)
            if origin is not None and s.name_path != origin.name_path and s.depth <= target.depth:
                out.append(
                    finding(
                        s.start_line,
                        f"after the edit, {origin.name_path} would be {s.name_path}: it leaves "
                        f"{target.name_path} (a dedent moves it out); keep its indentation",
                    )
                )
    for path in sorted(missing):
        origin = next(s for s in before if s.name_path == path)
        row = min(origin.start_line, len(lines))
        out.append(
            Finding(
                "structure",
                row,
                1,
                f"after the edit, {path} ({origin.kind}) no longer exists under that name path; "
                "check the indentation and brackets of the edited lines",
                lines[row - 1] if row else "",
            )
        )
    return tuple(out)


def _edit_list(edits: Sequence[_E] | str) -> Sequence[_E]:
    """``edits`` as given, or parsed when it is a JSON string (as several MCP clients send it).

    Raises:
        InvalidRequest: a string that is not a JSON array.
    """
    if not isinstance(edits, str):
        return edits
    try:
        parsed = json.loads(edits)
    except json.JSONDecodeError as exc:
        raise InvalidRequest(
            f"edits is a string but not JSON: {exc}", data={"field": "edits"}
        ) from None
    if not isinstance(parsed, list):
        raise InvalidRequest("edits must be a JSON array of edits", data={"field": "edits"})
    return cast("Sequence[_E]", parsed)


_E = TypeVar("_E")


def _model_of(model: type[_M], edit: _M | Mapping[str, Any], index: int, total: int) -> _M:
    """One edit of a Python API call as its argument model (INVALID_REQUEST if malformed)."""
    if isinstance(edit, model):
        return edit
    try:
        return model.model_validate(edit)
    except ValidationError as exc:
        # Named as a model (or the MCP schema) would: edits[2].line_number.
        problems = [
            {
                "field": f"edits[{index}]"
                + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]),
                "problem": err["msg"],
            }
            for err in exc.errors(include_url=False)
        ]
        listing = "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
        raise InvalidRequest(
            f"the edit is malformed: {listing}",  # "edit N of M:" comes first in the error
            edit_index=index,
            total_edits=total,
            data={"field": problems[0]["field"], "problems": problems},
        ) from None


def _as_line_op(edit: LineOp | LineEditOp | Mapping[str, Any], index: int, total: int) -> LineOp:
    if isinstance(edit, LineOp):
        return edit
    op = _model_of(LineEditOp, edit, index, total)
    kind = cast(LineKind, op.type)  # LineEditOp's validator keeps only the four kinds
    return LineOp(kind, op.line_number, op.text, op.old_text, op.end_line)


def _changed_lines(new: str, plan: Plan) -> tuple[int, int]:
    """The first and last line of ``new`` (the text after ``plan``) that the plan wrote."""
    shift = 0
    spans = []  # where each replacement's text sits in the new text
    for r in plan.replacements:
        spans.append((r.start + shift, r.start + shift + len(r.text)))
        shift += len(r.text) - (r.end - r.start)
    first_pos, end = spans[0][0], spans[-1][1]
    first, last = line_numbers(new, [first_pos, max(first_pos, end - 1)])
    return first, last


def validation_failed(
    display: str, report: Report, changed: tuple[int, int] | None = None
) -> ValidationFailed:
    """The VALIDATION_FAILED error for a strict edit with blocking findings."""
    blocking = report.blocking
    listing = "\n".join(
        f"  line {f.line}, column {f.column} ({f.source}): {f.message}\n  {f.line:>6}│{f.line_text}"
        for f in blocking[:10]
    )
    more = f"\n  ... and {len(blocking) - 10} more" if len(blocking) > 10 else ""
    where = ""
    if changed is not None:
        first, last = changed
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        where = f"\nThe edit wrote {span}."
        if all(not first <= f.line <= last for f in blocking):
            where += (
                " None of the problems is there: the edit probably opened or closed a "
                "bracket, block or quote, so the rest of the file now reads differently."
            )
    return ValidationFailed(
        f"the edit would introduce {len(blocking)} problem(s) in {display}; nothing was "
        f"written:\n{listing}{more}{where}",
        path=display,
        data={
            "findings": [dataclasses.asdict(f) for f in report.findings],
            "notes": list(report.notes),
            **({"changed_lines": list(changed)} if changed is not None else {}),
        },
        suggestions=[
            "Fix the edit so that the file stays valid (check brackets, quotes and "
            "indentation around the lines above).",
            "If the file is meant to stay invalid for now, send the same call with mode "
            "'interactive' to write it with warnings.",
        ],
    )


def _as_spec(edit: EditLike, index: int, total: int) -> SearchReplace:
    if isinstance(edit, SearchReplace):
        return edit
    op = _model_of(EditOperation, edit, index, total)
    return SearchReplace(op.old_text, op.new_text, op.occurrences)


def _refuse_nul(doc: Document, texts: Iterable[str], display: str, field: str = "") -> None:
    """A NUL character would make a UTF-8 or legacy file binary: editguard (and most tools)
    could not read it back. Only UTF-16 and UTF-32 files hold NULs as a matter of course."""
    if doc.encoding.startswith(("utf-16", "utf-32")):
        return
    if any("\x00" in t for t in texts):
        raise InvalidRequest(
            f"the new text of {display} contains a NUL character (\\u0000), which would make "
            "the file binary; nothing was written",
            path=display,
            data={"field": field} if field else {},
            suggestions=["Leave the NUL out, or write it as an escape the language understands."],
        )


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
