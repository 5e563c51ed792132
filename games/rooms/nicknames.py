"""Nicknames: cleaned (nothing invisible, NFKC, grapheme clusters kept whole), cut and made
unique in a room, so the room's narration can say who did what; and names that cannot
impersonate: no look-alike of a name in the room, none of the app's own words, no stacks of
combining marks (issue 33, item 9).

Look-alikes are judged by Unicode's confusable skeleton (UTS #39, "confusables.txt"): two names
are confusable when their skeletons are equal, so `Нost` (Cyrillic Н) is `Host`, `Ana` with a
Cyrillic а is `Ana`, and `I` is `l`. The table comes from `confusable-homoglyphs`, which keeps
confusables.txt as pairs in both directions; each pair joins a character to its prototype, so
the classes of characters one prototype gathers are exactly what a skeleton maps together, and
a class's prototype stands for it (`_prototypes`). Only single characters are folded: a
prototype of several characters (`m` is `rn`) stands for its class, but `rn` typed as two
letters stays two letters. Limits and figures: docs/operations.md ("Limits").
"""

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from functools import cache

import regex
from confusable_homoglyphs.confusables import confusables_data

from ..kinds import KINDS
from ..store.models import MAX_NICKNAME


class NicknameError(ValueError):
    """A name refused, with the reason for the person who chose it."""


MAX_MARKS = 4
"""Combining marks (nonspacing or enclosing) on one character. Hebrew with points and
cantillation, Thai tone over vowel, Tibetan stacks need 2 to 3; "Zalgo" text stacks tens of
them, drawn over the lines above and below (a name of 23 marks on one letter)."""

RESERVED = ("Spectator", "Spectators", "Host", "System", "Admin", "Administrator", "Moderator")
"""Words the app itself shows where a name goes (a spectator's chat line is "Spectator", the
host's badge "Host"), beside each kind's bot and the computer players (`reserved_words`)."""

_GRAPHEME = regex.compile(r"\X")
_SUFFIX = re.compile(r"\s*(\(.*\)|\d+)\s*$")
"""A number or a bracket after a name ("Spectator 2", "Computer (easy)") keeps it the word."""
_MARKS = frozenset({"Mn", "Me"})
_LEFT_TO_RIGHT = "\u200e"
"""confusables.txt wraps right-to-left characters in marks for its comments; not part of them."""


def stacked_marks(text: str) -> int:
    """The most combining marks on one user-perceived character of `text`."""
    return max(
        (
            sum(unicodedata.category(char) in _MARKS for char in cluster)
            for cluster in _GRAPHEME.findall(text)
        ),
        default=0,
    )


def check_marks(name: str) -> None:
    """Refuse a name with more than `MAX_MARKS` combining marks on one character."""
    if stacked_marks(name) > MAX_MARKS:
        raise NicknameError(
            f"Too many accents on one character: at most {MAX_MARKS} combining marks each."
        )


def skeleton(text: str) -> str:
    """UTS #39's skeleton, case folded: what `text` looks like, whatever the script."""
    prototypes = _prototypes()

    def fold(value: str) -> str:
        decomposed = unicodedata.normalize("NFD", value)
        return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))

    return fold(fold(text).casefold())


def looks(text: str) -> frozenset[str]:
    """The skeletons of `text` as written and in small letters: `Нost` (Cyrillic) is `Host`
    only before case folding (a small н is a small-capital ʜ), `ADMIN` is `admin` only after
    (a capital I is an l)."""
    return frozenset((skeleton(text), skeleton(text.casefold())))


def warm() -> None:
    """Build the confusables' table now (`config/asgi.py`, at a server's start): built on first
    use, it fell on the first room's creation (its cost: docs/history/performance-2026.md)."""
    reserved_words()


@cache
def reserved_words() -> frozenset[str]:
    """The skeletons of every word the app shows as a name."""
    bots = (kind.bot.name for kind in KINDS.values() if kind.bot is not None)
    words = (*RESERVED, "Computer", "Person", *bots)
    return frozenset().union(
        *(looks(variant) for word in words for variant in (word, word.upper()))
    )


def check_reserved(name: str) -> None:
    """Refuse the app's own words, however spelt ("Spectator", "Sp℮ctator 2", "Solver bot")."""
    if looks(_SUFFIX.sub("", name)) & reserved_words():
        raise NicknameError(f'"{name}" is a name the app uses itself: choose another.')


def check_lookalike(name: str, names: Iterable[str]) -> None:
    """Refuse a name that looks like one in the room but is not the same name: the same name
    (regardless of case) gets a number instead (`unique_nickname`)."""
    folded, like = name.casefold(), looks(name)
    for other in names:
        if other.casefold() != folded and looks(other) & like:
            raise NicknameError(
                f'"{name}" looks like "{other}", who is in this room already: choose another.'
            )


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from the library's pairs."""
    edges: defaultdict[str, set[str]] = defaultdict(set)
    for source, glyphs in confusables_data.items():
        for glyph in glyphs:
            one, other = source.strip(_LEFT_TO_RIGHT), glyph["c"].strip(_LEFT_TO_RIGHT)
            edges[one].add(other)
            edges[other].add(one)
    prototypes: dict[str, str] = {}
    walked: set[str] = set()
    for start in edges:
        if start in walked:
            continue
        found, queue = {start}, [start]
        while queue:  # the class: everything joined to `start` by pairs
            for near in edges[queue.pop()] - found:
                found.add(near)
                queue.append(near)
        walked |= found
        prototype = _prototype(found, edges)
        prototypes.update((char, prototype) for char in found if len(char) == 1)
    return prototypes


def _prototype(found: set[str], edges: defaultdict[str, set[str]]) -> str:
    """The class's prototype: a sequence if one is in it (only prototypes are sequences), else
    the character every other one is paired with (for a pair, the lower code point: either
    stands for both)."""
    sequences = sorted(char for char in found if len(char) > 1)
    if sequences:
        return sequences[0]
    return max(sorted(found), key=lambda char: len(edges[char]))


_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})
"""Control, format (zero-width, bidirectional), private-use, surrogate and line/paragraph
separator characters: invisible or disruptive in a name, and PostgreSQL refuses NUL in text."""
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern)."""
_VISIBLE = ("L", "N", "P", "S")
"""Unicode category classes that draw something: letters, digits, punctuation, symbols."""
_JOINERS = "\u200c\u200d"


def _drawn(cluster: str) -> str:
    """One grapheme cluster without what draws nothing. An emoji sequence (a cluster that starts
    with a symbol) keeps its joiners and tags, which make 👩‍👩‍👧‍👦 one family rather than four
    faces, but not one left dangling at its end; elsewhere every invisible character goes."""
    if len(cluster) > 1 and unicodedata.category(cluster[0]) == "So":
        return cluster.rstrip(_JOINERS)
    return "".join(
        " " if char.isspace() else char
        for char in cluster
        if char.isspace()
        or (unicodedata.category(char) not in _INVISIBLE and char not in _BLANK_LETTERS)
    )


def cut_to(name: str, limit: int) -> str:
    """`name`'s first whole grapheme clusters that fit in `limit` characters (code points, what
    the database counts): a cut never splits an emoji or a letter from its accents."""
    kept, size = [], 0
    for cluster in _GRAPHEME.findall(name):
        size += len(cluster)
        if size > limit:
            break
        kept.append(cluster)
    return "".join(kept)


def clean_nickname(raw: object) -> str:
    """Without invisible characters (`_drawn`), NFKC-normalised (so full-width and other
    compatibility look-alikes become the plain letters), single-spaced, 1..24 characters with at
    least one visible one; escaping is the templates' job. Grapheme clusters stay whole."""
    if not isinstance(raw, str):
        raise NicknameError("Choose a nickname.")
    kept = "".join(_drawn(cluster) for cluster in _GRAPHEME.findall(raw))
    name = " ".join(unicodedata.normalize("NFKC", kept).split())
    if not name:
        raise NicknameError("Choose a nickname.")
    if not any(
        unicodedata.category(char)[0] in _VISIBLE and char not in _BLANK_LETTERS for char in name
    ):
        raise NicknameError("Choose a nickname with at least one letter, digit or symbol.")
    if len(name) > MAX_NICKNAME:
        raise NicknameError(f"Nicknames are at most {MAX_NICKNAME} characters.")
    check_marks(name)
    check_reserved(name)
    return name


def unique_nickname(name: str, taken: set[str]) -> str:
    """`name`, or the first of "name 2", "name 3"… that no one in the room has (`taken`, case
    folded), cut to fit the length limit: the room's narration must say who did what."""
    if name.casefold() not in taken:
        return name
    number = 2
    while True:
        suffix = f" {number}"
        candidate = cut_to(name, MAX_NICKNAME - len(suffix)).rstrip() + suffix
        if candidate.casefold() not in taken:
            return candidate
        number += 1
