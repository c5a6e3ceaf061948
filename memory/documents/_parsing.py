"""A document's bytes to its text, read strictly by content type (a parser library for each).

Plain text and Markdown must be UTF-8 (an optional BOM is dropped) with no NUL character;
Markdown is embedded as written (its marks cost little and keep headings with their text).
HTML is read by BeautifulSoup with the standard library's parser: scripts, styles and
templates are dropped and the visible text kept. PDF must start with `%PDF-` and is read by
pypdf page by page; an encrypted PDF is refused. A document with no visible text is refused:
it could never be found.
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass

from bs4 import BeautifulSoup
from pypdf import PdfReader
from pypdf.errors import PyPdfError

from memory.documents._errors import RagUnreadable, RagUnsupportedType

PLAIN, MARKDOWN, HTML, PDF = "text/plain", "text/markdown", "text/html", "application/pdf"
CONTENT_TYPES = (PLAIN, MARKDOWN, HTML, PDF)
_DROPPED_TAGS = ("script", "style", "template", "noscript")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Extracted:
    text: str
    title: str | None  # what the document calls itself, if it says


def content_type_of(header: str | None) -> str:
    """The media type of a `Content-Type` value, checked against `CONTENT_TYPES`."""
    media = (header or "").split(";", 1)[0].strip().lower()
    if media not in CONTENT_TYPES:
        raise RagUnsupportedType(
            f"content_type: must be one of {', '.join(CONTENT_TYPES)}", field="content_type"
        )
    return media


def extract(content_type: str, raw: bytes, stop: threading.Event | None = None) -> Extracted:
    """The text of `raw`; a set `stop` ends a PDF's reading at its next page (nothing else is
    read past a bound: the caller has given up and drops the result)."""
    media = content_type_of(content_type)
    if media == PDF:
        found = _pdf(raw, stop or threading.Event())
    elif media == HTML:
        found = _html(_utf8(raw))
    else:
        text = _utf8(raw)
        heading = _HEADING.search(text) if media == MARKDOWN else None
        found = Extracted(text, heading.group(1) if heading else None)
    if not found.text.split():
        raise RagUnreadable("document: no text could be extracted", field="document")
    return found


def _utf8(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RagUnreadable("document: must be UTF-8 text", field="document") from None
    if "\x00" in text:
        raise RagUnreadable("document: must not contain NUL characters", field="document")
    return text


def _html(text: str) -> Extracted:
    soup = BeautifulSoup(text, "html.parser")
    for tag in soup(_DROPPED_TAGS):
        tag.decompose()
    title_tag = soup.title or soup.find("h1")
    title = title_tag.get_text(" ", strip=True) if title_tag is not None else None
    return Extracted(soup.get_text(" ", strip=True), title or None)


class _Stopped(Exception):
    """The reader gave up on this document (`extract`'s `stop`)."""


def _pages(reader: PdfReader, stop: threading.Event) -> list[str]:
    pages = []
    for page in reader.pages:
        if stop.is_set():
            raise _Stopped()
        pages.append(page.extract_text() or "")
    return pages


def _pdf(raw: bytes, stop: threading.Event) -> Extracted:
    if not raw.startswith(b"%PDF-"):
        raise RagUnreadable("document: a PDF must start with %PDF-", field="document")
    try:
        reader = PdfReader(io.BytesIO(raw), strict=True)
        if reader.is_encrypted:
            raise RagUnreadable("document: encrypted PDFs are not read", field="document")
        pages = _pages(reader, stop)
        info = reader.metadata
        title = info.title if info is not None else None
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError, _Stopped):
        raise RagUnreadable("document: the PDF could not be read", field="document") from None
    return Extracted("\n\n".join(pages), str(title) if title else None)
