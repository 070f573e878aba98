"""The whole new content of a file (``write_file``, ``safe_edit`` content), as one replacement.

``\\n`` in the content takes the file's usual line ending (a new file: ``\\n``); content that
holds ``\\r\\n`` or ``\\r`` itself is written with exactly the breaks it holds. The file's
encoding and byte-order mark are kept.
"""

from __future__ import annotations

from editguard.core.document import (
    CR,
    Document,
    EolStyle,
    code_of,
    newline_of,
    split_endings,
)
from editguard.core.formats import Compiled
from editguard.core.plan import Plan, Replacement


def compile_whole_text(doc: Document, content: str) -> Compiled:
    """Replace all of ``doc`` (``Document("")`` for a file to create) by ``content``.

    Raises:
        EncodingError: a character the file's encoding cannot store.
        InvalidRequest: a NUL character (field ``content``).
    """
    if CR in content:
        text, codes = split_endings(content)
    elif doc.line_endings is not None:
        # A file that mixes endings: every break of the new content takes the usual one.
        text, codes = content, bytes([code_of(doc.newline)]) * content.count("\n")
    else:
        text, codes = content, None
    doc.check_writable(text, field="content")
    return Compiled(Plan((Replacement(0, len(doc.text), text, codes, asked=True),)))


def line_ending(doc: Document, compiled: Compiled) -> EolStyle:
    """The line-ending style of the file that ``compiled`` (from :func:`compile_whole_text` on
    ``doc``) writes."""
    r = compiled.plan.replacements[0]
    if "\n" not in r.text:
        return "none"
    if r.codes is None:
        return Document("\n", newline=doc.newline).eol_style
    kinds = set(r.codes)
    if len(kinds) > 1:
        return "mixed"
    return Document("\n", newline=newline_of(kinds.pop())).eol_style
