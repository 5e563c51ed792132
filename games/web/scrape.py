"""`/metrics`, for Prometheus: this process's figures (`games.metrics`), behind a token.

Not public: without `METRICS_TOKEN` set, or without `Authorization: Bearer <token>`, it is the
site's ordinary 404, so a stranger cannot tell it exists. Each Daphne process answers with its
own figures; docs/operations.md ("Metrics") says how to scrape them all.
"""

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = getattr(settings, "METRICS_TOKEN", "")
    offered = request.headers.get("Authorization", "")
    if not token or not hmac.compare_digest(offered.encode(), f"Bearer {token}".encode()):
        raise Http404
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
