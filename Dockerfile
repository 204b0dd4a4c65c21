# The bot as one image: `docker compose up -d` runs it beside Redis and Caddy (compose.yaml, docs/deploy.md).
# Linted in CI by hadolint (.ci/run); tests/deploy/test_image.py runs this file's CMD and HEALTHCHECK.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# An unprivileged user owns nothing but the data folder (the embedded Redis, should REDIS_URL be empty).
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin durak \
    && mkdir -p /app/data \
    && chown durak:durak /app/data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY core ./core
COPY storage ./storage
COPY bot ./bot
COPY adapters ./adapters
COPY cli ./cli
RUN pip install --no-compile . \
    && rm -rf /root/.cache

USER 10001:10001
# LISTEN_ADDRESS: the container's ports are reached from Caddy's container, not from this one's loopback
ENV DATA_DIR=/app/data \
    PORT=8080 \
    LISTEN_ADDRESS=0.0.0.0
EXPOSE 8080

# `durak-bot health` asks GET /readyz on 127.0.0.1:$PORT: Redis, the platforms and the AI workers.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["durak-bot", "health"]

# SIGTERM (docker stop) ends it cleanly: no new update taken, queued messages sent within STOP_TIMEOUT.
STOPSIGNAL SIGTERM
CMD ["durak-bot", "run"]
