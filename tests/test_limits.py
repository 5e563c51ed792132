"""games.limits: one vocabulary for every rate limit (a named limit, a key, a store, a decision)."""

import os
import uuid

import pytest
import redis

from games.limits import (
    Buckets,
    Budget,
    Decision,
    Limit,
    Shared,
    deployment,
    headers,
    take_all,
    take_all_async,
)
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import free_port


def test_a_limit_says_its_pace_in_words():
    assert str(Limit.rate("moves", 40, 20.0)) == "20 a second"
    assert str(Limit("rooms", 10, 60)) == "10 a minute"
    assert str(Limit("socket-hints", 10, 20)) == "30 a minute"
    assert str(Limit("hint-room", 1, 7)) == "1 every 7 seconds"


def test_headers_follow_the_ratelimit_draft_in_whole_seconds_rounded_up():
    refused = Decision(Limit.rate("moves", 40, 20.0), False, 0, retry_after=0.05)
    assert headers(refused) == {
        "Retry-After": "1",
        "RateLimit-Policy": '"moves";q=40;w=2',
        "RateLimit": '"moves";r=0;t=1',
    }
    later = Decision(Limit("rooms", 10, 60), False, 0, retry_after=41.2)
    assert headers(later)["Retry-After"] == "42" and headers(later)["RateLimit"].endswith("t=42")


def test_buckets_count_per_key_give_back_and_say_when_to_retry():
    buckets = Buckets(Limit.rate("test", 2, 1.0))
    assert [buckets.take("a", 0).remaining for _ in range(2)] == [1, 0]
    refused = buckets.take("a", 0.25)
    assert not refused.allowed and refused.retry_after == 0.75
    assert buckets.take("b", 0.25).allowed  # another key, its own bucket
    buckets.give_back("a")
    assert buckets.take("a", 0.25).allowed


def test_buckets_forget_full_keys_past_their_bound():
    buckets = Buckets(Limit.rate("test", 1, 1.0), kept=2)
    buckets.take("a", 0)
    buckets.take("b", 5)
    buckets.take("c", 5)  # "a" has filled up again: forgotten, losing nothing
    assert set(buckets.buckets) == {"b", "c"}


def test_shared_once_holds_a_key_for_its_window_from_that_use():
    key = str(uuid.uuid4())  # the cache outlives a test (Redis under CI)
    once = Shared(Limit("test-once", 1, 30))
    assert once.once(key, 1000.0).allowed
    refused = once.once(key, 1010.0)
    assert not refused.allowed and refused.retry_after == 20
    once.give_back(key)
    assert once.once(key, 1010.0).allowed


def test_shared_counts_a_clock_window_and_says_when_it_turns():
    key = str(uuid.uuid4())
    counted = Shared(Limit("test-window", 2, 60))
    for left in (1, 0):
        with counted.reserve(key, 120.0) as made:
            assert made.decision.remaining == left
            made.keep()
    with counted.reserve(key, 150.0) as refused:
        assert not refused.decision.allowed and refused.decision.retry_after == 30
    with counted.reserve(key, 180.0) as next_window:
        assert next_window.decision.allowed


# --- budgets: in this process, or once for the deployment in Redis --------------------------

REDIS_URL = os.environ.get("TEST_REDIS_URL") or os.environ.get("REDIS_URL") or ""


@pytest.fixture
def in_memory(settings):
    settings.REDIS_URL = ""


@pytest.fixture
def in_redis(settings):
    """Budgets in the real Redis, under a prefix of this test's own (never skipped in CI)."""
    url = REDIS_URL or "redis://127.0.0.1:6379/1"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.exceptions.RedisError as error:
        skip_or_fail(f"Redis is not reachable at {url}: {error}")
    settings.REDIS_URL = url
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": unique("budgets")}}
    yield
    deployment().storage.reset()


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def test_a_budget_in_memory_is_this_processs_token_bucket(in_memory):
    one, other = Budget(Limit.rate("test", 3, 1.0)), Budget(Limit.rate("test", 3, 1.0))
    assert deployment() is None
    assert [one.take("seat", 0).allowed for _ in range(4)] == [True] * 3 + [False]
    assert other.take("seat", 0).allowed  # another process: its own count
    assert one.take("seat", 1.0).allowed  # a token back after 1 / rate


def test_a_budget_in_redis_counts_once_for_every_process(in_redis):
    """Two budgets of one limit stand for two processes: their takes add up."""
    limit = Limit.rate(unique("test"), 4, 0.01)
    here, there = Budget(limit), Budget(limit)
    answers = [(here, there)[n % 2].take("seat", 0).allowed for n in range(6)]
    assert answers == [True] * 4 + [False] * 2
    refused = there.take("seat", 0)
    assert refused.limit == limit and 390 < refused.retry_after <= 400  # 4 per 400 s
    assert here.take("another seat", 0).allowed


async def test_a_budget_in_redis_counts_the_event_loops_takes_with_the_threads(in_redis):
    limit = Limit.rate(unique("test"), 3, 0.01)
    here, there = Budget(limit), Budget(limit)
    assert (await here.take_async("seat", 0)).allowed
    assert there.take("seat", 0).allowed
    assert (await there.take_async("seat", 0)).allowed
    assert not (await here.take_async("seat", 0)).allowed


@pytest.mark.parametrize("store", ["in_memory", "in_redis"])
async def test_take_all_counts_nothing_when_a_later_budget_refuses(store, request):
    request.getfixturevalue(store)
    person, room = Budget(Limit(unique("person"), 2, 100)), Budget(Limit(unique("room"), 1, 100))
    assert take_all([(person, "p"), (room, "r")], 0) is None
    refusal = take_all([(person, "p"), (room, "r")], 0)
    assert refusal is not None and refusal.limit == room.limit
    refusal = await take_all_async([(person, "p"), (room, "r")], 0)
    assert refusal is not None and refusal.limit == room.limit
    assert take_all([(person, "p"), (room, "another room")], 0) is None  # p's second is left


def test_a_budget_of_one_given_back_in_redis_is_free_again_everywhere(in_redis):
    limit = Limit(unique("test"), 1, 100)
    here, there = Budget(limit), Budget(limit)
    assert here.take("room", 0).allowed and not there.take("room", 0).allowed
    here.give_back("room")
    assert there.take("room", 0).allowed


def test_a_budget_with_redis_down_counts_in_this_process(settings):
    port = free_port()  # nothing listens there
    settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
    budget = Budget(Limit.rate(unique("test"), 2, 0.01))
    assert [budget.take("seat", 0).allowed for _ in range(3)] == [True, True, False]
