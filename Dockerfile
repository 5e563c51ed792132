# The app image: Daphne serving Django + Channels; static files compressed by WhiteNoise at build time.
# The base image by digest (python:3.13-slim as published on 2026-09-28), so a rebuild gets the same
# interpreter and Debian; bump the tag and the digest together
# (`docker buildx imagetools inspect python:3.13-slim` prints the new digest).
FROM python:3.13-slim@sha256:7c61056e61ac89e852de05f3dc6fa51a6dd2181797bceed46aa725dd7cb2cd3b

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

# The link-preview pictures' font (games/web/preview_image.py): names in most alphabets.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*

# Every dependency from the lock file, hashes checked (`make lock` writes it); then the project
# itself without dependencies, so nothing outside the lock comes in.
COPY requirements/app.lock ./requirements/
RUN pip install --require-hashes -r requirements/app.lock
COPY pyproject.toml README.md ./
COPY config ./config
COPY games ./games
RUN pip install --no-deps .

COPY . .
RUN DEBUG=false SECRET_KEY=build-only-not-secret python manage.py collectstatic --noinput -v 0

RUN useradd --system --uid 1000 app && chown -R app /app
USER app
EXPOSE 8000
# The websocket limits, both ways: autobahn applies them to outgoing messages too, and the largest
# snapshot is about 0.5 MB (games/patches/daphne_frames.py, MESSAGE_LIMIT_BYTES; docker-compose.yml
# says the same). Incoming messages are capped lower by games/protocol/messages.py and the rate limit.
# No --proxy-headers: it believes X-Forwarded-For from anyone, so a Daphne exposed directly let
# every client pick its address. The app believes it only from TRUSTED_PROXIES (config/asgi.py).
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "--websocket-max-message-size", "1048576", "--websocket-max-frame-size", "1048576", "config.asgi:application"]
