"""The web API process: aiohttp routes, their authentication and limits, and the operator pages.

`python -m worker.http` serves it; the LiveKit worker process is `worker.agent`.
"""
