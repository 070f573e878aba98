"""editguard: exact, safe, cheap file edits for LLM agents.

The one entry point is :class:`Workspace`::

    from editguard import Workspace
    ws = Workspace(["."])
    ws.edit_file("app.py", [{"old_text": "DEBUG = True", "new_text": "DEBUG = False"}])

Every failure raises an :class:`EditError` subclass with a stable ``code``.

Names are imported on first use (``from editguard import Workspace`` loads the tools then), so
that ``import editguard`` and the command line start fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from editguard.core.formats.lines import LineOp
    from editguard.core.formats.search_replace import SearchReplace
    from editguard.errors import (
        AmbiguousMatch,
        AmbiguousSymbol,
        BinaryFile,
        ChangeNotFound,
        ChunkMismatch,
        EditError,
        EncodingError,
        FileBusy,
        FileNotFound,
        FileTooLarge,
        InternalError,
        InvalidPatch,
        InvalidRegex,
        InvalidRequest,
        LineOutOfRange,
        NoMatch,
        NotADirectory,
        NotAFile,
        OutsideRoot,
        OverlappingEdits,
        PermissionDenied,
        RegexTimeout,
        StaleVersion,
        SymbolNotFound,
        TooManyEdits,
        ValidationFailed,
        WriteFailed,
        WrongCount,
    )
    from editguard.fs.journal import Journal
    from editguard.fs.lock import FileLocks
    from editguard.history import History
    from editguard.tools._common import FindingModel, Validation
    from editguard.tools._files import FileChange, HunkResult, PatchResult
    from editguard.tools.batch import BatchCall, BatchResult
    from editguard.tools.create_directory import CreateDirectoryResult
    from editguard.tools.directory_tree import DirectoryTreeResult
    from editguard.tools.edit_file import AppliedEdit, EditFileResult, EditOperation
    from editguard.tools.edit_lines import LineEditOp
    from editguard.tools.edit_symbol import ChunkModel, EditSymbolResult
    from editguard.tools.file_info import FileInfoResult
    from editguard.tools.find_files import FindFilesResult
    from editguard.tools.grep import GrepResult
    from editguard.tools.history import ChangedFile, ChangeModel, HistoryResult
    from editguard.tools.list_directory import ListDirectoryResult
    from editguard.tools.list_symbols import ListSymbolsResult, SymbolModel
    from editguard.tools.move_file import MoveFileResult
    from editguard.tools.read_file import (
        ImageResult,
        ReadError,
        ReadFailure,
        ReadFileResult,
        ReadFilesResult,
    )
    from editguard.tools.safe_edit import LineEdit, SafeEditResult, SearchReplaceOp
    from editguard.tools.undo import RestoredFile, UndoResult
    from editguard.tools.write_file import WriteFileResult
    from editguard.transaction.build import Mode
    from editguard.validate import Linter
    from editguard.workspace import Workspace

# Where each public name lives.
_WHERE = {
    "AmbiguousMatch": "editguard.errors",
    "AmbiguousSymbol": "editguard.errors",
    "AppliedEdit": "editguard.tools.edit_file",
    "BatchCall": "editguard.tools.batch",
    "BatchResult": "editguard.tools.batch",
    "BinaryFile": "editguard.errors",
    "ChangeModel": "editguard.tools.history",
    "ChangeNotFound": "editguard.errors",
    "ChangedFile": "editguard.tools.history",
    "ChunkMismatch": "editguard.errors",
    "ChunkModel": "editguard.tools.edit_symbol",
    "DirectoryTreeResult": "editguard.tools.directory_tree",
    "CreateDirectoryResult": "editguard.tools.create_directory",
    "EditError": "editguard.errors",
    "EditFileResult": "editguard.tools.edit_file",
    "EditOperation": "editguard.tools.edit_file",
    "EditSymbolResult": "editguard.tools.edit_symbol",
    "EncodingError": "editguard.errors",
    "FileBusy": "editguard.errors",
    "FileChange": "editguard.tools._files",
    "FileInfoResult": "editguard.tools.file_info",
    "FileLocks": "editguard.fs.lock",
    "FileNotFound": "editguard.errors",
    "FileTooLarge": "editguard.errors",
    "FindFilesResult": "editguard.tools.find_files",
    "FindingModel": "editguard.tools._common",
    "GrepResult": "editguard.tools.grep",
    "History": "editguard.history",
    "HistoryResult": "editguard.tools.history",
    "HunkResult": "editguard.tools._files",
    "ImageResult": "editguard.tools.read_file",
    "InternalError": "editguard.errors",
    "InvalidPatch": "editguard.errors",
    "InvalidRegex": "editguard.errors",
    "InvalidRequest": "editguard.errors",
    "Journal": "editguard.fs.journal",
    "LineEdit": "editguard.tools.safe_edit",
    "LineEditOp": "editguard.tools.edit_lines",
    "LineOp": "editguard.core.formats.lines",
    "LineOutOfRange": "editguard.errors",
    "Linter": "editguard.validate",
    "ListDirectoryResult": "editguard.tools.list_directory",
    "ListSymbolsResult": "editguard.tools.list_symbols",
    "Mode": "editguard.transaction.build",
    "MoveFileResult": "editguard.tools.move_file",
    "NoMatch": "editguard.errors",
    "NotADirectory": "editguard.errors",
    "NotAFile": "editguard.errors",
    "OutsideRoot": "editguard.errors",
    "OverlappingEdits": "editguard.errors",
    "PatchResult": "editguard.tools._files",
    "PermissionDenied": "editguard.errors",
    "ReadError": "editguard.tools.read_file",
    "ReadFailure": "editguard.tools.read_file",
    "ReadFileResult": "editguard.tools.read_file",
    "ReadFilesResult": "editguard.tools.read_file",
    "RegexTimeout": "editguard.errors",
    "RestoredFile": "editguard.tools.undo",
    "SafeEditResult": "editguard.tools.safe_edit",
    "SearchReplace": "editguard.core.formats.search_replace",
    "SearchReplaceOp": "editguard.tools.safe_edit",
    "StaleVersion": "editguard.errors",
    "SymbolModel": "editguard.tools.list_symbols",
    "SymbolNotFound": "editguard.errors",
    "TooManyEdits": "editguard.errors",
    "UndoResult": "editguard.tools.undo",
    "Validation": "editguard.tools._common",
    "ValidationFailed": "editguard.errors",
    "Workspace": "editguard.workspace",
    "WriteFailed": "editguard.errors",
    "WriteFileResult": "editguard.tools.write_file",
    "WrongCount": "editguard.errors",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__version__ = "0.1.0"

__all__ = [
    "AmbiguousMatch",
    "AmbiguousSymbol",
    "AppliedEdit",
    "BatchCall",
    "BatchResult",
    "BinaryFile",
    "ChangeModel",
    "ChangeNotFound",
    "ChangedFile",
    "ChunkMismatch",
    "ChunkModel",
    "CreateDirectoryResult",
    "DirectoryTreeResult",
    "EditError",
    "EditFileResult",
    "EditOperation",
    "EditSymbolResult",
    "EncodingError",
    "FileBusy",
    "FileChange",
    "FileInfoResult",
    "FileLocks",
    "FileNotFound",
    "FileTooLarge",
    "FindFilesResult",
    "FindingModel",
    "GrepResult",
    "History",
    "HistoryResult",
    "HunkResult",
    "ImageResult",
    "InternalError",
    "InvalidPatch",
    "InvalidRegex",
    "InvalidRequest",
    "Journal",
    "LineEdit",
    "LineEditOp",
    "LineOp",
    "LineOutOfRange",
    "Linter",
    "ListDirectoryResult",
    "ListSymbolsResult",
    "Mode",
    "MoveFileResult",
    "NoMatch",
    "NotADirectory",
    "NotAFile",
    "OutsideRoot",
    "OverlappingEdits",
    "PatchResult",
    "PermissionDenied",
    "ReadError",
    "ReadFailure",
    "ReadFileResult",
    "ReadFilesResult",
    "RegexTimeout",
    "RestoredFile",
    "SafeEditResult",
    "SearchReplace",
    "SearchReplaceOp",
    "StaleVersion",
    "SymbolModel",
    "SymbolNotFound",
    "TooManyEdits",
    "UndoResult",
    "Validation",
    "ValidationFailed",
    "Workspace",
    "WriteFailed",
    "WriteFileResult",
    "WrongCount",
    "__version__",
]
