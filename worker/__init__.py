"""Composition: the LiveKit entrypoint, agent catalog, configuration, HTTP API and CLI."""
