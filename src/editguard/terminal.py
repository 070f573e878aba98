"""A tool's result as a person reads it on a terminal (``editguard call`` without ``--json``,
and ``editguard history``).

Each kind of result is shown as it reads best: read_file's lines followed by a dim line saying
which lines of how many and the version; a listing's text; list_symbols and history as tables
(:func:`format_symbols`, :func:`format_history`); a change as its coloured diff
(:func:`colour_diff`) and a dim summary of the rest. An error is its code in bold red and its
message. Only the presentation lives here: what is called, and with which arguments, is
:mod:`editguard.cli`'s.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

_ACTIONS = {"created": "A", "updated": "M", "deleted": "D", "moved": "R"}


def format_history(changes: list[dict[str, Any]], *, colour: bool) -> str:
    """A readable log of ``history`` results: one header line per change, one line per file,
    and each diff when the change is shown in full."""

    def paint(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if colour else text

    if not changes:
        return "no changes recorded\n"
    lines: list[str] = []
    for change in changes:
        ident = paint("33", f"change {change['id']}")
        head = f"{ident}  {change['time']}  {change['tool']}"
        if change.get("client"):
            head += f"  by {change['client']}"
        if change.get("undoes"):
            head += f"  (undoes {', '.join(map(str, change['undoes']))})"
        if change.get("undone_by"):
            head += "  " + paint("2", f"[undone by {change['undone_by']}]")
        lines.append(head)
        for f in change["files"]:
            name = f["path"] if not f.get("moved_from") else f"{f['moved_from']} -> {f['path']}"
            counts = paint("32", f"+{f['added']}") + " " + paint("31", f"-{f['removed']}")
            lines.append(f"    {_ACTIONS.get(f['action'], '?')} {name}  {counts}")
        diffs = [f["diff"] for f in change["files"] if f.get("diff")]
        text = "".join(diffs)
        if text:
            lines.append((colour_diff(text) if colour else text).rstrip("\n"))
    return "\n".join(lines) + "\n"


def format_symbols(symbols: list[dict[str, Any]], *, colour: bool) -> str:
    """A table of ``list_symbols`` results: each definition's lines, kind and name path (what
    edit_symbol takes), indented by depth, in file order."""
    if not symbols:
        return "no symbols\n"
    spans = [f"{s['start_line']}-{s['end_line']}" for s in symbols]
    width = max(len("lines"), *map(len, spans))
    kinds = max(len("kind"), *(len(s["kind"]) for s in symbols))
    head = f"{'lines':>{width}}  {'kind':<{kinds}}  name path"
    rows = [f"\x1b[1m{head}\x1b[0m" if colour else head]
    for span, s in zip(spans, symbols, strict=True):
        rows.append(f"{span:>{width}}  {s['kind']:<{kinds}}  {'  ' * s['depth']}{s['name_path']}")
    return "\n".join(rows) + "\n"


def print_error(out: TextIO, error: dict[str, Any], human: bool) -> None:
    """An error: its code in bold red and its message (``human``), else as JSON."""
    if human:
        out.write(f"\x1b[1;31m{error['code']}\x1b[0m: {error['message']}\n")
        return
    json.dump({"error": error}, out, indent=2, ensure_ascii=False)
    out.write("\n")


def _is_read(result: Any) -> bool:
    """Whether ``result`` is read_file's answer for one file: its lines, an image, or (one
    file of several) its error."""
    return isinstance(result, dict) and (
        "total_lines" in result or "mime_type" in result or isinstance(result.get("error"), dict)
    )


def _print_read(out: TextIO, read: dict[str, Any]) -> None:
    if "total_lines" in read:
        out.write(read["content"] + ("\n" if read["content"] else ""))
        out.write(
            f"\x1b[2m-- {read['path']}: lines {read['start_line']}-{read['end_line']}"
            f" of {read['total_lines']}, version {read['version']}\x1b[0m\n"
        )
    elif "mime_type" in read:  # the bytes are no use on a terminal (--json prints them)
        out.write(
            f"\x1b[2m-- {read['path']}: {read['mime_type']} image, {read['size']:,} bytes, "
            f"version {read['version']}\x1b[0m\n"
        )
    else:
        error = read["error"]
        out.write(f"\x1b[1;31m{error['code']}\x1b[0m: {read['path']}: {error['message']}\n")


_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}


def colour_diff(diff: str) -> str:
    """The diff with ANSI colours: additions green, deletions red, hunk headers cyan."""
    lines = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            lines.append(f"\x1b[1m{line}\x1b[0m")
        elif line[:1] in _COLOURS:
            lines.append(f"{_COLOURS[line[:1]]}{line}\x1b[0m")
        else:
            lines.append(line)
    return "\n".join(lines) + ("\n" if lines else "")


def print_human(out: TextIO, result: dict[str, Any]) -> None:
    """A tool's result, shown as that kind of result reads best (see the module docstring)."""
    files = result.get("files")
    if _is_read(result) or (
        isinstance(files, list) and files and all(_is_read(f) for f in files)
    ):  # read_file: one file, or several
        for read in files if isinstance(files, list) else [result]:
            _print_read(out, read)
        return
    if isinstance(result.get("changes"), list):  # history
        out.write(format_history(result["changes"], colour=True))
        return
    listed = [result[k] for k in ("entries", "tree", "files") if isinstance(result.get(k), str)]
    if listed:  # list_directory, directory_tree, find_files: their text as it reads
        out.write(listed[0] + ("\n" if listed[0] else ""))
        counts = {k: v for k, v in result.items() if not isinstance(v, str)}
        out.write(f"\x1b[2m-- {result['path']}: {json.dumps(counts)}\x1b[0m\n")
        return
    if isinstance(result.get("symbols"), list):  # list_symbols
        out.write(format_symbols(result["symbols"], colour=True))
        out.write(f"\x1b[2m-- {result['path']}, version {result['version']}\x1b[0m\n")
        return
    diffs = [f.get("diff") or "" for f in result.get("files", []) if isinstance(f, dict)]
    out.write(colour_diff(result.get("diff") or "".join(diffs)))
    shown = ("problems", "introduced")
    out.writelines(format_problems(result.get(key)) for key in shown)
    summary = {k: v for k, v in result.items() if k not in ("diff", "edits_applied", *shown)}
    out.write(f"\x1b[2m-- {json.dumps(summary, ensure_ascii=False)}\x1b[0m\n")


def format_problems(problems: Any) -> str:
    """Problems as a compiler prints them (``path:line:column: analyzer code message``, then
    the line), in yellow; nothing for no list."""
    if not isinstance(problems, list):
        return ""
    out = []
    for p in problems:
        if not isinstance(p, dict):
            continue
        code = f" {p['code']}" if p.get("code") else ""
        out.append(
            f"\x1b[33m{p.get('path')}:{p.get('line')}:{p.get('column')}: "
            f"{p.get('analyzer')}{code} {p.get('message')}\x1b[0m\n    {p.get('text')}\n"
        )
    return "".join(out)
