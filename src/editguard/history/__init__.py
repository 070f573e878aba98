"""The durable history of every change editguard commits, and what taking one back needs."""

from editguard.history.store import Entry, FileRecord, History

__all__ = ["Entry", "FileRecord", "History"]
