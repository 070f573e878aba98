"""Committing several files at once: all of them or none, also across a crash.

A transaction is a list of steps, each on one file that the sandbox checked and whose folder is
open (:class:`~editguard.fs.location.Location`): *write* (create the file, or replace it) or
*delete*. Its commit works like a database's rollback journal. The journal is a small file in a
per-user folder outside every project (see :func:`default_folder`), held with an exclusive
``flock`` by the process that commits, so that a live commit is never taken for a dead one.

Protocol (each record is one JSON line, sealed (below) and fsynced before the next action; the
journal's folder is fsynced once the journal exists):

1. **intent**: the journal names the roots of the commit and, for every step, the file's folder
   (its real path, inside one of those roots), the file, whether it existed, the names of its
   new text and of its backup (``.editguard-<hex>.new`` and ``.editguard-<hex>.bak`` beside the
   file), and the folders the step will create. Nothing in the project has changed yet.
2. The folders are created, each new text is written beside its file, fsynced, and given its
   mode. Then the **written** record gives the inode of each new text.
3. Every file is checked again against the version that was read (its content hash), then the
   steps run, in order, each right after a last look at the file's identity:

   - replace: ``link(file, backup)``, then ``rename(new, file)``;
   - create: ``link(new, file)`` (which fails if a file appeared meanwhile), then ``unlink(new)``;
   - delete: ``link(file, backup)``, then ``unlink(file)``.

   A backup is a second name for the old file (same inode: same bytes, mode and times), so a
   step never copies a file and the file never stops existing. Where hard links are refused, the
   backup is a fsynced copy.
4. The touched folders are fsynced and the **committed** record is written: this is the commit
   point. Then the backups are removed and the journal deleted.

Recovery (:func:`recover`, run when a Workspace starts, i.e. by ``serve``, every ``call`` and the
Python API, and by every commit) takes each journal nobody holds. Without a committed record it
rolls back, last step first, judging each step by what is on disk: a file whose inode is its new
text's gets its backup back (or is removed, if the step created it); a deleted file whose backup
remains is put back; then every new text and backup is removed and the created folders (if
empty) too. With a committed record it only removes what is left of backups and new texts. Every
action checks the state first, so recovery can itself be interrupted and run again. The journal is
deleted last. A commit that fails before its commit point rolls back at once, the same way.

What recovery trusts: only what editguard wrote. Each record is the line ``<mac> <json>``, its
MAC an HMAC-SHA256, under a per-user random key (``journal.key`` in the journal folder, made
once, owner-only, and checked so before each use), of the MAC before it (for the first, of the
journal's name) and its JSON: a record counts only in its place in its journal. A journal with
a record not so sealed, one that cannot be read, or one naming a folder outside the roots it
recorded is never acted on nor removed: it is kept, and reported (:attr:`Recovery.rejected`, and
the log). Every folder is opened from ``/`` one component at a time without following a link,
and every action goes through a folder's descriptor, never by path. The journal folder is one
of editguard's state folders, which no tool reaches (:mod:`editguard.fs.state`).

Limits: the guarantee holds for editguard's own processes and for kill -9 or a crash of this
machine on a file system that keeps the order of renames and fsyncs (ext4, xfs, btrfs, apfs);
another program that writes one of the files during the commit is caught by the version checks
up to the last microseconds before each rename, not after. A journal whose folders cannot be
opened safely (a folder of the path became a symbolic link) is left for a later recovery, and
reported.

The parts: :mod:`~editguard.fs.journal.steps` (a step, as recorded, and each action on disk),
:mod:`~editguard.fs.journal.seal` (the key and the sealed records),
:mod:`~editguard.fs.journal.commit` (a commit in progress) and
:mod:`~editguard.fs.journal.recovery` (finishing dead commits).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
import time
from collections.abc import Sequence

from editguard.errors import EditError, PermissionDenied, WriteFailed
from editguard.fs.journal import recovery
from editguard.fs.journal.commit import Commit
from editguard.fs.journal.recovery import RECOVERY_WAIT, Recovery
from editguard.fs.journal.seal import KEY_NAME, SUFFIX, Rejected, Sealed, read_key
from editguard.fs.journal.steps import OPEN_DIR, SYSTEM, Step, inode, plan_of
from editguard.fs.lock import FileLocks
from editguard.fs.state import JOURNAL_ENV, journal_folder

__all__ = [
    "ENV",
    "RECOVERY_WAIT",
    "SYSTEM",
    "Journal",
    "Recovery",
    "Step",
    "default_folder",
    "enough_descriptors",
]

ENV = JOURNAL_ENV


def enough_descriptors(wanted: int) -> None:
    """Raise this process's soft limit of open files to ``wanted`` where the hard limit allows
    (a transaction holds a lock and a folder open for each of its files)."""
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource  # noqa: PLC0415 - POSIX only, and only a transaction needs it

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            top = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            if top > soft:
                resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))


def default_folder() -> str:
    """Where journals live unless told otherwise: ``$EDITGUARD_JOURNAL``, else
    ``$XDG_STATE_HOME/editguard/journal``, else ``~/.local/state/editguard/journal``."""
    return journal_folder()


class Journal:
    """The folder of journals: commits through it, and recovery of dead commits."""

    def __init__(self, folder: str | None = None) -> None:
        self.folder = os.path.abspath(folder) if folder else default_folder()

    # -- commit ---------------------------------------------------------------------------

    def commit(self, steps: Sequence[Step]) -> None:
        """Apply ``steps`` all together; on any failure none of them stays applied.

        Raises:
            StaleVersion: a file changed since it was read (named).
            PermissionDenied, WriteFailed, NotAFile: the system refused a step (named, with the
                step in data), or the journal folder cannot be used; nothing was changed.
        """
        if not steps:
            return
        folder = self._ready()
        try:
            key = self._key(folder)
            fd, path = self._create(folder)
        except BaseException:
            os.close(folder)
            raise
        sealed = Sealed(fd, key, path)
        state = Commit(steps, [plan_of(step) for step in steps], sealed, folder, path, self.folder)
        roots = sorted({root for step in steps for root in step.location.sandbox.roots})
        try:
            state.write(
                {
                    "v": 2,
                    "pid": os.getpid(),
                    "roots": roots,
                    "steps": [p.record() for p in state.planned],
                }
            )
            state.sync_journal()
            state.prepare()
            state.write({"written": [list(p.inode or (0, 0)) for p in state.planned]})
            state.check_versions()
            state.run()
            state.sync_folders()
            state.write({"committed": True})
        except BaseException as exc:
            state.abort(exc)
            raise
        else:
            state.finish()
        finally:
            state.close()

    def _ready(self) -> int:
        """Create the journal folder owner-only (if needed), check it and open it.

        Raises:
            PermissionDenied, WriteFailed: it cannot be used safely.
        """
        try:
            os.makedirs(self.folder, mode=0o700, exist_ok=True)
            fd = os.open(self.folder, OPEN_DIR)
        except OSError as exc:
            raise self._unusable(f"it cannot be created or opened ({exc.strerror})", exc) from None
        st = os.fstat(fd)
        uid = os.getuid()
        problem = None
        if st.st_uid != uid:
            problem = f"it belongs to user {st.st_uid}, not to this user ({uid})"
        elif st.st_mode & 0o077:
            problem = f"others may use it (mode {stat.S_IMODE(st.st_mode):o})"
        if problem is not None:
            os.close(fd)
            raise self._unusable(problem)
        return fd

    def _key(self, folder: int) -> bytes:
        """This user's journal key, made at the first commit.

        Raises:
            PermissionDenied, WriteFailed: it cannot be made, or is not this user's alone.
        """
        try:
            key = read_key(folder, create=True)
        except OSError as exc:
            raise self._unusable(f"its key cannot be made ({exc.strerror})", exc) from None
        except Rejected as exc:
            raise self._unusable(str(exc)) from None
        if key is None:  # made, then removed at once by someone else
            raise self._unusable(f"its key {KEY_NAME} vanished as it was made")
        return key

    def _unusable(self, why: str, exc: OSError | None = None) -> EditError:
        cls = (
            PermissionDenied
            if exc is None or exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
            else WriteFailed
        )
        return cls(
            f"the journal folder {self.folder} cannot be used: {why}; a change of several files "
            "needs it, so nothing was written",
            data={"journal": self.folder, "errno": exc.errno if exc else errno.EPERM},
            suggestions=[
                f"Give editguard a folder it owns for its journal: set {ENV}, or pass --journal "
                "(journal= in Python)."
            ],
        )

    def _create(self, folder: int) -> tuple[int, str]:
        """Create a journal and lock it (the caller closes ``folder``).

        Between the creation and the lock, another process's recovery may find the journal
        empty and unlocked, take it for one whose commit died before its intent, and remove it;
        a commit writing on into that removed journal could not be recovered after a crash. So
        the journal counts only once it is locked and its name still leads to it.
        """
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        for _ in range(100):
            name = f"{int(time.time() * 1000):x}-{secrets.token_hex(6)}{SUFFIX}"
            try:
                fd = os.open(name, flags, 0o600, dir_fd=folder)
            except OSError as exc:
                raise self._unusable(
                    f"a journal cannot be created in it ({exc.strerror})", exc
                ) from None
            try:
                # Blocking: a recovery holds it only while it reads it.
                fcntl.flock(fd, fcntl.LOCK_EX)
                st = os.fstat(fd)
            except OSError as exc:
                os.close(fd)
                raise self._unusable(f"a journal cannot be locked ({exc.strerror})", exc) from None
            if inode(folder, name) == (st.st_dev, st.st_ino):
                return fd, name
            os.close(fd)  # removed meanwhile by a recovery: make another
        raise self._unusable("every journal made in it was removed at once by another process")

    # -- recovery -------------------------------------------------------------------------

    def recover(
        self, locks: FileLocks | None = None, held: frozenset[str] = frozenset()
    ) -> Recovery:
        """Finish every dead commit: roll back the uncommitted, clean up the committed.

        Only journals that editguard wrote are acted on: each record carries an HMAC under this
        user's key (kept owner-only in the journal folder, which no tool reaches), chained to
        the record before it and to the journal's name; the folder and the journal must be this
        user's alone, and every folder a journal names must lie inside the roots it recorded.
        Any other journal (not sealed with the key, unreadable, naming anything odd) is
        ``rejected``: kept untouched, logged once per process, never acted on. With
        ``locks``, recovery holds the writers' locks of a journal's files while it restores
        them, waiting only briefly (a journal whose files another writer holds is kept, and
        its files are reported ``blocked``); ``held`` are files whose locks the caller holds
        itself. Never raises: a journal that cannot be recovered now is kept for the next time.
        """
        return recovery.recover(self.folder, locks, held)

    def rejected(self) -> dict[str, str]:
        """The journals that recovery does not act on (see :meth:`recover`), each with why.
        Only reads: nothing is locked, changed or removed. Never raises."""
        return recovery.rejected(self.folder)
