"""Per-person memory: facts and call records in Postgres, updated by one model call."""
