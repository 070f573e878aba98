"""``safe_edit``'s ``search_replace``: literal or regular-expression replacement over the file.

Regular expressions use the ``regex`` package, whose matching takes a timeout: a catastrophic
pattern ends with REGEX_TIMEOUT instead of hanging the server. Patterns match the text with every
line break as ``\\n``; replacements take the file's line endings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import regex

from editguard.core.diagnosis import not_found
from editguard.core.document import Document, line_numbers, normalize_newlines
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.match import find_all, select_non_overlapping
from editguard.core.plan import Plan, Replacement
from editguard.errors import InvalidRegex, InvalidRequest, RegexTimeout

REGEX_TIMEOUT = 1.0

_FLAGS: dict[str, int] = {}
for _names, _flag in (
    (("I", "IGNORECASE"), regex.IGNORECASE),
    (("M", "MULTILINE"), regex.MULTILINE),
    (("S", "DOTALL"), regex.DOTALL),
    (("X", "VERBOSE"), regex.VERBOSE),
    (("A", "ASCII"), regex.ASCII),
    (("U", "UNICODE"), regex.UNICODE),
):
    for _name in _names:
        _FLAGS[_name] = int(_flag)


@dataclass(frozen=True, slots=True)
class RegexReplace:
    """Replace ``search`` (literal, or a pattern when ``regex``) by ``replace``: every match, or
    the first ``count`` (``None`` or 0: all). ``flags`` are Python ``re``'s values or names."""

    search: str
    replace: str
    regex: bool = False
    count: int | None = None
    flags: int | str = 0


def compile_regex_replace(
    doc: Document, request: RegexReplace, *, required: bool, timeout: float = REGEX_TIMEOUT
) -> Compiled:
    """Compile a replacement over the whole of ``doc``.

    A search that matches nothing raises NO_MATCH when ``required`` (strict mode), and is
    otherwise a warning on an empty plan.

    Raises:
        InvalidRequest: empty literal search, or bad flags.
        InvalidRegex: the pattern (or a group reference in ``replace``) is invalid.
        RegexTimeout: matching took longer than ``timeout`` seconds.
        NoMatch: nothing matched and ``required``.
        EncodingError: a replacement holds a character the file's encoding cannot store.
    """
    plan = _plan(
        doc.text,
        request.search,
        request.replace,
        is_regex=request.regex,
        count=request.count,
        flags=request.flags,
        timeout=timeout,
    )
    if not plan:
        if required:
            raise not_found(doc.text, request.search, doc.name or "the file")
        warning = f"pattern {request.search!r} not found; nothing was changed"
        return Compiled(plan, (AppliedEdit(0, 0, ()),), (warning,))
    doc.check_encodable("".join(r.text for r in plan.replacements))
    lines = line_numbers(doc.text, [r.start for r in plan.replacements])
    shift, landed = 0, []
    for r, line in zip(plan.replacements, lines, strict=True):
        landed.append(line + shift)
        shift += r.text.count("\n") - doc.text.count("\n", r.start, r.end)
    return Compiled(plan, (AppliedEdit(0, len(landed), tuple(landed)),))


# Python's re values, as a model writes them (re.IGNORECASE | re.MULTILINE == 10), to the regex
# package's: the same bits except ASCII, which is 256 in re and 128 in regex (where 256 is
# VERSION1, another dialect).
_RE_BITS = {
    int(re.IGNORECASE): int(regex.IGNORECASE),
    int(re.MULTILINE): int(regex.MULTILINE),
    int(re.DOTALL): int(regex.DOTALL),
    int(re.UNICODE): int(regex.UNICODE),
    int(re.VERBOSE): int(regex.VERBOSE),
    int(re.ASCII): int(regex.ASCII),
}


def parse_flags(flags: int | str) -> int:
    """Flags as an int (Python ``re``'s values) or as names: ``"IGNORECASE|MULTILINE"``; the
    value for the ``regex`` package.

    Raises:
        InvalidRequest: an unknown flag name or bit.
    """
    if isinstance(flags, int):
        value = 0
        for bit, flag in _RE_BITS.items():
            if flags & bit:
                value |= flag
        unknown = flags & ~sum(_RE_BITS)
        if unknown:
            raise InvalidRequest(
                f"unknown regex flag value {unknown} in flags={flags}; use Python re values "
                "(IGNORECASE 2, MULTILINE 8, DOTALL 16, UNICODE 32, VERBOSE 64, ASCII 256) or "
                "names joined with |",
                data={"field": "search_replace.flags"},
            )
        return value
    value = 0
    for raw in flags.replace(",", "|").split("|"):
        name = raw.strip().upper().removeprefix("RE.")
        if not name:
            continue
        if name not in _FLAGS:
            raise InvalidRequest(
                f"unknown regex flag {raw.strip()!r}; use IGNORECASE, MULTILINE, DOTALL, "
                "VERBOSE, ASCII (or I, M, S, X, A), joined with |",
                data={"field": "search_replace.flags"},
            )
        value |= _FLAGS[name]
    return value


def _plan(
    text: str,
    search: str,
    replace: str,
    *,
    is_regex: bool,
    count: int | None,
    flags: int | str,
    timeout: float,
) -> Plan:
    """Replace ``search`` by ``replace`` in ``text`` (all, or the first ``count``; 0 means all)."""
    limit = count or None
    if not is_regex:
        needle = normalize_newlines(search)
        if not needle:
            raise InvalidRequest("search is empty", data={"field": "search_replace.search"})
        starts = select_non_overlapping(find_all(text, needle), len(needle))[:limit]
        new = normalize_newlines(replace)
        reps = tuple(Replacement(s, s + len(needle), new) for s in starts)
        return Plan(reps)
    try:
        pattern = regex.compile(search, parse_flags(flags))
    except regex.error as exc:
        # The stubs do not declare them, but regex errors carry msg and pos like re's do.
        position: int | None = getattr(exc, "pos", None)
        reason: str = getattr(exc, "msg", str(exc))
        raise InvalidRegex(
            f"the pattern is not a valid regular expression: {reason}"
            + (f" at position {position}" if position is not None else ""),
            data={"field": "search_replace.search", "position": position, "pattern": search},
        ) from None
    # The timeout is for the matching alone: collect the matches first, expand them after.
    matches: list[Any] = []
    try:
        for found in pattern.finditer(text, timeout=timeout):
            matches.append(found)
            if limit is not None and len(matches) >= limit:
                break
    except TimeoutError:
        raise RegexTimeout(
            f"the pattern took longer than {timeout:g} s to match (catastrophic backtracking, "
            "e.g. nested or overlapping repetition); nothing was changed",
            data={"pattern": search, "timeout_seconds": timeout},
            suggestions=[
                "Simplify the pattern: avoid nested quantifiers like (a|aa)+ and anchor "
                "it, or use a literal search."
            ],
        ) from None
    try:
        out = [
            Replacement(m.start(), m.end(), normalize_newlines(m.expand(replace))) for m in matches
        ]
    except IndexError as exc:  # \2 or \g<name> that the pattern does not define
        raise InvalidRegex(
            f"the replacement refers to a group the pattern does not have ({exc}); the pattern "
            f"has {pattern.groups} group(s)"
            + (f" named {', '.join(sorted(pattern.groupindex))}" if pattern.groupindex else ""),
            data={"field": "search_replace.replace", "pattern": search, "groups": pattern.groups},
        ) from None
    except regex.error as exc:  # a bad escape such as \U in C:\Users
        at: int | None = getattr(exc, "pos", None)
        why: str = getattr(exc, "msg", str(exc))
        raise InvalidRegex(
            f"the replacement is not a valid template: {why}"
            + (f" at position {at}" if at is not None else "")
            + " (write a literal backslash as \\\\)",
            data={"field": "search_replace.replace", "position": at, "replace": replace},
        ) from None
    return Plan(tuple(out))
