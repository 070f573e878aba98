"""Real files in two released versions (``tests/corpus/``), and their line diff as edit_file edits.

The pairs live in ``tests/corpus/<project>-<old>-<new>/<path>.old`` and ``.new`` (see
``tests/corpus/MANIFEST.md`` for where each one comes from and under which license).

The edits are built the way a careful agent would write them: each changed hunk of the line
diff becomes one ``{old_text, new_text}`` whose ``old_text`` is the old lines widened with
neighbouring lines until it occurs exactly once in the text as that edit will see it. The
generator simulates the sequential semantics itself, so that a test can tell a generator bug
from an engine bug. Used by ``test_corpus.py`` and by the mistake corpus (``mistakes.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Literal

from editguard.core.document import decode

CORPUS = Path(__file__).parent / "corpus"

Edit = dict[str, str | int]
Order = Literal["bottom_up", "top_down"]


@dataclass(frozen=True, slots=True)
class Pair:
    """One real file in two versions: ``<name>.old`` and ``<name>.new`` under ``CORPUS``."""

    name: str  # "<project>-<old>-<new>/<path in the release>"

    @property
    def old_bytes(self) -> bytes:
        return (CORPUS / f"{self.name}.old").read_bytes()

    @property
    def new_bytes(self) -> bytes:
        return (CORPUS / f"{self.name}.new").read_bytes()

    @property
    def file_name(self) -> str:
        return self.name.rsplit("/", 1)[-1]

    @property
    def project(self) -> str:
        return self.name.split("/", 1)[0].rsplit("-", 2)[0]

    def texts(self) -> tuple[str, str]:
        """Both versions decoded, line breaks normalized to ``\\n``."""
        return decode(self.old_bytes).text, decode(self.new_bytes).text


def _pairs() -> list[Pair]:
    names = sorted(p.relative_to(CORPUS).as_posix()[: -len(".old")] for p in CORPUS.rglob("*.old"))
    return [Pair(name) for name in names]


PAIRS = _pairs()


def split_lines(text: str) -> list[str]:
    """Lines of ``\\n``-normalized text, each with its ``\\n`` (the last one may have none).

    Not str.splitlines: that also splits on form feeds, U+2028 and friends, which are not line
    breaks to editguard.
    """
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def count_overlapping(text: str, needle: str) -> int:
    """Occurrences of ``needle`` in ``text``, overlapping ones included."""
    count, start = 0, text.find(needle)
    while start >= 0:
        count += 1
        start = text.find(needle, start + 1)
    return count


def widen_until_unique(lines: list[str], start: int, stop: int) -> tuple[int, int]:
    """``lines[start:stop]`` widened with neighbouring lines, alternately after and before,
    until their text occurs exactly once (even counting overlapping occurrences) in all of
    ``lines``.

    Returns:
        The widened ``(start, stop)``.
    """
    current = "".join(lines)
    before = after = 0
    while True:
        old_text = "".join(lines[start - before : stop + after])
        if old_text and count_overlapping(current, old_text) == 1:
            return start - before, stop + after
        can_after, can_before = stop + after < len(lines), start - before > 0
        assert can_after or can_before, "the whole text is not unique in itself"
        if can_after and (after <= before or not can_before):
            after += 1
        else:
            before += 1


def build_edits(old: str, new: str, order: Order) -> tuple[list[Edit], str]:
    """One edit per changed hunk of the line diff of ``old`` and ``new``, in ``order``.

    Each ``old_text`` is widened with context lines until it occurs exactly once (even counting
    overlapping occurrences) in the text as that edit will see it, after the edits before it.

    Returns:
        The edits, and the text that applying them in sequence gives (the simulation).
    """
    old_lines, new_lines = split_lines(old), split_lines(new)
    matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    hunks = [op[1:] for op in matcher.get_opcodes() if op[0] != "equal"]
    if order == "bottom_up":
        hunks.reverse()
    state = list(old_lines)
    shift = 0  # lines added above the current hunk by earlier edits (top-down only)
    edits: list[Edit] = []
    for i1, i2, j1, j2 in hunks:
        start, stop = i1 + shift, i2 + shift
        first, last = widen_until_unique(state, start, stop)
        replacement = [*state[first:start], *new_lines[j1:j2], *state[stop:last]]
        old_text = "".join(state[first:last])
        edits.append({"old_text": old_text, "new_text": "".join(replacement), "occurrences": 1})
        state[first:last] = replacement
        if order == "top_down":
            shift += (j2 - j1) - (i2 - i1)
    return edits, "".join(state)


CONFIGOBJ = CORPUS / "configobj-5.0.8-5.0.9/src/configobj/__init__.py.old"
# A commit on configobj's real source, as ``git diff -U1`` writes it: five one-line changes.
# Hunk 3 changes Section.__repr__'s _getval (line 746), whose lines ConfigObj.__repr__ repeats
# at line 1364; hunk 4 drops a blank line after "return out" (line 925), whose lines are again
# at line 2336; hunk 5 (line 1135) is between the two _getval copies, and only there.
CONFIGOBJ_EDITS: dict[int, list[str]] = {
    204: ["    # literal_eval reads only literals, so this is safe"],
    573: ["        Dictionary values become Section instances."],
    746: ["            except (MissingInterpolationOption, KeyError):"],
    925: [],
    1135: ["            (?:[^'\",\\#]?.*?)    # unquoted"],
}


def configobj_commit() -> tuple[str, str, str]:
    """The file before and after the commit, and the commit's diff: each change a hunk with
    one line of context on each side."""
    before = CONFIGOBJ.read_text(encoding="utf-8")
    lines = before.split("\n")
    after = list(lines)
    parts = ["--- a/configobj.py\n+++ b/configobj.py\n"]
    shift = 0
    for n, new in sorted(CONFIGOBJ_EDITS.items()):
        old = lines[n - 2 : n + 1]
        body = [f" {old[0]}", f"-{old[1]}", *(f"+{x}" for x in new), f" {old[2]}"]
        parts.append(f"@@ -{n - 1},3 +{n - 1 + shift},{len(new) + 2} @@\n")
        parts.append("".join(x + "\n" for x in body))
        after[n - 1 + shift : n + shift] = new
        shift += len(new) - 1
    return before, "\n".join(after), "".join(parts)
