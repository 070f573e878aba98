"""``read_file``: a text file as numbered lines, with its version; several files in one call;
an image as its bytes (MCP image content)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, Field

from editguard.core.document import Document
from editguard.core.images import image_type
from editguard.core.listing import LF, listing
from editguard.core.notebook import view
from editguard.core.notebook.model import Notebook, is_notebook, read_notebook
from editguard.errors import EditError, FileTooLarge, InvalidNotebook, InvalidRequest, error_context
from editguard.fs.sandbox import Resolved
from editguard.tools._common import PATH_HELP, Args, LineEnding
from editguard.tools._tool import Media, Tool
from editguard.transaction.cells import find_cell
from editguard.transaction.context import Context
from editguard.transaction.read import Raw, read_text_or_raw

# Files one call may read with ``paths``.
MAX_PATHS = 50
# Bytes of image files one call returns (one image, or all the images of ``paths`` together):
# what hosts accept in one image (Anthropic's API takes up to 5 MB an image), before base64.
IMAGE_BYTES = 5 * 1024 * 1024
# Characters of content one call shows, numbers included: of one file, or of the files of
# ``paths`` together (as its lines are ``ctx.read_lines`` in all). A minified file, a log of one
# line, or a head of 100,000 lines must not fill a model's context: a line longer than what is
# left is cut, and the result says where it goes on (``next_start_column``).
READ_CHARS = 256 * 1024


class ReadFileArgs(Args):
    """Arguments of read_file."""

    path: str | None = Field(None, description=PATH_HELP)
    start_line: int | None = Field(None, ge=1, description="First line (1-based).")
    end_line: int | None = Field(None, ge=1, description="Last line (inclusive).")
    paths: list[str] | None = Field(
        None, min_length=1, max_length=MAX_PATHS, description="Several files, instead of path."
    )
    head: int | None = Field(None, ge=1, description="Only the first N lines (notebook: cells).")
    tail: int | None = Field(None, ge=1, description="Only the last N lines (notebook: cells).")
    start_column: int | None = Field(
        None, ge=1, description="Start start_line at this character (a next_start_column)."
    )
    cell: int | str | None = Field(
        None, description="Notebook: one cell (index or id); lines, head, tail: its own."
    )
    start_cell: int | None = Field(None, description="Notebook: first cell (a next_start_cell).")
    end_cell: int | None = Field(None, description="Notebook: through this cell.")
    images: bool = Field(False, description="Notebook: image outputs too.")
    raw: bool = Field(False, description="Notebook: its JSON as text.")


class ReadFileResult(BaseModel):
    """Result of read_file for a text file."""

    path: str
    content: str = Field(
        description=(
            "The lines, each prefixed by its number and '│'. The prefix is not part of the "
            "file: never copy it into old_text."
        )
    )
    start_line: int
    end_line: int
    total_lines: int
    truncated: bool = Field(description="Whether lines after end_line exist and were not shown.")
    next_start_line: int | None = Field(description="Where to continue reading, if truncated.")
    next_start_column: int | None = Field(
        None,
        description="Set when the line next_start_line was cut short: pass it as start_column "
        "with start_line to read on.",
    )
    encoding: str
    bom: bool
    line_ending: LineEnding
    ends_with_newline: bool
    version: str = Field(description="Pass as expected_version to edits, to catch stale reads.")


class NotebookTextResult(ReadFileResult):
    """Result of read_file for a notebook whose JSON cannot be read as cells: its text, and
    why."""

    note: str


class OutputImage(Media):
    """An image output of a notebook's cell (``images: true``). Over MCP, ``data`` travels as
    image content, not in the JSON."""

    cell: int
    output: int = Field(description="The output's index in the cell.")
    mime_type: str
    size: int = Field(description="The image's size in bytes.")
    data: str = Field(description="The image's bytes, base64.")


class NotebookResult(BaseModel):
    """Result of read_file for a notebook (``.ipynb``), shown as cells."""

    path: str
    content: str = Field(
        description=(
            "Each cell: a header '[cell I] TYPE id=ID exec=N', its source lines numbered from 1 "
            "within the cell ('N│', not part of the source), its outputs '[out K] ...' with "
            "text as '> ' lines."
        )
    )
    cells: int = Field(description="Cells in the notebook.")
    start_cell: int | None = Field(description="The first cell shown (index).")
    end_cell: int | None = Field(description="The last cell shown, wholly or in part.")
    truncated: bool = Field(description="Cells asked for were not shown, or not wholly.")
    next_start_cell: int | None = Field(description="Where to continue, if truncated.")
    next_start_line: int | None = Field(
        None, description="Set when next_start_cell was cut inside: pass it with it."
    )
    next_start_column: int | None = None
    language: str = Field(description="The kernel's language.")
    images: list[OutputImage] | None = None
    note: str | None = None
    version: str


class ImageResult(Media):
    """Result of read_file for an image file (PNG, JPEG, GIF or WebP, known by its first
    bytes). Over MCP, ``data`` travels as image content, not in the JSON."""

    path: str
    mime_type: str
    size: int = Field(description="The file's size in bytes.")
    version: str
    data: str = Field(description="The file's bytes, base64.")


class ReadError(BaseModel):
    """Why one file of ``paths`` could not be read: the error a read of it alone gives."""

    code: str
    message: str


class ReadFailure(BaseModel):
    """A file of ``paths`` that could not be read."""

    path: str = Field(description="The path as given.")
    error: ReadError


class ReadFilesResult(BaseModel):
    """Result of read_file with ``paths``."""

    files: list[
        NotebookTextResult | ReadFileResult | NotebookResult | ImageResult | ReadFailure
    ] = Field(description="One entry per path, in order: its result, or its error.")


ReadFileAnswer = (
    NotebookTextResult | ReadFileResult | NotebookResult | ImageResult | ReadFilesResult
)


@dataclass(slots=True)
class _Budget:
    """What the files of one call may still show: lines and characters of content, bytes of
    images (one window, whether the call reads one file or several)."""

    lines: int
    chars: int
    image_bytes: int


def run(ctx: Context, args: ReadFileArgs) -> ReadFileAnswer:
    """Read the lines asked for (up to ``ctx.read_lines`` when no end is given) of one file or
    of each of ``paths``; an image file as its bytes.

    Raises:
        EditError: OUTSIDE_ROOT, FILE_NOT_FOUND, NOT_A_FILE, PERMISSION_DENIED, FILE_TOO_LARGE,
            BINARY_FILE, INVALID_REQUEST (a bad line range, or arguments that exclude each
            other). With ``paths``, only INVALID_REQUEST: each file's error is in its entry.
    """
    _check_choices(args)
    budget = _Budget(ctx.read_lines, READ_CHARS, IMAGE_BYTES)
    if args.paths is None:
        assert args.path is not None  # checked above
        return _read_one(ctx, args, args.path, budget)
    files: list[
        NotebookTextResult | ReadFileResult | NotebookResult | ImageResult | ReadFailure
    ] = []
    for path in args.paths:
        try:
            files.append(_read_one(ctx, args, path, budget))
        except EditError as exc:
            files.append(ReadFailure(path=path, error=ReadError(code=exc.code, message=exc.text())))
    return ReadFilesResult(files=files)


def _check_choices(args: ReadFileArgs) -> None:
    """Refuse arguments that exclude each other, naming the second one.

    Raises:
        InvalidRequest: path and paths both or neither; head with tail; head or tail with a
            line range or a start_column.
    """
    if (args.path is None) == (args.paths is None):
        both = args.path is not None
        raise InvalidRequest(
            "give path (one file) or paths (several), not both"
            if both
            else "give path (one file) or paths (several files)",
            data={"field": "paths" if both else "path"},
        )
    ends = [n for n in ("head", "tail") if getattr(args, n) is not None]
    ranges = [n for n in ("start_line", "end_line", "start_column") if getattr(args, n) is not None]
    if len(ends) > 1 or (ends and ranges):
        second = [*ends[1:], *ranges][0]
        raise InvalidRequest(
            f"{ends[0]} and {second} exclude each other: ask for head (the first lines), tail "
            "(the last lines) or start_line/end_line",
            data={"field": second},
        )


def _read_one(
    ctx: Context, args: ReadFileArgs, path: str, budget: _Budget
) -> NotebookTextResult | ReadFileResult | NotebookResult | ImageResult:
    where, found, version = read_text_or_raw(ctx, path, _sniff(budget.image_bytes), warm=True)
    if isinstance(found, Raw):
        return _image(where, found, version, budget)
    cells_asked = [n for n in _CELL_ARGS if getattr(args, n) is not None]
    if not args.raw and is_notebook(where.real):
        try:
            nb = read_notebook(found.text, where.display)
        except InvalidNotebook as exc:
            if cells_asked:
                raise
            # Shown as the text it is, for the model to see what is wrong and repair it.
            note = f"{exc.message}: shown as text, not as cells"
            result = _text(ctx, args, where, found, version, budget)
            return NotebookTextResult(**result.model_dump(), note=note)
        return _notebook(ctx, args, where, nb, version, budget)
    if cells_asked:
        raise InvalidRequest(
            f"{cells_asked[0]} is for a notebook's cells"
            + (", not with raw: true" if args.raw else f", and {where.display} is no notebook"),
            path=where.display,
            data={"field": cells_asked[0]},
        )
    return _text(ctx, args, where, found, version, budget)


# Arguments only a notebook's cells take (``images`` takes what there is: none elsewhere).
_CELL_ARGS = ("cell", "start_cell", "end_cell")


def _notebook(
    ctx: Context, args: ReadFileArgs, where: Resolved, nb: Notebook, version: str, budget: _Budget
) -> NotebookResult:
    """The notebook's cells asked for, as :mod:`~editguard.core.notebook.view` shows them,
    within the call's window; with ``images``, the image outputs of the cells shown.

    Raises:
        InvalidRequest: a line range without ``cell`` (or ``start_cell``), a range that ends
            before it starts, a start past the end.
        CellNotFound: a cell that is not there.
    """
    with error_context(path=where.display):
        refs = [r for r in (args.cell, args.start_cell, args.end_cell) if r is not None]
        if not nb.cells and refs:
            find_cell(nb, refs[0])  # none there: CELL_NOT_FOUND
        span = _span(args, nb, where) if nb.cells else None
    window = view.Budget(budget.lines, budget.chars)
    shown = view.render(nb, span, window) if span is not None else view.Shown("")
    budget.lines, budget.chars = window.lines, window.chars
    images: list[OutputImage] | None = None
    note = None
    if args.images:
        images, left_out = [], 0
        for index in shown.outputs:
            for image in view.images(nb.cells[index]):
                if image.size > budget.image_bytes:
                    left_out += 1
                    continue
                budget.image_bytes -= image.size
                images.append(OutputImage.model_validate(image, from_attributes=True))
        if left_out:
            note = (
                f"{left_out:,} image(s) left out: one call returns {IMAGE_BYTES:,} bytes of "
                "images at most; read fewer cells"
            )
    return NotebookResult(
        path=where.real,
        content=shown.content,
        cells=len(nb.cells),
        start_cell=shown.first_cell,
        end_cell=shown.last_cell,
        truncated=shown.next_cell is not None,
        next_start_cell=shown.next_cell,
        next_start_line=shown.next_line,
        next_start_column=shown.next_column,
        language=nb.language,
        images=images,
        note=note,
        version=version,
    )


def _span(args: ReadFileArgs, nb: Notebook, where: Resolved) -> view.Span:
    """The cells (and lines) a call asks for (see the tool's description).

    Raises:
        InvalidRequest, CellNotFound: as :func:`_notebook`.
    """
    if args.cell is not None:
        if args.start_cell is not None or args.end_cell is not None:
            second = "start_cell" if args.start_cell is not None else "end_cell"
            raise InvalidRequest(
                f"cell and {second} exclude each other: ask for one cell, or a range",
                data={"field": second},
            )
        index = find_cell(nb, args.cell).index
        total = len(view.source_lines(nb.cells[index].source))
        if args.tail is not None:
            return view.Span(index, index, start_line=max(1, total - args.tail + 1))
        if args.head is not None:
            return view.Span(index, index, end_line=args.head)
        first, end = _lines(args, where, index, total)
        _check_column(args, nb, index, first)
        return view.Span(index, index, first, args.start_column or 1, end)
    count = len(nb.cells)
    ranges = [n for n in ("start_cell", "end_cell") if getattr(args, n) is not None]
    if (args.head is not None or args.tail is not None) and ranges:
        raise InvalidRequest(
            f"{'head' if args.head is not None else 'tail'} and {ranges[0]} exclude each other: "
            "ask for the first or last cells, or a range",
            data={"field": ranges[0]},
        )
    if args.end_line is not None or (args.start_line is not None and args.start_cell is None):
        field = "end_line" if args.end_line is not None else "start_line"
        raise InvalidRequest(
            f"{where.display} is a notebook, read by cell: give {field} with cell (lines "
            "within that cell), or raw: true to read its JSON as lines",
            data={"field": field},
        )
    if args.head is not None:
        return view.Span(0, min(count, args.head) - 1)
    if args.tail is not None:
        return view.Span(max(0, count - args.tail), count - 1)
    first = find_cell(nb, args.start_cell).index if args.start_cell is not None else 0
    last = find_cell(nb, args.end_cell).index if args.end_cell is not None else count - 1
    if last < first:
        raise InvalidRequest(
            f"end_cell {last} is before start_cell {first}", data={"field": "end_cell"}
        )
    total = len(view.source_lines(nb.cells[first].source))
    start, _ = _lines(args, where, first, total)
    _check_column(args, nb, first, start)
    return view.Span(first, last, start, args.start_column or 1)


def _check_column(args: ReadFileArgs, nb: Notebook, index: int, line: int) -> None:
    """Refuse a start_column past the end of the line it starts.

    Raises:
        InvalidRequest: naming the line's length.
    """
    if args.start_column is None:
        return
    lines = view.source_lines(nb.cells[index].source)
    length = len(lines[line - 1]) if line <= len(lines) else 0
    if args.start_column > length + 1:
        raise InvalidRequest(
            f"start_column {args.start_column} is past the end of line {line} of cell {index}, "
            f"which has {length:,} character(s)",
            data={"field": "start_column", "line_length": length},
        )


def _lines(args: ReadFileArgs, where: Resolved, index: int, total: int) -> tuple[int, int | None]:
    """The first and last line (``None``: to the end) asked of cell ``index``.

    Raises:
        InvalidRequest: end_line before start_line, or start_line past the cell's end.
    """
    first = args.start_line or 1
    if args.end_line is not None and args.end_line < first:
        raise InvalidRequest(
            f"end_line {args.end_line} is before start_line {first}", data={"field": "end_line"}
        )
    if first > max(total, 1):
        raise InvalidRequest(
            f"start_line {first} is past the end of cell {index} of {where.display}, which "
            f"has {total} line(s)",
            data={"field": "start_line", "total_lines": total},
        )
    return first, args.end_line


def _sniff(limit: int) -> Callable[[bytes, int], str | None]:
    def sniff(head: bytes, size: int) -> str | None:
        mime = image_type(head)
        if mime is not None and size > limit:
            raise _image_too_large(mime, size, limit)
        return mime

    return sniff


def _image_too_large(mime: str, size: int, limit: int) -> FileTooLarge:
    whole = limit == IMAGE_BYTES
    return FileTooLarge(
        f"the image ({mime}) is {size:,} bytes; "
        + (
            f"read_file returns images up to {IMAGE_BYTES:,} bytes"
            if whole
            else f"this call's other images leave {limit:,} of the {IMAGE_BYTES:,} bytes "
            "one call returns"
        ),
        data={"size": size, "limit": limit, "mime_type": mime},
        suggestions=[] if whole else ["Read it in a call of its own."],
    )


def _image(where: Resolved, raw: Raw, version: str, budget: _Budget) -> ImageResult:
    size = len(raw.data)
    if size > budget.image_bytes:  # it grew after its size was checked
        with error_context(path=where.display):
            raise _image_too_large(raw.kind, size, budget.image_bytes)
    budget.image_bytes -= size
    return ImageResult(
        path=where.real,
        mime_type=raw.kind,
        size=size,
        version=version,
        data=base64.b64encode(raw.data).decode("ascii"),
    )


def _text(
    ctx: Context,
    args: ReadFileArgs,
    where: Resolved,
    doc: Document,
    version: str,
    budget: _Budget,
) -> ReadFileResult:
    text, total = doc.text, doc.line_count
    if args.tail is not None:
        # The first of the last lines, found from the end; the window reads on from it.
        first, start = doc.last_lines_start(args.tail)
        wanted, skip = total, 0
    else:
        first, wanted = _window(ctx, args, where, total)
        start = line_start(text, first)
        skip = _column(args, where, text, start, first)
    count = min(wanted - first + 1, budget.lines)
    width = len(str(first + count - 1))
    lines, cut = _take(text, start, skip, count, width, budget)
    last = first + len(lines) - 1
    truncated = cut is not None or last < wanted or (args.end_line is None and last < total)
    next_line = (last if cut is not None else last + 1) if truncated else None
    return ReadFileResult(
        path=where.real,
        content=listing(lines, first, width=len(str(max(last, first)))) if lines else "",
        start_line=first,
        end_line=last,
        total_lines=total,
        truncated=truncated,
        next_start_line=next_line,
        next_start_column=cut,
        encoding=doc.encoding,
        bom=bool(doc.bom),
        line_ending=doc.eol_style,
        ends_with_newline=doc.ends_with_newline,
        version=version,
    )


def _window(ctx: Context, args: ReadFileArgs, where: Resolved, total: int) -> tuple[int, int]:
    """The first line to show and the last one asked for (the window may stop before it).

    Raises:
        InvalidRequest: end_line before start_line, or start_line past the end.
    """
    if args.head is not None:
        return 1, min(total, args.head)
    first = args.start_line or 1
    end_line = args.end_line
    if end_line is not None and end_line < first:
        raise InvalidRequest(
            f"end_line {end_line} is before start_line {first}",
            path=where.display,
            data={"field": "end_line"},
        )
    if first > max(total, 1):
        raise InvalidRequest(
            f"start_line {first} is past the end of {where.display}, which has {total} line(s)",
            path=where.display,
            data={"field": "start_line", "total_lines": total},
        )
    return first, min(total, end_line if end_line is not None else first + ctx.read_lines - 1)


def line_start(text: str, number: int) -> int:
    """Where line ``number`` (1-based, at most one past the last) starts in ``text``."""
    pos = 0
    for _ in range(number - 1):
        pos = text.index(LF, pos) + 1
    return pos


def _column(args: ReadFileArgs, where: Resolved, text: str, start: int, first: int) -> int:
    """The characters of line ``first`` to leave out (``start_column`` - 1).

    Raises:
        InvalidRequest: a start_column past the line's end.
    """
    if args.start_column is None:
        return 0
    stop = text.find(LF, start)
    length = (len(text) if stop < 0 else stop) - start
    if args.start_column > length + 1:
        raise InvalidRequest(
            f"start_column {args.start_column} is past the end of line {first}, which has "
            f"{length:,} character(s)",
            path=where.display,
            data={"field": "start_column", "line_length": length},
        )
    return args.start_column - 1


def _take(
    text: str, start: int, skip: int, count: int, width: int, budget: _Budget
) -> tuple[list[str], int | None]:
    """Up to ``count`` lines of ``text`` from the line that starts at ``start`` (its first
    ``skip`` characters left out), as many as the budget allows, taken from it; and where the
    last one goes on (a 1-based column) when it was cut short.

    Each line costs its characters, its number (``width``), the '│' and a line break. A line
    that does not fit is left for the next call, unless it is the first: then its start is
    shown (never more than the budget: a line of 5 MB is not copied whole to be cut).
    """
    lines: list[str] = []
    pos, column = start + skip, skip
    while len(lines) < count and budget.lines > 0 and pos <= len(text):
        stop = text.find(LF, pos)
        end = len(text) if stop < 0 else stop
        room = budget.chars - (width + 2)
        if end - pos > room:
            if lines or room <= 0:
                break
            lines.append(text[pos : pos + room])
            budget.lines -= 1
            budget.chars -= width + 2 + room
            return lines, column + room + 1
        lines.append(text[pos:end])
        budget.lines -= 1
        budget.chars -= width + 2 + end - pos
        if stop < 0:
            break
        pos, column = stop + 1, 0
    return lines, None


TOOL = Tool(
    name="read_file",
    title="Read a file with line numbers",
    description=(
        "Read a text file as numbered lines, like `  12│    return x`: the 'N│' prefix is not "
        "part of the file, never copy it into old_text. Shows 2000 lines and 256K characters "
        "at most, from start_line (or head/tail); a line cut short gives next_start_column. "
        "Returns content, "
        "total_lines, truncated and next_start_line, encoding, line_ending and version: pass it "
        "as expected_version to an edit, which then fails (STALE_VERSION) instead of changing "
        "a file that changed since. With paths, files lists each one's result or error (one "
        "window in all). A PNG, JPEG, GIF or WebP file comes back as an image. A notebook "
        "(.ipynb) comes as cells, lines numbered within each cell."
    ),
    arguments=ReadFileArgs,
    result=ReadFileAnswer,
    run=run,
    read_only=True,
    destructive=False,
    idempotent=True,
)
