"""Voice-call tests: a real AgentSession with fake models and audio I/O."""
