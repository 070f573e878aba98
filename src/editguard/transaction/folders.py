"""Folders a transaction makes or removes, and what it looks at first: whether a folder is
there, and whether it is empty. Never through a symbolic link (every path is located in the
sandbox, folder by folder)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Set as AbstractSet

from editguard.errors import NotAFile
from editguard.fs.location import locate
from editguard.fs.oserror import os_error
from editguard.fs.sandbox import Resolved
from editguard.transaction.context import Context


def folder_state(ctx: Context, where: Resolved) -> bool:
    """Whether a folder is at ``where`` (``False``: nothing is).

    Raises:
        NotAFile: something else is there (a file), or a folder of the path is a file.
        OutsideRoot, StaleVersion: a folder of the path was swapped for a symbolic link.
    """
    if where.real == where.root:
        return True
    with locate(ctx.sandbox, where, create=True) as location:
        if location.missing:
            return False
        try:
            found = os.lstat(location.name, dir_fd=location.folder)
        except FileNotFoundError:
            return False
        if stat.S_ISDIR(found.st_mode):
            return True
        if stat.S_ISLNK(found.st_mode):
            raise location.changed()
        raise NotAFile(
            f"{where.display} is a file, not a folder",
            path=where.display,
            data={"not_a_folder": where.display},
            suggestions=["Choose another name, or move the file away first."],
        )


def folder_empty(ctx: Context, where: Resolved, gone: AbstractSet[str] = frozenset()) -> bool:
    """Whether the folder at ``where`` is empty but for the real paths in ``gone`` (a missing
    one counts as empty)."""
    with locate(ctx.sandbox, where, create=True) as location:
        if location.missing:
            return True
        try:
            fd = os.open(location.name, _FOLDER, dir_fd=location.folder)
        except FileNotFoundError:
            return True
        except OSError:
            return False  # not a folder (or not one to look into): not to be removed
        try:
            return all(os.path.join(where.real, name) in gone for name in os.listdir(fd))
        finally:
            os.close(fd)


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def make_folder(ctx: Context, where: Resolved) -> bool:
    """Make the folder at ``where`` (its parents exist, or are made too); ``False`` if another
    process made it meanwhile.

    Raises:
        NotAFile: a file is in the way.
        OutsideRoot, StaleVersion, PermissionDenied, WriteFailed: as :func:`locate`.
    """
    with locate(ctx.sandbox, where, create=True) as location:
        names = [*location.missing, location.name]
        folder = location.folder
        made = False
        try:
            for name in names:
                try:
                    os.mkdir(name, 0o777, dir_fd=folder)
                    made = True
                except FileExistsError:
                    pass
                except OSError as exc:
                    raise os_error(exc, where.display, "create the folder") from None
                try:
                    inner = os.open(name, _FOLDER, dir_fd=folder)
                except OSError as exc:
                    if exc.errno == errno.ELOOP:
                        raise location.changed() from None
                    if exc.errno == errno.ENOTDIR:
                        raise NotAFile(
                            f"{where.display} cannot be created: {name} is a file",
                            path=where.display,
                            data={"not_a_folder": name},
                        ) from None
                    raise os_error(exc, where.display, "open the folder") from None
                with contextlib.suppress(OSError):
                    os.fsync(folder)  # the new name is durable
                if folder != location.folder:
                    os.close(folder)
                folder = inner
        finally:
            if folder != location.folder:
                os.close(folder)
    return made


def remove_folder(ctx: Context, where: Resolved) -> None:
    """Remove the empty folder at ``where`` (never through a symbolic link).

    Raises:
        OSError: it is not empty, or not a folder.
        EditError: as :func:`locate`.
    """
    with locate(ctx.sandbox, where) as location:
        os.rmdir(location.name, dir_fd=location.folder)
        with contextlib.suppress(OSError):
            os.fsync(location.folder)
