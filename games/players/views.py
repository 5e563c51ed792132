"""Account pages: sign up and the account page (API tokens); profiles are `games.web.profile`.
Signing in and out and changing a password are Django's own views (`urls`), with our templates."""

import time

from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ..limits import headers
from ..protocol.flood import address_key
from . import accounts
from .forms import SignupForm
from .models import ApiToken

TOO_MANY_SIGNUPS = "Too many new accounts from your address this hour: try again later."


def client_address(request: HttpRequest) -> str:
    return address_key(request.META.get("REMOTE_ADDR") or "unknown")


def next_page(request: HttpRequest) -> str:
    """Where to go after signing up: the `next` of the form (an invite link, say), if it is
    this site's, else home."""
    wanted = request.POST.get("next") or request.GET.get("next") or "/"
    safe = url_has_allowed_host_and_scheme(wanted, {request.get_host()}, request.is_secure())
    return wanted if safe else "/"


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """A new account, signed in at once. Only accounts made count toward the address's hourly
    bound: a form sent back with errors does not; a refused one leaves no user."""
    if request.method == "GET":
        return page(request, SignupForm())
    form = SignupForm(request.POST)
    with accounts.signups().reserve(client_address(request), time.time()) as reservation:
        if not reservation.decision.allowed:
            form.add_error(None, TOO_MANY_SIGNUPS)
            answer = page(request, form, status=429)
            for name, value in headers(reservation.decision).items():
                answer[name] = value
            return answer
        if not form.is_valid():
            return page(request, form, status=400)
        try:
            user = form.save()
        except accounts.UsernameError as error:
            form.add_error("username", str(error))
            return page(request, form, status=400)
        reservation.keep()
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(next_page(request))


def page(request: HttpRequest, form: SignupForm, status: int = 200) -> HttpResponse:
    context = {"form": form, "next": next_page(request)}
    return render(request, "players/signup.html", context, status=status)


@require_GET
@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in person's page: their profile's link and their API tokens."""
    tokens = ApiToken.objects.filter(user=request.user)
    return render(request, "players/account.html", {"tokens": tokens})


@require_POST
@login_required
def new_token(request: HttpRequest) -> HttpResponse:
    """A token, shown once on the page that answers (only its digest is kept)."""
    assert isinstance(request.user, User)
    token = accounts.issue_token(request.user)
    tokens = ApiToken.objects.filter(user=request.user)
    return render(
        request, "players/account.html", {"tokens": tokens, "new_token": token}, status=201
    )


@require_POST
@login_required
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    assert isinstance(request.user, User)
    if not accounts.revoke_token(request.user, token_id):
        raise Http404("No such token of yours.")
    return redirect("account")
