"""The simulated parts, shared by `tests/` and `bench/`: an OpenAI-compatible model server, an
embedded database per run, livekit's mock room and job runner, fake models and audio I/O, and a
headless call harness. Never imported by the product's own packages."""
