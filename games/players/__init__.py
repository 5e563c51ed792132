"""Players who come back (issue 36; docs/contracts.md, "Players and ratings"): optional
accounts with Django's own auth, a name that follows a signed-in person into every room, API
tokens for bot authors, and profiles. Guests keep playing as before; nothing here is on a
move's path."""
