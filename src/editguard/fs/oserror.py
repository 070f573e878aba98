"""The EditError for an OSError, so that a refusal of the operating system reaches the caller as
a code it can act on."""

from __future__ import annotations

import errno

from editguard.errors import (
    EditError,
    FileNotFound,
    InvalidRequest,
    NotAFile,
    PermissionDenied,
    WriteFailed,
)


def not_found(display: str) -> FileNotFound:
    """FILE_NOT_FOUND for ``display``."""
    return FileNotFound(
        f"{display} does not exist",
        path=display,
        suggestions=[
            "Check the path (relative paths start at the first allowed folder), or "
            "create the file with write_file."
        ],
    )


def os_error(exc: OSError, display: str, action: str) -> EditError:
    """The EditError for an OSError met while trying to ``action`` ``display``."""
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return PermissionDenied(
            f"permission denied to {action} {display} ({exc.strerror})",
            path=display,
            data={"errno": exc.errno},
        )
    if exc.errno == errno.ENOENT:
        return not_found(display)
    if exc.errno in (errno.EISDIR, errno.ENOTDIR, errno.ENXIO):  # ENXIO: a socket
        return NotAFile(f"{display} is not a regular file", path=display)
    if exc.errno == errno.ELOOP:
        return NotAFile(
            f"{display} is a symbolic link that points to itself (a loop)", path=display
        )
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidRequest(
            f"the path {display[:200]!r} is too long for the file system",
            data={"field": "path"},
        )
    return WriteFailed(
        f"could not {action} {display}: {exc.strerror or exc}; the file was left as it was",
        path=display,
        data={"errno": exc.errno},
    )
