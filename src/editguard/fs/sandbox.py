"""Which paths a caller may touch: everything inside the allowed roots, after symlinks, and
nothing else; editguard's own state folders (:mod:`editguard.fs.state`) never, even inside a
root."""

from __future__ import annotations

import errno
import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from editguard.errors import InvalidRequest, OutsideRoot, StaleVersion
from editguard.fs.oserror import os_error
from editguard.fs.state import Private, default_folders


@dataclass(frozen=True, slots=True)
class Resolved:
    """A path the sandbox accepted.

    Attributes:
        real: absolute path with every symlink resolved (what is read and written).
        root: the allowed root that contains it.
        requested: the path as the caller wrote it.
    """

    real: str
    root: str
    requested: str

    @property
    def display(self) -> str:
        """The path relative to its root, with ``/`` separators (as diffs and messages show it)."""
        return _relative(self.real, self.root)


@functools.lru_cache(maxsize=4096)
def _relative(real: str, root: str) -> str:
    """``real`` relative to ``root``, ``/``-separated (pure string work on two absolute paths,
    asked for many times a call)."""
    return Path(os.path.relpath(real, root)).as_posix()


def names_a_link(sandbox: Sandbox, where: Resolved) -> bool:
    """Whether the path as the caller wrote it ends in a symbolic link (whose target ``where``
    is): deleting or moving such a path would act on the target, not on the link."""
    path = where.requested
    joined = path if os.path.isabs(path) else os.path.join(sandbox.roots[0], path)
    return os.path.islink(joined.rstrip(os.sep) or os.sep)


class Sandbox:
    """The allowed roots. A path is accepted only if it resolves inside one of them.

    Relative paths are taken from the first root. Symlinks are followed before the check, so a
    link that points outside is refused, and a link inside resolves to its target.

    ``private`` are folders refused even inside a root (editguard's journal, history and lock
    folders as configured); the default state folders are always among them.
    """

    def __init__(
        self, roots: Iterable[str | os.PathLike[str]] = (".",), private: Iterable[str] = ()
    ) -> None:
        resolved: list[str] = []
        for root in roots:
            real = os.path.realpath(os.fspath(root))
            if not os.path.isdir(real):
                raise ValueError(f"root {os.fspath(root)!r} is not a directory")
            resolved.append(real)
        if not resolved:
            raise ValueError("at least one root is needed")
        self.roots: tuple[str, ...] = tuple(dict.fromkeys(resolved))
        self.private = Private([*default_folders(), *private])

    def resolve(self, path: str) -> Resolved:
        """Resolve ``path`` (relative to the first root, or absolute) inside the roots.

        Raises:
            InvalidRequest: the path is empty.
            OutsideRoot: it holds a NUL byte, or resolves outside every root.
        """
        if not path:
            raise InvalidRequest("path is empty", data={"field": "path"})
        if "\x00" in path:
            raise OutsideRoot(
                "path contains a NUL byte",
                path=path.replace("\x00", "\\0"),
                data={"roots": list(self.roots)},
            )
        _check_length(path)
        joined = path if os.path.isabs(path) else os.path.join(self.roots[0], path)
        real = _realpath(joined, path)
        if real != os.path.normpath(real) or _realpath(real, path) != real:
            # realpath stops at a symlink loop and returns the rest unresolved, ".." included:
            # the system would resolve that rest later, possibly outside every root.
            raise OutsideRoot(
                f"{path} cannot be resolved safely: it runs through a symbolic link loop",
                path=path,
                data={"resolved": real, "roots": list(self.roots)},
            )
        for root in self.roots:
            if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
                self._not_private(real, path)
                return Resolved(real, root, path)
        raise OutsideRoot(
            f"{path} resolves to {real}, which is outside the allowed folders "
            f"({', '.join(self.roots)})",
            path=path,
            data={"resolved": real, "roots": list(self.roots)},
            suggestions=[
                "Use a path inside one of the allowed folders (relative paths start "
                f"from {self.roots[0]})."
            ],
        )

    def _not_private(self, real: str, path: str) -> None:
        """Refuse a path in editguard's own state: it counts as outside every root.

        Raises:
            OutsideRoot: ``real`` is, or lies inside, a state folder (``reason`` in its data).
        """
        folder = self.private.holding(real)
        if folder is None:
            return
        raise OutsideRoot(
            f"{path} is in editguard's own state folder {folder} (journals, history, locks), "
            "which no tool reads or writes, whatever the allowed folders",
            path=path,
            data={"resolved": real, "state_folder": folder, "reason": "editguard_state"},
            suggestions=["Use a path outside editguard's state folder."],
        )


PATH_MAX, NAME_MAX = 4096, 255  # bytes, as Linux counts them


def _check_length(path: str) -> None:
    """Refuse a path no file system could hold, before any system call sees it.

    Raises:
        InvalidRequest: a character no file name can hold, or a path or name too long.
    """
    shown = path[:200] + ("..." if len(path) > 200 else "")
    if len(path) > PATH_MAX:  # every character takes a byte at least
        size = len(path)
    else:
        try:
            size = len(os.fsencode(path))
        except UnicodeEncodeError:
            raise InvalidRequest(
                f"the path {shown!r} holds a character no file name can (a lone surrogate)",
                data={"field": "path"},
            ) from None
    if size > PATH_MAX:
        raise InvalidRequest(
            f"the path is {size:,} bytes long; the limit is {PATH_MAX:,}: {shown!r}",
            data={"field": "path", "size": size, "limit": PATH_MAX},
        )
    longest = max((len(os.fsencode(part)) for part in path.split("/")), default=0)
    if longest > NAME_MAX:
        raise InvalidRequest(
            f"a name in the path is {longest:,} bytes long; the limit is {NAME_MAX}: {shown!r}",
            data={"field": "path", "size": longest, "limit": NAME_MAX},
        )


def _realpath(joined: str, path: str) -> str:
    """``os.path.realpath``, which fails with an OSError when a component changes from a link
    to a folder while it runs: tried again a few times, then refused as a path that is changing.

    Raises:
        StaleVersion: the path kept changing.
        InvalidRequest, WriteFailed: the path is too long for the system, or another refusal.
    """
    for _ in range(3):
        try:
            return os.path.realpath(joined)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOENT):
                raise os_error(exc, path, "resolve") from None
    raise StaleVersion(
        f"{path} kept changing while editguard resolved it (a folder swapped with a symbolic "
        "link?); nothing was done",
        path=path,
        data={"reason": "path_changed"},
        suggestions=["Send the call again once the path is stable."],
    )
