"""editguard: exact, safe, cheap file edits for LLM agents.

The one entry point is :class:`Workspace`::

    from editguard import Workspace
    ws = Workspace(["."])
    ws.edit_file("app.py", [{"old_text": "DEBUG = True", "new_text": "DEBUG = False"}])

Every failure raises an :class:`EditError` subclass with a stable ``code``.
"""

from editguard.errors import (
    AmbiguousMatch,
    AmbiguousSymbol,
    BinaryFile,
    ChunkMismatch,
    EditError,
    EncodingError,
    FileBusy,
    FileNotFound,
    FileTooLarge,
    InternalError,
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
from editguard.schema import (
    AppliedEdit,
    EditFileResult,
    EditOperation,
    ReadFileResult,
    WriteFileResult,
)
from editguard.service import Workspace

__version__ = "0.1.0"

__all__ = [
    "AmbiguousMatch",
    "AmbiguousSymbol",
    "AppliedEdit",
    "BinaryFile",
    "ChunkMismatch",
    "EditError",
    "EditFileResult",
    "EditOperation",
    "EncodingError",
    "FileBusy",
    "FileNotFound",
    "FileTooLarge",
    "InternalError",
    "InvalidRegex",
    "InvalidRequest",
    "LineOutOfRange",
    "NoMatch",
    "NotAFile",
    "OutsideRoot",
    "OverlappingEdits",
    "PermissionDenied",
    "ReadFileResult",
    "RegexTimeout",
    "StaleVersion",
    "SymbolNotFound",
    "TooManyEdits",
    "ValidationFailed",
    "Workspace",
    "WriteFailed",
    "WriteFileResult",
    "WrongCount",
    "__version__",
]
