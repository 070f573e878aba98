"""Which notebook contents are known to be valid, so that a notebook is checked against
nbformat's schema as found once per content, not at every edit.

A cell edit checks the notebook as found (every cell) and as it leaves it (the top level, the
changed cell and the ids: :func:`~editguard.core.notebook.schema.check_read`); both verdicts are
facts about contents, so the version (the hash of the bytes) an edit leaves is remembered as
valid, and the next edit of the file at that version does not check every cell again. A version
that changed (an edit made outside editguard) is checked in full. The check is skipped only
inside :func:`known_valid`'s build (a context variable), never for another call.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

from editguard.core.document import Document

T = TypeVar("T")

# real path -> the last version of its content known valid (bounded: the newest).
_VALID: dict[str, str] = {}
_KEPT = 256
_FOUND_VALID: ContextVar[bool] = ContextVar("editguard_notebook_found_valid", default=False)


def remember(real: str, version: str) -> None:
    """The notebook at ``real`` is valid at ``version``."""
    _VALID.pop(real, None)
    _VALID[real] = version
    while len(_VALID) > _KEPT:
        _VALID.pop(next(iter(_VALID)), None)


def is_known(real: str, version: str | None) -> bool:
    """Whether the notebook at ``real`` is known valid at ``version``."""
    return version is not None and _VALID.get(real) == version


def found_valid() -> bool:
    """Whether the build running now reads a notebook known valid as found."""
    return _FOUND_VALID.get()


def known_valid(build: Callable[[Document], T]) -> Callable[[Document], T]:
    """``build``, run knowing that the notebook it reads is valid as found."""

    def run(doc: Document) -> T:
        token = _FOUND_VALID.set(True)
        try:
            return build(doc)
        finally:
            _FOUND_VALID.reset(token)

    return run
