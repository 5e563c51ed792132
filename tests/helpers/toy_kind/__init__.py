"""The toy kind (Lights Out), a kind the shell has never heard of: a Django app of its own, as
every kind is, with its table (`kind.LIGHTS_OUT`), a template and a script. The shell tests add it
to `INSTALLED_APPS` and the registry for their own time only (tests/web/test_game_kinds.py)."""
