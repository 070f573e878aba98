""".gitignore rules, as git applies them: the deepest file that has a say about a path decides,
and inside one file the last matching line does (``!`` re-includes). Pure: lines in, answers out;
reading the files is the walker's job (fs/walk.py).

Paths here are ``/``-separated and relative to one reference folder (a root of the sandbox); each
rule file knows the folder it sits in, relative to that same reference.

Matching never backtracks without bound. pathspec turns a glob into a regular expression in
which each ``*`` and ``**`` is a loop that Python's engine retries at every split: ``*a*a*a*a*b``
against a name of forty ``a`` took seconds, 5,000 ``*`` more, and a model can write such a line
into a .gitignore as well as send it as an argument. So each pattern's expression is rebuilt
(:func:`_linear`) with the same meaning, but each loop lazy and atomic up to the fixed-length
piece that follows it: the classic glob matcher, which takes the leftmost place of each piece
and never revisits it (right, because ``*`` and ``**`` absorb whatever comes before the next
piece). Consecutive stars are one. Its cost grows with the path times the pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pathspec import GitIgnoreSpec
from pathspec.patterns.gitignore import GitIgnorePatternError
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The compiled rules of one ignore file.

    Attributes:
        base: the folder the rules are relative to ('' for the reference folder itself).
        spec: the compiled patterns.
        quick: one regular expression that matches wherever any pattern does (None when it
            cannot be built): most paths match no pattern, and one search in C tells so
            faster than asking each pattern in turn (a third of a walk's time, measured).
    """

    base: str
    spec: GitIgnoreSpec
    quick: re.Pattern[str] | None = field(default=None, compare=False)
    negates: bool = True  # some pattern re-includes (``!``): a quick match decides nothing


def compile_rules(base: str, lines: Iterable[str]) -> IgnoreFile | None:
    """The rules of an ignore file whose lines are ``lines``, relative to ``base``; None when it
    holds no pattern. A line git would refuse (a lone ``!``) is dropped, as git ignores it,
    instead of failing the whole file."""
    kept = [line for line in lines if line.strip() and not line.startswith("#")]
    if not kept:
        return None
    patterns = []
    for line in kept:
        try:
            pattern = GitIgnoreSpecPattern(line)
        except GitIgnorePatternError:
            continue
        if pattern.include is not None:
            linear = _linear(line)
            if linear is not None:
                pattern.regex = linear
        patterns.append(pattern)
    spec = GitIgnoreSpec(patterns)
    if not len(spec):
        return None
    negates = any(pattern.include is False for pattern in spec.patterns)
    return IgnoreFile(base, spec, _union(spec), negates)


_DIR_MARK = "(?P<ps_d>/)"  # pathspec's mark of a match that is a folder's (GitIgnoreSpec reads it)
_STAR = "[^/]*"  # what pathspec makes of one '*' in a segment (a segment holds no '/')
_ANY_SEGMENTS = "(?:[^/]+/)*?"  # a leading '**/': the fewest whole folders first
_MORE_SEGMENTS = "(?:/[^/]+)*?"  # an inner '/**': likewise


def _linear(line: str) -> re.Pattern[str] | None:
    """The expression pathspec builds for the gitignore ``line``, rebuilt so that matching it
    cannot backtrack without bound (see the module's doc); None where pathspec builds a
    fixed expression of its own (``**``, ``*``, ``*/``: each trivially linear) or the line is
    one this does not know (pathspec's is then kept)."""
    text = line if line.endswith("\\ ") else line.rstrip()
    segments = text.removeprefix("!").split("/")
    is_dir = not segments[-1]
    if not segments[0]:
        del segments[0]
    elif segments[0] != "**" and (len(segments) == 1 or (len(segments) == 2 and not segments[1])):
        segments.insert(0, "**")  # one name, maybe a folder's: at any depth
    if not segments:
        return None
    if not segments[-1]:
        segments[-1] = "**"
    segments = [
        seg for i, seg in enumerate(segments) if not (seg == "**" and i and segments[i - 1] == "**")
    ]
    if segments in (["**"], ["**", "*"], ["**", "*", "**"]):
        return None  # pathspec's own fixed expression
    try:
        return re.compile(_segments_regex(segments, is_dir))
    except (ValueError, re.error):
        return None


def _segments_regex(segments: list[str], is_dir: bool) -> str:
    """The expression of normalized pattern ``segments``: each run of segments between two
    ``**`` is found at its leftmost place after what came before, and kept there (an atomic
    group), as the loop before it is lazy. With one such loop at most, nothing can multiply
    its retries: pathspec's plain greedy loop is kept, half the cost (``*.py``, ``src/**/x``)."""
    last = len(segments) - 1
    plain = sum(1 for i, seg in enumerate(segments) if seg == "**" and i < last) <= 1
    out = ["^"]
    gap = ""  # the '**' loop before the run being built
    run: list[str] = []

    def close() -> None:
        if not run:
            return
        body = "/".join(run)
        if gap == _ANY_SEGMENTS:
            out.append(f"(?:.+/)?{body}" if plain else f"(?>{gap}{body}(?=/|$))")
        elif gap:
            out.append(f"(?:/.+)?/{body}" if plain else f"(?>{gap}/{body}(?=/|$))")
        else:
            out.append(body)
        run.clear()

    for index, segment in enumerate(segments):
        if segment == "**":
            close()
            if index == 0:
                gap = _ANY_SEGMENTS
            elif index < last:
                gap = _MORE_SEGMENTS
            else:
                out.append(_DIR_MARK if is_dir else "/")
            continue
        run.append("[^/]+" if segment == "*" else _segment_regex(segment))
        if index == last:
            close()
            out.append(f"(?:{_DIR_MARK}|$)")
    return "".join(out)


def _segment_regex(segment: str) -> str:
    """One segment's glob as pathspec translates it, each '*' but the last made lazy and
    atomic up to the piece after it (pieces are one character each: a literal, '?', a
    bracket; pathspec writes no '[^/]*' but for a '*', as a segment holds no '/')."""
    # pathspec's own translation of a segment (a static method of the pattern class).
    pieces = _no_slash(GitIgnoreSpecPattern._translate_segment_glob(segment, "raise"))
    parts = pieces.split(_STAR)
    if len(parts) == 1:
        return parts[0]
    middle = "".join(f"(?>{_STAR}?{piece})" for piece in parts[1:-1] if piece)
    return f"{parts[0]}{middle}{_STAR}{parts[-1]}"


def _no_slash(regex: str) -> str:
    """``regex`` (a segment's, as pathspec writes it) with each negated bracket kept from
    matching '/', as git's ``[!a]`` never does: pathspec's ``[^a]`` matched one, so that
    ``*[!a]*[!a]`` spanned two folders."""
    out, i = [], 0
    while i < len(regex):
        char = regex[i]
        if char == "\\":
            out.append(regex[i : i + 2])
            i += 2
            continue
        if char == "[" and regex.startswith("[^", i) and not regex.startswith("[^/]", i):
            out.append("(?!/)")
        if char == "[":  # to the bracket's end: a first ']' (after '^') is a member
            j = i + 2 if regex.startswith("[^", i) else i + 1
            j += regex.startswith("]", j)
            while j < len(regex) and regex[j] != "]":
                j += 2 if regex[j] == "\\" else 1
            out.append(regex[i : j + 1])
            i = j + 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _union(spec: GitIgnoreSpec) -> re.Pattern[str] | None:
    """The alternation of every pattern's regular expression, their named groups made plain
    (a name may appear once in an expression); None if the patterns are not what that needs
    (a later pathspec may build them otherwise: then every path is asked of ``spec``)."""
    parts = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is None or regex is None:
            continue
        if not isinstance(regex.pattern, str) or regex.flags & ~re.UNICODE:
            return None
        # pathspec searches; the union is matched from the start, so a pattern that is not
        # anchored there (``**/``, ``*/``) may start anywhere.
        lead = "" if regex.pattern.startswith("^") else r"[\s\S]*?"
        parts.append("(?:" + lead + re.sub(r"\(\?P<\w+>", "(?:", regex.pattern) + ")")
    try:
        return re.compile("|".join(parts)) if parts else None
    except re.error:
        return None


def is_ignored(rules: Sequence[IgnoreFile], path: str, is_dir: bool) -> bool:
    """Whether ``path`` is ignored by ``rules`` (shallowest first, as found walking down).

    A folder is matched with a trailing ``/`` so that ``build/`` patterns apply to folders only.
    The rules of a folder's parents are not asked about what lies inside an ignored folder: the
    walker never enters one, as git never re-includes a file whose folder is excluded.
    """
    for rule in reversed(rules):
        if rule.base:
            if not path.startswith(rule.base + "/"):
                continue
            relative = path[len(rule.base) + 1 :]
        else:
            relative = path
        candidate = relative + "/" if is_dir else relative
        if rule.quick is not None:
            if rule.quick.match(candidate) is None:
                continue
            if not rule.negates:
                return True  # every pattern ignores, and one matched
        verdict = rule.spec.check_file(candidate).include
        if verdict is not None:
            return verdict
    return False
