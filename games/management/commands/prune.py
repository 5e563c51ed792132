"""Delete rooms nobody has used for a while: `manage.py prune --older-than DAYS [--dry-run]`.

A room goes, with its players, games and move log, when nothing has happened in it for DAYS
days: it was created earlier, and no game of it was created or finished and no move was made
since. A game still in play counts as idle too: nobody has moved in it. Rooms are kept
otherwise for ever, so this is what bounds the database (docs/operations.md, "Keeping data").
"""

import argparse
from collections import Counter
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from games.store.models import Game, Move, Room

BATCH = 500
"""Rooms per transaction: bounds each one's locks and the size of its `IN` lists."""


def days(text: str) -> int:
    """argparse type for `--older-than`: a bad value becomes a usage error (exit status 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of days, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def idle_rooms(cutoff) -> QuerySet[Room]:
    """Rooms created before `cutoff` with no game created or finished and no move since."""
    recent_game = Game.objects.filter(room=OuterRef("pk")).filter(
        Q(created_at__gte=cutoff) | Q(finished_at__gte=cutoff)
    )
    recent_move = Move.objects.filter(game__room=OuterRef("pk"), created_at__gte=cutoff)
    return Room.objects.filter(created_at__lt=cutoff).exclude(
        Exists(recent_game) | Exists(recent_move)
    )


def delete_rooms(ids: list[int]) -> Counter[str]:
    """One batch: the move log first in one statement, so the cascade from rooms has little
    left to collect (Move.player is SET NULL, which would otherwise update each move first)."""
    deleted: Counter[str] = Counter()
    with transaction.atomic():
        _, moves = Move.objects.filter(game__room_id__in=ids).delete()
        _, rest = Room.objects.filter(pk__in=ids).delete()
    for counts in (moves, rest):
        for label, count in counts.items():
            deleted[label.rsplit(".", 1)[-1].lower()] += count
    return deleted


class Command(BaseCommand):
    help = "Delete rooms idle for more than DAYS days, with their players, games and moves."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=days,
            required=True,
            metavar="DAYS",
            help="delete rooms with no new game, finished game or move in this many days",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="count the rooms, delete nothing"
        )

    def handle(self, *args, older_than: int, dry_run: bool, **options) -> None:
        cutoff = timezone.now() - timedelta(days=older_than)
        ids = list(idle_rooms(cutoff).values_list("pk", flat=True))
        if dry_run:
            self.stdout.write(f"{len(ids)} rooms idle for more than {older_than} days")
            return
        deleted: Counter[str] = Counter()
        for start in range(0, len(ids), BATCH):
            deleted += delete_rooms(ids[start : start + BATCH])
        self.stdout.write(
            f"Deleted {deleted['room']} rooms, {deleted['game']} games, "
            f"{deleted['move']} moves and {deleted['player']} players "
            f"idle for more than {older_than} days."
        )
