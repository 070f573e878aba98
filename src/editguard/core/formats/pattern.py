"""``safe_edit``'s ``search_replace`` (seed 000): literal or regular-expression replacement.

Regular expressions use the ``regex`` package, whose matching takes a timeout: a catastrophic
pattern ends with REGEX_TIMEOUT instead of hanging the server. Patterns match the text with every
line break as ``\\n``; replacements take the file's line endings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import regex

from editguard.core.document import normalize_newlines
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
class PatternPlan:
    """The plan and how many replacements it makes."""

    plan: Plan
    replacements: int


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


def compile_pattern(
    text: str,
    search: str,
    replace: str,
    *,
    is_regex: bool,
    count: int | None,
    flags: int | str = 0,
    timeout: float = REGEX_TIMEOUT,
) -> PatternPlan:
    """Replace ``search`` by ``replace`` in ``text`` (all, or the first ``count``; 0 means all).

    Raises:
        InvalidRequest: empty literal search, or bad flags.
        InvalidRegex: the pattern (or a group reference in ``replace``) is invalid.
        RegexTimeout: matching took longer than ``timeout`` seconds.
    """
    limit = count or None
    if not is_regex:
        needle = normalize_newlines(search)
        if not needle:
            raise InvalidRequest("search is empty", data={"field": "search_replace.search"})
        starts = select_non_overlapping(find_all(text, needle), len(needle))[:limit]
        new = normalize_newlines(replace)
        reps = tuple(Replacement(s, s + len(needle), new) for s in starts)
        return PatternPlan(Plan(reps), len(reps))
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
    return PatternPlan(Plan(tuple(out)), len(out))
