"""Cutting a document's text into overlapping chunks: a pure function of plain values.

Whitespace runs are folded to one space first. A chunk holds at most `size` characters; it ends
at the last space of its window when that space is in the window's second half (so words stay
whole), else exactly at `size`. The next chunk starts `overlap` characters before the previous
one ended, moved forward to the start of the first word beginning there (inside one long word,
it starts mid-word), so the text around every cut appears in two chunks. Every character of
the folded text is in at least one chunk.
"""

from __future__ import annotations

CHUNK_CHARS = 1000
CHUNK_OVERLAP = 200


def fold_whitespace(text: str) -> str:
    return " ".join(text.split())


def chunk_text(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[str]:
    """The chunks of `text`, in order; no chunk for a text with no visible character."""
    if size < 1 or not 0 <= overlap < size:
        raise ValueError("chunking needs size >= 1 and 0 <= overlap < size")
    folded = fold_whitespace(text)
    chunks: list[str] = []
    start = 0
    while start < len(folded):
        end = _end(folded, start, size)
        chunks.append(folded[start:end].strip())
        if end >= len(folded):
            break
        start = _next_start(folded, start, end, overlap)
    return chunks


def _end(text: str, start: int, size: int) -> int:
    limit = start + size
    if limit >= len(text):
        return len(text)
    if text[limit] == " ":  # the window ends exactly at a word's end
        return limit
    space = text.rfind(" ", start + size // 2, limit)
    return limit if space == -1 else space


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    back = max(end - overlap, start + 1)
    if back >= end:  # no overlap: the next word
        return end + (text[end] == " ")
    space = text.find(" ", back - 1, end)
    return back if space == -1 else space + 1
