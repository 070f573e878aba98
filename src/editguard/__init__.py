"""editguard: exact, safe, cheap file edits for LLM agents.

The one entry point is :class:`Workspace`::

    from editguard import Workspace
    ws = Workspace(["."])
    ws.edit_file("app.py", [{"old_text": "DEBUG = True", "new_text": "DEBUG = False"}])

Every failure raises an :class:`EditError` subclass with a stable ``code``.
"""

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
from editguard.pipeline import Mode
from editguard.tools._common import FindingModel, Validation
from editguard.tools._files import FileChange, HunkResult, PatchResult
from editguard.tools.batch import BatchCall, BatchResult
from editguard.tools.edit_file import AppliedEdit, EditFileResult, EditOperation
from editguard.tools.edit_lines import LineEditOp
from editguard.tools.edit_symbol import ChunkModel, EditSymbolResult
from editguard.tools.history import ChangedFile, ChangeModel, HistoryResult
from editguard.tools.list_symbols import ListSymbolsResult, SymbolModel
from editguard.tools.read_file import ReadFileResult
from editguard.tools.safe_edit import LineEdit, SafeEditResult, SearchReplaceOp
from editguard.tools.undo import RestoredFile, UndoResult
from editguard.tools.write_file import WriteFileResult
from editguard.validate import Linter
from editguard.workspace import Workspace

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
    "EditError",
    "EditFileResult",
    "EditOperation",
    "EditSymbolResult",
    "EncodingError",
    "FileBusy",
    "FileChange",
    "FileLocks",
    "FileNotFound",
    "FileTooLarge",
    "FindingModel",
    "History",
    "HistoryResult",
    "HunkResult",
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
    "ListSymbolsResult",
    "Mode",
    "NoMatch",
    "NotAFile",
    "OutsideRoot",
    "OverlappingEdits",
    "PatchResult",
    "PermissionDenied",
    "ReadFileResult",
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
