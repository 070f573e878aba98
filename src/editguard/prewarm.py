"""Parse a file in the background once it has been read or written, so that the edit that
follows finds its parse tree and symbols cached and only reparses what it changes.

An agent reads a file before it edits it, and spends seconds writing the edit. In that time one
background thread parses the text (and finds its symbols, in languages that have them). The
edit's symbol lookup is then a cache hit, and its syntax guard an incremental reparse: a few
milliseconds instead of a full parse of the file. An edit that arrives while the parse of its
text is still running waits for that parse instead of starting a second one (see
:class:`~editguard.core.memo.ContentMemo`).

Warming is only an optimization: nothing waits for it, and a failure in it is ignored.
"""

from __future__ import annotations

import logging
import threading
from collections import deque

from editguard.languages import grammar_for, parse
from editguard.symbols import symbols_of, symbols_supported

_log = logging.getLogger(__name__)

# Characters. A parse tree takes about 13 bytes per character and a megabyte parses in about
# 0.1-0.3 s: reading a larger file (often only to look at it) does not start one.
WARM_LIMIT = 1_000_000


class Prewarmer:
    """One background thread that parses the texts it is given, newest first.

    At most ``pending`` texts wait; when more arrive, the oldest are dropped (the parse cache
    keeps only a few trees anyway).
    """

    def __init__(self, pending: int = 4) -> None:
        self._queue: deque[tuple[str, str]] = deque(maxlen=pending)
        self._wake = threading.Condition()
        self._busy = False
        self._thread: threading.Thread | None = None

    @staticmethod
    def wants(name: str, size: int) -> bool:
        """Whether a text of ``size`` characters in the file ``name`` is worth parsing ahead
        (ask before building a text only for :meth:`schedule`)."""
        return size <= WARM_LIMIT and grammar_for(name) is not None

    def schedule(self, name: str, text: str) -> None:
        """Parse ``text`` (the normalized content of the file ``name``) in the background."""
        if not self.wants(name, len(text)):
            return
        with self._wake:
            self._queue.append((name, text))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="editguard-prewarm", daemon=True
                )
                self._thread.start()
            self._wake.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is queued or running; False if ``timeout`` came first."""
        with self._wake:
            return self._wake.wait_for(lambda: not self._queue and not self._busy, timeout)

    def _run(self) -> None:
        while True:
            with self._wake:
                self._wake.wait_for(lambda: bool(self._queue))
                name, text = self._queue.pop()  # the newest: the likeliest to be edited next
                self._busy = True
            try:
                warm(name, text)
            except Exception:  # noqa: BLE001 - an optimization must never fail a request
                _log.debug("prewarming %s failed", name, exc_info=True)
            finally:
                with self._wake:
                    self._busy = False
                    self._wake.notify_all()


# Seconds one background parse may take: it holds the interpreter, so a call arriving
# meanwhile waits. A parse that would take longer (error recovery on a big broken file) is
# abandoned, and the edit parses for itself.
WARM_BUDGET = 0.5


def warm(name: str, text: str) -> None:
    """Parse ``text`` now and keep the result: its tree-sitter tree (the syntax guard's
    starting point) and, where editguard locates symbols, its symbols.

    Raises:
        ParseTimeout: the parse took more than WARM_BUDGET seconds.
    """
    ext = grammar_for(name, text)
    if ext is None:
        return
    parse(ext, text, budget=WARM_BUDGET)
    if symbols_supported(name):
        symbols_of(name, text)


SHARED = Prewarmer()
