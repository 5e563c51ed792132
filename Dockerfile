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
# The websocket limits, both ways: autobahn applies them to outgoing messages too, and the largest
# snapshot is about 0.5 MB (games/live/daphne_frames.py, MESSAGE_LIMIT_BYTES; docker-compose.yml
# says the same). Incoming messages are capped lower by games/messages.py and the rate limit.
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "--websocket-max-message-size", "1048576", "--websocket-max-frame-size", "1048576", "config.asgi:application"]
