"""Accounts and rated games from a test: sign up in a page, take a personal token, play rated
tic-tac-toe over the JSON API (docs/api.md, "Accounts and personal tokens", "Ratings")."""

from playwright.sync_api import APIRequestContext, Page, expect

PASSWORD = "correct-horse-battery-9"
WIN_AS_X = (0, 3, 1, 4, 2)
"""X's top row against O's middle row: X wins on the fifth mark."""


def sign_up(page: Page, username: str) -> None:
    """Fill /accounts/signup/ (already open) and wait until the header names the account."""
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page.locator(".account-name")).to_have_text(username)


def personal_token(api: APIRequestContext, username: str) -> str:
    answer = api.post("/api/accounts/token", data={"username": username, "password": PASSWORD})
    assert answer.status == 201, answer.text()
    return answer.json()["token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def rated_tictactoe_room(api: APIRequestContext, host: str, guest: str) -> tuple[str, list[str]]:
    """A rated tic-tac-toe room made with `host`'s personal token and joined with `guest`'s:
    the room's code and the two seats' player tokens (host's first)."""
    created = api.post(
        "/api/rooms",
        data={"game": "tictactoe", "x": "human", "o": "human", "rated": True},
        headers=bearer(host),
    )
    assert created.status == 201, created.text()
    code = created.json()["code"]
    joined = api.post(f"/api/rooms/{code}/join", data={}, headers=bearer(guest))
    assert joined.status == 200, joined.text()
    return code, [created.json()["player_token"], joined.json()["player_token"]]


def win_rated_games(api: APIRequestContext, code: str, winner: str, loser: str, games: int) -> None:
    """`winner` (a seat's player token) beats `loser` in `games` games of the room in a row,
    from whichever side the rematches give it; each game's end is rated."""
    for number in range(1, games + 1):
        if number > 1:
            answer = api.post(
                f"/api/rooms/{code}/moves",
                data={"action": "new_game", "game": number - 1},
                headers=bearer(winner),
            )
            assert answer.ok, answer.text()
        state = api.get(f"/api/rooms/{code}", headers=bearer(winner)).json()
        assert state["number"] == number
        x, o = (winner, loser) if state["you"] == "X" else (loser, winner)
        for turn, cell in enumerate(WIN_AS_X if x == winner else (3, 0, 4, 1, 8, 2)):
            answer = api.post(
                f"/api/rooms/{code}/moves",
                data={"action": "mark", "cell": cell},
                headers=bearer(x if turn % 2 == 0 else o),
            )
            assert answer.ok, answer.text()
        state = api.get(f"/api/rooms/{code}", headers=bearer(winner)).json()
        assert state["status"] == "won" and state["winner"] == state["you"], state
        assert state["rating_changes"], state
