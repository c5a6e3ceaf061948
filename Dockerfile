# syntax=docker/dockerfile:1
# Image for both processes of caller-memory. The worker is the default command; run the HTTP
# API from the same image with `python -m worker.http`. Postgres is external (DATABASE_URL):
# the embedded server is for development only and is never started inside this image.

# --- the test-call page's browser library, pinned in package-lock.json
FROM node:20-bookworm-slim AS page
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error

# --- Python dependencies from the lock file (hashes checked), in a virtual environment
FROM python:3.11-slim-bookworm AS deps
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
COPY requirements.lock ./
RUN /opt/venv/bin/pip install --require-hashes -r requirements.lock

# --- runtime: the source, the venv and the page library; no compilers, not root
FROM python:3.11-slim-bookworm AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONPATH=/app \
    MEMORY_MIGRATE_ON_START=1
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin app
WORKDIR /app
COPY --from=deps /opt/venv /opt/venv
COPY --from=page /build/node_modules/livekit-client/dist/livekit-client.umd.js node_modules/livekit-client/dist/livekit-client.umd.js
COPY callmemory callmemory
COPY memory memory
COPY transcript transcript
COPY lifecycle lifecycle
COPY sip sip
COPY worker worker
COPY pyproject.toml Procfile ./
USER app
# model files livekit-agents plugins need at run time; needs no configuration and no secrets
RUN python -m worker.agent download-files
EXPOSE 8080
CMD ["python", "-m", "worker.agent", "start"]
