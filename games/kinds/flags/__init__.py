"""Minesweeper Flags: two players take turns on one board and claim mines; a person against a
person, against the computer (easy or strong), or two computers playing for spectators.

A Django app (`apps.py`), as a pretix plugin is: its templates and static files sit in this folder
and Django's app loaders find them. This module stays empty, since Django imports it before the
models are ready; the kind's table is `kind.KIND`.
"""
