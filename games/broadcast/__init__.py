"""Who hears what, after the commit: `announce` renders what a room hears through its kind, once
per audience; `chat_view` and `host_view` what a screen may read of the chat and the host's
menu; `bot_events` the JSON events for bots; `outbox` posts to a room's group from any thread;
`local` hands this process's own sockets of the room their copy at once (the relay registers
each room's subscription there).

May import `games.kinds` and what lies below; the audience keys are `games.protocol.audiences`.
"""
