"""Minesweeper races: 2 to 8 racers, each on their own copy of one seeded board.

A Django app (`apps.py`), as a pretix plugin is: its templates and static files sit in this folder
and Django's app loaders find them. This module stays empty, since Django imports it before the
models are ready; the kind's table is `kind.KIND`.
"""
