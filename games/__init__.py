"""Minesweeper Live's one Django app, grouped by role. Each folder's docstring says what lives
there and what it may import; `make lint` checks the layers (import-linter, pyproject.toml):

    web/       pages, forms, urls and the JSON API            -> live, services, kinds, models
    live/      the room websocket: consumer, fan-out, framing -> services, kinds, models
    services   the one place where rooms and games are written (`play`), then `announce`
    announce   what a room hears after a commit, rendered through its kind; `outbox` sends it
    kinds/     the game-kind table: per kind, rules, rendering and its create form
    models     Room, Player, Game, Move (and `fields`, `palette`, `rowsql` beside them)
    metrics, hint_cache   small helpers every layer may use; they import nothing of games
    engine/    pure rules, standard library only

Django's own places stay where it expects them: models.py, migrations/, admin.py, apps.py and
management/commands/ (the terminal games, which play the engine directly, and `prune`).
"""
