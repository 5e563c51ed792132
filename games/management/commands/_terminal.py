"""What the terminal games share: a command that runs only the pure engine (no checks, no
migrations to wait for), reads its moves from stdin, and answers bad arguments as argparse does.
The leading underscore keeps Django from listing it as a command."""

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
