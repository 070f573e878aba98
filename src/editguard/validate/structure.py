"""The structure check of ``edit_symbol``: after an edit of one symbol, every other symbol is
still there under its name path, and the edited one has not moved out of its parent.

It finds the new text's symbols again (incrementally from the old parse) and compares name paths;
what it reports are findings like the syntax guard's, blocking in strict mode.
"""

from __future__ import annotations

from collections import Counter

from editguard.core.document import line_numbers
from editguard.core.plan import Plan
from editguard.errors import EditError
from editguard.symbols import Symbol, symbols_of
from editguard.validate.report import Finding


def structure_findings(
    name: str,
    old: str,
    new_text: str,
    plan: Plan,
    before: tuple[Symbol, ...],
    target: Symbol,
    replaced: bool,
) -> tuple[Finding, ...]:
    """What an edit of ``target`` would break in the structure of the file ``name``.

    ``old`` is the text before ``plan`` (one replacement, on the symbol or next to it),
    ``new_text`` the text after it, and ``before`` the old text's symbols; ``replaced`` says
    whether the plan rewrites the symbol's own lines. Every other symbol must still exist with
    its name path afterwards; a rewritten symbol must still be defined where it was, and none of
    its members may leave it.
    """
    prefix = target.name_path + "/"
    kept = Counter(
        s.name_path
        for s in before
        if not (replaced and (s is target or s.name_path.startswith(prefix)))
    )
    try:
        new_symbols = symbols_of(name, new_text, (old, plan))
    except EditError:
        return ()
    after = Counter(s.name_path for s in new_symbols)
    missing = kept - after
    lines = new_text.split("\n")
    out = []
    parent = target.name_path.rpartition("/")[0]
    replacement = plan.replacements[0]
    first = line_numbers(new_text, [replacement.start])[0]
    last = first + replacement.text.count("\n")
    edited = [s for s in new_symbols if first <= s.start_line <= last]

    def finding(row: int, message: str) -> Finding:
        return Finding("structure", row, 1, message, lines[row - 1] if row <= len(lines) else "")

    if replaced and parent and replacement.text.strip():
        still = [
            s
            for s in edited
            if s.depth == target.depth and s.name_path.rpartition("/")[0] == parent
        ]
        moved = [s for s in edited if s.name == target.name]
        if moved and not still:
            out.append(
                finding(
                    moved[0].start_line,
                    f"after the edit, {target.name_path} would be {moved[0].name_path}: it "
                    f"leaves {parent} (a dedent moves a method out of its class); keep its "
                    "indentation",
                )
            )
        elif not still:
            out.append(
                finding(
                    first,
                    f"after the edit, the edited lines define nothing directly inside {parent}: "
                    f"the new text must hold the whole definition of {target.name} (send an "
                    "empty new_body to delete it)",
                )
            )
    if replaced:
        # A member of the edited symbol that reappears outside it was dedented out of it.
        members = {s.name: s for s in before if s.name_path.startswith(prefix)}
        for s in edited:
            origin = members.get(s.name)
            if origin is not None and s.name_path != origin.name_path and s.depth <= target.depth:
                out.append(
                    finding(
                        s.start_line,
                        f"after the edit, {origin.name_path} would be {s.name_path}: it leaves "
                        f"{target.name_path} (a dedent moves it out); keep its indentation",
                    )
                )
    for path in sorted(missing):
        origin = next(s for s in before if s.name_path == path)
        row = min(origin.start_line, len(lines))
        out.append(
            Finding(
                "structure",
                row,
                1,
                f"after the edit, {path} ({origin.kind}) no longer exists under that name path; "
                "check the indentation and brackets of the edited lines",
                lines[row - 1] if row else "",
            )
        )
    return tuple(out)
