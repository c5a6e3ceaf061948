"""URL helpers for the per-test databases."""

from urllib.parse import urlsplit, urlunsplit


def with_database(url: str, name: str) -> str:
    """The same server URL pointing at database `name`."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))
