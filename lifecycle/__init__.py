"""One call from open to close: settings snapshot, recall budget, the single shared save."""
