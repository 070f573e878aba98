"""The pure engine: documents, plans, matching, diffs and the edit languages. No file access."""
