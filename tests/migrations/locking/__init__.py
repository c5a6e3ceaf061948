"""Migrations of a test (run with `run_migrations(..., package=...)`)."""
