"""Byte deltas: what a change did to a file's bytes, kept so that it can be taken back.

A change is recorded as the spans it replaced, in the coordinates of the bytes it wrote: "the
``length`` bytes at ``start`` used to be ``old``". Taking it back splices ``old`` in again. What
this costs grows with the change, not with the file: a one-line edit of a 100 MB file keeps
one line.

Pure: bytes in, bytes out.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TypeVar

S = TypeVar("S", bytes, str)
H = TypeVar("H", bound=Hashable)

# Stored blobs: a one-byte kind, then zlib data.
WHOLE, LAYERS = b"W", b"L"
_HEAD = struct.Struct("<QQQ")  # start, length, size of old
_COUNT = struct.Struct("<Q")
# zlib level: 1 is several times faster than the default and loses little on source code.
_LEVEL = 1
# A middle (between the common start and end) longer than this is cut into the lines that differ.
_ONE_SPLICE = 4096


class CorruptDelta(ValueError):
    """A stored delta that cannot be read, or that does not fit the bytes it is applied to."""


@dataclass(frozen=True, slots=True)
class Splice:
    """In the bytes after a change, the ``length`` bytes at ``start`` replaced ``old``."""

    start: int
    length: int
    old: bytes


Layer = tuple[Splice, ...]


def take_back(data: bytes, layer: Sequence[Splice]) -> bytes:
    """The bytes before the change that ``layer`` records, from ``data``, the bytes after it.

    Raises:
        CorruptDelta: the splices are out of order or reach past the end of ``data``.
    """
    parts: list[bytes] = []
    pos = 0
    for s in layer:
        if s.start < pos or s.length < 0 or s.start + s.length > len(data):
            raise CorruptDelta(f"a splice at {s.start} does not fit {len(data)} bytes")
        parts.append(data[pos : s.start])
        parts.append(s.old)
        pos = s.start + s.length
    parts.append(data[pos:])
    return b"".join(parts)


def take_back_all(data: bytes, layers: Sequence[Sequence[Splice]]) -> bytes:
    """:func:`take_back` for several changes made one after the other (``layers`` oldest
    first): the last is taken back first."""
    for layer in reversed(layers):
        data = take_back(data, layer)
    return data


def between(old: bytes, new: bytes) -> Layer:
    """Splices that take ``new`` back to ``old`` (empty when they are equal): what lies
    between their common start and end, and when that is long, only the stretches of lines
    that differ (:func:`spans`), so that changes far apart in a large file do not cost all
    the bytes between them."""
    if old == new:
        return ()
    head, tail = common_ends(old, new)
    old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
    if min(len(old_mid), len(new_mid)) <= _ONE_SPLICE:
        return (Splice(head, len(new_mid), old_mid),)
    a, b = old_mid.splitlines(keepends=True), new_mid.splitlines(keepends=True)
    a_at, b_at = [0, *accumulate(map(len, a))], [0, *accumulate(map(len, b))]
    out: list[Splice] = []
    for i1, i2, j1, j2 in spans(a, b):
        was, now = old_mid[a_at[i1] : a_at[i2]], new_mid[b_at[j1] : b_at[j2]]
        h, t = common_ends(was, now)
        out.append(Splice(head + b_at[j1] + h, len(now) - h - t, was[h : len(was) - t]))
    return tuple(out)


def spans(a: Sequence[H], b: Sequence[H], small: int = 64) -> list[tuple[int, int, int, int]]:
    """Where two sequences of lines differ, in order: ``(i1, i2, j1, j2)`` with everything
    between two of them equal on both sides (each stretch holds a difference, though not
    necessarily the smallest one).

    What differs is cut at a line near its middle that both sides hold once there, and each
    part loses its common start and end, until the parts are small (at most ``small`` items on
    a side) or hold no such line. Every step compares slices at C speed, so a few changes in a
    million lines cost a few dozen steps, not a million.
    """
    out: list[tuple[int, int, int, int]] = []
    todo = [(0, len(a), 0, len(b))]
    while todo:
        i1, i2, j1, j2 = _trimmed(a, b, todo.pop())
        if i1 == i2 and j1 == j2:
            continue
        cut = None if min(i2 - i1, j2 - j1) <= small else _cut(a, b, (i1, i2, j1, j2))
        if cut is None:
            out.append((i1, i2, j1, j2))
            continue
        i, j = cut
        todo.append((i + 1, i2, j + 1, j2))  # the part after the cut, once the one before
        todo.append((i1, i, j1, j))
    return out


def _trimmed(
    a: Sequence[H], b: Sequence[H], span: tuple[int, int, int, int]
) -> tuple[int, int, int, int]:
    """``span`` without the lines both sides start and end with."""
    i1, i2, j1, j2 = span
    head = _common(lambda x, y: a[i1 + x : i1 + y] == b[j1 + x : j1 + y], min(i2 - i1, j2 - j1))
    i1, j1 = i1 + head, j1 + head
    tail = _common(lambda x, y: a[i2 - y : i2 - x] == b[j2 - y : j2 - x], min(i2 - i1, j2 - j1))
    return i1, i2 - tail, j1, j2 - tail


def _cut(a: Sequence[H], b: Sequence[H], span: tuple[int, int, int, int]) -> tuple[int, int] | None:
    """A line near the middle of ``a[i1:i2]`` that it and ``b[j1:j2]`` both hold once, and
    where each holds it; ``None`` if the few lines tried are not."""
    i1, i2, j1, j2 = span
    middle = (i1 + i2) // 2
    for k in range(32):
        i = middle + (k + 1) // 2 * (1 if k % 2 else -1)
        if not i1 <= i < i2:
            continue
        line = a[i]
        j = _find(b, line, j1, j2)
        if j is None or _find(b, line, j + 1, j2) is not None:
            continue
        if _find(a, line, i1, i) is None and _find(a, line, i + 1, i2) is None:
            return i, j
    return None


def _find(items: Sequence[H], item: H, start: int, stop: int) -> int | None:
    try:
        return items.index(item, start, stop)
    except ValueError:
        return None


def common_ends(a: S, b: S) -> tuple[int, int]:
    """How long a start and an end (not overlapping) ``a`` and ``b`` share."""
    limit = min(len(a), len(b))
    head = _common_prefix(a, b, limit)
    return head, _common_suffix(a, b, limit - head)


def _common_prefix(a: S, b: S, limit: int) -> int:
    """How many bytes ``a`` and ``b`` share at their start (at most ``limit``)."""
    return _common(lambda i, j: a[i:j] == b[i:j], limit)


def _common_suffix(a: S, b: S, limit: int) -> int:
    """How many bytes ``a`` and ``b`` share at their end (at most ``limit``)."""
    la, lb = len(a), len(b)
    return _common(lambda i, j: a[la - j : la - i] == b[lb - j : lb - i], limit)


def _common(same: Callable[[int, int], bool], limit: int) -> int:
    """The largest ``n <= limit`` with ``same(0, n)``, where ``same(i, j)`` compares the bytes
    ``i..j`` from one end: growing steps while they agree, then halving (each comparison is a
    slice compare at C speed, and most changes are local)."""
    lo, step = 0, 4096
    while lo < limit:
        hi = min(limit, lo + step)
        if same(lo, hi):
            lo, step = hi, step * 2
            continue
        hi -= 1  # same(lo, hi + 1) is false: the answer is in lo..hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if same(lo, mid):
                lo = mid
            else:
                hi = mid - 1
        break
    return lo


def pack_whole(data: bytes) -> bytes:
    """A stored copy of a whole file."""
    return WHOLE + zlib.compress(data, _LEVEL)


def pack_layers(layers: Iterable[Sequence[Splice]]) -> bytes:
    """Stored deltas of changes made one after the other (oldest first)."""
    out = bytearray()
    layers = list(layers)
    out += _COUNT.pack(len(layers))
    for layer in layers:
        out += _COUNT.pack(len(layer))
        for s in layer:
            out += _HEAD.pack(s.start, s.length, len(s.old))
            out += s.old
    return LAYERS + zlib.compress(bytes(out), _LEVEL)


def unpack(blob: bytes, limit: int) -> bytes | list[Layer]:
    """What :func:`pack_whole` or :func:`pack_layers` stored: the whole bytes, or the layers.
    ``limit`` caps what it may grow to (a blob is trusted only so far).

    Raises:
        CorruptDelta: not a blob these functions wrote, or larger than ``limit``.
    """
    if blob[:1] not in (WHOLE, LAYERS):
        raise CorruptDelta("unknown kind of stored change")
    inflater = zlib.decompressobj()
    try:
        data = inflater.decompress(blob[1:], limit + 1)
    except zlib.error as exc:
        raise CorruptDelta(f"stored change cannot be read: {exc}") from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise CorruptDelta(f"stored change is over {limit:,} bytes")
    if blob[:1] == WHOLE:
        return data
    return _layers(data)


def _layers(data: bytes) -> list[Layer]:
    try:
        (count,), pos = _COUNT.unpack_from(data, 0), _COUNT.size
        layers: list[Layer] = []
        for _ in range(count):
            (splices,), pos = _COUNT.unpack_from(data, pos), pos + _COUNT.size
            layer: list[Splice] = []
            for _ in range(splices):
                start, length, size = _HEAD.unpack_from(data, pos)
                pos += _HEAD.size
                if pos + size > len(data):
                    raise CorruptDelta("stored change is cut short")
                layer.append(Splice(start, length, data[pos : pos + size]))
                pos += size
            layers.append(tuple(layer))
    except struct.error:
        raise CorruptDelta("stored change is cut short") from None
    if pos != len(data):
        raise CorruptDelta("stored change has bytes left over")
    return layers
