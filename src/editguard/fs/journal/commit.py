"""One commit in progress, step by step: intent, new texts written, versions checked, the steps
run, folders synced, the commit point; and, on any failure before it, the roll-back.

The protocol and what it guarantees are :mod:`editguard.fs.journal`'s docstring;
:class:`Commit` carries them out for :meth:`editguard.fs.journal.Journal.commit`, writing each
record through :class:`~editguard.fs.journal.seal.Sealed` and every system call that changes
something through :data:`~editguard.fs.journal.steps.SYSTEM`. A failure names the file and the
step it happened in.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator, Sequence
from typing import Any

from editguard.errors import EditError, StaleVersion, error_context
from editguard.fs import atomic
from editguard.fs.journal.seal import Sealed, mark_undone
from editguard.fs.journal.steps import (
    OPEN_DIR,
    SYSTEM,
    Planned,
    Step,
    make_backup,
    roll_back,
    write_new,
)
from editguard.fs.location import is_link
from editguard.fs.oserror import os_error


class Commit:
    """One commit in progress (the protocol is :mod:`editguard.fs.journal`'s docstring)."""

    def __init__(
        self,
        steps: Sequence[Step],
        planned: list[Planned],
        sealed: Sealed,
        journals: int,
        path: str,
        shown: str,
    ) -> None:
        self.steps, self.planned, self.sealed, self.fd = steps, planned, sealed, sealed.fd
        self.journals, self.path, self.shown = journals, path, shown
        # The folder each file is (or goes) in: its location's, or one this commit created.
        self.folders = [step.location.folder for step in steps]
        self.made: list[list[tuple[int, str]]] = [[] for _ in steps]  # (parent, name)
        self.opened: list[int] = []  # descriptors to close at the end
        self.seen: list[tuple[int, ...] | None] = [None] * len(steps)
        self.committed = False

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` to the journal, durably.

        Raises:
            PermissionDenied, WriteFailed: the system refused (the journal named, the record in
                ``step``).
        """
        try:
            self.sealed.append(record, SYSTEM.write, SYSTEM.fsync)
        except OSError as exc:
            raise self._refused(
                exc, "intent" if "steps" in record else next(iter(record))
            ) from None
        self.committed = "committed" in record

    def sync_journal(self) -> None:
        """Make the journal's name durable (its folder fsynced), so that a crash of the machine
        cannot lose the journal of a commit that has begun.

        Raises:
            PermissionDenied, WriteFailed: the system refused.
        """
        try:
            SYSTEM.fsync(self.journals)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise self._refused(exc, "intent") from None
            # A file system that cannot fsync a folder: its renames are as durable as it gets.

    def _refused(self, exc: OSError, step: str) -> EditError:
        err = os_error(exc, os.path.join(self.shown, self.path), "write the journal")
        err.data.update(step=step, journal=self.shown)
        return err

    def prepare(self) -> None:
        for index, (step, plan) in enumerate(zip(self.steps, self.planned, strict=True)):
            with _named(step, "prepare"):
                for name in step.location.missing:
                    self.folders[index] = self._make_folder(index, name, step)
                if step.kind == "write":
                    plan.inode = write_new(self.folders[index], plan.new, step)

    def _make_folder(self, index: int, name: str, step: Step) -> int:
        parent = self.folders[index]
        try:
            SYSTEM.mkdir(name, 0o777, dir_fd=parent)
            self.made[index].append((parent, name))
        except FileExistsError:
            pass
        try:
            inner = os.open(name, OPEN_DIR, dir_fd=parent)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and is_link(parent, name):
                raise step.location.changed() from None
            raise
        self.opened.append(inner)
        return inner

    def check_versions(self) -> None:
        for index, step in enumerate(self.steps):
            with _named(step, "check"):
                now, seen = atomic.version_now(step.location, self.folders[index])
                if now != step.base_version:
                    raise StaleVersion(
                        atomic.race_message(step.display, step.base_version, now),
                        path=step.display,
                        data={"expected_version": step.base_version, "actual_version": now},
                        suggestions=["Re-read the file and send the change again."],
                    )
                self.seen[index] = atomic.identity(seen)

    def run(self) -> None:
        for index, (step, plan) in enumerate(zip(self.steps, self.planned, strict=True)):
            folder, name = self.folders[index], step.location.name
            with _named(step, "commit"):
                self._unchanged(index, step)
                if step.kind == "write" and not plan.existed:
                    try:
                        SYSTEM.link(plan.new, name, src_dir_fd=folder, dst_dir_fd=folder)
                    except FileExistsError:
                        raise StaleVersion(
                            atomic.race_message(step.display, None, "?"),
                            path=step.display,
                            data={"actual_version": "?"},
                        ) from None
                    SYSTEM.unlink(plan.new, dir_fd=folder)
                    continue
                make_backup(folder, name, plan.backup)
                if step.kind == "write":
                    SYSTEM.rename(plan.new, name, src_dir_fd=folder, dst_dir_fd=folder)
                else:
                    SYSTEM.unlink(name, dir_fd=folder)

    def _unchanged(self, index: int, step: Step) -> None:
        """A last look at the file right before its step: same inode, size and times as when
        its content was checked."""
        try:
            last = os.lstat(step.location.name, dir_fd=self.folders[index])
        except FileNotFoundError:
            last = None
        if atomic.identity(last) != self.seen[index]:
            raise StaleVersion(
                f"{step.display} was changed by another process while this change was prepared",
                path=step.display,
                data={"expected_version": step.base_version},
                suggestions=["Re-read the file and send the change again."],
            )

    def sync_folders(self) -> None:
        seen: set[tuple[int, int]] = set()
        for index, step in enumerate(self.steps):
            # The file's folder, and each folder that gained a folder this commit created.
            for folder in [*(parent for parent, _ in self.made[index]), self.folders[index]]:
                st = os.fstat(folder)
                if (st.st_dev, st.st_ino) not in seen:
                    seen.add((st.st_dev, st.st_ino))
                    with _named(step, "sync"):
                        SYSTEM.fsync(folder)

    def abort(self, exc: BaseException) -> None:
        """Roll back in this process; if that fails too, keep the journal for recovery."""
        if self.committed:
            self.finish()  # the commit point was passed: the change stands
            return
        try:
            for index in reversed(range(len(self.steps))):
                roll_back(self.folders[index], self.planned[index], self.steps[index].location.name)
                with contextlib.suppress(OSError):  # best effort: recovery checks inodes too
                    mark_undone(self.sealed, index)
                for parent, name in reversed(self.made[index]):
                    with contextlib.suppress(OSError):
                        os.rmdir(name, dir_fd=parent)
            for folder in self.folders:
                with contextlib.suppress(OSError):
                    SYSTEM.fsync(folder)
            os.unlink(self.path, dir_fd=self.journals)
        except OSError:
            if isinstance(exc, EditError):
                exc.data["recovery"] = "pending"
                exc.message += (
                    "; the files could not all be restored at once: the next editguard start "
                    "restores them"
                )

    def finish(self) -> None:
        """After the commit point: remove the backups and the journal (what fails here is
        finished by the next recovery)."""
        for index, plan in enumerate(self.planned):
            if plan.existed:
                with contextlib.suppress(OSError):
                    os.unlink(plan.backup, dir_fd=self.folders[index])
        with contextlib.suppress(OSError):
            os.unlink(self.path, dir_fd=self.journals)

    def close(self) -> None:
        for fd in [self.fd, self.journals, *self.opened]:
            with contextlib.suppress(OSError):
                os.close(fd)


@contextlib.contextmanager
def _named(step: Step, action: str) -> Iterator[None]:
    """Name the file (and what was being done) in an OSError that escapes."""
    try:
        with error_context(path=step.display):
            yield
    except OSError as exc:
        err = os_error(exc, step.display, "write" if action != "check" else "read")
        err.data["step"] = action
        raise err from None
    except EditError as exc:
        exc.data.setdefault("step", action)
        raise
