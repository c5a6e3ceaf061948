"""Chunking as a pure function: sizes, overlaps and coverage at and past the boundaries."""

from __future__ import annotations

import itertools

import pytest

from memory.documents import CHUNK_CHARS, CHUNK_OVERLAP, chunk_text, fold_whitespace


def words(n: int, width: int = 4) -> str:
    """`n` words of `width` letters each (a word plus its space is width + 1 characters)."""
    return " ".join(f"{i:0{width}d}"[-width:].replace("0", "a") for i in range(n))


def test_empty_and_blank_texts_have_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\t ") == []


def test_a_text_of_exactly_the_size_is_one_chunk_and_one_more_character_makes_two() -> None:
    exact = "x" * CHUNK_CHARS
    assert chunk_text(exact) == [exact]
    longer = "x" * (CHUNK_CHARS + 1)
    chunks = chunk_text(longer)
    assert len(chunks) == 2
    assert chunks[0] == "x" * CHUNK_CHARS  # no space to cut at: cut at the size
    assert len(chunks[1]) == CHUNK_OVERLAP + 1  # starts `overlap` back


def test_whitespace_is_folded_before_counting() -> None:
    assert chunk_text("a\n\n  b\tc") == ["a b c"]
    assert fold_whitespace("  a \n b  ") == "a b"


def test_chunks_cut_between_words_and_overlap_by_at_most_the_overlap() -> None:
    text = words(1000)  # 4999 characters
    chunks = chunk_text(text, size=100, overlap=20)
    assert all(len(c) <= 100 for c in chunks)
    assert all(not c.startswith(" ") and not c.endswith(" ") for c in chunks)
    for chunk in chunks:  # whole words only
        assert all(len(w) == 4 for w in chunk.split(" "))
    for before, after in itertools.pairwise(chunks):
        shared = before.split(" ")[-4:]  # 20 characters back is at most 4 words
        assert after.split(" ")[0] in shared
        overlap = len(before) - before.rfind(after.split(" ")[0])
        assert 0 < overlap <= 20


def test_every_word_is_in_some_chunk_in_order() -> None:
    text = words(700, width=6)
    chunks = chunk_text(text, size=250, overlap=40)
    seen: list[str] = []
    for chunk in chunks:
        seen.extend(w for w in chunk.split(" ") if w not in seen)
    assert seen == text.split(" ")


def test_no_overlap_gives_disjoint_chunks_that_rebuild_the_text() -> None:
    text = words(300)
    chunks = chunk_text(text, size=50, overlap=0)
    assert " ".join(chunks) == text


def test_inside_one_long_word_the_next_chunk_starts_mid_word_overlap_back() -> None:
    text = "a" * 30 + " " + "b" * 80 + " " + "c" * 10  # 122 characters
    chunks = chunk_text(text, size=100, overlap=20)
    assert chunks == [text[:100], text[80:]]


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, -1)])
def test_bad_settings_are_refused(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="size"):
        chunk_text("text", size=size, overlap=overlap)


def test_the_stated_defaults() -> None:
    assert (CHUNK_CHARS, CHUNK_OVERLAP) == (1000, 200)


def test_the_chunk_limit_at_and_past() -> None:
    from memory.documents import MAX_CHUNKS, MAX_DOCUMENT_BYTES, RagTooLarge
    from memory.documents._requests import chunk_count

    assert chunk_count(MAX_CHUNKS) == MAX_CHUNKS
    with pytest.raises(RagTooLarge, match=f"at most {MAX_CHUNKS} chunks"):
        chunk_count(MAX_CHUNKS + 1)
    # a plain text at the byte limit stays within it
    assert MAX_DOCUMENT_BYTES // (CHUNK_CHARS - CHUNK_OVERLAP) + 1 < MAX_CHUNKS
