"""editguard's own state (journals, histories, locks, the journal key): where it lives, and
keeping every tool out of it.

The state is trusted by editguard: recovery replays a journal, ``undo`` restores what the history
holds, writers take turns through the lock folder. A root may well contain the state folder
(``editguard serve ~`` serves ``~/.local/state/editguard`` too), so the sandbox treats each state
folder as lying outside every root: :class:`Private` answers whether a path is, or lies inside,
one of them, by its real path and by the device and inode of each folder on the way (so that no
symbolic link, bind mount or difference of letter case reaches one under another name), and the
walker leaves them out of every listing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

JOURNAL_ENV = "EDITGUARD_JOURNAL"
HISTORY_ENV = "EDITGUARD_HISTORY"


def state_home() -> str:
    """editguard's state folder: ``$XDG_STATE_HOME/editguard``, else
    ``~/.local/state/editguard``."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(os.path.abspath(state), "editguard")


def journal_folder() -> str:
    """Where journals live unless told otherwise: ``$EDITGUARD_JOURNAL``, else
    ``<state>/journal``."""
    given = os.environ.get(JOURNAL_ENV)
    return os.path.abspath(given) if given else os.path.join(state_home(), "journal")


def history_folder() -> str:
    """Where histories live unless told otherwise: ``$EDITGUARD_HISTORY``, else
    ``<state>/history``."""
    given = os.environ.get(HISTORY_ENV)
    return os.path.abspath(given) if given else os.path.join(state_home(), "history")


def default_folders() -> list[str]:
    """The state folders every editguard process of this user uses unless told otherwise (the
    lock folder included): protected whatever a Workspace is configured with, since another
    process trusts them."""
    from editguard.fs.lock import default_lock_folder  # noqa: PLC0415 - lock imports errors only

    return [state_home(), journal_folder(), history_folder(), default_lock_folder()]


class Private:
    """Folders that no tool may reach, whatever the roots.

    Each is known by its real path (so that one not made yet is covered too) and, while it
    exists, by its device and inode (looked up again at each question: a folder removed and made
    again is a new inode).
    """

    def __init__(self, folders: Iterable[str]) -> None:
        given = [os.path.abspath(f) for f in folders if f]
        self.folders: tuple[str, ...] = tuple(dict.fromkeys(os.path.realpath(f) for f in given))
        # As configured too: a symbolic link on the way may lead elsewhere later, and editguard
        # itself follows it to its state.
        self._named = tuple(dict.fromkeys([*self.folders, *given]))

    def identities(self) -> dict[tuple[int, int], str]:
        """(device, inode) of each folder that exists now, with its path."""
        found: dict[tuple[int, int], str] = {}
        for folder in self._named:
            try:
                st = os.stat(folder)
            except OSError:
                continue
            found[(st.st_dev, st.st_ino)] = folder
        return found

    def holding(
        self, real: str, identities: dict[tuple[int, int], str] | None = None
    ) -> str | None:
        """The private folder that the real path ``real`` is, or lies inside; None if none.

        By path first, then by identity: every folder of ``real`` that exists (``real`` itself
        included) is compared with each private folder's device and inode (``identities``, when
        the caller asks about many paths at once, else looked up now).
        """
        for folder in self.folders:
            if real == folder or real.startswith(folder.rstrip(os.sep) + os.sep):
                return folder
        ids = self.identities() if identities is None else identities
        if not ids:
            return None
        path = real
        while True:
            try:
                st = os.lstat(path)
            except OSError:
                pass
            else:
                hit = ids.get((st.st_dev, st.st_ino))
                if hit is not None:
                    return hit
            parent = os.path.dirname(path)
            if parent == path:
                return None
            path = parent
