"""Narrow error types: callers map each to a message for the player, never a traceback."""


class EngineError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidBoardError(EngineError):
    """Board parameters outside what the engine allows (size, mine count)."""


class InvalidMoveError(EngineError):
    """A move the rules refuse."""


class OutOfBoundsError(InvalidMoveError):
    """A move names a cell outside the board."""


class GameOverError(InvalidMoveError):
    """A move on a game that has already ended."""


class GenerationError(EngineError):
    """No board could be generated within the bounded number of attempts."""


class ParseError(EngineError):
    """Text that is not a valid ASCII board."""
