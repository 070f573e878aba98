"""The refusals of placing a block of lines: one code and one data layout per cause, one text.

* :func:`ambiguous`: the block fits several places and nothing the request says (its stated
  line, its cursor, the order of the blocks after it) tells them apart. ``AMBIGUOUS_MATCH``;
  ``data``: ``lines`` (each place's first line, 1-based, as the caller counts them), ``match``
  (the rung that found them), and the caller's own fields naming the block (``hunk``,
  ``chunk``, ...). Each place is shown with its numbered lines (:func:`~editguard.core.listing.
  show_places`), so the model can copy a line that only the place it means has.
* :func:`uncorrectable`: the block fits one place on a tolerant rung, but the correction that
  made it fit cannot be carried over to its new lines without a guess
  (:class:`~editguard.core.seek.Uncorrectable`). ``NO_MATCH`` (``CHUNK_MISMATCH`` for
  edit_symbol's chunks, whose code for a chunk that fits nowhere it is); ``data``: ``match``,
  ``lines`` (``[first, last]``), ``match_locations`` (``[{line_number, end_line}]``),
  ``search_text``, and the caller's own fields. The text: "X: not in P as sent; it matches lines
  a-b with tolerance for R, but <why>. The lines:" and those lines, numbered.

Pure: lines in, an error out (the caller raises it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from editguard.core.listing import PLACES_SHOWN, excerpt, listing, show_places
from editguard.core.seek import tolerance_names
from editguard.errors import AmbiguousMatch, EditError, Frame, NoMatch, OverlappingEdits

LF = "\n"
LISTED = 20  # places named by their line in a refusal's sentence


def ambiguous(
    lines: Sequence[str],
    starts: Sequence[int],
    size: int,
    *,
    what: str,
    rung: str,
    why: str = "",
    tip: str,
    first_line: int = 1,
    before: int = 1,
    after: int = 1,
    more: bool = False,
    data: dict[str, Any] | None = None,
    path: str | None = None,
    edit_index: int | None = None,
    total_edits: int | None = None,
    where: Sequence[Frame] = (),
    suggestions: Sequence[str] = (),
) -> AmbiguousMatch:
    """AMBIGUOUS_MATCH for ``what`` (a block of ``size`` lines), which fits at ``starts``
    (0-based indexes into ``lines``, whose first is line ``first_line``) on ``rung``: each
    place shown with ``before`` and ``after`` lines around it. ``why``: what was tried to tell
    them apart (", none of them at its stated line 12"); ``tip``: how to tell them apart;
    ``more``: the places listed are only the first ones found; ``suggestions``: the tip, by
    default."""
    starting = [first_line + s for s in starts]
    loosely = "" if rung == "exact" else f" with tolerance for {tolerance_names(rung)}"
    named = ", ".join(map(str, starting[:LISTED]))
    if len(starting) > LISTED:
        named += f" and {len(starting) - LISTED} more"
    found = []
    for s in starts[:PLACES_SHOWN]:
        lo, hi = max(s - before, 0), min(s + max(size, 1) + after, len(lines))
        found.append((first_line + s, first_line + lo, lines[lo:hi]))
    shown = show_places(found, len(starts), also=starting[PLACES_SHOWN:])
    return AmbiguousMatch(
        f"{what} fits{loosely} at {len(starting)}{' or more' if more else ''} places (starting at "
        f"lines {named}){why}, so which one is meant cannot be told; {tip} The places:\n{shown}",
        path=path,
        edit_index=edit_index,
        total_edits=total_edits,
        where=where,
        data={**(data or {}), "lines": starting, "match": rung},
        suggestions=list(suggestions) or [tip[:1].upper() + tip[1:]],
    )


def uncorrectable(
    lines: Sequence[str],
    start: int,
    stop: int,
    *,
    what: str,
    rung: str,
    reason: str,
    search: str,
    first_line: int = 1,
    error: type[EditError] = NoMatch,
    data: dict[str, Any] | None = None,
    path: str | None = None,
    edit_index: int | None = None,
    total_edits: int | None = None,
    where: Sequence[Frame] = (),
    fix: str = "",
    within: str | None = None,
) -> EditError:
    """The refusal of ``what`` (its lines, ``search``), which matches ``lines[start:stop]``
    on ``rung`` only with a correction that cannot be carried to its new lines (``reason``:
    the :class:`~editguard.core.seek.Uncorrectable` sentence). ``fix``: the suggestion;
    ``within``: what the lines are of, for the sentence (the path by default)."""
    first, last = first_line + start, first_line + max(stop, start + 1) - 1
    shown = [excerpt(x, 500) for x in lines[start : max(stop, start + 1)]]
    place = f"in {within or path} " if within or path else ""
    return error(
        f"{what}: not {place}as sent; it matches lines {first}-{last} with tolerance for "
        f"{tolerance_names(rung)}, but {reason}. The lines:\n"
        + listing(shown, first, width=len(str(last))),
        path=path,
        edit_index=edit_index,
        total_edits=total_edits,
        where=where,
        data={
            **(data or {}),
            "search_text": excerpt(search),
            "match": rung,
            "lines": [first, last],
            "match_locations": [{"line_number": first, "end_line": last}],
        },
        suggestions=[fix or "Copy the lines exactly from the numbered lines above."],
    )


def overlapping(
    first: int,
    second: int,
    line: int,
    *,
    what: str,
    tip: str,
    data: dict[str, Any] | None = None,
    path: str | None = None,
    edit_index: int | None = None,
    total_edits: int | None = None,
    where: Sequence[Frame] = (),
) -> OverlappingEdits:
    """OVERLAPPING_EDITS for blocks ``first`` and ``second`` (0-based, in request order),
    which meet at ``line``: ``what`` says how, ``tip`` what to send instead."""
    return OverlappingEdits(
        f"{what}; {tip}",
        path=path,
        edit_index=edit_index,
        total_edits=total_edits,
        where=where,
        data={**(data or {}), "edits": [first, second], "line": line},
    )


__all__ = ["ambiguous", "overlapping", "uncorrectable"]
