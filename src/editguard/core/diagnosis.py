"""Turning a failed match into an error a model can act on: what was searched, where the real
text is, what differs, and what to send next."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from editguard.core.document import LF, line_numbers
from editguard.core.listing import EXCERPT, PLACES_SHOWN, excerpt, listing, show_places
from editguard.core.match import find_separate
from editguard.core.seek import tolerance_names
from editguard.core.similar import (
    MAX_SIMILARITY_UNEQUAL,
    SimilarRegion,
    describe,
    find_similar,
    look_alike,
)
from editguard.errors import AmbiguousMatch, EditError, NoMatch, WrongCount

MAX_LOCATIONS = 10  # places of a WRONG_COUNT shown with their line and context
MAX_MORE_LINES = 1000  # further places given by line number in the error's data
MORE_IN_MESSAGE = 50  # ... and in its message


@dataclass(frozen=True, slots=True)
class CountMismatch:
    """Edit ``index`` found ``found`` occurrences instead of ``expected`` (0 means no match).

    ``text`` is the whole text as that edit saw it (after the edits before it), and ``starts`` the
    offsets of the occurrences found there, so that the error can describe them.
    """

    index: int
    expected: int
    found: int
    text: str
    starts: tuple[int, ...]
    changed_before: bool
    rung: str = "exact"  # the rung of core.seek on which the occurrences were found


def mismatch_error(
    mismatch: CountMismatch,
    old_text: str,
    new_text: str,
    path: str,
    total_edits: int | None,
    what: str = "old_text",
) -> EditError:
    """The NO_MATCH or WRONG_COUNT error for an edit whose count was off (``total_edits``
    ``None``: a request of one search, named ``what``)."""
    after = (
        " (line numbers count in the text as the earlier edits of this call left it)"
        if mismatch.changed_before
        else ""
    )
    if mismatch.found == 0:
        return _no_match(mismatch, old_text, new_text, path, total_edits, after, what)
    return _wrong_count(mismatch, old_text, path, total_edits, after, what)


def not_found(text: str, search: str, path: str, expected: int = 1) -> NoMatch:
    """NO_MATCH for a safe_edit search that matched nothing, with the most similar regions."""
    mismatch = CountMismatch(0, expected, 0, text, (), False)
    return _no_match(mismatch, search, "", path, None, "", what="search")


def too_few(
    text: str, search: str, path: str, expected: int, starts: tuple[int, ...]
) -> WrongCount:
    """WRONG_COUNT for a safe_edit search that matched fewer places than its ``count``, with
    where each match is."""
    mismatch = CountMismatch(0, expected, len(starts), text, starts, False)
    return _wrong_count(mismatch, search, path, None, "", what="search")


def _no_match(
    m: CountMismatch,
    old: str,
    new: str,
    path: str,
    total: int | None,
    after: str,
    what: str = "old_text",
) -> NoMatch:
    text = m.text
    data: dict[str, Any] = {
        "search_text": excerpt(old),
        "expected_occurrences": m.expected,
        "actual_occurrences": 0,
    }
    applied_note = ""
    if len(new.strip()) >= 8 and new != old:
        present = len(find_separate(text, new, limit=m.expected + 1))
        if present == m.expected:
            data["already_applied"] = True
            applied_note = (
                f"new_text is already in the file {present} time(s): this edit "
                "looks already applied. "
            )
    head = _head(old)
    similar = find_similar(text, head)
    if head != old:
        similar = [_compared_in_part(r, head, old, text) for r in similar]
    data["similar_content"] = [region_dict(r) for r in similar]
    also = [
        line
        for line in (look_alike(text, similar[0]) if similar else [])
        if not any(r.start_line <= line <= r.end_line for r in similar)
    ]
    if also:
        data["similar_also_at"] = also
    parts = [
        f"{what} not found in {path}{after}. {applied_note}".rstrip(),
        "",
        "Searched for (between >>> and <<<):",
        f">>>{excerpt(old)}<<<",
    ]
    if similar:
        parts += ["", "Most similar regions of the file (copy from these lines exactly):"]
        for r in similar:
            kinds = "; ".join(d.detail for d in r.differences) or "identical"
            where = (
                f"line {r.start_line}"
                if r.start_line == r.end_line
                else f"lines {r.start_line}-{r.end_line}"
            )
            parts.append(f"{where}, {math.floor(r.similarity * 100)}% similar; {kinds}:")
            parts.append(listing([excerpt(x) for x in r.lines.split(LF)], r.start_line))
            if r.text != r.lines:
                parts.append(f"  the closest text on that line: >>>{excerpt(r.text)}<<<")
    else:
        parts += ["", "Nothing in the file is similar."]
    if also:
        named = ", ".join(map(str, also[:MORE_IN_MESSAGE]))
        rest = len(also) - min(len(also), MORE_IN_MESSAGE)
        parts.append(
            f"Lines alike to the first region (as compared) also start at lines {named}"
            + (f" and {rest} more" if rest else "")
            + f": add a distinctive line to {what} to say which you mean."
        )
    return NoMatch(
        "\n".join(parts),
        path=path,
        edit_index=None if total is None else m.index,
        total_edits=total,
        data=data,
        suggestions=_no_match_tips(text, old, similar, bool(applied_note), what),
    )


SIMILAR_LINES = 40  # a longer search text is compared by its first lines


def _compared_in_part(region: SimilarRegion, head: str, old: str, text: str) -> SimilarRegion:
    """A region found for the first lines (``head``) of a long search text ``old``: never 100%
    similar to the whole of it; when those lines are identical to the region, what differs is
    told from the first line after them that differs."""
    region = replace(region, similarity=min(region.similarity, MAX_SIMILARITY_UNEQUAL))
    if region.differences:
        return region
    rest = old[len(head) :].split(LF)
    if not head.endswith(LF):  # the head ends inside a line: compare that whole line
        rest[0] = head[head.rfind(LF) + 1 :] + rest[0]
    first = region.start_line - 1 + head.count(LF)
    lines = text.split(LF)[first : first + len(rest)]
    for k, sent in enumerate(rest):
        have = lines[k] if k < len(lines) else ""
        if sent != have:
            line = first + k + 1
            found = [
                replace(d, detail=f"line {line}: {d.detail} (the lines before it are identical)")
                for d in describe(sent, have)
            ]
            return replace(region, differences=tuple(found))
    return region


def _head(old: str) -> str:
    """The part of a search text that the similarity search compares: all of it, or for a long
    one its first lines, cut after a whole line when it can be (a window of the file is
    compared with the whole of it, so its length bounds the cost)."""
    end, cut = len(old), -1
    for _ in range(SIMILAR_LINES):
        cut = old.find(LF, cut + 1)
        if cut < 0:
            break
    else:
        end = cut + 1
    if end > 2 * EXCERPT:
        last = old.rfind(LF, 0, 2 * EXCERPT)
        end = last + 1 if last > 0 else 2 * EXCERPT
    return old[:end]


def _no_match_tips(
    text: str, old: str, similar: list[SimilarRegion], applied: bool, what: str = "old_text"
) -> list[str]:
    tips = ["Drop this edit if the change is already in the file."] if applied else []
    tips += [
        f"Use read_file to see the exact content, then copy {what} from it precisely "
        "(without the line-number prefix)."
    ]
    kinds = {d.kind for r in similar[:1] for d in r.differences}
    if kinds & {"tabs_vs_spaces", "indentation", "whitespace", "trailing_whitespace"}:
        tabs = sum(1 for line in text.split(LF, 2000)[:2000] if line.startswith("\t"))
        spaces = sum(1 for line in text.split(LF, 2000)[:2000] if line.startswith(" "))
        style = "tabs" if tabs > spaces else "spaces"
        tips.append(
            f"Check whitespace: the file indents with {style}; copy the indentation "
            "exactly as the lines above show it."
        )
    if "line_numbers" in kinds:
        tips.append(
            f"Remove the line-number prefixes (such as '12│') from every line of {what}: "
            "they are read_file's, not the file's."
        )
    if "escaping" in kinds or ("\\n" in old and LF not in old):
        tips.append(f"Send real line breaks in {what}, not the two characters backslash-n.")
    if "quotes" in kinds or "case" in kinds:
        tips.append("Match quote characters and letter case exactly as the file has them.")
    if LF in old:
        tips.append(
            f"For a multi-line {what}, make sure every line (and each line break) is "
            f"exactly as in the file; a shorter, unique {what} is less fragile."
        )
    return tips


def region_dict(r: SimilarRegion) -> dict[str, Any]:
    return {
        "start_line": r.start_line,
        "end_line": r.end_line,
        "similarity": math.floor(r.similarity * 1000) / 1000,  # 0.9996 is not 1.0
        "content": excerpt(r.text),
        "differences": [
            {"type": d.kind, "detail": d.detail, "expected": d.expected, "found": d.found}
            for d in r.differences
        ],
    }


def _wrong_count(
    m: CountMismatch, old: str, path: str, total: int | None, after: str, what: str = "old_text"
) -> WrongCount:
    text = m.text
    shown = m.starts[:MAX_LOCATIONS]
    lines = line_numbers(text, shown)
    locations: list[dict[str, Any]] = []
    for start, line in zip(shown, lines, strict=True):
        bol = text.rfind(LF, 0, start) + 1
        eol = text.find(LF, start)
        eol = len(text) if eol < 0 else eol
        prev_start = text.rfind(LF, 0, max(bol - 1, 0)) + 1 if bol else -1
        nxt_end = text.find(LF, eol + 1) if eol < len(text) else -1
        locations.append(
            {
                "line_number": line,
                "column_start": start - bol + 1,
                "column_end": start - bol + len(old.split(LF, maxsplit=1)[0]) + 1,
                "line_content": excerpt(text[bol:eol]),
                "context_before": excerpt(text[prev_start : bol - 1]) if bol else None,
                "context_after": (
                    excerpt(text[eol + 1 : len(text) if nxt_end < 0 else nxt_end])
                    if eol < len(text)
                    else None
                ),
            }
        )
    more = m.found - len(shown)
    # The other places by line number only: each one may be the place the model meant.
    more_lines = line_numbers(text, m.starts[MAX_LOCATIONS : MAX_LOCATIONS + MAX_MORE_LINES])
    found = [
        _place(text, start, len(old), line)
        for start, line in zip(shown[:PLACES_SHOWN], lines, strict=False)
    ]
    shown_places = show_places(found, m.found, also=[*lines[PLACES_SHOWN:], *more_lines])
    loosely = (
        ""
        if m.rung == "exact"
        else f" (not found exactly; found with tolerance for {tolerance_names(m.rung)})"
    )
    message = (
        f"expected {m.expected} occurrence(s) of {what} in {path} but found {m.found}"
        f"{loosely}{after}; each place with the line around it:\n{shown_places}"
    )
    count = "count" if what == "search" else "occurrences"
    if m.found < m.expected and what == "search":
        tips = [
            f"If these are all the places you mean, set count to {m.found} (or leave count "
            "out to replace every match); otherwise re-read the file: the other places may "
            "differ from search."
        ]
    else:
        tips = [
            f"If you mean all of them, set {count} to {m.found}."
            if m.rung == "exact"
            else f"Copy {what} exactly from the place you mean, with a line or two of context "
            "that only that place has.",
            f"Otherwise add surrounding lines to {what} so that it matches only the places you "
            f"mean, or split it into several edits, each with a unique {what}.",
        ]
    data = {
        "search_text": excerpt(old),
        "expected_occurrences": m.expected,
        "actual_occurrences": m.found,
        "match_locations": locations,
        "more_matches": more,
        "more_lines": more_lines,
    }
    if m.rung != "exact":
        data["match"] = m.rung
    return WrongCount(
        message,
        path=path,
        edit_index=None if total is None else m.index,
        total_edits=total,
        data=data,
        suggestions=tips,
    )


def _place(text: str, start: int, length: int, line: int) -> tuple[int, int, list[str]]:
    """A match at ``text[start:start+length]`` (on line ``line``) as :func:`places` shows it:
    its lines, with the line before and the line after them."""
    bol = text.rfind(LF, 0, start) + 1
    first = text.rfind(LF, 0, bol - 1) + 1 if bol else 0
    end = start + max(length, 1) - 1  # the match's last character
    eol = text.find(LF, end)
    if 0 <= eol < len(text) - 1:
        eol = text.find(LF, eol + 1)
    stop = len(text) if eol < 0 else eol
    return line, line - (1 if bol else 0), text[first:stop].split(LF)


def landed_note(lines: list[int], note: str | None = None, what: str = "new_text") -> str:
    """The note of an edit found already applied (:mod:`editguard.core.landed`): where its new
    text stands, and that nothing was changed for it."""
    where = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(map(str, lines[:20]))}"
    rung = f" (found with a correction: {note})" if note else ""
    return (
        f"already applied: {where} already read{'s' * (len(lines) == 1)} as {what}{rung}; "
        "nothing was changed for this edit"
    )


def partly_applied(
    text: str,
    old: str,
    landed: list[int],
    pending: list[int],
    path: str,
    index: int | None,
    total: int | None,
    what: str = "old_text",
    new: str = "new_text",
) -> AmbiguousMatch:
    """AMBIGUOUS_MATCH for an edit whose old text is at the expected number of places, some of
    them inside text that already reads as its new text and some not: landing it would write
    a second copy at the first, and leaving it would leave the others."""
    starts = sorted([*landed, *pending])
    numbers = dict(zip(starts, line_numbers(text, starts), strict=True))
    done = [numbers[s] for s in landed]
    rest = [numbers[s] for s in pending]
    found = [_place(text, s, len(old), numbers[s]) for s in starts[:PLACES_SHOWN]]
    shown = show_places(found, len(starts), also=[numbers[s] for s in starts[PLACES_SHOWN:]])
    if rest:
        state = (
            f"at line(s) {_named(done)} it is already part of {new} (this edit looks applied "
            f"there) and at line(s) {_named(rest)} it is not"
        )
    else:
        state = (
            f"each is already part of {new}, but not as one copy per place (line(s) {_named(done)})"
        )
    return AmbiguousMatch(
        f"{what} occurs at {len(starts)} place(s); {state}, so whether this edit was applied "
        "cannot be told, and landing it would write a second copy; nothing was changed:\n" + shown,
        path=path,
        edit_index=index,
        total_edits=total,
        data={"search_text": excerpt(old), "applied_lines": done, "pending_lines": rest},
        suggestions=[
            f"Re-read the file; to change only the places not yet changed, give {what} a line "
            "around it that only they have (and set occurrences to their count).",
        ],
    )


def _named(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:MORE_IN_MESSAGE]))
    rest = len(numbers) - MORE_IN_MESSAGE
    return shown + (f" and {rest} more" if rest > 0 else "")


def loosely_and_applied(
    text: str,
    old: str,
    copies: list[int],
    loose: list[int],
    rung: str,
    path: str,
    index: int | None,
    total: int | None,
    what: str = "old_text",
    new: str = "new_text",
) -> AmbiguousMatch:
    """AMBIGUOUS_MATCH for an edit whose old text is not in the file exactly but fits with a
    tolerance, while its new text is in the file exactly: it may be a retry of an edit that
    landed (and would land a second time at a look-alike place), or meant for that place."""
    starts = sorted([*copies, *loose])
    numbers = dict(zip(starts, line_numbers(text, starts), strict=True))
    done = [numbers[s] for s in copies]
    rest = [numbers[s] for s in loose]
    found = [_place(text, s, 1, numbers[s]) for s in starts[:PLACES_SHOWN]]
    shown = show_places(found, len(starts), also=[numbers[s] for s in starts[PLACES_SHOWN:]])
    return AmbiguousMatch(
        f"{what} is not in {path} exactly; it fits with tolerance for {tolerance_names(rung)} "
        f"at line(s) {_named(rest)}, but {new} is already at line(s) {_named(done)}: this edit "
        "may have been applied already, so which is meant cannot be told; nothing was "
        "changed:\n" + shown,
        path=path,
        edit_index=index,
        total_edits=total,
        data={
            "search_text": excerpt(old),
            "applied_lines": done,
            "pending_lines": rest,
            "match": rung,
        },
        suggestions=[
            f"If the edit is done, drop it; else copy {what} exactly from the place you mean.",
        ],
    )
