"""What answers HTTP: the pages (`views`, `urls`, `forms`), the JSON API for bots (`api`), the
room-creation limit per address (`room_limit`) and Prometheus' `/metrics` (`scrape`). Every write goes through `games.services`.

May import everything below it (`games.live` to wake computer players, services, kinds, models);
nothing imports it but the URL configuration.
"""
