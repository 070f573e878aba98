"""Edit formats: every edit language compiles a request into the same :class:`Compiled`.

The contract, for each module here: ``compile_<format>(doc, request) -> Compiled``, where ``doc``
is the :class:`~editguard.core.document.Document` as read and ``request`` the format's own frozen
dataclasses (never the wire models). A request that cannot be compiled raises an
:class:`~editguard.errors.EditError` with its code, and with ``edit_index``/``total_edits`` when
one edit of several failed; it checks that the texts it makes can be stored in the file's
encoding (naming the edit). A format never reads or writes a file: the transaction resolves,
loads, refuses NUL characters, validates and commits around it. Checks that need no file (an
empty request, too many edits, a NUL in a new text) come first, in the format's ``validate_*``
function, which a tool calls before it hands the compile step to the transaction.

- :mod:`.search_replace`: exact old/new text, applied in sequence (``edit_file``);
- :mod:`.lines`: line numbers as read (``edit_lines``, ``safe_edit`` line_edits);
- :mod:`.regex_replace`: literal or regular-expression replacement (``safe_edit``);
- :mod:`.whole_text`: the whole new content (``write_file``, ``safe_edit`` content);
- :mod:`.symbol_edit`: context chunks, a new body or lines around one symbol (``edit_symbol``),
  with :mod:`.chunks` as its matcher;
- :mod:`.unified_diff`: unified and git diffs, one file's hunks at a time (``apply_diff``), read
  by :mod:`.diff_parse` (with :mod:`.diff_sections`);
- :mod:`.codex_patch`: an apply_patch update of one file (``apply_patch``), read by
  :mod:`.codex_parse`, its plan made by :mod:`.codex_plan`.

Every format that puts a block of lines into a file places it with :mod:`.place`: the match
ladder's rungs, the order of blocks that must follow each other, ties refused, and one refusal
per cause. A format keeps only its window (where to look) and its tie-break (a stated line, a
cursor).
"""

from __future__ import annotations

from dataclasses import dataclass

from editguard.core.plan import Plan


@dataclass(frozen=True, slots=True)
class AppliedEdit:
    """What one edit of a request did: how many replacements, and the 1-based line of the new
    text where each replacement starts."""

    index: int
    occurrences_replaced: int
    lines: tuple[int, ...]
    match: str = "exact"  # the rung of core.seek that matched
    note: str | None = None  # what differed from the file, when not exact
    offset: int | None = None  # a diff hunk: lines between where it said it was and where it was
    already_applied: bool = False  # its result was in the text already: it changed nothing


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled request: the plan on the text as read, what each edit did, and warnings the
    caller should see although nothing failed."""

    plan: Plan
    applied: tuple[AppliedEdit, ...] = ()
    warnings: tuple[str, ...] = ()
