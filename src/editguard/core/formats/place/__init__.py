"""One placement for every format that puts a block of lines into a file.

A format says *where* to look and *how to break a tie*; this package does the rest, the same
way for all of them:

* the window: the whole file, the lines after a cursor, a symbol's body (the caller's lines);
* the anchor: a stated line (a diff's hunk header, shifted by the hunks before it) or a cursor
  (apply_patch's, after the previous chunk and its ``@@`` line);
* the match ladder's rungs (:mod:`editguard.core.seek`): exactly first, then the first tolerant
  rung that finds the block, its new lines corrected the same way;
* the order constraint (:mod:`.order`): blocks that must be in file order (a diff's hunks, a
  patch's chunks) rule out a place that leaves no room for the blocks after it;
* ties refused: a block that still fits several places is AMBIGUOUS_MATCH, never a guess;
* one refusal per cause (:mod:`.refusal`): one code and one data layout each, rendered once.

Modules: :mod:`.lines` (a file's lines and every search in them: exact places, the ladder's
candidates, the shared budget, the correction of the new lines, a block already there),
:mod:`.order` (the order constraint and the choice), :mod:`.refusal` (the refusals: a tie, an
uncorrectable match, blocks that overlap), :mod:`.text` (a search text found on the ladder:
edit_file, safe_edit).
"""

from __future__ import annotations
