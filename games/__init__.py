"""Minesweeper Live's Django app (each game kind under kinds/ is an app of its own), a folder per
feature. Each folder's docstring says what lives there and what it may import; `make lint` checks the layers (import-linter,
pyproject.toml), from the top:

    web/ management/   pages, the JSON API, previews; the terminal games   -> everything below
    live/       the websocket transport: connect, read, write, fan-out, presence bookkeeping
    rooms/      the write side, one module per family of actions (`dispatch.play` routes)
    broadcast/  who hears what after a commit: announce, outbox, local delivery, bot events
    kinds/      the game-kind table and registry; per kind a Django app: rules, rendering,
                options, history, its templates, static files and API parts
    protocol/   messages parsed at the edge, audience keys, message budgets   | store/  models,
                                                                               rowsql, caches
    patches/    every touch of a library's private parts, one module each
    engine/     pure rules, standard library only

Four loose modules every layer may use (they import no folder): `limits`, `log_limit`,
`metrics`, `server_loop`. Django's own places stay where it expects them: models.py (naming
`store.models`), migrations/, admin.py, apps.py, templatetags/ and management/commands/.
"""
