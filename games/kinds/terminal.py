"""What the terminal games share: a command that runs only the pure engine (no checks, no
migrations to wait for), reads its moves from stdin, and answers bad arguments as argparse does.
It lives beside the kinds, not among the commands, so Django lists only the games themselves."""

from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandError, CommandParser


class TerminalGame(BaseCommand):
    usage = ""
    """The one line of arguments users need (`manage.py NAME <usage>`), not all the options."""
    requires_system_checks: list[str] = []
    requires_migrations_checks = False
    stealth_options = ("stdin",)

    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> CommandParser:
        kwargs.setdefault("usage", f"%(prog)s {self.usage}")
        self.parser = super().create_parser(prog_name, subcommand, **kwargs)
        return self.parser

    def usage_error(self, message: str) -> NoReturn:
        """Bad arguments: usage and the reason on stderr, exit status 2, like argparse's own."""
        if self.parser.called_from_command_line:
            self.parser.error(message)
        raise CommandError(message, returncode=2)


def with_rulers(board: str) -> str:
    """The board with column numbers above and row numbers at the left, so that `x, y` can be
    read off a large board. Each column's number is written top-down, one digit a line."""
    rows = board.splitlines()
    width, height = len(rows[0]), len(rows)
    label = len(str(height - 1))
    rulers = [
        " " * (label + 1) + "".join(_digit(x, place) for x in range(width))
        for place in reversed(range(len(str(width - 1))))
    ]
    return "\n".join([*rulers, *(f"{y:>{label}} {row}" for y, row in enumerate(rows))])


def _digit(number: int, place: int) -> str:
    """One digit of `number` (place 0 is the units); leading zeros are blank."""
    return str(number // 10**place % 10) if number >= 10**place or place == 0 else " "
