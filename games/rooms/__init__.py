"""The write side: one module per family of actions (as Zulip's `zerver/actions/`), each writing
in one transaction and announcing after the commit (`games.broadcast.announce`).

    dispatch    `play`: a parsed message to the family that carries it out
    playing     a move, a kind's own command, the clock's timed events, the next game
    joining     a room created, a seat taken (`nicknames`: a name cleaned and made unique)
    hints       a provably safe cell for the room, from the API or the socket (bounded)
    computers   the Solver bot and computer seats (`autoplay`: their live driver)
    host        the host's controls, a seat's token revoked, the room deleted
    chat        the room's chat lines, checked, paced and kept
    signals     pings and reactions: presence, sent at once, never stored
    presence    the sockets each process counts, its heartbeat, dead processes swept
    daily       the daily board: a day's seed, a person's copy dealt, the day's results
    base        an action's `Outcome`, `Forbidden` and a spectator's refusals
"""
