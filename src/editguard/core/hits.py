"""What a content search found: the matching lines of each file (with their context), kept
within a cap whatever the number of matches, and shown as numbered lines grouped by file.

In a notebook, lines are those of its cells' sources, numbered within their cell (as read_file
shows them and edits with ``cell`` count them), and shown under their cell's header.

Pure: the search engines (ripgrep, or the Python scan) feed lines in; nothing here reads a file.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field

from editguard.core.listing import LF, listing

LINE_LIMIT = 500  # characters of one line shown; the rest is cut, with a note
LONG_LINE = 1024 * 1024  # a matching line longer than this is only counted, never read whole


@dataclass(frozen=True, slots=True)
class Line:
    """One line shown: its number, its text without the line break (cut to LINE_LIMIT
    characters), how many characters were cut, and whether it matched (else: context)."""

    number: int
    text: str
    cut: int
    match: bool
    cell: int | None = None  # a notebook's cell (its index), for a line of its source


def line_text(raw: str) -> tuple[str, int]:
    """A line as a search engine gives it, with its line break (LF or CRLF) taken off and cut
    to LINE_LIMIT characters: (text, characters cut)."""
    raw = without_break(raw)
    if len(raw) <= LINE_LIMIT:
        return raw, 0
    return raw[:LINE_LIMIT], len(raw) - LINE_LIMIT


def without_break(raw: str) -> str:
    """A line without its line break: ``\\n`` or ``\\r\\n`` (a ``\\r`` alone ends no line, as
    ripgrep sees lines)."""
    return raw[:-1].removesuffix("\r") if raw.endswith(LF) else raw


def decode_line(data: bytes) -> str:
    """The text of a line that is not UTF-8, read as editguard reads a legacy 8-bit file
    (cp1252, else latin-1; see :func:`editguard.core.document.decode_stream`)."""
    for codec in ("utf-8", "cp1252"):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


@dataclass(slots=True)
class FileHits:
    """The lines found in one file. At most ``limit`` matching lines are kept (and the context
    that follows the last of them); the others are only counted."""

    path: str  # as shown: relative to the first root, else absolute
    real: str  # the absolute path that was searched
    limit: int
    context: int
    lines: list[Line] = field(default_factory=list)
    matches: int = 0  # matching lines in the file, kept or not
    long_lines: int = 0  # matching lines too long to be read at all (only counted)
    # A notebook's cells that have lines here: index -> header, as read_file shows it.
    cells: dict[int, str] = field(default_factory=dict)

    @property
    def order(self) -> tuple[bool, str]:
        """Where the file comes in the results: by path, those shown relative to the first
        root first (the others show their absolute path)."""
        return (self.path == self.real, self.path)

    @property
    def kept(self) -> int:
        """How many matching lines are kept (shown if the file is)."""
        return min(self.matches, self.limit)

    def add(self, number: int, raw: str, *, match: bool, cell: int | None = None) -> None:
        """Add a line the engine reported (in file order; a notebook's: in the order of its
        cells, ``cell`` the line's), ``raw`` with its line break."""
        if match:
            self.matches += 1
            if self.matches > self.limit:
                return
        elif self.matches >= self.limit:
            last = next((x for x in reversed(self.lines) if x.match), None)
            if last is None or last.cell != cell or number > last.number + self.context:
                return
        text, cut = line_text(raw)
        self.lines.append(Line(number, text, cut, match, cell))


@dataclass(slots=True)
class Hits:
    """Every file's hits, in path order, keeping only the files the first ``max_results``
    matching lines come from: memory stays bounded however many lines match.

    Attributes:
        matches, files: matching lines and files with a match, in all (shown or not).
        long_lines: matching lines too long to be read at all.
    """

    max_results: int
    context: int
    kept: list[FileHits] = field(default_factory=list)
    matches: int = 0
    files: int = 0
    long_lines: int = 0
    _kept_matches: int = 0

    def start(self, path: str, real: str) -> FileHits:
        """The hits of a new file, to fill in and then :meth:`add`."""
        return FileHits(path, real, self.max_results, self.context)

    def wants(self, hits: FileHits) -> bool:
        """Whether the lines of this file may still be shown: not when the files kept so far
        hold enough matching lines and all come before it (its lines then need only be
        counted, which an engine can do without reading them)."""
        return not (
            self._kept_matches >= self.max_results
            and self.kept
            and hits.order > self.kept[-1].order
        )

    def add(self, hits: FileHits) -> None:
        """Count a file's hits and keep them if they may be among the first shown."""
        if hits.matches == 0 and hits.long_lines == 0:
            return
        self.matches += hits.matches + hits.long_lines
        self.long_lines += hits.long_lines
        self.files += 1
        keys = [h.order for h in self.kept]
        at = bisect.bisect(keys, hits.order)
        if at >= self.max_results:
            return
        self.kept.insert(at, hits)
        self._kept_matches += hits.kept
        # Drop the last file while the ones before it hold enough matches without it.
        while len(self.kept) > 1 and self._kept_matches - self.kept[-1].kept >= self.max_results:
            self._kept_matches -= self.kept.pop().kept


@dataclass(frozen=True, slots=True)
class Shown:
    """The rendered result: the text and how many matching lines it shows."""

    content: str
    shown: int


def render(hits: Hits) -> Shown:
    """The files' lines as the model reads them: a header per file (its path, and with
    context, which lines match), then its numbered lines (``  12│text``, as read_file shows
    them), ``--`` between groups of lines that do not follow each other, a blank line between
    files, and a last line saying how many matching lines are not shown."""
    blocks: list[str] = []
    shown = 0
    for file in hits.kept:
        room = hits.max_results - shown
        if room <= 0:
            break
        block, count = _file_block(file, room, hits.context)
        if count or file.long_lines:
            blocks.append(block)
            shown += count
    content = "\n\n".join(blocks)
    more = hits.matches - hits.long_lines - shown
    notes = []
    if more > 0:
        notes.append(
            f"{more:,} more matching line(s) not shown: narrow the path, glob or pattern, or "
            "raise max_results."
        )
    if hits.long_lines:
        notes.append(f"{hits.long_lines:,} matching line(s) too long to show (over 1 MB).")
    if notes:
        content = f"{content}\n\n{' '.join(notes)}" if content else " ".join(notes)
    return Shown(content, shown)


def _file_block(file: FileHits, room: int, context: int) -> tuple[str, int]:
    """One file's header and lines, with at most ``room`` matching lines."""
    wanted: list[Line] = []
    count = 0
    last_match: Line | None = None

    def after(line: Line) -> bool:  # past the context of the last match (or in another cell)
        return last_match is None or (
            line.cell != last_match.cell or line.number > last_match.number + context
        )

    for line in file.lines:
        if line.match:
            if count == room:
                break
            count += 1
            last_match = line
        elif count == room and after(line):
            break
        wanted.append(line)
    while wanted and not wanted[-1].match and after(wanted[-1]):
        wanted.pop()
    # A name with a line break or bytes that are not UTF-8 is quoted, with JSON's escapes.
    header = file.path if file.path.isprintable() else json.dumps(file.path)
    if context and count and not file.cells:
        numbers = ", ".join(str(x.number) for x in wanted if x.match)
        header = f"{header} (matches on lines {numbers})"
    if file.long_lines:
        header = f"{header} ({file.long_lines} matching line(s) too long to show)"
    cells: list[list[Line]] = []  # the lines of each cell in turn (of the file: one list)
    for line in wanted:
        if cells and cells[-1][-1].cell == line.cell:
            cells[-1].append(line)
        else:
            cells.append([line])
    parts = [_cell_block(file, lines, context) for lines in cells]
    return f"{header}\n" + "\n".join(parts) if parts else header, count


def _cell_block(file: FileHits, lines: list[Line], context: int) -> str:
    """The lines of a file, or of one cell of a notebook under its header."""
    width = len(str(max(x.number for x in lines)))
    groups: list[list[Line]] = []
    for line in lines:
        if groups and groups[-1][-1].number + 1 == line.number:
            groups[-1].append(line)
        else:
            groups.append([line])
    parts = [listing([_shown(x) for x in g], g[0].number, width=width) for g in groups]
    # Without context, every line shown is a match: the numbers show the gaps.
    body = ("\n--\n" if context else "\n").join(parts)
    cell = lines[0].cell
    if cell is None:
        return body
    header = file.cells.get(cell, f"[cell {cell}]")
    if context:
        numbers = ", ".join(str(x.number) for x in lines if x.match)
        header = f"{header} (matches on lines {numbers})"
    return f"{header}\n{body}"


def _shown(line: Line) -> str:
    if not line.cut:
        return line.text
    return f"{line.text}... ({line.cut:,} more characters: read_file shows the whole line)"
