"""The MCP reference filesystem server's tools, by their names and arguments, with editguard
underneath (``editguard serve --compat filesystem``).

A user who swaps servers keeps their prompts: the same fourteen tool names (``read_text_file``,
``edit_file`` with ``oldText``/``newText``, ``list_allowed_directories``, ...) and argument
names, answered in plain text as that server answers. Underneath, every call is an editguard
tool with its sandbox, its checks and its history: a CRLF file stays CRLF, an ``oldText`` found
twice is refused instead of replacing the first, a write that breaks the syntax is refused, and
every change can be undone with ``editguard call undo``. README.md lists where the answers
differ.

A notebook (``.ipynb``) is plain text to these tools, as to the reference server: its JSON is
read, edited and written as text. With ``cells`` (``serve --compat filesystem
--compat-notebooks``), the user opts in to editguard's way: read_text_file (and
read_multiple_files) show it as cells, edit_file edits the cells' sources (an edit lands in the
one cell it fits) and write_file checks the result is a notebook.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from pydantic import BaseModel, Field

from editguard.core.diff import render_diff
from editguard.core.document import Document, from_view
from editguard.core.notebook.model import is_notebook
from editguard.core.plan import Plan
from editguard.errors import EditError, FileNotFound, InvalidRequest
from editguard.fs.walk import Entry
from editguard.tools import tool_named as editguard_tool
from editguard.tools import write_file as write_tool
from editguard.tools._common import Args
from editguard.tools._tool import Media, Tool
from editguard.tools._walking import collect, more_line, partial_line, printable
from editguard.tools.edit_file import EditFileArgs, apply_edits
from editguard.tools.list_directory import MAX_ENTRIES
from editguard.tools.read_file import READ_CHARS, NotebookResult, line_start
from editguard.transaction import AS_TEXT, Transaction
from editguard.transaction.build import DIFF_LINES
from editguard.transaction.context import Context
from editguard.transaction.read import read

INSTRUCTIONS = (
    "These are the reference filesystem server's tools, run by editguard: edit_file replaces "
    "each oldText only when it occurs exactly once, keeps the file's encoding and line endings, "
    "and writes nothing when an edit fails (the error starts with a code and says what to send "
    "next). Paths may be absolute or relative to the first allowed directory."
)

# Characters that read_multiple_files shows in all, as read_file's ``paths`` does (and
# read_text_file of one file, as read_file does).
MANY_CHARS = READ_CHARS
# Levels directory_tree shows: the reference server has no limit; editguard's tool caps it.
TREE_DEPTH = 10
# Lines of context around each change in edit_file's diff, as the reference server shows.
DIFF_CONTEXT = 4


class Image(Media):
    """An image read by read_media_file: its bytes travel as MCP image content."""

    mime_type: str
    data: str


class Plain(BaseModel):
    """What a compatible tool answers: text, as the reference server gives it, and any image.

    Over MCP the text is sent as it is (not as JSON), with ``{"content": text}`` as structured
    content, like the reference server."""

    content: str
    images: list[Image] = Field(default_factory=list)


def _call(ctx: Context, name: str, arguments: dict[str, Any]) -> Any:
    """The read-only editguard tool ``name`` on ``arguments``, as its own call would run it."""
    return editguard_tool(name).call(ctx, arguments)


def _write(txn: Transaction, name: str, arguments: dict[str, Any]) -> Any:
    """The writing editguard tool ``name`` on ``arguments``, in this call's transaction."""
    tool = editguard_tool(name)
    args = tool.parse(arguments)
    txn.lock(tool.paths_of(args))
    return tool.run(txn, args)


# -- arguments: the reference server's names -------------------------------------------------


class PathArgs(Args):
    """Arguments of a tool that takes one path."""

    path: str


class ReadTextArgs(Args):
    """Arguments of read_text_file (and the older read_file)."""

    path: str
    head: int | None = Field(None, ge=1, description="Only the first N lines.")
    tail: int | None = Field(None, ge=1, description="Only the last N lines.")


class ReadManyArgs(Args):
    """Arguments of read_multiple_files."""

    paths: list[str] = Field(min_length=1, max_length=50)


class WriteArgs(Args):
    """Arguments of write_file."""

    path: str
    content: str


class EditOperation(Args):
    """One edit of edit_file."""

    oldText: str = Field(description="Text to replace, exactly as in the file.")  # noqa: N815
    newText: str  # noqa: N815


class EditArgs(Args):
    """Arguments of edit_file."""

    path: str
    edits: list[EditOperation]
    dryRun: bool = Field(False, description="Show the diff, write nothing.")  # noqa: N815

    @property
    def dry_run(self) -> bool:
        """``dryRun``, as editguard's tools name it (a dry run takes no lock)."""
        return self.dryRun


class SizesArgs(Args):
    """Arguments of list_directory_with_sizes."""

    path: str
    sortBy: Literal["name", "size"] = "name"  # noqa: N815


class TreeArgs(Args):
    """Arguments of directory_tree."""

    path: str
    excludePatterns: list[str] = Field(default_factory=list, max_length=100)  # noqa: N815


class MoveArgs(Args):
    """Arguments of move_file."""

    source: str
    destination: str


class SearchArgs(Args):
    """Arguments of search_files."""

    path: str
    pattern: str = Field(description="A glob: '*.py' in path, '**/*.py' below it.")
    excludePatterns: list[str] = Field(default_factory=list, max_length=100)  # noqa: N815


class NoArgs(Args):
    """No arguments."""


# -- what each tool does ----------------------------------------------------------------------


def _text_of(ctx: Context, path: str, head: int | None = None, tail: int | None = None) -> str:
    """The file's text (line breaks as ``\\n``), or its first or last lines: at most
    :data:`READ_CHARS` characters of it, as editguard's read_file shows, and then a line that
    says where it was cut."""
    _, doc, _ = read(ctx, path)
    text, total = doc.text, doc.line_count
    first, start, end = 1, 0, len(text)
    if head is not None or tail is not None:
        end -= text.endswith("\n")  # lines, joined: no final line break
    if head is not None and head < total:
        end = line_start(text, head + 1) - 1
    elif tail is not None:
        first, start = doc.last_lines_start(tail)
    if end - start <= READ_CHARS:
        return text[start:end]
    shown = text[start : start + READ_CHARS]
    last = first + shown.count("\n")
    short = ", the last one cut short" if text[start + READ_CHARS] != "\n" else ""
    return (
        f"{shown}\n… cut here: one answer shows {READ_CHARS:,} characters at most (lines "
        f"{first:,}-{last:,} of {total:,}{short}); ask for fewer lines with head or tail"
    )


def _shown(
    ctx: Context, path: str, head: int | None = None, tail: int | None = None, *, cells: bool
) -> str:
    """What read_text_file shows of a file: :func:`_text_of`; with ``cells``, a notebook as
    editguard's read_file shows it (head and tail count cells)."""
    if cells and is_notebook(path):
        window = {k: v for k, v in (("head", head), ("tail", tail)) if v is not None}
        answer = _call(ctx, "read_file", {"path": path, **window})
        if isinstance(answer, NotebookResult):
            if not answer.truncated:
                return answer.content
            return (
                f"{answer.content}\n… cut here: one answer's window shows cells "
                f"{answer.start_cell}-{answer.end_cell} of {answer.cells}; ask for fewer cells "
                "with head or tail"
            )
    return _text_of(ctx, path, head, tail)


def _read_text(cells: bool) -> Callable[[Context, ReadTextArgs], Plain]:
    def read_text(ctx: Context, args: ReadTextArgs) -> Plain:
        """read_text_file: the whole text, or its head or tail."""
        if args.head is not None and args.tail is not None:
            raise InvalidRequest(
                "give head or tail, not both", data={"field": "tail"}, path=args.path
            )
        return Plain(content=_shown(ctx, args.path, args.head, args.tail, cells=cells))

    return read_text


def read_media(ctx: Context, args: PathArgs) -> Plain:
    """read_media_file: an image as image content (PNG, JPEG, GIF, WebP)."""
    answer = _call(ctx, "read_file", {"path": args.path})
    if not hasattr(answer, "mime_type"):
        raise InvalidRequest(
            f"{args.path} is a text file, not an image",
            path=args.path,
            data={"field": "path"},
            suggestions=["Read it with read_text_file."],
        )
    image = Image(mime_type=answer.mime_type, data=answer.data)
    return Plain(content=f"{args.path}: {answer.mime_type}, {answer.size:,} bytes", images=[image])


def _read_many(cells: bool) -> Callable[[Context, ReadManyArgs], Plain]:
    def read_many(ctx: Context, args: ReadManyArgs) -> Plain:
        """read_multiple_files: each file's text under its path; a file that fails says why,
        and the others are still read."""
        parts: list[str] = []
        left = MANY_CHARS
        for path in args.paths:
            try:
                text = _shown(ctx, path, cells=cells)
            except EditError as exc:
                parts.append(f"{path}: Error - {exc.code}: {exc.message}")
                continue
            if len(text) > left:
                parts.append(
                    f"{path}: not shown: the files of one call show {MANY_CHARS:,} characters "
                    "in all; read it alone with read_text_file"
                )
                continue
            left -= len(text)
            parts.append(f"{path}:\n{text}\n")
        return Plain(content="\n---\n".join(parts))

    return read_many


def _write_file(cells: bool) -> Callable[[Transaction, WriteArgs], Plain]:
    def write(txn: Transaction, args: WriteArgs) -> Plain:
        """write_file, with editguard's checks (the syntax guard, encoding and line endings).

        Like the reference server, it writes into an existing folder only (editguard's own
        write_file makes the missing ones): a path with a typo in a folder's name is refused
        rather than written to a new folder the user never meant. move_file likewise. A
        notebook is written as text, unchecked as a notebook, unless ``cells``.

        Raises:
            EditError: FILE_NOT_FOUND (the folder is missing), and the errors of write_file.
        """
        _need_folder(txn.ctx, args.path)
        tool = editguard_tool("write_file")
        request = tool.parse({"path": args.path, "content": args.content})
        txn.lock(tool.paths_of(request))
        write_tool.run(txn, request, None if cells else AS_TEXT)
        return Plain(content=f"Successfully wrote to {args.path}")

    return write


def _need_folder(ctx: Context, path: str) -> None:
    """Refuse ``path`` when the folder it names does not exist (editguard's own tools would
    make it; the reference server refuses).

    Raises:
        EditError: FILE_NOT_FOUND, OUTSIDE_ROOT.
    """
    where = ctx.sandbox.resolve(path)
    if not os.path.isdir(os.path.dirname(where.real)):
        shown = os.path.dirname(where.display) or "."
        raise FileNotFound(
            f"the folder {shown} does not exist",
            path=where.display,
            suggestions=["Create it with create_directory first, or check the path."],
        )


def _edit(cells: bool) -> Callable[[Transaction, EditArgs], Plain]:
    def edit(txn: Transaction, args: EditArgs) -> Plain:
        """edit_file: editguard's search/replace (each oldText must occur once), answered as
        the reference server answers: the diff, in a fence, with its ``Index:`` header. A
        notebook's JSON is edited as text, unless ``cells``: then its cells' sources are, and
        the diff is the cell's."""
        edits = [{"old_text": e.oldText, "new_text": e.newText} for e in args.edits]
        request = EditFileArgs.model_validate(
            {"path": args.path, "edits": edits, "dry_run": args.dryRun}
        )
        out = apply_edits(txn, request, None if cells else AS_TEXT)
        # A notebook's cell (with cells): its diff, named path#cell N.
        texts = [(f"{out.where.real}#cell {s.cell}", s.before, s.plan) for s in out.change.subjects]
        parts = texts or [(out.where.real, out.before, out.change.plan)]
        return Plain(content="".join(_fenced(path, before, plan) for path, before, plan in parts))

    return edit


def _fenced(path: str, before: Document, plan: Plan) -> str:
    shown = from_view if before.utf8_view else None
    body = render_diff(
        before.text, plan, path, context=DIFF_CONTEXT, max_lines=DIFF_LINES, shown=shown
    )
    return fenced_diff(path, body)


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@$", re.MULTILINE)


def fenced_diff(path: str, diff: str) -> str:
    """``diff`` (``--- a/...`` headers, or empty) in the reference server's form: ``Index:``,
    a rule, ``--- path\toriginal`` / ``+++ path\tmodified``, hunk ranges always with their
    counts, in a fence longer than any run of backticks inside."""
    hunks = diff.split("\n", 2)[2] if diff else ""
    hunks = _HUNK.sub(lambda m: f"@@ -{m[1]}{m[2] or ',1'} +{m[3]}{m[4] or ',1'} @@", hunks)
    text = f"Index: {path}\n{'=' * 67}\n--- {path}\toriginal\n+++ {path}\tmodified\n{hunks}"
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}diff\n{text}{fence}\n\n"


def create_directory(txn: Transaction, args: PathArgs) -> Plain:
    """create_directory: the folder and its missing parents."""
    _write(txn, "create_directory", {"path": args.path})
    return Plain(content=f"Successfully created directory {args.path}")


def list_directory(ctx: Context, args: PathArgs) -> Plain:
    """list_directory: every entry of the folder, hidden and ignored ones too."""
    out = _call(ctx, "list_directory", {"path": args.path, "include_ignored": True})
    return Plain(content=out.entries)


def list_with_sizes(ctx: Context, args: SizesArgs) -> Plain:
    """list_directory_with_sizes: entries with sizes (``111.41 KB``), and the totals, in the
    reference server's columns; a symbolic link is shown as ``[LINK]``, never followed."""
    walked = collect(ctx, args.path, include_ignored=True, max_depth=1)
    entries = walked.entries
    if args.sortBy == "size":
        entries = sorted(entries, key=lambda e: e.size or 0, reverse=True)
    lines = [_sized_line(e) for e in entries[:MAX_ENTRIES]]
    more = len(entries) - MAX_ENTRIES
    if more > 0:
        lines.append(more_line(more, "sort by size to see the largest first"))
    if walked.partial:
        lines.append(partial_line(walked))
    kinds = [e.kind for e in entries]
    total = sum(e.size or 0 for e in entries)
    lines += [
        "",
        f"Total: {kinds.count('file')} files, {kinds.count('dir')} directories",
        f"Combined size: {format_size(total)}",
    ]
    return Plain(content="\n".join(lines))


_TAGS = {"dir": "[DIR]", "file": "[FILE]", "symlink": "[LINK]", "other": "[OTHER]"}


def _sized_line(entry: Entry) -> str:
    name = printable(entry.display.rpartition("/")[2])
    # Padded as JavaScript pads: by UTF-16 code units.
    pad = " " * max(0, 30 - len(name.encode("utf-16-le")) // 2)
    size = "" if entry.size is None else format_size(entry.size).rjust(10)
    return f"{_TAGS[entry.kind]} {name}{pad} {size}"


_UNITS = ("B", "KB", "MB", "GB", "TB")


def format_size(size: int) -> str:
    """A size as the reference server writes it: ``49 B``, ``111.41 KB`` (powers of 1024, two
    decimals, halves rounded up as JavaScript's ``toFixed`` does)."""
    if size <= 0:
        return "0 B"
    unit = min(math.floor(math.log(size) / math.log(1024)), len(_UNITS) - 1)
    if unit <= 0:
        return f"{size} B"
    scaled = Decimal(size / 1024**unit).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return f"{scaled} {_UNITS[unit]}"


def _whole_path(glob: str) -> str:
    """A glob matched against the whole path below the folder searched, as the reference
    server's minimatch does ('*.py': in the folder itself), in .gitignore's syntax, which
    editguard's tools take: there a glob with no '/' matches at any depth, and a leading '/'
    anchors it."""
    if "/" in glob.rstrip("/") or glob.startswith("**"):
        return glob
    return "/" + glob


def _tree_exclude(pattern: str) -> str:
    """An ``excludePatterns`` entry of directory_tree, as the reference server reads it: one
    with a '*' matched against the whole path below the folder, any other against the path's
    end at any depth (a name, or a path such as 'src/gen')."""
    if "*" in pattern:
        return _whole_path(pattern)
    if "/" in pattern.strip("/"):
        return "**/" + pattern.lstrip("/")
    return pattern


def tree(ctx: Context, args: TreeArgs) -> Plain:
    """directory_tree: an indented tree (not JSON), .gitignored entries left out."""
    arguments: dict[str, Any] = {"path": args.path, "depth": TREE_DEPTH}
    if args.excludePatterns:
        arguments["exclude"] = [_tree_exclude(p) for p in args.excludePatterns]
    out = _call(ctx, "directory_tree", arguments)
    if not out.skipped:
        return Plain(content=out.tree)
    # directory_tree's last line counts what .gitignore or a leading dot hid, naming an
    # argument these tools lack: list_directory here shows every entry.
    shown = out.tree.rpartition("\n")[0]
    note = f"({out.skipped:,} .gitignored or hidden not shown; list_directory shows every entry)"
    return Plain(content=f"{shown}\n{note}" if shown else note)


def move(txn: Transaction, args: MoveArgs) -> Plain:
    """move_file: refused when the destination exists."""
    _need_folder(txn.ctx, args.destination)
    _write(txn, "move_file", {"source": args.source, "destination": args.destination})
    return Plain(content=f"Successfully moved {args.source} to {args.destination}")


def search(ctx: Context, args: SearchArgs) -> Plain:
    """search_files: files whose path below ``path`` matches the glob."""
    pattern = _whole_path(args.pattern)
    arguments: dict[str, Any] = {"pattern": pattern, "path": args.path, "sort": "name"}
    if args.excludePatterns:
        arguments["exclude"] = [_whole_path(p) for p in args.excludePatterns]
    out = _call(ctx, "find_files", arguments)
    # Full paths, as the reference server gives them (find_files shows them as messages do:
    # relative to the first root); then find_files' "… N more" and walk-stopped lines as they
    # are, and how many matching files .gitignore or a leading dot hid (find_files' own line
    # names an argument these tools lack).
    first = ctx.sandbox.roots[0]
    lines = out.files.splitlines()
    count = out.found - out.more
    paths = [p if os.path.isabs(p) else os.path.join(first, p) for p in lines[:count]]
    notes = lines[count : count + bool(out.more) + out.partial]
    if out.skipped:
        notes.append(f"({out.skipped:,} matching file(s) left out as .gitignored or hidden)")
    return Plain(content="\n".join([*(paths or ["No matches found"]), *notes]))


def info(ctx: Context, args: PathArgs) -> Plain:
    """get_file_info: a line per fact, the reference server's first (``size``, ``created``,
    ``modified``, ``accessed``, ``isDirectory``, ``isFile``, ``permissions``; times in ISO 8601,
    UTC), then editguard's (type, mode; a text file's encoding, line endings, version ...)."""
    data = _call(ctx, "file_info", {"path": args.path}).model_dump(exclude_none=True)
    kind = data.pop("type")
    facts: dict[str, Any] = {
        "size": data.pop("size"),
        "created": data.pop("created", "unknown (the system does not say)"),
        "modified": data.pop("modified"),
        "accessed": data.pop("accessed"),
        "isDirectory": "true" if kind == "dir" else "false",
        "isFile": "true" if kind == "file" else "false",
        "permissions": data.pop("permissions"),
        "type": kind,
        **data,
    }
    return Plain(content="\n".join(f"{key}: {value}" for key, value in facts.items()))


def allowed(ctx: Context, args: NoArgs) -> Plain:
    """list_allowed_directories: the roots."""
    del args
    return Plain(content="Allowed directories:\n" + "\n".join(ctx.sandbox.roots))


# -- the tools --------------------------------------------------------------------------------


def _tool(
    name: str,
    description: str,
    arguments: type[Args],
    run: Callable[[Any, Any], Plain],  # (Context, args) if reads, else (Transaction, args)
    *,
    reads: bool = True,
    destructive: bool = True,
    idempotent: bool = False,
) -> Tool[Any, Plain]:
    return Tool(
        name=name,
        title=name.replace("_", " ").capitalize(),
        description=description,
        arguments=arguments,
        result=Plain,
        run=run,
        read_only=reads,
        destructive=False if reads else destructive,
        idempotent=idempotent or reads,
        paths=_paths(name, arguments),
    )


def _paths(name: str, arguments: type[Args]) -> Callable[[Any], list[str]] | None:
    """The paths a call locks first, as editguard's own tool of the name locks them."""
    if arguments is MoveArgs:
        return lambda a: [a.source, a.destination]
    if name == "create_directory":
        return lambda _: []  # it locks its folders itself, outermost first
    return None


_READ_TEXT = (
    "Read a text file whole, or only its first (head) or last (tail) N lines. Line breaks "
    "come back as \\n whatever the file uses."
)

_CELLS_READ = (
    " A notebook (.ipynb) comes as cells: a '[cell I] type' header, then the source's lines "
    "numbered within the cell ('N│', not part of the text), then its outputs summarised; head "
    "and tail count cells."
)
_CELLS_EDIT = (
    " In a notebook (.ipynb), oldText is found in the cells' sources (as read_text_file shows "
    "them, without the 'N│' prefix) and must fit exactly one cell."
)


def _tools(cells: bool) -> tuple[Tool[Any, Plain], ...]:
    """The tools; with ``cells``, those that read, edit or write a notebook go by its cells."""
    read_note = _CELLS_READ if cells else ""
    read_text = _read_text(cells)
    return (
        _tool(
            "read_file", "Same as read_text_file (kept for older prompts).", ReadTextArgs, read_text
        ),
        _tool("read_text_file", _READ_TEXT + read_note, ReadTextArgs, read_text),
        _tool(
            "read_media_file",
            "Read an image (PNG, JPEG, GIF, WebP) as image content.",
            PathArgs,
            read_media,
        ),
        _tool(
            "read_multiple_files",
            "Read several text files in one call; each comes under its path, a file that cannot be "
            "read says why and the others are still read." + read_note,
            ReadManyArgs,
            _read_many(cells),
        ),
        _tool(
            "write_file",
            "Create a file or replace its whole content. Keeps the file's encoding and line "
            "endings; refused if the content breaks the syntax of a code file.",
            WriteArgs,
            _write_file(cells),
            reads=False,
            idempotent=True,
        ),
        _tool(
            "edit_file",
            "Replace text in a file: each edit's oldText, copied exactly from the file, becomes "
            "newText. An oldText found nowhere or more than once is refused (nothing is written), "
            "with the nearest lines. Returns the diff." + (_CELLS_EDIT if cells else ""),
            EditArgs,
            _edit(cells),
            reads=False,
        ),
        _tool(
            "create_directory",
            "Create a folder and any missing parents; an existing folder is fine.",
            PathArgs,
            create_directory,
            reads=False,
            destructive=False,
            idempotent=True,
        ),
        _tool(
            "list_directory",
            "List one folder's entries, a line each: [DIR] name or [FILE] name.",
            PathArgs,
            list_directory,
        ),
        _tool(
            "list_directory_with_sizes",
            "List one folder's entries with file sizes, sorted by name or size, and the totals.",
            SizesArgs,
            list_with_sizes,
        ),
        _tool(
            "directory_tree",
            "A folder's files and folders as an indented tree (10 levels; .gitignored entries and "
            "excludePatterns globs left out).",
            TreeArgs,
            tree,
        ),
        _tool(
            "move_file",
            "Move or rename a file; refused if the destination exists.",
            MoveArgs,
            move,
            reads=False,
        ),
        _tool(
            "search_files",
            "Find files below path whose path matches a glob ('*.py' in path, '**/*.py' in all "
            "folders below); .gitignored files left out.",
            SearchArgs,
            search,
        ),
        _tool(
            "get_file_info",
            "A file's or folder's size, times, type and permissions; for a text file also its "
            "encoding, line endings, line count and version.",
            PathArgs,
            info,
        ),
        _tool(
            "list_allowed_directories",
            "The folders this server may read and change (and everything below them).",
            NoArgs,
            allowed,
        ),
    )


TOOLS = _tools(cells=False)
CELL_TOOLS = _tools(cells=True)  # --compat-notebooks
NAMES: tuple[str, ...] = tuple(t.name for t in TOOLS)


def tool_named(name: str, *, cells: bool = False) -> Tool[Any, Plain]:
    """The compatible tool ``name`` (``cells``: as ``--compat-notebooks`` serves it).

    Raises:
        KeyError: no such tool.
    """
    for tool in CELL_TOOLS if cells else TOOLS:
        if tool.name == name:
            return tool
    raise KeyError(name)
