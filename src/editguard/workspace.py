"""The Python API: :class:`Workspace`, the allowed folders and limits, with one method per tool.

Each method validates its keywords with the tool's argument model (so a malformed call gets the
same INVALID_REQUEST as over MCP) and runs the tool; the work happens in :mod:`editguard.tools`
and :mod:`editguard.transaction`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, overload

from pydantic import BaseModel

from editguard.analyze import Analyzer
from editguard.config import Config
from editguard.core.formats.lines import LineOp
from editguard.core.formats.search_replace import SearchReplace
from editguard.errors import InvalidRequest
from editguard.fs.journal import Journal
from editguard.fs.lock import FileLocks
from editguard.fs.ripgrep import Case
from editguard.history import History
from editguard.tools import (
    NAMES,
    apply_diff,
    apply_patch,
    batch,
    create_directory,
    directory_tree,
    edit_file,
    edit_lines,
    edit_notebook,
    edit_symbol,
    file_info,
    find_files,
    grep,
    history,
    list_directory,
    list_symbols,
    move_file,
    read_file,
    safe_edit,
    tool_named,
    undo,
    write_file,
)
from editguard.tools._context import open_context, with_roots
from editguard.tools._files import PatchResult
from editguard.tools.batch import BatchCall, BatchResult
from editguard.tools.create_directory import CreateDirectoryResult
from editguard.tools.directory_tree import DirectoryTreeResult
from editguard.tools.edit_file import EditFileResult, EditOperation
from editguard.tools.edit_lines import LineEditOp
from editguard.tools.edit_notebook import EditNotebookResult
from editguard.tools.edit_symbol import ChunkModel, EditSymbolResult
from editguard.tools.file_info import FileInfoResult
from editguard.tools.find_files import FindFilesResult
from editguard.tools.grep import GrepResult
from editguard.tools.history import HistoryResult
from editguard.tools.list_directory import ListDirectoryResult
from editguard.tools.list_symbols import ListSymbolsResult
from editguard.tools.move_file import MoveFileResult
from editguard.tools.read_file import (
    ImageResult,
    NotebookResult,
    NotebookTextResult,
    ReadFileAnswer,
    ReadFileResult,
    ReadFilesResult,
)
from editguard.tools.safe_edit import LineEdit, SafeEditResult, SearchReplaceOp
from editguard.tools.undo import UndoResult
from editguard.tools.write_file import WriteFileResult
from editguard.transaction.build import Mode
from editguard.validate import Linter


class Workspace:
    """Edit files inside a set of allowed folders, exactly or not at all.

    Every argument is a field of :class:`~editguard.Config`, with its default and meaning:
    ``roots`` (default: the current directory) and the keywords that set the limits, the
    linters, the journal and the history.
    """

    def __init__(
        self,
        roots: Iterable[str | os.PathLike[str]] = Config.roots,
        *,
        max_file_bytes: int = Config.max_file_bytes,
        max_edits: int = Config.max_edits,
        read_lines: int = Config.read_lines,
        locks: FileLocks | None = None,
        linters: Iterable[Linter | str] = Config.linters,
        prewarm: bool = Config.prewarm,
        max_argument_bytes: int = Config.max_argument_bytes,
        max_request_bytes: int = Config.max_request_bytes,
        exact: bool = Config.exact,
        journal: str | os.PathLike[str] | Journal | None = None,
        history: str | os.PathLike[str] | History | bool | None = None,
        history_entries: int = Config.history_entries,
        history_bytes: int = Config.history_bytes,
        analyzers: Iterable[Analyzer | str] | None = None,
        analysis_budget: float = Config.analysis_budget,
        format: bool = Config.format,
        formatters: Iterable[str] | None = None,
    ) -> None:
        # The signature is written out for type checkers and readers; it is Config's own
        # (tests/test_api.py), so the arguments pass to it by name.
        settings = dict(locals())
        del settings["self"]
        self.context = open_context(Config(**settings))

    def close(self) -> None:
        """Stop the analyzers' programs (language servers) this workspace keeps running."""
        if self.context.analysis is not None:
            self.context.analysis.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def roots(self) -> tuple[str, ...]:
        """The allowed folders, resolved."""
        return self.context.sandbox.roots

    def with_roots(self, roots: Iterable[str | os.PathLike[str]]) -> Workspace:
        """The same workspace (limits, locks, linters) with other allowed folders."""
        workspace = Workspace.__new__(Workspace)
        workspace.context = with_roots(self.context, roots)
        return workspace

    def call(self, tool: str, /, **arguments: Any) -> BaseModel:
        """Run the tool named ``tool`` with ``arguments``, as the MCP server and ``editguard
        call`` do: any tool of the registry, also one without a method of its own here (the
        methods below are the same calls, typed for type checkers).

        Raises:
            EditError: INVALID_REQUEST (no tool of that name, or arguments it does not take),
                and the tool's own errors.
        """
        if tool not in NAMES:
            raise InvalidRequest(
                f"there is no tool {tool!r}; the tools are {', '.join(NAMES)}",
                data={"field": "tool", "tools": list(NAMES)},
            )
        result: BaseModel = tool_named(tool).call(self.context, arguments)
        return result

    @overload
    def read_file(
        self,
        path: str,
        start_line: int | None = None,
        end_line: int | None = None,
        *,
        head: int | None = None,
        tail: int | None = None,
        start_column: int | None = None,
        cell: int | str | None = None,
        start_cell: int | None = None,
        end_cell: int | None = None,
        images: bool = False,
        raw: bool = False,
    ) -> NotebookTextResult | ReadFileResult | NotebookResult | ImageResult: ...

    @overload
    def read_file(
        self,
        path: None = None,
        start_line: int | None = None,
        end_line: int | None = None,
        *,
        paths: Sequence[str],
        head: int | None = None,
        tail: int | None = None,
        start_column: int | None = None,
        cell: int | str | None = None,
        start_cell: int | None = None,
        end_cell: int | None = None,
        images: bool = False,
        raw: bool = False,
    ) -> ReadFilesResult: ...

    def read_file(
        self,
        path: str | None = None,
        start_line: int | None = None,
        end_line: int | None = None,
        *,
        paths: Sequence[str] | None = None,
        head: int | None = None,
        tail: int | None = None,
        start_column: int | None = None,
        cell: int | str | None = None,
        start_cell: int | None = None,
        end_cell: int | None = None,
        images: bool = False,
        raw: bool = False,
    ) -> ReadFileAnswer:
        """Read a text file as numbered lines, with its version; with ``paths``, several files,
        each entry its result or its error; an image file as its bytes, base64; a notebook as
        cells (``cell``, ``start_cell``/``end_cell``; ``images``: its image outputs too;
        ``raw``: its JSON as text) (see the ``read_file`` tool).

        Raises:
            EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE, PERMISSION_DENIED,
                FILE_TOO_LARGE, BINARY_FILE, INVALID_REQUEST (a bad line range, or arguments
                that exclude each other). With ``paths``, only INVALID_REQUEST.
        """
        return read_file.TOOL.call(self.context, _given(locals()))

    def list_directory(
        self,
        path: str,
        sizes: bool = False,
        sort: str = "name",
        include_ignored: bool = False,
    ) -> ListDirectoryResult:
        """One folder's entries, a line each with its type (and size), skipping .gitignored and
        hidden ones unless ``include_ignored`` (see the ``list_directory`` tool).

        Raises:
            EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY, PERMISSION_DENIED.
        """
        return list_directory.TOOL.call(self.context, _given(locals()))

    def directory_tree(
        self,
        path: str,
        depth: int = 3,
        exclude: Sequence[str] | None = None,
        include_ignored: bool = False,
    ) -> DirectoryTreeResult:
        """A folder's tree as indented text, ``depth`` levels deep (see the ``directory_tree``
        tool).

        Raises:
            EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY, PERMISSION_DENIED.
        """
        return directory_tree.TOOL.call(self.context, _given(locals()))

    def find_files(
        self,
        pattern: str,
        path: str = ".",
        exclude: Sequence[str] | None = None,
        sort: str = "mtime",
        include_ignored: bool = False,
        max_results: int = 200,
    ) -> FindFilesResult:
        """The files whose path below ``path`` matches the glob ``pattern``, newest first (see
        the ``find_files`` tool).

        Raises:
            EditError: INVALID_REQUEST, OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_DIRECTORY,
                PERMISSION_DENIED.
        """
        return find_files.TOOL.call(self.context, _given(locals()))

    def file_info(self, path: str) -> FileInfoResult:
        """Type, size, times and permissions of a path; for a text file also its encoding,
        BOM, line endings, line count and version (as ``read_file`` gives it).

        Raises:
            EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, PERMISSION_DENIED.
        """
        return file_info.TOOL.call(self.context, _given(locals()))

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        regex: bool = False,
        case: Case | None = None,
        context: int | None = None,
        max_results: int | None = None,
        include_ignored: bool = False,
    ) -> GrepResult:
        """Search file contents under the roots (see the ``grep`` tool): matching lines grouped
        by file, numbered as read_file shows them. ``case`` is ``"smart"`` unless given,
        ``context`` 0 (at most 10), ``max_results`` 100 (at most 1,000).

        Raises:
            EditError: INVALID_REQUEST, INVALID_REGEX, OUTSIDE_ROOT, FILE_NOT_FOUND,
                NOT_A_FILE, PERMISSION_DENIED.
        """
        return grep.TOOL.call(self.context, _given(locals()))

    def edit_file(
        self,
        path: str,
        edits: Sequence[EditOperation | SearchReplace | Mapping[str, Any]] | str,
        *,
        dry_run: bool = False,
        expected_version: str | None = None,
        mode: Mode = "strict",
        format: bool | None = None,
        allow_markers: bool = False,
        exact: bool = False,
        cell: int | str | None = None,
        clear_outputs: bool = False,
    ) -> EditFileResult:
        """Apply search/replace edits in sequence; all of them or none.

        An ``old_text`` not in the file exactly is looked for on the match ladder (unless
        ``exact``): see the ``edit_file`` tool.

        ``mode`` decides what a syntax error the edits would introduce does: ``strict`` refuses
        (VALIDATION_FAILED), ``interactive`` writes and warns, ``verify_only`` never writes.

        On a notebook, the edits change the source of the cell ``cell`` (an index or an id);
        without it, of the one cell they fit. ``clear_outputs`` empties that code cell's
        outputs.

        Raises:
            EditError: NO_MATCH, WRONG_COUNT, INVALID_REQUEST, TOO_MANY_EDITS, STALE_VERSION,
                ENCODING_ERROR, VALIDATION_FAILED, FILE_BUSY and the file errors of read_file,
                plus WRITE_FAILED; on a notebook CELL_NOT_FOUND, AMBIGUOUS_MATCH,
                INVALID_NOTEBOOK.
        """
        if not isinstance(edits, str):
            edits = [_search_replace(e) if isinstance(e, SearchReplace) else e for e in edits]
        return edit_file.TOOL.call(self.context, _given(locals()))

    def edit_lines(
        self,
        path: str,
        edits: Sequence[LineEditOp | LineOp | Mapping[str, Any]] | str,
        *,
        dry_run: bool = False,
        expected_version: str | None = None,
        mode: Mode = "strict",
        format: bool | None = None,
        allow_markers: bool = False,
        cell: int | str | None = None,
        clear_outputs: bool = False,
    ) -> EditFileResult:
        """Insert, delete and replace lines by number; every number refers to the file as read.

        On a notebook, ``cell`` (an index or an id) is required: the lines are the cell's
        source's. ``clear_outputs`` empties that code cell's outputs.

        Raises:
            EditError: LINE_OUT_OF_RANGE, OVERLAPPING_EDITS, INVALID_REQUEST, NO_MATCH and
                WRONG_COUNT (old_text inside a line), STALE_VERSION, VALIDATION_FAILED, and the
                file errors of edit_file; on a notebook CELL_NOT_FOUND, INVALID_NOTEBOOK, and
                INVALID_REQUEST without ``cell``.
        """
        if not isinstance(edits, str):
            edits = [_line_op(e) if isinstance(e, LineOp) else e for e in edits]
        return edit_lines.TOOL.call(self.context, _given(locals()))

    def safe_edit(
        self,
        path: str,
        *,
        mode: Mode = "strict",
        format: bool | None = None,
        allow_markers: bool = False,
        show_diff: bool = True,
        content: str | None = None,
        line_edits: Sequence[LineEdit | Mapping[str, Any]] | None = None,
        search_replace: SearchReplaceOp | Mapping[str, Any] | None = None,
        expected_version: str | None = None,
        cell: int | str | None = None,
        clear_outputs: bool = False,
    ) -> SafeEditResult:
        """One of: the whole ``content``, ``line_edits``, or a ``search_replace``; validated.

        On a notebook, the edit changes the source of the cell ``cell`` (an index or an id);
        without it, a ``search_replace`` lands in the one cell it fits, ``content`` is the
        whole notebook and ``line_edits`` are refused. ``clear_outputs`` empties that code
        cell's outputs.

        Raises:
            EditError: INVALID_REQUEST (not exactly one edit mode, bad ranges), LINE_OUT_OF_RANGE,
                OVERLAPPING_EDITS, NO_MATCH (pattern not found, strict mode), INVALID_REGEX,
                REGEX_TIMEOUT, VALIDATION_FAILED, STALE_VERSION and the file errors; on a
                notebook CELL_NOT_FOUND, AMBIGUOUS_MATCH, INVALID_NOTEBOOK.
        """
        return safe_edit.TOOL.call(self.context, _given(locals()))

    def write_file(
        self,
        path: str,
        content: str,
        *,
        expected_version: str | None = None,
        mode: Mode = "strict",
        format: bool | None = None,
        allow_markers: bool = False,
    ) -> WriteFileResult:
        """Create a file, or overwrite one whole, atomically; parent folders are created.

        Overwriting keeps the file's encoding, BOM and line-ending style.

        Raises:
            EditError: OUTSIDE_ROOT, STALE_VERSION, ENCODING_ERROR, NOT_A_FILE, BINARY_FILE,
                PERMISSION_DENIED, VALIDATION_FAILED, WRITE_FAILED.
        """
        return write_file.TOOL.call(self.context, _given(locals()))

    def move_file(
        self, source: str, destination: str, *, overwrite: bool = False, dry_run: bool = False
    ) -> MoveFileResult:
        """Move or rename one file (its bytes and permission bits kept), creating the missing
        folders of ``destination``; recorded in the history, so ``undo`` moves it back.

        Raises:
            EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE (a folder or a symbolic link),
                STALE_VERSION (the destination exists, without ``overwrite``), INVALID_REQUEST,
                PERMISSION_DENIED, WRITE_FAILED; nothing was changed.
        """
        return move_file.TOOL.call(self.context, _given(locals()))

    def create_directory(self, path: str) -> CreateDirectoryResult:
        """Create a folder and its missing parents (an existing folder is no error); recorded
        in the history, so ``undo`` removes the folders it made while they are empty.

        Raises:
            EditError: OUTSIDE_ROOT, NOT_A_FILE (a file is in the way), PERMISSION_DENIED,
                WRITE_FAILED.
        """
        return create_directory.TOOL.call(self.context, _given(locals()))

    def list_symbols(
        self, path: str, depth: int | None = None, *, cell: int | str | None = None
    ) -> ListSymbolsResult:
        """Every definition of a source file: kind, name path and line range, in file order.

        On a notebook, every code cell's (or the cell ``cell``'s), each with its ``cell`` and
        ``cell_id`` and lines within the cell.

        Raises:
            EditError: INVALID_REQUEST (a file type without symbols) and the file errors; on a
                notebook CELL_NOT_FOUND, INVALID_NOTEBOOK.
        """
        return list_symbols.TOOL.call(self.context, _given(locals()))

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
        dry_run: bool = False,
        expected_version: str | None = None,
        mode: Mode = "strict",
        format: bool | None = None,
        allow_markers: bool = False,
        exact: bool = False,
        cell: int | str | None = None,
        clear_outputs: bool = False,
    ) -> EditSymbolResult:
        """Edit one definition: context chunks inside it, a new body, or lines before/after it.

        Everything outside the symbol stays identical. After the edit the syntax guard runs,
        and every other symbol must still exist with its name path (a structure check).

        On a notebook, the symbol is looked for in the cell ``cell`` (an index or an id);
        without it, in every code cell (``line`` and ``column`` need it).
        ``clear_outputs`` empties that code cell's outputs.

        Raises:
            EditError: SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL, CHUNK_MISMATCH, AMBIGUOUS_MATCH,
                OVERLAPPING_EDITS, VALIDATION_FAILED, INVALID_REQUEST, STALE_VERSION and the
                file errors; on a notebook CELL_NOT_FOUND, INVALID_NOTEBOOK.
        """
        return edit_symbol.TOOL.call(self.context, _given(locals()))

    def edit_notebook(
        self,
        path: str,
        edits: Sequence[Mapping[str, Any]] | str,
        *,
        dry_run: bool = False,
        expected_version: str | None = None,
        mode: Mode = "strict",
    ) -> EditNotebookResult:
        """Change a notebook's cells: insert, delete, move, replace a cell's source or type
        (``{"op": "insert", "cell_type": "code", "source": "...", "after": 2}``, ...), in
        order, each on the notebook the ones before left; all of them or none. Every other
        byte of the file stays. The code cells the edits write are checked by the syntax guard
        (``mode``, as for edit_file).

        Raises:
            EditError: CELL_NOT_FOUND (``edit_index`` says which edit), INVALID_NOTEBOOK,
                VALIDATION_FAILED, INVALID_REQUEST, TOO_MANY_EDITS, STALE_VERSION and the file
                errors; nothing was written.
        """
        return edit_notebook.TOOL.call(self.context, _given(locals()))

    def apply_patch(
        self,
        patch: str,
        *,
        dry_run: bool = False,
        mode: Mode = "strict",
        format: bool | None = None,
        allow_markers: bool = False,
        exact: bool = False,
        expected_versions: Mapping[str, str] | None = None,
    ) -> PatchResult:
        """Apply a patch in Codex's ``apply_patch`` format (add, delete, update, move files):
        every file or none, also across a crash.

        Raises:
            EditError: INVALID_PATCH, NO_MATCH, AMBIGUOUS_MATCH, FILE_NOT_FOUND, NOT_A_FILE,
                VALIDATION_FAILED, STALE_VERSION and the file errors; nothing was written.
        """
        if expected_versions is not None:
            expected_versions = dict(expected_versions)
        return apply_patch.TOOL.call(self.context, _given(locals()))

    def apply_diff(
        self,
        diff: str,
        *,
        dry_run: bool = False,
        mode: Mode = "strict",
        format: bool | None = None,
        allow_markers: bool = False,
        exact: bool = False,
        expected_versions: Mapping[str, str] | None = None,
    ) -> PatchResult:
        """Apply a unified or git diff (one file or many): every file or none.

        Raises:
            EditError: INVALID_PATCH, NO_MATCH, AMBIGUOUS_MATCH, OVERLAPPING_EDITS,
                FILE_NOT_FOUND, STALE_VERSION, VALIDATION_FAILED and the file errors; nothing
                was written.
        """
        if expected_versions is not None:
            expected_versions = dict(expected_versions)
        return apply_diff.TOOL.call(self.context, _given(locals()))

    def history(
        self, path: str | None = None, *, limit: int = 10, change_id: int | None = None
    ) -> HistoryResult:
        """The changes editguard made in these roots, newest first (see the ``history`` tool);
        with ``change_id``, that change with each file's diff.

        Raises:
            EditError: CHANGE_NOT_FOUND (an unknown id, or the history is off), OUTSIDE_ROOT.
        """
        return history.TOOL.call(self.context, _given(locals()))

    def undo(
        self,
        change_id: int | None = None,
        *,
        path: str | None = None,
        steps: int = 1,
        dry_run: bool = False,
        force: bool = False,
    ) -> UndoResult:
        """Put the files of a recorded change back as they were before it, as one transaction
        (see the ``undo`` tool): ``change_id``, else the latest ``steps`` changes (of ``path``
        only, when given).

        Raises:
            EditError: CHANGE_NOT_FOUND, STALE_VERSION (a file changed since, unless
                ``force``), FILE_BUSY and the file errors; nothing was written.
        """
        return undo.TOOL.call(self.context, _given(locals()))

    def batch(
        self,
        calls: Sequence[BatchCall | Mapping[str, Any]],
        *,
        dry_run: bool = False,
        format: bool | None = None,
        allow_markers: bool = False,
    ) -> BatchResult:
        """Run several writing calls (``{"tool": ..., "arguments": {...}}``) as one transaction:
        each sees the result of the ones before it, and every file is written or none is.

        Raises:
            EditError: the first call that fails (``call`` in its data); nothing was written.
        """
        calls = [_batch_call(c) for c in calls]
        return batch.TOOL.call(self.context, _given(locals()))


def _batch_call(call: BatchCall | Mapping[str, Any]) -> Mapping[str, Any]:
    return call.model_dump() if isinstance(call, BatchCall) else call


def _search_replace(edit: SearchReplace) -> dict[str, Any]:
    """A core search/replace edit as edit_file's arguments name it."""
    return {"old_text": edit.old_text, "new_text": edit.new_text, "occurrences": edit.occurrences}


def _line_op(op: LineOp) -> dict[str, Any]:
    """A core line edit as edit_lines' arguments name it."""
    given = {"text": op.text, "old_text": op.old_text, "end_line": op.end_line}
    return {
        "line_number": op.line,
        "type": op.kind,
        **{k: v for k, v in given.items() if v is not None},
    }


def _given(arguments: dict[str, Any]) -> dict[str, Any]:
    """A method's arguments (its ``locals()`` on entry) as the tool takes them: ``self``
    dropped, and a ``None`` that stands for "not given" left out, so that the argument model
    applies its own default."""
    return {k: v for k, v in arguments.items() if k != "self" and v is not None}
