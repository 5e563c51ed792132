"""Every answer under /api/ that is an error is JSON, `{"error": "..."}`, whoever made it.

The API's own errors are mapped in `api`; the rest come from Django before a route of the API
is reached or after it failed: a path the API does not have (a trailing slash too many: Django's
404 page), a method a path does not take (Django's empty 405), a body the server refused, a
server error. A bot reads those as JSON like any other, and a 401 says how to authenticate.
"""

from http import HTTPStatus

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin

PREFIX = "/api/"
AUTHENTICATE = 'Bearer realm="Minesweeper Live"'
"""RFC 6750's challenge: the API's tokens are bearer tokens (`Authorization: Bearer <token>`).
No error code: a 401 here means no credentials came (a token that is no player's is a 403), and
§3.1 asks for none then."""


def reason(request: HttpRequest, response: HttpResponse) -> str:
    """A sentence for an error Django answered without one of the API's own."""
    status = response.status_code
    if status == 404:
        where = f"{request.method} {request.path[:80]}"
        if request.path.endswith("/"):
            return f"No such API path: {where} (the API's paths end without a slash)."
        return f"No such API path: {where}; see /api/docs."
    if status == 405:
        allowed = response.get("Allow", "")
        return f"{request.method} is not allowed on {request.path[:80]}: use {allowed}."
    if status >= 500:
        return "Something went wrong on the server; nothing changed. Try again."
    return f"{HTTPStatus(status).phrase}." if status in HTTPStatus else "Refused."


class JsonErrors(MiddlewareMixin):
    """Outermost, so that it sees every answer, the error pages of the inner layers too."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if not request.path.startswith(PREFIX) or response.status_code < 400:
            return response
        if response.status_code == 401:
            response.setdefault("WWW-Authenticate", AUTHENTICATE)
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        answer = JsonResponse({"error": reason(request, response)}, status=response.status_code)
        for header in ("Allow", "Retry-After", "WWW-Authenticate"):
            if header in response:
                answer[header] = response[header]
        return answer
