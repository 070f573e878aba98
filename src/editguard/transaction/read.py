"""Reading files: what the tools that only read use, and what a transaction reads before it
stages a change.

Nothing here writes or locks: a tool that only reads takes no lock (a writer replaces a file
atomically, so a reader sees it whole, before or after).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from editguard.core.document import Document, decode_stream
from editguard.core.images import SNIFF_BYTES
from editguard.core.notebook.model import is_notebook
from editguard.core.plan import Plan
from editguard.errors import EditError, StaleVersion, error_context
from editguard.fs.atomic import FileReader
from editguard.fs.location import Location, locate
from editguard.fs.nearest import suggesting
from editguard.fs.sandbox import Resolved
from editguard.transaction.build import VIEW_LIMIT
from editguard.transaction.context import Context


def load_with_mode(
    ctx: Context, location: Location, *, view: bool = False
) -> tuple[Document, str, int]:
    """Read the located file as a Document (named for messages), with its version and
    permission bits (no version check); ``view``: a UTF-8 file over :data:`VIEW_LIMIT` is read
    as a view, and a notebook at any size (a cell's edit scans its JSON in the view and
    decodes only the values it needs: a notebook is mostly outputs, and one emoji in it would
    make its decoded text four bytes a character).

    Raises:
        EditError: the file errors (FILE_NOT_FOUND, NOT_A_FILE, BINARY_FILE, FILE_TOO_LARGE,
            PERMISSION_DENIED).
    """
    where = location.where
    reader = FileReader(location, where.display, ctx.max_file_bytes)
    try:
        with error_context(path=where.display):
            head = reader.head()
            assert reader.stat is not None  # head() ran
            utf8_view = view and (reader.stat.st_size > VIEW_LIMIT or is_notebook(where.real))
            doc = decode_stream(head, reader, utf8_view=utf8_view)
    finally:
        reader.close()
    assert reader.stat is not None  # head() ran
    mode = reader.stat.st_mode & 0o7777
    return dataclasses.replace(doc, name=where.display), reader.version, mode


def raw_state(ctx: Context, where: Resolved, location: Location) -> tuple[str, int, int]:
    """The version, permission bits and size of a file, read as bytes (any file)."""
    reader = FileReader(location, where.display, ctx.max_file_bytes)
    try:
        reader.head()
        for _ in reader():
            pass
    finally:
        reader.close()
    assert reader.stat is not None
    return reader.version, reader.stat.st_mode & 0o7777, reader.stat.st_size


def raw_bytes(ctx: Context, where: Resolved, location: Location, version: str | None) -> bytes:
    """The file's bytes, refused unless they are still ``version``.

    Raises:
        StaleVersion: the file changed since ``version`` was read.
    """
    reader = FileReader(location, where.display, ctx.max_file_bytes)
    try:
        reader.head()
        data = b"".join(reader())
    finally:
        reader.close()
    check_version(where.display, version, reader.version)
    return data


def check_version(display: str, expected: str | None, *actual: str | None) -> None:
    """Refuse a call whose ``expected_version`` is none of the file's ``actual`` versions.

    Raises:
        StaleVersion: naming both versions.
    """
    if expected is None or expected in actual:
        return
    now = actual[-1]
    if now is None:
        raise StaleVersion(
            f"{display} does not exist (expected version {expected})",
            path=display,
            data={"expected_version": expected, "actual_version": None},
        )
    raise StaleVersion(
        f"{display} has changed since version {expected} was read (it is now {now})",
        path=display,
        data={"expected_version": expected, "actual_version": now},
        suggestions=["Re-read the file (read_file) and make the edit again on what it holds now."],
    )


def read(ctx: Context, path: str, *, warm: bool = False) -> tuple[Resolved, Document, str]:
    """Resolve and load ``path`` for a tool that only reads; ``warm`` parses it in the
    background afterwards, for the edit that may follow."""
    where, doc, version = read_text_or_raw(ctx, path, _text, warm=warm)
    assert isinstance(doc, Document)  # no file is sniffed as raw
    return where, doc, version


def _text(_head: bytes, _size: int) -> None:
    """A sniff that takes every file for text (see :func:`read_text_or_raw`)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Raw:
    """A file read as bytes, not as text: ``kind`` is what the caller's sniff saw in its start."""

    kind: str
    data: bytes


def read_text_or_raw(
    ctx: Context, path: str, sniff: Callable[[bytes, int], str | None], *, warm: bool = False
) -> tuple[Resolved, Document | Raw, str]:
    """:func:`read`, except that a file ``sniff`` recognises is read as bytes, undecoded.

    ``sniff`` gets the file's first :data:`SNIFF_BYTES` bytes and its size, and returns a kind
    (an image's MIME type, say) or ``None`` for a text file; it may raise to refuse the file
    (too large for its kind). The version is the same either way: a hash of the bytes read.

    Raises:
        EditError: what :func:`read` raises, and whatever ``sniff`` raises, with the path.
    """
    where = ctx.sandbox.resolve(path)
    with suggesting(where), locate(ctx.sandbox, where) as location:
        reader = FileReader(location, where.display, ctx.max_file_bytes)
        try:
            with error_context(path=where.display):
                head = reader.head(SNIFF_BYTES)
                assert reader.stat is not None  # head() ran
                kind = sniff(head, reader.stat.st_size)
                if kind is not None:
                    found: Document | Raw = Raw(kind, b"".join(reader()))
                else:
                    doc = decode_stream(head, reader)
                    found = dataclasses.replace(doc, name=where.display)
        finally:
            reader.close()
    if warm and isinstance(found, Document):
        warm_parse(ctx, where, found.text)
    return where, found, reader.version


def warm_parse(ctx: Context, where: Resolved, text: str, plan: Plan | None = None) -> None:
    """Parse the file's text (``text``, after ``plan`` if given) in the background, for the
    edit that may follow. The new text is built only when it will be parsed."""
    if not ctx.prewarm:
        return
    from editguard import prewarm  # noqa: PLC0415 - a one-shot command never warms

    size = len(text) + (plan.size_change() if plan is not None else 0)
    if prewarm.Prewarmer.wants(where.real, size):
        if plan is None:
            prewarm.SHARED.schedule(where.real, text)
        else:
            prewarm.SHARED.schedule(where.real, plan.apply_to_text(text), (text, plan))


def text_reader(ctx: Context) -> Callable[[str], str | None]:
    """A reader of files' texts for the analyzers (the lines a problem is on; whether a file is
    still as an edit left it): through the sandbox, as read_file reads them; ``None`` for a
    file it refuses (outside the roots, gone, not text, too large)."""

    def text(real: str) -> str | None:
        try:
            _, doc, _ = read(ctx, real)
        except EditError:
            return None
        return None if doc.utf8_view else doc.text

    return text
