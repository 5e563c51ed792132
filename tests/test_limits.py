"""games.limits: one vocabulary for every rate limit (a named limit, a key, a store, a decision)."""

import uuid

from games.limits import Buckets, Decision, Limit, Shared, headers


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
