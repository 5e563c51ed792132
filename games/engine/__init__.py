"""Pure rules: Minesweeper (generation, no-guess boards, the solver, the text form, statistics
and replay positions from a move log), Minesweeper Flags and tic-tac-toe, with their computer
players. A game is a frozen value; `apply_move(state, move)` returns
the new state and the events (the cells that changed). Standard library only: no Django, no I/O,
no clock, no global random (`tests/engine/test_purity.py` and the import-linter contracts check
it). Nothing here imports the rest of `games`.
"""
