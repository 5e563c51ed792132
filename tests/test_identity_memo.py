"""games.store.identity_memo: a value kept by its object's identity, a bounded number of them."""

from games.store.identity_memo import IdentityMemo


def test_a_value_is_found_by_its_very_object_not_an_equal_one():
    memo: IdentityMemo[list[int], str] = IdentityMemo(limit=4)
    part = [1, 2, 3]
    memo.put(part, "[1, 2, 3]")
    assert memo.get(part) == "[1, 2, 3]"
    assert memo.get([1, 2, 3]) is None


def test_past_the_limit_the_least_recently_stored_goes_first():
    memo: IdentityMemo[list[int], int] = IdentityMemo(limit=2)
    parts = [[n] for n in range(3)]
    for n, part in enumerate(parts):
        memo.put(part, n)
    assert [memo.get(part) for part in parts] == [None, 1, 2]
