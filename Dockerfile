# The app image: Daphne serving Django + Channels; static files compressed by WhiteNoise at build time.
FROM python:3.13-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY config ./config
COPY games ./games
RUN pip install .

COPY . .
RUN DEBUG=false SECRET_KEY=build-only-not-secret python manage.py collectstatic --noinput -v 0

RUN useradd --system --uid 1000 app && chown -R app /app
USER app
EXPOSE 8000
# No --websocket-max-message-size: autobahn applies it to outgoing messages too, and snapshots and
# cascades run to ~0.5 MB. Incoming frames are capped by games/messages.py and the rate limit.
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "config.asgi:application"]
