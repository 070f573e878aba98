"""Parse a file in the background once it has been read or written, so that the edit that
follows finds its parse tree and symbols cached and only reparses what it changes.

An agent reads a file before it edits it, and spends seconds writing the edit. In that time one
background thread parses the text (and finds its symbols, in languages that have them). The
edit's symbol lookup is then a cache hit, and its syntax guard an incremental reparse: a few
milliseconds instead of a full parse of the file. An edit that arrives while the parse of its
text is still running waits for that parse instead of starting a second one (see
:class:`~editguard.core.memo.ContentMemo`).

Warming is only an optimization: nothing waits for it, and a failure in it is ignored. It
must never slow a call down either: the parse holds the interpreter, so it starts only once no
call has run for :data:`QUIET` seconds (back-to-back calls parse nothing ahead), a call that
arrives meanwhile stops it (it is queued again), and after a write it reparses only what the
write changed, from the tree of the text before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from editguard.core.plan import Plan
from editguard.languages import ParseTimeout, grammar_for, parse
from editguard.symbols import symbols_of, symbols_supported

_log = logging.getLogger(__name__)

# Characters. A parse tree takes about 13 bytes per character and a megabyte parses in about
# 0.1-0.3 s: reading a larger file (often only to look at it) does not start one.
WARM_LIMIT = 1_000_000

# Seconds without a call before a background parse starts: calls that come in a burst (an agent
# sending edits one after the other, or a client's reads and edits a few tens of milliseconds
# apart) are never competed with, while a model's pause (seconds) leaves time for the parse. A
# call that comes in the middle still waits for the interpreter up to its switch interval
# (5 ms) before the parse sees it and stops.
QUIET = 0.1

_Job = tuple[str, str, "tuple[str, Plan] | None"]


class Prewarmer:
    """One background thread that parses the texts it is given, newest first.

    At most ``pending`` texts wait; when more arrive, the oldest are dropped (the parse cache
    keeps only a few trees anyway).
    """

    def __init__(self, pending: int = 4, quiet: float = QUIET) -> None:
        self._queue: deque[_Job] = deque(maxlen=pending)
        self._wake = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None
        self.quiet = quiet
        self._calls = 0  # calls running now
        self._last = 0.0  # time.monotonic() when the last call ended

    @staticmethod
    def wants(name: str, size: int) -> bool:
        """Whether a text of ``size`` characters in the file ``name`` is worth parsing ahead
        (ask before building a text only for :meth:`schedule`)."""
        return size <= WARM_LIMIT and grammar_for(name) is not None

    def schedule(self, name: str, text: str, base: tuple[str, Plan] | None = None) -> None:
        """Parse ``text`` (the normalized content of the file ``name``) in the background;
        ``base = (old, plan)``, where ``plan`` turns ``old`` into ``text``, lets it reparse only
        what changed when ``old``'s tree is still cached."""
        if not self.wants(name, len(text)):
            return
        with self._wake:
            waiting = bool(self._queue)
            self._queue.append((name, text, base))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="editguard-prewarm", daemon=True
                )
                self._thread.start()
            elif not waiting:
                # Only a worker with nothing queued sleeps until told: one that waits for calls
                # to stop looks again by itself, so a burst of calls never wakes it.
                self._wake.notify_all()

    @contextmanager
    def call(self) -> Iterator[None]:
        """Mark a tool call: no background parse starts while it runs or within ``quiet``
        seconds after it, and one already running stops at its next check."""
        with self._wake:
            self._calls += 1
        try:
            yield
        finally:
            with self._wake:
                self._calls -= 1
                self._last = time.monotonic()

    def _interrupted(self) -> bool:
        return self._calls > 0

    def _wait_for_quiet(self) -> None:
        """Wait (holding ``_wake``) until no call has run for ``quiet`` seconds."""
        while True:
            if self._calls:
                self._wake.wait(self.quiet)
                continue
            idle = time.monotonic() - self._last
            if idle >= self.quiet:
                return
            self._wake.wait(self.quiet - idle)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is queued or running; False if ``timeout`` came first."""
        with self._wake:
            return self._wake.wait_for(lambda: not self._queue and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: bool(self._queue))
                self._wait_for_quiet()
                if not self._queue:
                    continue
                job = self._queue.pop()  # the newest: the likeliest to be edited next
                self._busy = True
            done = True
            try:
                done = warm(*job, stop=self._interrupted)
            except Exception:  # noqa: BLE001 - an optimization must never fail a request
                _log.debug("prewarming %s failed", job[0], exc_info=True)
            finally:
                with self._wake:
                    if not done and all(queued[0] != job[0] for queued in self._queue):
                        self._queue.appendleft(job)  # a call came: parse it once it is over
                    self._busy = False
                    self._wake.notify_all()


# Seconds one background parse may take: it holds the interpreter, so a call arriving
# meanwhile waits. A parse that would take longer (error recovery on a big broken file) is
# abandoned, and the edit parses for itself.
WARM_BUDGET = 0.5


def warm(
    name: str,
    text: str,
    base: tuple[str, Plan] | None = None,
    stop: Callable[[], bool] | None = None,
) -> bool:
    """Parse ``text`` now (from ``base``'s tree, see :func:`languages.parse`) and keep the
    result: its tree-sitter tree (the syntax guard's starting point) and, where editguard
    locates symbols, its symbols. False when ``stop`` said to stop first.

    Raises:
        ParseTimeout: the parse took more than WARM_BUDGET seconds.
    """
    ext = grammar_for(name, text)
    if ext is None:
        return True
    try:
        parse(ext, text, base, budget=WARM_BUDGET, cancel=stop)
        if symbols_supported(name):
            symbols_of(name, text, cancel=stop)
    except ParseTimeout:
        if stop is not None and stop():
            return False
        raise
    return True


SHARED = Prewarmer()
