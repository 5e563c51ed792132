"""What answers HTTP: the pages (`views`, `urls`, `forms`, `on_now`), past games (`history`,
`replays`), link previews (`preview_*`, `previews`), the JSON API for bots (`api/`, one module
per resource), the per-address and per-room limits (`room_limit`) and Prometheus' `/metrics`
(`scrape`). Every write goes through `games.rooms`.

May import everything below it (`games.live`, `games.rooms`, …); nothing imports it but the URL
configuration.
"""
