"""Fast vectorised text rows (the per-file JSON stats of millions of files).

A `Template` is a sequence of fixed-width segments (constants, numbers, words from a small
vocabulary, optional groups). Each segment renders to an (rows, width) matrix of ASCII bytes
where the byte 0 marks "nothing here" (a number's leading zeros, a short word's padding, an
absent optional group); `render` lays the segments side by side and drops the zero bytes row
by row, which leaves variable-length strings. That is a few numpy operations per segment,
chunk by chunk, instead of Arrow's element-wise join of dozens of string arrays (about ten times
slower for the ~700-byte stats strings).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

CHUNK_ROWS = 1 << 16  # rows rendered at once: bounds the temporary matrices (~50 MiB)

Segment = tuple[int, Callable[[slice], np.ndarray]]  # width, and its matrix for some rows


def _digits(values: np.ndarray, width: int) -> np.ndarray:
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    return (48 + (values[:, None] // powers) % 10).astype(np.uint8)


class Template:
    """Text rows built segment by segment over `n` rows."""

    def __init__(self, n: int):
        self.n = n
        self.segments: list[Segment] = []

    def const(self, text: str) -> Template:
        raw = np.frombuffer(text.encode(), dtype=np.uint8)
        width = len(raw)
        self.segments.append((width, lambda s: np.broadcast_to(raw, (_len(s, self.n), width))))
        return self

    def number(self, values: np.ndarray, width: int) -> Template:
        """Non-negative integers below 10**width, without leading zeros."""

        def render(s: slice) -> np.ndarray:
            d = _digits(values[s], width)
            keep = np.maximum.accumulate(d != 48, axis=1)
            keep[:, -1] = True
            d[~keep] = 0
            return d

        self.segments.append((width, render))
        return self

    def digits(self, values: np.ndarray, width: int) -> Template:
        """Non-negative integers zero-padded to `width` digits."""
        self.segments.append((width, lambda s: _digits(values[s], width)))
        return self

    def word(self, vocabulary: list[str], index: np.ndarray) -> Template:
        """vocabulary[index] for every row."""
        width = max(len(w) for w in vocabulary)
        table = np.zeros((len(vocabulary), width), dtype=np.uint8)
        for i, w in enumerate(vocabulary):
            table[i, : len(w)] = np.frombuffer(w.encode(), dtype=np.uint8)
        self.segments.append((width, lambda s: table[index[s]]))
        return self

    def optional(self, present: np.ndarray, build: Callable[[Template], object]) -> Template:
        """The segments `build` adds, only in the rows where `present` is true."""
        inner = Template(self.n)
        build(inner)
        for width, render in inner.segments:
            self.segments.append((width, _masked(render, present)))
        return self

    def render(self) -> pa.StringArray:
        datas, lengths = [], []
        for start in range(0, self.n, CHUNK_ROWS):
            s = slice(start, min(start + CHUNK_ROWS, self.n))
            matrix = np.concatenate([render(s) for _, render in self.segments], axis=1)
            keep = matrix != 0
            datas.append(matrix[keep])
            lengths.append(keep.sum(axis=1))
        offsets = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.concatenate(lengths), out=offsets[1:])
        data = np.concatenate(datas) if datas else np.zeros(0, np.uint8)
        if offsets[-1] < 2**31:
            return pa.StringArray.from_buffers(
                self.n, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)
            )
        raise ValueError("over 2 GiB of text in one array: render fewer rows")


def _len(s: slice, n: int) -> int:
    return len(range(*s.indices(n)))


def _masked(render: Callable[[slice], np.ndarray], present: np.ndarray):
    def masked(s: slice) -> np.ndarray:
        m = np.array(render(s))
        m[~present[s]] = 0
        return m

    return masked
