"""Nicknames: cleaned (nothing invisible, NFKC, grapheme clusters kept whole), cut and made
unique in a room, so the room's narration can say who did what.
"""

import unicodedata

import regex

from ..store.models import MAX_NICKNAME


class NicknameError(ValueError):
    pass


_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})
"""Control, format (zero-width, bidirectional), private-use, surrogate and line/paragraph
separator characters: invisible or disruptive in a name, and PostgreSQL refuses NUL in text."""


_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern)."""


_VISIBLE = ("L", "N", "P", "S")
"""Unicode category classes that draw something: letters, digits, punctuation, symbols."""


_GRAPHEME = regex.compile(r"\X")
"""One user-perceived character (a grapheme cluster, Unicode's rules as `regex` keeps them)."""


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
