"""Versioned SQL migrations, applied in file-name order by `memory.migrate`."""
