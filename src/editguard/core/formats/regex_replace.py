"""``safe_edit``'s ``search_replace``: literal or regular-expression replacement over the file.

Regular expressions use the ``regex`` package, whose matching takes a timeout: a catastrophic
pattern ends with REGEX_TIMEOUT instead of hanging the server. Patterns match the text with every
line break as ``\\n``; replacements take the file's line endings.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import regex

from editguard.core.diagnosis import (
    landed_note,
    loosely_and_applied,
    not_found,
    partly_applied,
    too_few,
)
from editguard.core.document import Document, line_numbers, normalize_newlines
from editguard.core.formats import AppliedEdit, Compiled
from editguard.core.formats.place.text import Refusal, tolerant_places
from editguard.core.landed import judge, new_in_place, reader_of, telling
from editguard.core.listing import excerpt
from editguard.core.match import find_separate
from editguard.core.plan import Plan, Replacement
from editguard.core.seek import indent_unit
from editguard.errors import FileTooLarge, InvalidRegex, InvalidRequest, RegexTimeout, TooManyEdits

REGEX_TIMEOUT = 1.0
# Bounds checked before a pattern is compiled: compiling is not covered by the timeout, and the
# regex engine expands counted repetitions (a{100000000} would take gigabytes).
MAX_PATTERN = 10_000  # characters
MAX_REPEAT = 1_000  # one counted repetition, {m,n}
MAX_EXPANSION = 100_000  # atoms after counted repetitions are expanded
MAX_MATCHES = 500_000  # places one replacement may change

_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_RECURSION = re.compile(r"\(\?(?:R|[+-]?\d+|&\w+|P>\w+)\)")
_GROUP = re.compile(r"\(\?(?:<[=!]|P?<\w+>|[:=!>|]|[a-zA-Z-]*:?)")

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
    exact: bool = False


def compile_regex_replace(
    doc: Document,
    request: RegexReplace,
    *,
    required: bool,
    max_size: int | None = None,
    timeout: float = REGEX_TIMEOUT,
) -> Compiled:
    """Compile a replacement over the whole of ``doc``.

    A literal search found nowhere exactly is looked for on the match ladder of
    :mod:`editguard.core.seek` (unless ``request.exact``): it lands when the first rung that
    finds it finds it at one place (or at ``count`` places when a count is given), with the
    same correction applied to the replacement. A search that matches nothing raises NO_MATCH
    when ``required`` (strict mode), and is otherwise a warning on an empty plan; so does one
    that matches fewer places than ``count`` (WRONG_COUNT, or a warning and those places).
    ``max_size`` bounds the new text (in characters) while the replacements are made, so that
    many matches of a long replacement cannot fill memory.

    Raises:
        InvalidRequest: empty literal search, or bad flags.
        InvalidRegex: the pattern (or a group reference in ``replace``) is invalid.
        RegexTimeout: matching took longer than ``timeout`` seconds.
        NoMatch: nothing matched and ``required``, or a tolerant match cannot carry its
            correction over to the replacement.
        WrongCount: fewer places than ``count`` matched and ``required`` (otherwise a warning).
        WrongCount: the ladder's first rung that finds the literal finds it at another number
            of places than expected.
        TooManyEdits: more than MAX_MATCHES places match.
        FileTooLarge: the new text would pass ``max_size``.
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
        max_size=max_size,
    )
    match: tuple[str, str | None] = ("exact", None)
    if not plan and not request.regex and not request.exact:
        plan, match = _tolerant(doc, request)
    path = doc.name or "the file"
    if not request.regex:
        done = _landed(doc, request, plan, match)
        if done is not None:
            return done
    if not plan:
        if required:
            raise not_found(doc.text, request.search, path, request.count or 1)
        warning = f"pattern {request.search!r} not found; nothing was changed"
        return Compiled(plan, (AppliedEdit(0, 0, ()),), (warning,))
    starts = [r.start for r in plan.replacements]
    lines = line_numbers(doc.text, starts)
    warnings: tuple[str, ...] = ()
    if request.count and len(starts) < request.count:
        if required:
            raise too_few(doc.text, request.search, path, request.count, tuple(starts))
        warnings = (
            f"count is {request.count} but search matched {len(starts)} place(s), at line(s) "
            f"{', '.join(map(str, lines[:50]))}; those were replaced",
        )
    doc.check_encodable("".join(r.text for r in plan.replacements))
    shift, landed = 0, []
    for r, line in zip(plan.replacements, lines, strict=True):
        landed.append(line + shift)
        shift += r.text.count("\n") - doc.text.count("\n", r.start, r.end)
    return Compiled(plan, (AppliedEdit(0, len(landed), tuple(landed), *match),), warnings)


def _landed(
    doc: Document, request: RegexReplace, plan: Plan, match: tuple[str, str | None]
) -> Compiled | None:
    """The result of a literal replacement the file already reads as done (a retry; see
    :mod:`editguard.core.landed`): the places it would change are all inside copies of the
    replacement, or it finds nothing and the replacement stands where it would have gone.
    ``None`` when it is not done.

    Raises:
        AmbiguousMatch: some of its places are inside a copy, others not; or the search is
            found only loosely while the replacement is in the file exactly.
    """
    text = doc.text
    search, replace = normalize_newlines(request.search), normalize_newlines(request.replace)
    path = doc.name or "the file"
    expected = request.count or None
    if plan:
        places = [(r.start, text[r.start : r.end], r.text) for r in plan.replacements]
        judged = judge(reader_of(text), len(text), places, expected)
        if judged.partly and (judged.pending or expected is None):
            raise partly_applied(
                text,
                search,
                list(judged.landed),
                list(judged.pending),
                path,
                None,
                None,
                what="search",
                new="replace",
            )
        if judged.copies:
            return _already(text, judged.copies, match[1])
        if match[0] != "exact" and telling(search, replace):
            copies = find_separate(text, replace, limit=MAX_MATCHES)
            if copies and len(copies) == (expected or len(copies)):
                raise loosely_and_applied(
                    text,
                    search,
                    copies,
                    [r.start for r in plan.replacements],
                    match[0],
                    path,
                    None,
                    None,
                    what="search",
                    new="replace",
                )
        return None
    copies_found = new_in_place(text, search, replace, expected)
    return None if copies_found is None else _already(text, copies_found, None)


def _already(text: str, copies: tuple[int, ...], note: str | None) -> Compiled:
    lines = line_numbers(text, copies)
    said = landed_note(lines, note, what="replace")
    return Compiled(Plan(), (AppliedEdit(0, 0, tuple(lines), note=said, already_applied=True),))


def _tolerant(doc: Document, request: RegexReplace) -> tuple[Plan, tuple[str, str | None]]:
    """The plan of a literal search found on the match ladder (empty when it is not).

    Raises:
        WrongCount, NoMatch: found at another number of places than expected, or with a
            correction that cannot be carried over to the replacement.
    """
    search = normalize_newlines(request.search)
    if not search.strip():
        return Plan(), ("exact", None)
    text = doc.text
    found = tolerant_places(
        text,
        search,
        normalize_newlines(request.replace),
        request.count or 1,
        indent_unit(text.split("\n", 5000)[:5000]),
    )
    if found is None:
        return Plan(), ("exact", None)
    if isinstance(found, Refusal):
        raise found.error(text, search, doc.name or "the file", None, None, False)
    plan = Plan(tuple(Replacement(p.start, p.end, p.new) for p in found.places))
    return plan, (found.rung, found.note)


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


def check_pattern(pattern: str, *, field: str = "search_replace.search") -> None:
    """Refuse a pattern that compiling alone would make too costly (``field``: the argument
    that holds it, as the error names it).

    Raises:
        InvalidRegex: the pattern is longer than MAX_PATTERN characters, a counted repetition
            is above MAX_REPEAT, or its counted repetitions expand it to more than
            MAX_EXPANSION atoms; the message says which limit.
    """
    if len(pattern) > MAX_PATTERN:
        raise InvalidRegex(
            f"the pattern is {len(pattern):,} characters long; the limit is {MAX_PATTERN:,}",
            data={"field": field, "limit": "pattern_length", "maximum": MAX_PATTERN},
            suggestions=["Search for a shorter, distinctive part, or use a literal search."],
        )
    if _recursion(pattern):
        raise InvalidRegex(
            "the pattern calls itself or a group ((?R), (?1), (?&name), (?P>name)); recursive "
            "patterns are not supported (the engine can take gigabytes before it gives up)",
            data={"field": field, "limit": "recursion"},
            suggestions=["Write the nesting out to a fixed depth, or search in several steps."],
        )
    # Counted twice: reading character classes as the engine does, and blind to them, so that a
    # "[" the engine reads otherwise (in a comment, in verbose mode) cannot hide a count.
    (big_a, size_a), (big_b, size_b) = _repetitions(pattern), _repetitions(pattern, False)
    biggest, expansion = max(big_a, big_b), max(size_a, size_b)
    if biggest > MAX_REPEAT:
        raise InvalidRegex(
            f"the pattern repeats something {biggest:,} times ({{n}}); the limit for one "
            f"counted repetition is {MAX_REPEAT:,}",
            data={"field": field, "limit": "repetition_count", "maximum": MAX_REPEAT},
            suggestions=["Use + or * instead of a large count, or a smaller count."],
        )
    if expansion > MAX_EXPANSION:
        raise InvalidRegex(
            f"the pattern's counted repetitions expand it to about {expansion:,} items; the "
            f"limit is {MAX_EXPANSION:,}",
            data={"field": field, "limit": "repetition_expansion", "maximum": MAX_EXPANSION},
            suggestions=["Use + or * instead of large or nested counts."],
        )


def _repetitions(pattern: str, classes: bool = True) -> tuple[int, int]:
    """(the largest count of one ``{m,n}`` repetition, about how many atoms the engine expands
    the pattern to: each counted repetition multiplies its atom or group, and a sequence adds
    up its items). Escapes and character classes are one atom each."""
    biggest = 0
    sums = [0]  # for each open group: the expanded size of what it holds so far
    last = 0  # the expanded size of the item a quantifier would apply to
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        # Comments, and in the blind reading any whitespace or "#..." line, are transparent: a
        # count after them repeats the item before them (as in verbose mode).
        if pattern.startswith("(?#", i):
            end = pattern.find(")", i)
            i = n if end < 0 else end + 1
            continue
        if not classes and (c.isspace() or c == "#"):
            if c == "#":
                end = pattern.find("\n", i)
                i = n if end < 0 else end + 1
            else:
                i += 1
            continue
        if c == "(":
            sums.append(0)
            opener = _GROUP.match(pattern, i)  # (?:, (?P<name>, (?=, (?i) ... add no atom
            i, last = (opener.end() if opener else i + 1), 0
            continue
        if c == ")":
            inner = max(sums.pop(), 1) if len(sums) > 1 else 1
            sums[-1] += inner
            i, last = i + 1, inner
            continue
        if c == "{" and (count := _COUNT.match(pattern, i)) and any(count.groups()):
            low, high = count.group(1), count.group(2)
            digits = len(low) + len(high or "")
            bound = max(int(low or 0), int(high or 0)) if digits < 12 else 10**12
            biggest = max(biggest, bound)
            sums[-1] += last * (max(bound, 1) - 1)  # the item was counted once already
            last *= max(bound, 1)
            i = count.end()
            continue
        if c == "\\":
            i += 2
        elif c == "[" and classes:
            i = _after_class(pattern, i)
        else:
            i += 1
        sums[-1] += 1
        last = 1
    return biggest, sum(sums)


class _Size:
    """The length of the new text as replacements are made, refused past a limit."""

    def __init__(self, start: int, limit: int | None) -> None:
        self.now, self.limit = start, limit

    def add(self, change: int) -> None:
        self.now += change
        if self.limit is not None and self.now > self.limit:
            raise FileTooLarge(
                f"the replacements would make the file {self.now:,} characters or more; the "
                f"limit is {self.limit:,} bytes; nothing was changed",
                data={"size": self.now, "limit": self.limit, "result": True},
                suggestions=["Replace fewer places (count), or use a shorter replacement."],
            )


# However many matches keep coming, matching stops after this many timeouts' worth of time.
TOTAL_TIMEOUTS = 10


def _collect(pattern: Any, text: str, limit: int | None, timeout: float) -> list[Any]:
    """Every match of ``pattern`` in ``text`` (the first ``limit``), as ``finditer`` gives
    them. ``timeout`` bounds each stretch of matching that finds nothing (backtracking that
    does not end), not the time many quick matches take together (on a slow machine 200,000
    matches of a plain word take longer than that): a stretch that found a match resumes from
    its end, up to :data:`TOTAL_TIMEOUTS` times ``timeout`` in all.

    Raises:
        TimeoutError: a stretch found nothing in ``timeout``, or the whole took too long.
        TooManyEdits: more than MAX_MATCHES matches.
    """
    matches: list[Any] = []
    started = time.monotonic()
    pos = 0
    while True:
        before = len(matches)
        try:
            for found in pattern.finditer(text, pos=pos, timeout=timeout):
                if len(matches) == before and before and _again(found, matches[-1]):
                    continue  # the empty match the stretch before ended on
                matches.append(found)
                if limit is not None and len(matches) >= limit:
                    return matches
                _check_matches(len(matches))
        except TimeoutError:
            if len(matches) == before or time.monotonic() - started > TOTAL_TIMEOUTS * timeout:
                raise
            pos = matches[-1].end()
            continue
        return matches


def _again(found: Any, last: Any) -> bool:
    """Whether ``found`` is ``last`` again: an empty match where the previous stretch ended
    (``finditer`` from that position meets it again; a non-empty match there is new)."""
    return bool(found.start() == found.end() == last.start() == last.end())


def _check_matches(found: int) -> None:
    if found > MAX_MATCHES:
        raise TooManyEdits(
            f"the search matches more than {MAX_MATCHES:,} places; the limit for one "
            "replacement is that many",
            data={"field": "search_replace.search", "limit": MAX_MATCHES},
            suggestions=["Set count, or make the search more specific."],
        )


def _recursion(pattern: str) -> bool:
    """Whether ``pattern`` holds a recursive call outside escapes and character classes."""
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
        elif c == "[":
            i = _after_class(pattern, i)
        elif c == "(" and _RECURSION.match(pattern, i):
            return True
        else:
            i += 1
    return False


def _after_class(pattern: str, i: int) -> int:
    """The index just after the character class that starts at ``pattern[i]`` (``[``)."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1  # a ] right after [ or [^ is a member
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1 if j < len(pattern) else i + 1  # no "]": a literal "[" (as the engine reads it)


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
    max_size: int | None,
) -> Plan:
    """Replace ``search`` by ``replace`` in ``text`` (all, or the first ``count``; 0 means all)."""
    limit = count or None
    size = _Size(len(text), max_size)
    if not is_regex:
        needle = normalize_newlines(search)
        if not needle:
            raise InvalidRequest("search is empty", data={"field": "search_replace.search"})
        starts = find_separate(text, needle, limit=limit or MAX_MATCHES + 1)
        _check_matches(len(starts))
        new = normalize_newlines(replace)
        size.add((len(new) - len(needle)) * len(starts))
        reps = tuple(Replacement(s, s + len(needle), new) for s in starts)
        return Plan(reps)
    check_pattern(search)
    try:
        pattern = regex.compile(search, parse_flags(flags))
    except (RecursionError, MemoryError, OverflowError):
        raise InvalidRegex(
            "the pattern is nested too deeply to compile",
            data={"field": "search_replace.search", "limit": "nesting"},
        ) from None
    except regex.error as exc:
        # The stubs do not declare them, but regex errors carry msg and pos like re's do.
        position: int | None = getattr(exc, "pos", None)
        reason: str = getattr(exc, "msg", str(exc))
        raise InvalidRegex(
            f"the pattern is not a valid regular expression: {reason}"
            + (f" at position {position}" if position is not None else ""),
            data={
                "field": "search_replace.search",
                "position": position,
                "pattern": excerpt(search),
            },
        ) from None
    # The timeout is for the matching alone: collect the matches first, expand them after.
    try:
        matches = _collect(pattern, text, limit, timeout)
    except (RecursionError, MemoryError):
        raise InvalidRegex(
            "matching the pattern on this file needs more memory than there is (a repetition "
            "of a group over a large file?); nothing was changed",
            data={"field": "search_replace.search", "limit": "memory"},
            suggestions=["Anchor the pattern, or repeat a plain character instead of a group."],
        ) from None
    except TimeoutError:
        raise RegexTimeout(
            f"the pattern took longer than {timeout:g} s to match on this file (catastrophic "
            "backtracking, e.g. nested or overlapping repetition, or very many matches in a "
            "large file); nothing was changed",
            data={"pattern": excerpt(search), "timeout_seconds": timeout},
            suggestions=[
                "Simplify the pattern: avoid nested quantifiers like (a|aa)+ and anchor "
                "it, or use a literal search."
            ],
        ) from None
    out: list[Replacement] = []
    try:
        for m in matches:
            new = normalize_newlines(m.expand(replace))
            size.add(len(new) - (m.end() - m.start()))
            out.append(Replacement(m.start(), m.end(), new))
    except IndexError as exc:  # \2 or \g<name> that the pattern does not define
        raise InvalidRegex(
            f"the replacement refers to a group the pattern does not have ({exc}); the pattern "
            f"has {pattern.groups} group(s)"
            + (f" named {', '.join(sorted(pattern.groupindex))}" if pattern.groupindex else ""),
            data={
                "field": "search_replace.replace",
                "pattern": excerpt(search),
                "groups": pattern.groups,
            },
        ) from None
    except regex.error as exc:  # a bad escape such as \U in C:\Users
        at: int | None = getattr(exc, "pos", None)
        why: str = getattr(exc, "msg", str(exc))
        raise InvalidRegex(
            f"the replacement is not a valid template: {why}"
            + (f" at position {at}" if at is not None else "")
            + " (write a literal backslash as \\\\)",
            data={"field": "search_replace.replace", "position": at, "replace": excerpt(replace)},
        ) from None
    return Plan(tuple(out))
