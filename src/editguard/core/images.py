"""Which image format a file holds, from its first bytes (its magic number), not its name: a
``.png`` that holds text is text, and a PNG named ``.txt`` is an image.

Pure: bytes in, a MIME type out.
"""

from __future__ import annotations

# Enough of a file's start for every signature below (WebP's is at bytes 8-11).
SNIFF_BYTES = 12


def image_type(head: bytes) -> str | None:
    """The MIME type of the image that starts with ``head`` (PNG, JPEG, GIF or WebP), or
    ``None`` for anything else."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    return None
