"""A room's moves in version order whichever copy comes first (`games.live.reorder`), on a clock
the test sets."""

from games.live.reorder import HOLD_MESSAGES, HOLD_SECONDS, Reorder


def test_an_early_version_waits_for_the_one_before_it():
    order = Reorder()
    assert order.arrive((1, 4), "v4", 0.0) == ["v4"]
    assert order.arrive((1, 6), "v6", 0.01) == []
    assert order.arrive((1, 7), "v7", 0.02) == []
    assert order.arrive((1, 5), "v5", 0.03) == ["v5", "v6", "v7"]
    assert order.due() is None


def test_a_message_without_a_version_passes_at_once_even_while_a_move_waits():
    order = Reorder()
    order.arrive((1, 1), "v1", 0.0)
    assert order.arrive((1, 3), "v3", 0.0) == []
    assert order.arrive(None, "roster", 0.0) == ["roster"]


def test_a_gap_that_stays_releases_the_held_in_order_after_the_wait():
    order = Reorder()
    order.arrive((1, 1), "v1", 0.0)
    order.arrive((1, 4), "v4", 1.0)
    order.arrive((1, 3), "v3", 1.05)
    assert order.due() == 1.0 + HOLD_SECONDS
    assert order.expire(1.0 + HOLD_SECONDS / 2) == []
    assert order.expire(1.0 + HOLD_SECONDS) == ["v3", "v4"]
    assert order.arrive((1, 2), "v2", 2.0) == []  # too late: its sockets resynced
    assert order.arrive((1, 5), "v5", 2.0) == ["v5"]


def test_too_many_held_go_on_at_once_in_order():
    order = Reorder()
    order.arrive((1, 1), "v1", 0.0)
    versions = range(3, HOLD_MESSAGES + 4)  # v2 lost: one more than may wait
    heard = [order.arrive((1, v), f"v{v}", 0.0) for v in versions]
    assert heard[:-1] == [[]] * HOLD_MESSAGES
    assert heard[-1] == [f"v{v}" for v in versions]
    assert order.due() is None


def test_a_new_game_lets_the_old_ones_held_go_first_and_starts_from_version_one():
    order = Reorder()
    order.arrive((1, 7), "1:7", 0.0)
    order.arrive((1, 9), "1:9", 0.0)
    assert order.arrive((2, 2), "2:2", 0.0) == ["1:9"]
    assert order.arrive((2, 1), "2:1", 0.0) == ["2:1", "2:2"]
    assert order.arrive((1, 8), "1:8", 0.0) == []


def test_a_version_heard_twice_goes_on_once():
    order = Reorder()
    order.arrive((1, 1), "v1", 0.0)
    assert order.arrive((1, 3), "v3", 0.0) == []
    assert order.arrive((1, 3), "v3", 0.0) == []
    assert order.arrive((1, 2), "v2", 0.0) == ["v2", "v3"]
    assert order.arrive((1, 2), "v2", 0.0) == []
