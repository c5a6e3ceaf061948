"""The embeddings answer is read by index: past ten inputs too (a string sort once put "10"
before "2" and refused every batch of more than ten texts)."""

from __future__ import annotations

import pytest

from memory.contract import InvalidModelOutput
from memory.search._embeddings import vectors


def answer(indexes: list[int]) -> dict[str, object]:
    return {"data": [{"index": i, "embedding": [float(i)] + [0.0] * 511} for i in indexes]}


def test_more_than_ten_vectors_in_any_order_come_back_in_input_order() -> None:
    found = vectors(answer([12, 3, 0, 11, 1, 2, 10, 4, 5, 6, 7, 8, 9]), 13)
    assert [float(v[1:].split(",", 1)[0]) for v in found] == [float(i) for i in range(13)]


@pytest.mark.parametrize("indexes", [[0, 1, 1], [0, 1, 3], [1, 2, 3]])
def test_a_missing_or_repeated_index_is_refused(indexes: list[int]) -> None:
    with pytest.raises(InvalidModelOutput, match="one vector per input"):
        vectors(answer(indexes), 3)
