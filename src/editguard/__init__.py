"""editguard: exact, safe, cheap file edits for LLM agents.

The one entry point is :class:`Workspace`::

    from editguard import Workspace
    ws = Workspace(["."])
    ws.edit_file("app.py", [{"old_text": "DEBUG = True", "new_text": "DEBUG = False"}])

Every failure raises an :class:`EditError` subclass with a stable ``code``.

Names are imported on first use (``from editguard import Workspace`` loads the tools then), so
that ``import editguard`` and the command line start fast.

A public name is written twice, as strict type checkers need it: once in the imports below (its
type) and once in ``__all__`` (that it is exported). At run time it is looked for in the modules
of ``_MODULES`` in turn, so no third copy (a name-to-module table) is needed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from editguard.analyze import Analyzer, LanguageServer, Problem
    from editguard.config import Config
    from editguard.core.formats.lines import LineOp
    from editguard.core.formats.search_replace import SearchReplace
    from editguard.errors import (
        AmbiguousMatch,
        AmbiguousSymbol,
        BinaryFile,
        ChangeNotFound,
        ChunkMismatch,
        EditError,
        ElidedContent,
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
    from editguard.tools._common import FindingModel, ProblemModel, Validation
    from editguard.tools._files import FileChange, HunkResult, PatchResult
    from editguard.tools.batch import BatchCall, BatchResult
    from editguard.tools.create_directory import CreateDirectoryResult
    from editguard.tools.directory_tree import DirectoryTreeResult
    from editguard.tools.edit_file import AppliedEdit, EditFileResult, EditOperation
    from editguard.tools.edit_lines import LineEditOp
    from editguard.tools.edit_notebook import CellBrief, EditNotebookResult
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
        NotebookResult,
        NotebookTextResult,
        OutputImage,
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

# Where __getattr__ looks for a public name, in this order (each tool's module from the
# registry between the first and the second part). The first module that defines the name (or
# exports it as its package) wins: one that only imports it is passed over, and a namesake lower
# down is never reached (core's LineEdit is not safe_edit's). tests/test_api.py checks that each
# name is what the imports above say it is.
_MODULES = (
    "editguard.errors",
    "editguard.config",
    "editguard.fs.lock",
    "editguard.fs.journal",
    "editguard.history",
    "editguard.transaction.build",
    "editguard.validate",
    "editguard.analyze",
    "editguard.tools._common",
    "editguard.tools._files",
)
_AFTER_TOOLS = (
    "editguard.core.formats.lines",
    "editguard.core.formats.search_replace",
    "editguard.workspace",
)


def _modules() -> tuple[str, ...]:
    """Every module a public name may live in, in the order :func:`__getattr__` looks."""
    from editguard.tools import NAMES  # noqa: PLC0415 - `import editguard.errors` loads no tool

    return (*_MODULES, *(f"editguard.tools.{name}" for name in NAMES), *_AFTER_TOOLS)


def __getattr__(name: str) -> Any:
    for module in _modules() if name in __all__ else ():
        namespace = vars(importlib.import_module(module))
        home = getattr(namespace.get(name), "__module__", None) or ""
        # The module that defines the name, or the package that exports it; an alias (Mode)
        # records no editguard module as its own, so the first module that holds it.
        if name in namespace and (
            home == module or home.startswith(f"{module}.") or not home.startswith("editguard")
        ):
            globals()[name] = namespace[name]  # the next access is a plain lookup
            return namespace[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__version__ = "0.1.0"

__all__ = [
    "AmbiguousMatch",
    "AmbiguousSymbol",
    "Analyzer",
    "AppliedEdit",
    "BatchCall",
    "BatchResult",
    "BinaryFile",
    "CellBrief",
    "ChangeModel",
    "ChangeNotFound",
    "ChangedFile",
    "ChunkMismatch",
    "ChunkModel",
    "Config",
    "CreateDirectoryResult",
    "DirectoryTreeResult",
    "EditError",
    "EditFileResult",
    "EditNotebookResult",
    "EditOperation",
    "EditSymbolResult",
    "ElidedContent",
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
    "LanguageServer",
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
    "NotebookResult",
    "NotebookTextResult",
    "OutputImage",
    "OutsideRoot",
    "OverlappingEdits",
    "PatchResult",
    "PermissionDenied",
    "Problem",
    "ProblemModel",
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
