"""Admin logins are throttled per client address (django-axes), so /admin/ cannot be guessed at."""

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import RequestFactory

from games.players.lockout import lockout_parameters

pytestmark = pytest.mark.django_db

PASSWORD = "a-right-password-for-the-admin-test"
ATTACKER = "203.0.113.7"


@pytest.fixture
def admin_user(settings) -> User:
    # A fast hasher: the throttle is under test, not PBKDF2's deliberate slowness.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return User.objects.create_superuser("admin", "admin@example.org", PASSWORD)


def log_in(client, password: str, address: str):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "admin", "password": password},
        REMOTE_ADDR=address,
    )


def test_an_address_is_locked_out_after_repeated_wrong_passwords(client, admin_user):
    failures = [
        log_in(client, f"guess-{n}", ATTACKER).status_code
        for n in range(settings.AXES_FAILURE_LIMIT)
    ]
    assert 429 not in failures[:-1]

    right = log_in(client, PASSWORD, ATTACKER)

    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_locked_out_address_does_not_lock_out_another(client, admin_user):
    for n in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, f"guess-{n}", ATTACKER)

    answer = log_in(client, PASSWORD, "198.51.100.20")

    assert answer.status_code == 302 and answer["Location"] == "/admin/"


def test_the_lockout_is_limited_in_time():
    """Never for ever: an attacker must not lock the operator out until someone resets it."""
    assert settings.AXES_COOLOFF_TIME.total_seconds() > 0
    assert lockout_parameters(RequestFactory().post("/admin/login/"), None) == ["ip_address"]
