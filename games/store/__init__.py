"""Storage: the models (`models`; `games.models` names them for Django), their JSON field
(`fields`), seat colours (`palette`), a move's hand-written SQL (`rowsql`), the per-process
memories of what was written or worked out (`kept_games`, `hint_cache`, `identity_memo`) and
SQLite's checkpoints (`sqlite_checkpoints`).

May import the engine and `games.patches` only (layers: pyproject.toml).
"""
