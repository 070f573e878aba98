"""``safe_edit``'s ``search_replace`` (seed 000): literal or regular-expression replacement.

Regular expressions use the ``regex`` package, whose matching takes a timeout: a catastrophic
pattern ends with REGEX_TIMEOUT instead of hanging the server. Patterns match the text with every
line break as ``\\n``; replacements take the file's line endings.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def parse_flags(flags: int | str) -> int:
    """Flags as an int (``re``'s values) or as names: ``"IGNORECASE|MULTILINE"``.

    Raises:
        InvalidRequest: an unknown flag name.
    """
    if isinstance(flags, int):
        return flags
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
    out: list[Replacement] = []
    try:
        for found in pattern.finditer(text, timeout=timeout):
            out.append(
                Replacement(found.start(), found.end(), normalize_newlines(found.expand(replace)))
            )
            if limit is not None and len(out) >= limit:
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
    except (regex.error, IndexError) as exc:
        raise InvalidRegex(
            f"the replacement refers to a group the pattern does not have: {exc}",
            data={"field": "search_replace.replace", "pattern": search},
        ) from None
    return PatternPlan(Plan(tuple(out)), len(out))
