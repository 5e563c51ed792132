"""Compressed answers where the app serves alone (`runserver`, a bare Daphne), DEBUG or not.

In production deploy/nginx.conf compresses the same types by the same rule; here Django's own
`GZipMiddleware` does it, so a 50×50 watch page is sent as some 20 KB rather than 300 KB
whatever stands in front (figures: docs/performance.md, "Compressed pages").

BREACH (a response's compressed length leaks a secret in its body that sits next to input an
attacker can put in the same body) is answered so (docs/operations.md, "Compression"):

- No page body carries a seat's token: a seat is the session cookie, a header, which gzip does
  not touch. The only secret in a page is the CSRF token of a form, and Django masks it afresh
  in every response (a new random pad each time), so there is no fixed string to guess at.
- `GZipMiddleware` adds up to 100 random bytes to each gzip header (Django 4.2's
  "Heal the Breach" mitigation), so lengths vary from one answer to the next.
- Only answers to GET and HEAD are compressed. The answers that put what a request sent beside a
  secret are answers to a POST: a form sent back with its errors (what was typed, beside the
  form's CSRF token), and the API's token answers (`/api/rooms`, `/join`, `/api/accounts/token`).
  They stay uncompressed here and at the proxy.
"""

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

COMPRESSED_METHODS = frozenset({"GET", "HEAD"})


class Compress(GZipMiddleware):
    """Django's `GZipMiddleware` for answers to GET and HEAD only (see the module's docstring)."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if request.method not in COMPRESSED_METHODS:
            return response
        return super().process_response(request, response)
