"""Content search in a Jupyter notebook: in its cells' sources, line by line, as read_file shows
them, not in the JSON text that holds them.

A line of a cell is stored in the JSON as an escaped string: ``print("hi")`` is written
``"print(\\"hi\\")\\n"``, ``±`` may be ``\\u00b1``. A search of the JSON text would miss the
one and report the other by JSON line. So a notebook is read (through
:class:`~editguard.fs.searched.Folders`, as every file a search shows), decoded, and each cell's
source searched line by line: a match is reported by cell and by line within the cell, context
lines stay within their cell.
Outputs are not searched: what a search finds is text an edit can change. A notebook whose JSON
cannot be read as cells is searched as the text it is.
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable

from editguard.core.hits import LONG_LINE, FileHits, decode_line, without_break
from editguard.core.notebook.model import read_notebook
from editguard.core.notebook.view import cell_header, source_lines
from editguard.errors import InvalidNotebook
from editguard.fs.searched import Folders, TooLarge

_CHUNK = 1 << 20


def search_notebook(
    folders: Folders, real: str, matches: Callable[[str], bool], found: FileHits, max_bytes: int
) -> bool:
    """Add the matching lines of the notebook at ``real`` (read through ``folders``) and their
    context to ``found``; True if the file is binary (a NUL byte), whose lines are not shown.

    Raises:
        TooLarge: the file is over ``max_bytes``.
        OSError: it cannot be opened through ``folders`` (a link, gone) or read.
        TimeoutError: the regex took too long on one line.
    """
    fd = folders.open(real, max_bytes)
    try:
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, _CHUNK):
            total += len(chunk)
            if total > max_bytes:
                raise TooLarge(total)
            chunks.append(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    del chunks  # memory: the bytes once, then the text once, then the notebook's values
    if b"\x00" in data:
        return True
    text = decode_line(data.removeprefix(b"\xef\xbb\xbf"))
    del data
    try:
        nb = read_notebook(text, os.path.basename(real))
    except InvalidNotebook:
        # Not cells: its text, lines split as the scan of any file splits them.
        _search_lines([f"{x}\n" for x in source_lines(text)], None, matches, found)
        return False
    for cell in nb.cells:
        before = found.matches, len(found.lines)
        _search_lines([f"{x}\n" for x in source_lines(cell.source)], cell.index, matches, found)
        if (found.matches, len(found.lines)) != before:
            found.cells[cell.index] = cell_header(cell)
    return False


def _search_lines(
    lines: list[str], cell: int | None, matches: Callable[[str], bool], found: FileHits
) -> None:
    """Add the lines (each with its line break) that match, and their context, to ``found``."""
    context = found.context
    before: collections.deque[tuple[int, str]] = collections.deque(maxlen=context or 1)
    after = 0
    for number, raw in enumerate(lines, 1):
        if matches(without_break(raw)):
            while before:
                found.add(*before.popleft(), match=False, cell=cell)
            if len(raw) > LONG_LINE:  # only counted, as in any file
                found.long_lines += 1
            else:
                found.add(number, raw, match=True, cell=cell)
            after = context
        elif after:
            found.add(number, raw, match=False, cell=cell)
            after -= 1
        elif context:
            before.append((number, raw))
