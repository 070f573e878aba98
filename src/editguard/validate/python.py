"""Python's compiler as the syntax guard's authority, at the cost of what an edit touched.

``compile()`` of a whole 5,000-line module takes 25-70 ms, and an edit usually changes one
function. So once a text is known to compile, an edit of it compiles only the top-level
statements it touched (the *region*), and the new text is known to compile too.

Why a region that compiles means the whole module compiles, given the old text compiled:

* Regions start and end where a top-level ``def`` or ``class`` statement starts (its first
  decorator included), as the compiler itself reports them (``co_firstlineno`` of the module's
  function and class code objects, kept only for lines that start at column 0 with ``@``,
  ``def``, ``async`` or ``class``). At such a line the tokenizer is outside any bracket, string,
  continuation or block, so the text before the region tokenizes and parses as it did, and so does
  the text after it: no ``else``/``except``/``finally`` can follow, and a region that compiles on
  its own ends with every bracket, string and statement closed.
* What the compiler checks across top-level statements: ``from __future__`` imports (they must
  come first, and change what is valid), and module-level ``global`` declarations after a use of
  the name. A region that mentions ``__future__`` (future imports come before any definition, so
  only a region at the top of the file can hold them or go before them) and any text with a line
  that starts with ``global`` are checked whole. The old text's future
  flags are passed to the region's ``compile()`` (a module importing ``barry_as_FLUFL`` is always
  checked whole: that flag, given to ``compile()``, accepts ``<>``, which the import does not).
* ``return``, ``yield``, ``await``, ``break``, ``nonlocal`` and duplicate arguments are judged
  within one top-level statement, which the region holds whole.

A region that does not compile is not an answer: the whole module is compiled then, so a refused
edit gets exactly the compiler's message, line and column on the whole new text. So does any edit
that cannot be placed in a region safely (a text with a carriage return, which the compiler also
reads as a line break; a region over half the file; a file the guard has not seen compile).
"""

from __future__ import annotations
import __future__

import re
from bisect import bisect_right
from dataclasses import dataclass
from types import CodeType

from editguard.core.memo import ContentMemo
from editguard.core.plan import Plan

# (1-based line, 1-based column, message) of the first error the compiler reports.
Problem = tuple[int, int, str]

# Characters. Below this a whole compile takes a few milliseconds: not worth a region.
REGION_MIN = 20_000

_FUTURE_FLAGS = 0
for _name in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _name).compiler_flag

# barry_as_FLUFL given to compile() lets `<>` through, unlike the same import in the module.
_BARRY = __future__.barry_as_FLUFL.compiler_flag

_DEFINITION = re.compile(r"(?:@|def\b|async\b|class\b)")
_GLOBAL = re.compile(r"^[ \t\f]*global\b", re.MULTILINE)
_FUTURE = "__future__"


@dataclass(frozen=True, slots=True)
class _Compiles:
    """What the guard keeps of a text that compiles."""

    starts: tuple[int, ...]  # offsets where a top-level def or class statement starts, sorted
    flags: int  # its __future__ compiler flags


# Texts known to compile, by content: the text an edit starts from is usually the one the
# previous edit checked.
_KNOWN: ContentMemo[_Compiles] = ContentMemo(size=4, limit=5_000_000)
_KIND = "python"


def check(text: str) -> Problem | None:
    """The compiler's first error in the module ``text``, or None when it compiles.

    A full compile, not just the AST: only the compiler refuses a module-level ``return``,
    ``break`` outside a loop or a duplicate argument (and it is faster than building an AST).
    """
    if _KNOWN.peek(_KIND, text) is not None:
        return None
    try:
        code = compile(text, "<edited>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, f"{type(exc).__name__}: {exc.msg}"
    except ValueError as exc:  # e.g. source code string cannot contain null bytes
        return 1, 1, str(exc)
    _remember(text, code)
    return None


def check_edit(old: str, new: str, plan: Plan, *, min_size: int = REGION_MIN) -> Problem | None:
    """:func:`check` of ``new`` (``old`` after ``plan``), compiling only the region the plan
    touched when ``old`` is known to compile and the region can be judged alone."""
    if len(new) >= min_size and region_accepts(old, new, plan):
        return None
    return check(new)


def region_accepts(old: str, new: str, plan: Plan) -> bool:
    """Whether ``new`` is known to compile from its region alone (False: not known, compile the
    whole text to find out). Remembers ``new`` when it does."""
    known = _KNOWN.peek(_KIND, old)
    if known is None or not plan.replacements:
        return False
    lo, hi = plan.replacements[0].start, plan.replacements[-1].end
    starts = known.starts
    first = bisect_right(starts, lo) - 1
    a = starts[first] if first >= 0 else 0
    after = bisect_right(starts, hi)
    b = starts[after] if after < len(starts) else len(old)
    if 2 * (b - a) > len(old):
        return False
    delta = len(new) - len(old)
    piece = new[a : b + delta]
    if "\r" in piece or _FUTURE in piece or _GLOBAL.search(piece):
        return False
    try:
        code = compile(piece, "<edited>", "exec", flags=known.flags, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False  # the whole text gives the answer (and the exact message)
    # The region's own definitions replace those it held; the ones after it move by delta.
    inside = tuple(a + s for s in _definition_starts(piece, code))
    moved = tuple(s + delta for s in starts[after:])
    compiles = _Compiles(starts[: max(first, 0)] + inside + moved, known.flags)
    _KNOWN.get(_KIND, new, lambda: compiles)
    return True


def _remember(text: str, code: CodeType) -> None:
    """Keep what a region check of an edit of ``text`` (which compiled to ``code``) needs."""
    flags = code.co_flags & _FUTURE_FLAGS
    if "\r" in text or _GLOBAL.search(text) or flags & _BARRY:
        return  # never checked by region
    compiles = _Compiles(tuple(_definition_starts(text, code)), flags)
    _KNOWN.get(_KIND, text, lambda: compiles)


def _definition_starts(text: str, code: CodeType) -> list[int]:
    """Offsets in ``text`` of the lines where its top-level def and class statements start."""
    rows = sorted(
        {
            c.co_firstlineno
            for c in code.co_consts
            if isinstance(c, CodeType) and not c.co_name.startswith("<")
        }
    )
    out = []
    pos, row = 0, 1
    for target in rows:
        while row < target:
            pos = text.index("\n", pos) + 1
            row += 1
        if _DEFINITION.match(text, pos):
            out.append(pos)
    return out
