"""The room websocket, apart from rules and storage: the consumer (`consumer`), the fan-out of a
room's messages to this process's sockets (`relay`, framed once by `daphne_frames`), the flood
limit (`flood`), presence bookkeeping (`presence`, `sockets`), the goodbyes when the server stops
(`shutdown`, `daphne_close_codes`) or Redis is lost (`layer_watch`), the computer players
driven live on the event loop (`autoplay`). (`make run` keeps its lone server on one CPU with
taskset, from outside.)

May import `games.services`, `games.announce`, `games.outbox`, `games.kinds`, `games.messages` and
`games.models`; never `games.web`.
"""
