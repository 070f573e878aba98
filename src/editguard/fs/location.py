"""Using a path exactly as the sandbox checked it, even when the tree changes meanwhile.

:meth:`Sandbox.resolve <editguard.fs.sandbox.Sandbox.resolve>` turns a path into its real path
(every symlink resolved) and checks that it lies inside a root. Between that check and the
system calls that use the path, anything that can change the tree (another process, the agent's
own shell, a build script) may swap a folder or the file for a symbolic link to somewhere
outside. So no call here uses the path by name. :func:`locate` opens ``/``, then each folder of
the root's and the file's real path, one component at a time, with ``O_NOFOLLOW``; every later
step (open, stat, mkdir, rename, unlink, fsync) goes through the descriptor of the folder that
holds the file (``dir_fd=``). A component that is a symbolic link at that moment was swapped in
after the check: the path is resolved again, and the call refused, as OUTSIDE_ROOT if the link
leads outside the roots, else as STALE_VERSION (the path changed while the call ran). A symlink
that stays inside the roots is resolved by the sandbox's check as before, so editing through one
keeps working.

What this does not cover: a folder that another process *moves* out of the root while a call
holds its descriptor keeps receiving that call's write (it is the folder the check accepted, now
elsewhere); and a hard link inside the root to an outside file is that file.
"""

from __future__ import annotations

import errno
import os
import stat
from types import TracebackType

from editguard.errors import EditError, NotAFile, StaleVersion
from editguard.fs.oserror import not_found, os_error
from editguard.fs.sandbox import Resolved, Sandbox

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Location:
    """A checked path, opened: the descriptor of the folder that holds the file, and its name.

    Attributes:
        where: the path as the sandbox accepted it.
        folder: descriptor of the deepest folder of the path that exists (the file's own folder
            unless ``missing`` is not empty); closed by :meth:`close`.
        name: the file's name.
        missing: names of the folders to create, in order, below ``folder`` (only when located
            with ``create``).
    """

    def __init__(
        self, sandbox: Sandbox, where: Resolved, folder: int, name: str, missing: tuple[str, ...]
    ) -> None:
        self.sandbox, self.where, self.folder, self.name, self.missing = (
            sandbox,
            where,
            folder,
            name,
            missing,
        )

    def __enter__(self) -> Location:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the folder's descriptor."""
        if self.folder >= 0:
            os.close(self.folder)
            self.folder = -1

    def changed(self) -> EditError:
        """The error for a path that no longer is what the sandbox checked (a component became a
        symbolic link): OUTSIDE_ROOT if it now leads outside the roots, else STALE_VERSION."""
        return changed(self.sandbox, self.where)


def changed(sandbox: Sandbox, where: Resolved) -> EditError:
    """See :meth:`Location.changed`."""
    try:
        again = sandbox.resolve(where.requested)
    except EditError as exc:  # OUTSIDE_ROOT, or another coded refusal of the new path
        return exc
    if again.real == where.real:
        # Resolving stopped at this link both times: a link that leads back to itself.
        return NotAFile(
            f"{where.display} is a symbolic link that points to itself (a loop)",
            path=where.display,
        )
    return StaleVersion(
        f"{where.display} changed while editguard was using it (a folder or the file was "
        "replaced, e.g. by a symbolic link); nothing was written",
        path=where.display,
        data={"reason": "path_changed"},
        suggestions=["Check the path, then send the call again."],
    )


def locate(sandbox: Sandbox, where: Resolved, *, create: bool = False) -> Location:
    """Open the folders of ``where.real`` from its root, one at a time, following no link.

    Raises:
        FileNotFound: a folder of the path does not exist (and ``create`` is false).
        NotAFile: the path is a root itself, or a component that should be a folder is a file.
        OutsideRoot, StaleVersion: a component was swapped for a symbolic link since the check.
        PermissionDenied, WriteFailed: the operating system refused.
    """
    display = where.display
    rel = os.path.relpath(where.real, where.root)
    parts = [] if rel == os.curdir else rel.split(os.sep)
    if not parts:
        raise NotAFile(f"{display} is a folder, not a file", path=display)
    fd = _open_root(sandbox, where)
    try:
        for index, part in enumerate(parts[:-1]):
            try:
                inner = os.open(part, _DIR, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise not_found(display) from None
                return Location(sandbox, where, fd, parts[-1], tuple(parts[index:-1]))
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise os_error(exc, display, "open the folder of") from None
                if is_link(fd, part):
                    raise changed(sandbox, where) from None
                folder = "/".join(parts[: index + 1])
                raise NotAFile(
                    f"{folder} is a file, not a folder, so {display} cannot be in it",
                    path=display,
                    data={"not_a_folder": folder},
                ) from None
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return Location(sandbox, where, fd, parts[-1], ())


def _open_root(sandbox: Sandbox, where: Resolved) -> int:
    """Open the root from ``/``, one folder at a time, following no link: the root's real path
    has none, so a link on the way (a parent of the root swapped) is a change, refused."""
    fd = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in where.root.strip("/").split("/") if where.root != "/" else []:
            try:
                inner = os.open(part, _DIR, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise changed(sandbox, where) from None
                raise os_error(exc, where.display, "open the folder of") from None
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def is_link(folder: int, name: str) -> bool:
    """Whether ``name`` in ``folder`` is a symbolic link right now."""
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=folder).st_mode)
    except OSError:
        return False
