"""Recovery: finish every dead commit, trusting only the journals editguard sealed.

Recovery (run when a Workspace starts, and by every commit) takes each journal nobody holds.
Without a committed record it rolls back, last step first, judging each step by what is on disk
(:func:`~editguard.fs.journal.steps.roll_back`); with one, it only removes what is left of
backups and new texts. Every action checks the state first, so recovery can itself be
interrupted and run again; a step undone is recorded as such before anything else is done, and
the journal is deleted last. A journal that is not sealed with this user's key, cannot be read,
or names a folder outside the roots it recorded is never acted on nor removed: it is kept, and
reported (:attr:`Recovery.rejected`, and the log once per process). See
:mod:`editguard.fs.journal` for the protocol whose journals this reads.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import logging
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from editguard.errors import EditError
from editguard.fs.journal.seal import (
    KEY_TEMP,
    OPEN_READ,
    SUFFIX,
    Rejected,
    Sealed,
    mark_undone,
    read_key,
    sweep_key,
    trusted,
)
from editguard.fs.journal.steps import (
    OPEN_DIR,
    Planned,
    descend,
    inode,
    open_path,
    remove_leftovers,
    remove_made,
    roll_back,
)
from editguard.fs.lock import FileLocks

_log = logging.getLogger("editguard")

# How long recovery waits for a file's lock before it keeps the journal for later.
RECOVERY_WAIT = 0.2


def recover(
    path: str, locks: FileLocks | None = None, held: frozenset[str] = frozenset()
) -> Recovery:
    """Recover the journals in the folder ``path``: see
    :meth:`editguard.fs.journal.Journal.recover`. Never raises."""
    result = Recovery()
    try:
        folder = os.open(path, OPEN_DIR)
    except OSError:
        return result  # no journal folder yet: nothing ever to recover
    try:
        if not trusted(os.fstat(folder), 0o077):
            return result
        with os.scandir(folder) as entries:
            listed = [e.name for e in entries]
        for name in listed:
            if name.startswith(KEY_TEMP):
                sweep_key(folder, name)
        names = sorted(n for n in listed if n.endswith(SUFFIX))
        if not names:
            return result
        key = _recovery_key(folder)
        for name in names:
            _recover_one(folder, name, key, locks, held, result)
    finally:
        os.close(folder)
    for name, why in result.rejected.items():
        _report(os.path.join(path, name), why)
    return result


def rejected(path: str) -> dict[str, str]:
    """The journals in the folder ``path`` that recovery does not act on, each with why
    (see :meth:`editguard.fs.journal.Journal.rejected`). Only reads. Never raises."""
    found: dict[str, str] = {}
    try:
        folder = os.open(path, OPEN_DIR)
    except OSError:
        return found
    try:
        if not trusted(os.fstat(folder), 0o077):
            return found
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(SUFFIX))
        key = _recovery_key(folder) if names else ""
        for name in names:
            why = _verdict(folder, name, key)
            if why is not None:
                found[name] = why
    except OSError:
        pass
    finally:
        os.close(folder)
    return found


def _recovery_key(folder: int) -> bytes | str:
    """The journal key in the open folder, or why there is none to trust."""
    try:
        return read_key(folder, create=False) or "this user has no journal key yet"
    except (OSError, Rejected) as exc:
        return str(exc)


def _verdict(folder: int, name: str, key: bytes | str) -> str | None:
    """Why recovery would not act on the journal ``name`` (None: it would, or it is gone)."""
    try:
        fd = os.open(name, OPEN_READ, dir_fd=folder)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not trusted(st, 0o022):
            return _UNTRUSTED
        sealed = Sealed(fd, key if isinstance(key, bytes) else secrets.token_bytes(32), name)
        try:
            records = sealed.read()
            if records:
                _read_plan(records)
        except Rejected as exc:
            return key if isinstance(key, str) else str(exc)
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            return _odd(exc)
    except OSError:
        pass
    finally:
        os.close(fd)
    return None


_UNTRUSTED = "it is not a file that only this user may write"


def _odd(exc: Exception) -> str:
    return f"it names what editguard never writes ({exc})"


@dataclasses.dataclass(slots=True)
class Recovery:
    """What one recovery did: the journals it finished, and the files named by dead journals
    it had to keep (their commit is neither rolled back nor finished yet)."""

    recovered: list[str] = dataclasses.field(default_factory=list)
    blocked: set[str] = dataclasses.field(default_factory=set)
    rejected: dict[str, str] = dataclasses.field(default_factory=dict)
    """Journals not acted on (not editguard's, unreadable, or naming folders outside their
    roots), each with why: kept, untouched, for a person to look at."""


_REPORTED: set[tuple[str, str]] = set()


def _report(path: str, why: str) -> None:
    """Log a rejected journal, once per process."""
    if (path, why) not in _REPORTED:
        _REPORTED.add((path, why))
        _log.warning(
            "editguard did not act on the journal %s: %s; it is kept for a person to look at",
            path,
            why,
        )


def _recover_one(
    folder: int,
    name: str,
    key: bytes | str,
    locks: FileLocks | None,
    held: frozenset[str],
    result: Recovery,
) -> None:
    """Recover one journal unless its commit is alive (see :meth:`Journal.recover`); ``key``
    is the journal key, or why there is none to use."""
    try:
        fd = os.open(name, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not trusted(st, 0o022):
            result.rejected[name] = _UNTRUSTED
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # its commit is running
        if inode(folder, name) != (st.st_dev, st.st_ino):
            # Its commit ended (and removed it) between our open and our lock: the files may
            # have changed since, even by another commit, so the journal must not be replayed.
            return
        # Without a usable key, no record can be authentic: a random one makes sure of it.
        sealed = Sealed(fd, key if isinstance(key, bytes) else secrets.token_bytes(32), name)
        try:
            records = sealed.read()
            if not records:
                # Not one whole record: nothing was done before the intent was durable.
                os.unlink(name, dir_fd=folder)
                result.recovered.append(name)
                return
            planned, committed, undone = _read_plan(records)
        except Rejected as exc:
            result.rejected[name] = f"{key}" if isinstance(key, str) else str(exc)
            return
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            result.rejected[name] = _odd(exc)
            return
        paths = {_path_of(p) for p in planned}
        try:
            with _holding(locks, paths - held):
                _recover_steps(planned, committed, undone, lambda i: mark_undone(sealed, i))
            os.unlink(name, dir_fd=folder)
        except (OSError, EditError):
            result.blocked |= paths  # kept for the next recovery
            return
        with contextlib.suppress(OSError):
            os.fsync(folder)
        result.recovered.append(name)
    finally:
        os.close(fd)


def _path_of(plan: Planned) -> str:
    return os.path.join(plan.folder, *plan.made, plan.name)


def _read_plan(records: list[dict[str, Any]]) -> tuple[list[Planned], bool, set[int]]:
    """The steps of a journal, whether it committed, and the steps already undone.

    Raises:
        ValueError, TypeError, KeyError: a record is not as editguard writes it, or a step's
            folder lies outside the roots the journal recorded.
    """
    steps, roots = records[0]["steps"], records[0]["roots"]
    if not isinstance(steps, list):
        raise TypeError("steps is not a list")
    if not isinstance(roots, list) or not all(_is_real(r) for r in roots):
        raise ValueError("roots is not a list of real paths")
    planned = [Planned.of(s) for s in steps]
    for plan in planned:
        if not any(_inside(plan.folder, root) for root in roots):
            raise ValueError(f"a step's folder {plan.folder} is outside the journal's roots")
    committed = any(r.get("committed") is True for r in records)
    written = next((r["written"] for r in records if "written" in r), None)
    if written is not None:
        if not isinstance(written, list):
            raise ValueError("written is not a list")
        for plan, inode in zip(planned, written, strict=False):
            if not (isinstance(inode, list) and len(inode) == 2):
                raise ValueError("an inode is not a pair")
            dev, ino = int(inode[0]), int(inode[1])
            plan.inode = (dev, ino) if ino else None
    undone = {r["undone"] for r in records if isinstance(r.get("undone"), int)}
    return planned, committed, undone


@contextlib.contextmanager
def _holding(locks: FileLocks | None, paths: set[str]) -> Iterator[None]:
    """Hold the writers' locks of a journal's files (sorted, as every writer takes them), so
    that no edit lands on a file while recovery puts it back; wait only briefly for each.

    Raises:
        FileBusy: another writer holds one of them.
    """
    if locks is None:
        yield
        return
    with contextlib.ExitStack() as stack:
        for path in sorted(paths):
            stack.enter_context(locks.hold(path, path, timeout=RECOVERY_WAIT))
        yield


def _recover_steps(
    planned: list[Planned],
    committed: bool,
    undone: AbstractSet[int] = frozenset(),
    mark: Callable[[int], None] | None = None,
) -> None:
    for index in reversed(range(len(planned))):
        plan = planned[index]
        if index in undone:
            continue
        try:
            base = open_path(plan.folder)
        except FileNotFoundError:
            continue  # the folder is gone: nothing of this step is left to undo
        try:
            folder, chain = descend(base, plan.made)
            try:
                if committed:
                    remove_leftovers(folder, plan)
                else:
                    roll_back(folder, plan, plan.name)
                with contextlib.suppress(OSError):
                    os.fsync(folder)
            finally:
                for fd in chain:
                    os.close(fd)
            if not committed:
                remove_made(base, plan.made)
                if mark is not None:
                    mark(index)
        finally:
            os.close(base)


def _is_real(path: object) -> bool:
    """Whether ``path`` is an absolute, normal path (as the sandbox records a root)."""
    return (
        isinstance(path, str)
        and "\x00" not in path
        and os.path.isabs(path)
        and (os.path.normpath(path) == path or path == "//")
    )


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")
