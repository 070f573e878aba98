"""The existing paths nearest to one that does not exist, for FILE_NOT_FOUND: ``src/util.py``
-> ``src/utils.py``, ``scr/app.py`` -> ``src/app.py``, ``app.py`` -> ``src/app.py``.

Bounded, and inside the sandbox: the path is walked from its root one folder at a time with
``O_NOFOLLOW`` (a symbolic link is never followed, nor suggested), at most :data:`MAX_ENTRIES`
names of one folder are read, and a misspelt folder or a file in the wrong folder is looked for
one level deep only. Names are compared with :func:`difflib.get_close_matches`.
"""

from __future__ import annotations

import difflib
import itertools
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager

from editguard.errors import FileNotFound
from editguard.fs.sandbox import Resolved

MAX_ENTRIES = 1000  # names read from one folder
MAX_FOLDERS = 50  # sub-folders searched for the file's own name
MAX_SUGGESTIONS = 3
CUTOFF = 0.6  # difflib's ratio: util.py / utils.py is 0.93, app.py / api.py 0.83

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def nearest_paths(where: Resolved) -> list[str]:
    """Existing files near ``where`` (which does not exist), as paths relative to its root
    (``/``-separated, as messages show paths), nearest first; ``[]`` when none is near or the
    tree cannot be read."""
    rel = os.path.relpath(where.real, where.root)
    parts = [] if rel == os.curdir else rel.split(os.sep)
    if not parts or os.pardir in parts:
        return []
    opened: list[int] = []
    try:
        fd = os.open(where.root, _DIR)
        opened.append(fd)
        for index, part in enumerate(parts[:-1]):
            try:
                fd = os.open(part, _DIR, dir_fd=fd)
            except OSError:
                # A folder that is not there: a similar folder that holds the rest.
                rest = parts[index + 1 :]
                return [
                    "/".join([*parts[:index], name, *rest])
                    for name in _close(part, _names(fd, folders=True))
                    if _is_file(fd, [name, *rest])
                ][:MAX_SUGGESTIONS]
            opened.append(fd)
        name, folder = parts[-1], parts[:-1]
        close = _close(name, _names(fd, folders=False))
        if close:
            return ["/".join([*folder, c]) for c in close]
        # The same name one folder further down (app.py -> src/app.py).
        below = itertools.islice(_names(fd, folders=True), MAX_FOLDERS)
        return [
            "/".join([*folder, sub, name]) for sub in sorted(below) if _is_file(fd, [sub, name])
        ][:MAX_SUGGESTIONS]
    except OSError:
        return []
    finally:
        for fd in opened:
            os.close(fd)


def _names(fd: int, *, folders: bool) -> list[str]:
    """Up to MAX_ENTRIES names in the folder ``fd``: its folders, or its regular files (never
    a symbolic link)."""
    out = []
    with os.scandir(fd) as entries:
        for entry in itertools.islice(entries, MAX_ENTRIES):
            try:
                kind = entry.is_dir if folders else entry.is_file
                if kind(follow_symlinks=False):
                    out.append(entry.name)
            except OSError:
                continue
    return out


def _close(name: str, names: list[str]) -> list[str]:
    return difflib.get_close_matches(name, names, n=MAX_SUGGESTIONS, cutoff=CUTOFF)


def _is_file(fd: int, parts: list[str]) -> bool:
    """Whether ``parts`` below the folder ``fd`` is a regular file, reached through no link."""
    opened: list[int] = []
    try:
        for part in parts[:-1]:
            fd = os.open(part, _DIR, dir_fd=fd)
            opened.append(fd)
        found = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    finally:
        for inner in opened:
            os.close(inner)
    return stat.S_ISREG(found.st_mode)


def with_nearest(error: FileNotFound, where: Resolved) -> FileNotFound:
    """``error`` (about ``where``), with the nearest existing paths in its message, its
    suggestions and ``data["similar_paths"]`` (when there are any)."""
    if "similar_paths" in error.data or error.path not in (None, where.display):
        return error
    near = nearest_paths(where)
    if near:
        error.data["similar_paths"] = near
        error.message += f"; similar existing path(s): {', '.join(near)}"
        error.suggestions.insert(0, f"Did you mean {near[0]}? Send that path instead.")
    return error


@contextmanager
def suggesting(where: Resolved) -> Iterator[None]:
    """Add the nearest existing paths to a FILE_NOT_FOUND about ``where`` raised inside."""
    try:
        yield
    except FileNotFound as exc:
        with_nearest(exc, where)
        raise
