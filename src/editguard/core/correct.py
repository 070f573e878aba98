"""Carry the correction that made old text match on a rung over to the new text.

:func:`correct` takes a hit (:class:`~editguard.core.ladder.SeekHit`: where and on which rung
the old lines matched) and gives the lines to write for the new text: line-number prefixes
removed, the indentation shifted, typographic punctuation mapped as the file writes it, trailing
whitespace as the file's lines end. A correction undoes only what the old and new text have in
common, never the change itself, when the change is what the rung ignores; where the new text's
true form cannot be known, it refuses (:class:`Uncorrectable`) with a sentence for the model.
:func:`used` and :func:`explain` name what differed, so a result can tell the model to send the
file's exact text next time.

Pure: lists of strings in, lines out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from difflib import SequenceMatcher

from editguard.core.ladder import (
    INDENT,
    NUMBERS,
    PREFIX,
    PUNCTUATION_MAP,
    PUNCTUATION_TOLERANCE,
    TRAILING,
    TYPOGRAPHIC,
    Rung,
    SeekHit,
    columns,
    normalize,
    rung_named,
    rung_of,
    split_indent,
    strip_numbers,
    uses_tabs,
)

Opcode = tuple[str, int, int, int, int]
"""difflib's form: ``(tag, i1, i2, j1, j2)``, ``a[i1:i2]`` becomes ``b[j1:j2]``."""


class Uncorrectable(ValueError):
    """The correction that made old text match cannot be applied to the new text without a
    guess; the message says why, in a sentence for the model."""


class OnlyIgnored(Uncorrectable):
    """The new text differs from the old only in what the rung ignores: applied to text found
    with that rung, the edit would change nothing that it means to change."""


def correct(
    hit: SeekHit,
    found: Sequence[str],
    new: Sequence[str],
    *,
    file_uses_tabs: bool = False,
    file_typographic: frozenset[str] = frozenset(),
    structure: Sequence[Opcode] | None = None,
) -> list[str]:
    """The lines to write for ``new``, given the hit that matched the old lines at ``found``.

    The correction that made the old lines match is applied to the new ones: line-number
    prefixes are removed, the indentation shifted (tabs and spaces as the matched lines use
    them, else as ``file_uses_tabs`` says), typographic punctuation that the file's region wrote
    in ASCII mapped to ASCII (every typographic character the file does not use, as
    ``file_typographic`` lists them, when the old lines held some the region writes in
    ASCII). A new line equal to its old one is written as the file has it, byte for byte.

    A correction undoes only what the old and new lines have in common, never the difference
    between them: a new line that differs from its old one only in what the rung ignores (its
    trailing whitespace removed, a tab for spaces, a typographic quote for an ASCII one) is the
    file's line with the parts the model changed taken from the new line; a changed line keeps
    the punctuation it changes. ``structure``: which old lines the new ones keep, when the
    caller knows it (a patch's context lines), as :func:`line_opcodes` takes it.

    Raises:
        OnlyIgnored: the edit changes only what the rung ignores, and the file's lines already
            read as the new ones in it (nothing to write).
        Uncorrectable: a new line's true form
            cannot be known (a line at column 0 under a block that was sent under-indented,
            mixed line-number prefixes, ASCII quotes where the file uses typographic ones).
    """
    rung = rung_named(hit.rung)
    old = hit.pattern
    tolerances = rung.tolerances
    if NUMBERS in tolerances:
        new = _strip_new_numbers(new, hit)
    key = _line_key(rung, hit.tab)
    old_keys = [key(line) for line in old]
    new_keys = [key(line) for line in new]
    tabs = uses_tabs(found)
    if tabs is None:
        tabs = file_uses_tabs
    forms = (
        _punctuation_forms(old, found, file_typographic)
        if PUNCTUATION_TOLERANCE in tolerances
        else None
    )
    out: list[str] = []
    tails = _stray_tails(old, found) if TRAILING in tolerances else {}
    for op, i1, i2, j1, j2 in line_opcodes(old_keys, new_keys, structure):
        if op == "equal":
            for k in range(i2 - i1):
                o, n, f = old[i1 + k], new[j1 + k], found[i1 + k]
                out.append(f if o == n else _merge_line(o, n, f, hit, tolerances, j1 + k))
            continue
        for j in range(j1, j2):
            # A changed line that takes the place of an old line at column 0 is at the
            # block's base (what that old line was); an added one may have been clipped.
            paired = i1 + j - j1 if i2 - i1 == j2 - j1 else None
            base = paired is not None and not split_indent(old[paired])[0]
            # Tabs or spaces as the file's line it replaces, or the one before it, has them.
            ref = paired if paired is not None else (i1 - 1 if i1 else i1)
            style = uses_tabs(found[ref : ref + 1]) if ref < len(found) else None
            if paired is not None:
                # Unless the line changes tabs for spaces (or back) itself: that is the edit.
                was, now = split_indent(old[paired])[0], split_indent(new[j])[0]
                if was and now and ("\t" in was) != ("\t" in now):
                    style = "\t" in now
            keep = _changed_punctuation(old[paired], new[j]) if paired is not None else set()
            line = _fix_line(
                new[j],
                j,
                hit,
                tolerances,
                tabs if style is None else style,
                forms,
                base=base,
                keep=keep,
            )
            if TRAILING in tolerances:
                line = (
                    _same_tail(line, old[paired], found[paired])
                    if paired is not None
                    else _mapped_tail(line, tails)
                )
            out.append(line)
    if old_keys == new_keys and out == list(found):
        raise OnlyIgnored(
            f"the edit changes only what the {hit.rung.replace('+', ' and ').replace('_', ' ')} "
            "tolerance ignores, and the file's lines already read so"
        )
    return out


def _parts(line: str, tolerances: frozenset[str]) -> tuple[str, str, str]:
    """A line as its indentation, body and trailing whitespace, where the rung ignores those
    (else they are part of the body)."""
    indent = split_indent(line)[0] if INDENT in tolerances else ""
    rest = line[len(indent) :]
    tail = _tail(rest) if TRAILING in tolerances else ""
    return indent, rest[: len(rest) - len(tail)], tail


def _merge_line(
    old: str, new: str, found: str, hit: SeekHit, tolerances: frozenset[str], index: int
) -> str:
    """The line to write for ``new``, which differs from ``old`` only in what the rung
    ignores, ``old`` having matched the file's ``found``: each part the model kept (the
    indentation, each punctuation character, the trailing whitespace) as the file has it, each
    part it changed as the new line has it. So the correction never undoes the edit."""
    if not new.strip() or not found.strip():
        return new
    oi, ob, ot = _parts(old, tolerances)
    ni, nb, nt = _parts(new, tolerances)
    fi, fb, ft = _parts(found, tolerances)
    tail = ft if nt == ot else nt
    if nb == ob:
        body = fb
    elif len(nb) == len(ob) == len(fb) and "\u2026" not in nb + ob + fb:
        body = "".join(f if n == o else n for o, n, f in zip(ob, nb, fb, strict=True))
    else:
        raise Uncorrectable(
            f"new_text line {index + 1} changes punctuation in a line whose old text differs "
            "from the file's in punctuation too, so which characters you mean cannot be told; "
            "copy the line from the file and change only what you mean"
        )
    slip = len(oi) - len(fi)
    if ni == oi:
        indent = fi
    elif slip >= 0 and oi.endswith(fi) and ni.startswith(oi[:slip]):
        indent = ni[slip:]  # the old lines' extra leading characters taken off the new line
    elif slip < 0 and fi.endswith(oi):
        indent = fi[:-slip] + ni  # the characters they lacked put back
    else:  # the same width, other characters (tabs for spaces): as sent, shifted
        tab = hit.tab or 4
        target = columns(ni, tab) + hit.shift
        if target < 0:
            raise Uncorrectable(
                f"its indentation was {-hit.shift} columns too deep, which would put new_text "
                f"line {index + 1} before column 0; send new_text with the file's indentation"
            )
        indent = "\t" * (target // tab) + " " * (target % tab) if "\t" in ni else " " * target
    return indent + body + tail


def _changed_punctuation(old: str, new: str) -> set[int]:
    """The positions in ``new`` of punctuation characters that the model changed from the
    old line's (a typographic quote for an ASCII one, or back): the difference the edit makes,
    which no correction may map back."""
    if len(old) > 2000 or len(new) > 2000 or old == new:
        return set()
    keep: set[int] = set()
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or i2 - i1 != j2 - j1:
            continue
        for a, b in zip(range(i1, i2), range(j1, j2), strict=True):
            if old[a] != new[b] and old[a].translate(PUNCTUATION_MAP) == new[b].translate(
                PUNCTUATION_MAP
            ):
                keep.add(b)
    return keep


_DIFF_BUDGET = 10_000
"""Pairs of lines difflib may compare in one :func:`line_opcodes` call: its matcher is cubic
on repeated lines (200 lines against 200 take a tenth of a second, 2000 a minute)."""


def line_opcodes(
    a: Sequence[object], b: Sequence[object], structure: Sequence[Opcode] | None = None
) -> list[Opcode]:
    """Opcodes from ``a`` to ``b`` covering both, equal runs as ``"equal"`` and every other
    run as ``"replace"``, ``"delete"`` or ``"insert"``.

    With ``structure`` (opcodes covering both, from what the caller knows: a patch's context,
    removed and added lines), those, set right in linear time: an ``"equal"`` line that
    differs is changed, and a changed run's first and last lines equal on both sides are kept.
    Without it, the lines both start and end with are kept, and the middle is compared by
    difflib while that is cheap (at most :data:`_DIFF_BUDGET` pairs), else it is one run.
    """
    if structure is None:
        structure = [("replace", 0, len(a), 0, len(b))]
        budget = _DIFF_BUDGET
    else:
        budget = 0
    runs: list[list[int]] = []  # changed runs, adjacent ones merged
    for tag, i1, i2, j1, j2 in structure:
        if tag == "equal":
            for k in range(i2 - i1):
                if a[i1 + k] != b[j1 + k]:
                    _add_run(runs, i1 + k, i1 + k + 1, j1 + k, j1 + k + 1)
        elif i1 < i2 or j1 < j2:
            _add_run(runs, i1, i2, j1, j2)
    out: list[Opcode] = []
    i = j = 0
    for run in runs:
        i1, i2, j1, j2 = run
        while i1 < i2 and j1 < j2 and a[i1] == b[j1]:
            i1, j1 = i1 + 1, j1 + 1
        while i1 < i2 and j1 < j2 and a[i2 - 1] == b[j2 - 1]:
            i2, j2 = i2 - 1, j2 - 1
        if i1 == i2 and j1 == j2:
            continue
        if i < i1:
            out.append(("equal", i, i1, j, j1))
        if 0 < (i2 - i1) * (j2 - j1) <= budget:
            budget -= (i2 - i1) * (j2 - j1)
            matcher = SequenceMatcher(None, a[i1:i2], b[j1:j2], autojunk=False)
            out += [(t, p + i1, q + i1, r + j1, s + j1) for t, p, q, r, s in matcher.get_opcodes()]
        else:
            out.append(
                (
                    "replace" if i1 < i2 and j1 < j2 else "delete" if i1 < i2 else "insert",
                    i1,
                    i2,
                    j1,
                    j2,
                )
            )
        i, j = i2, j2
    if i < len(a) or j < len(b):
        out.append(("equal", i, len(a), j, len(b)))
    return out


def _add_run(runs: list[list[int]], i1: int, i2: int, j1: int, j2: int) -> None:
    if runs and runs[-1][1] == i1 and runs[-1][3] == j1:
        runs[-1][1], runs[-1][3] = i2, j2
    else:
        runs.append([i1, i2, j1, j2])


def _line_key(rung: Rung, tab: int) -> Callable[[str], object]:
    """How ``rung`` compares a line: what is left of it once the rung's tolerances are set
    aside (indentation as its width in columns, a tab ``tab`` wide)."""
    indented = INDENT in rung.tolerances

    def key(line: str) -> object:
        text = normalize(line, rung)
        if not indented:
            return text
        indent, body = split_indent(text)
        return (columns(indent, tab or 4) if body else 0, body)

    return key


def _strip_new_numbers(new: Sequence[str], hit: SeekHit) -> Sequence[str]:
    """``new`` without the line-number prefixes the model pasted on it too: when its first
    line with text starts with the number the old text started with. Otherwise what looks like
    a prefix is text (``1: "one"`` in a dict) and stays."""
    texts = [line for line in new if line]
    first = PREFIX.match(texts[0]) if texts else None
    if first is None or int(first.group(1)) != hit.number:
        if hit.pad_unknown:
            raise Uncorrectable(
                "its line-number prefixes may or may not end with a space, so new_text sent "
                "without them cannot be indented; send new_text with the file's indentation, "
                "or with the same prefixes"
            )
        return new
    if not all(PREFIX.match(line) for line in texts):
        raise Uncorrectable(
            "old_text had a line-number prefix on every line, and new_text has one on some "
            "lines only, so it cannot be told which are prefixes; send both without them"
        )
    stripped = strip_numbers(texts, padding=hit.padded) or strip_numbers(texts)
    assert stripped is not None
    rest = iter(stripped[0])
    return [next(rest) if line else line for line in new]


def _tail(line: str) -> str:
    return line[len(line.rstrip()) :]


def _stray_tails(old: Sequence[str], found: Sequence[str]) -> dict[str, str]:
    """The trailing whitespace the old lines were sent with where the file's lines end
    otherwise, and how those end: one file ending per stray ending, or it is left out."""
    seen: dict[str, set[str]] = {}
    for o, f in zip(old, found, strict=False):
        if _tail(o) and _tail(o) != _tail(f):
            seen.setdefault(_tail(o), set()).add(_tail(f))
    return {tail: ends.pop() for tail, ends in seen.items() if len(ends) == 1}


def _mapped_tail(line: str, tails: dict[str, str]) -> str:
    """An added line ending with a stray ending of the old lines ends as the file's did."""
    tail = _tail(line)
    if tail in tails:
        return line[: len(line) - len(tail)] + tails[tail]
    return line


def _same_tail(line: str, old: str, found: str) -> str:
    """A changed line that ends with the same stray whitespace as the old line it replaces
    (whitespace the file's line does not have) ends as the file's line does. A line sent
    without trailing whitespace stays so: that is how a model writes a line it means."""
    tail, old_tail, found_tail = (x[len(x.rstrip()) :] for x in (line, old, found))
    if tail and tail == old_tail and old_tail != found_tail:
        return line[: len(line) - len(tail)] + found_tail
    return line


def _punctuation_forms(
    old: Sequence[str], found: Sequence[str], used: frozenset[str]
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """How the old lines' punctuation stood to the file's, character by character:

    * the typographic characters the old lines wrote where the file has ASCII, and never where
      it has them too (a changed line gets them mapped to ASCII, and with them every other
      typographic character the file does not use: the model writes them all so);
    * the ASCII forms the old lines wrote where the file has a typographic character (a
      changed line holding one is ambiguous);
    * the typographic characters written both for ASCII and for themselves (ambiguous too).
    """
    mismatched: set[str] = set()
    genuine: set[str] = set()
    reverse: set[str] = set()
    for o, f in zip(old, found, strict=False):
        for oc, fc in _aligned(o, f):
            if oc == fc:
                if oc in TYPOGRAPHIC:
                    genuine.add(oc)
            elif oc in TYPOGRAPHIC:
                mismatched.add(oc)
            elif fc in TYPOGRAPHIC:
                reverse.add(oc)
    forward = mismatched - genuine
    if forward:
        forward |= TYPOGRAPHIC - used - genuine
    return frozenset(forward), frozenset(reverse), frozenset(mismatched & genuine)


def _aligned(old: str, found: str) -> list[tuple[str, str]]:
    """The characters of a matched old line and the file's line, paired where they differ
    only in punctuation (an ellipsis pairs with the first of its three dots); ``[]`` when the
    lines differ otherwise (their whitespace, which the other tolerances handle)."""
    o, f = old.strip(), found.strip()
    om = [(i, ch) for i, c in enumerate(o) for ch in c.translate(PUNCTUATION_MAP)]
    fm = [(k, ch) for k, c in enumerate(f) for ch in c.translate(PUNCTUATION_MAP)]
    if [c for _, c in om] != [c for _, c in fm]:
        return []
    pairs: dict[int, str] = {}
    for (i, _), (k, _) in zip(om, fm, strict=True):
        pairs.setdefault(i, f[k])
    return [(o[i], fc) for i, fc in pairs.items()]


def _fix_line(
    line: str,
    index: int,
    hit: SeekHit,
    tolerances: frozenset[str],
    tabs: bool,
    forms: tuple[frozenset[str], frozenset[str], frozenset[str]] | None,
    *,
    base: bool = False,
    keep: set[int] | frozenset[int] = frozenset(),
) -> str:
    if forms is not None:
        ascii_only, reverse, both = forms
        if any(c in both for c in line):
            raise Uncorrectable(
                f"new_text line {index + 1} has typographic characters that old_text wrote both "
                "for the file's ASCII ones and for its own, so it cannot be told which you "
                "mean; copy those characters from the file"
            )
        if any(form in line for form in reverse):
            raise Uncorrectable(
                f"new_text line {index + 1} has ASCII punctuation where the file's lines use "
                "typographic characters, so it cannot be told which one you mean; copy those "
                "characters from the file"
            )
        if ascii_only:
            line = "".join(
                c.translate(PUNCTUATION_MAP) if c in ascii_only and i not in keep else c
                for i, c in enumerate(line)
            )
    if INDENT not in tolerances:
        return line
    indent, body = split_indent(line)
    if not body:
        return ""  # a blank line's whitespace was shifted too: it has none of its own
    width = columns(indent, hit.tab or 4)
    if hit.shift > 0 and width == 0 and not base:
        raise Uncorrectable(
            f"its indentation was {hit.shift} columns short, and new_text line {index + 1} adds "
            "a line at column 0, whose true column cannot be known; send new_text with the "
            "file's indentation"
        )
    target = width + hit.shift
    if target < 0:
        raise Uncorrectable(
            f"its indentation was {-hit.shift} columns too deep, which would put new_text line "
            f"{index + 1} before column 0; send new_text with the file's indentation"
        )
    tab = hit.tab or 4
    new_indent = "\t" * (target // tab) + " " * (target % tab) if tabs else " " * target
    return new_indent + body


def used(hit: SeekHit, found: Sequence[str]) -> str:
    """The tolerances of the hit's rung that the matched lines needed (a chunk's rung always
    includes trailing whitespace, say, and a combination may hold one that changed nothing),
    named like a rung; the rung's own name when none can be told."""
    rung = rung_named(hit.rung)
    old = hit.pattern
    pairs = list(zip(found, old, strict=False))
    needed = []
    if TRAILING in rung.tolerances and any(
        f[len(f.rstrip()) :] != p[len(p.rstrip()) :] for f, p in pairs
    ):
        needed.append(TRAILING)
    if PUNCTUATION_TOLERANCE in rung.tolerances and any(
        (c in TYPOGRAPHIC) for f, p in pairs if f != p for c in f + p
    ):
        needed.append(PUNCTUATION_TOLERANCE)
    if NUMBERS in rung.tolerances:
        needed.append(NUMBERS)
    if INDENT in rung.tolerances and (hit.shift or _converted(hit, found)):
        needed.append(INDENT)
    return rung_of(*needed).name if needed else hit.rung


def _converted(hit: SeekHit, found: Sequence[str]) -> bool:
    """Whether tabs stood for spaces or the other way round."""

    def tabbed(lines: Iterable[str]) -> bool:
        return any("\t" in split_indent(line)[0] for line in lines)

    return tabbed(found) != tabbed(hit.pattern)


def explain(hit: SeekHit, found: Sequence[str], what: str = "old_text") -> str:
    """One sentence telling the model what differed from the file (in ``what`` it sent), so it
    can send the file's text exactly next time."""
    tolerances = rung_named(used(hit, found)).tolerances
    parts = []
    if TRAILING in tolerances:
        parts.append("trailing whitespace")
    if PUNCTUATION_TOLERANCE in tolerances:
        parts.append("typographic quotes, dashes or spaces (the file has other ones)")
    if NUMBERS in tolerances:
        parts.append("a line-number prefix on every line")
    if INDENT in tolerances:
        shift = f"indentation off by {abs(hit.shift)} column{'s' * (abs(hit.shift) != 1)}"
        if _converted(hit, found):
            tabs = (
                "tabs where the file has spaces"
                if any(line.startswith("\t") for line in hit.pattern)
                else "spaces where the file has tabs"
            )
            parts.append(tabs + (f", {shift}" if hit.shift else ""))
        else:
            parts.append(shift)
    return (
        f"{what} differed from the file in {'; '.join(parts)}, and the new text was corrected "
        "the same way. Send the file's exact text next time."
    )


def paired_lines(
    rung: Rung, tab: int, found: Sequence[str], written: Sequence[str]
) -> list[tuple[int, int, bool]]:
    """The pairs ``(i, j, equal)`` of a line of ``found`` and a line of ``written`` aligned
    as :func:`line_opcodes` aligns them on ``rung``: in equal runs (``equal``), and in changed
    runs of one length on both sides (line for line)."""
    key = _line_key(rung, tab)
    pairs: list[tuple[int, int, bool]] = []
    for op, i1, i2, j1, j2 in line_opcodes([key(x) for x in found], [key(x) for x in written]):
        if op == "equal" or i2 - i1 == j2 - j1:
            pairs += [(i1 + k, j1 + k, op == "equal") for k in range(i2 - i1)]
    return pairs
