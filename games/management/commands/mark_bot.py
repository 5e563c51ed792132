"""Mark an account a bot account, or a person's again: `manage.py mark_bot USERNAME [--off]`.

The same as the checkbox on the account's admin page, for a shell or a deploy script. A bot
account is shown as one and rated on its own list (docs/contracts.md, "Players and ratings").
"""

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.players import accounts


class Command(BaseCommand):
    help = "Mark an account a bot account (--off: a person's again)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--off", action="store_true", help="Unmark: a person's account.")

    def handle(self, *args: object, username: str, off: bool, **options: object) -> None:
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No account with the username {username!r}.")
        accounts.mark_bot(user, bot=not off)
        what = "a person's account" if off else "a bot account"
        self.stdout.write(f"{user.username} is {what}.")
