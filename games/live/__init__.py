"""The room websocket, the transport only: the consumer (`consumer`: connect and close;
`receiving`: a frame parsed and handed to `games.rooms`; `output`: messages, snapshots and
replies to one socket, and backpressure), the fan-out of a room's messages to this process's
sockets (`relay`, framed once by `daphne_frames`; reordered across processes by `reorder`),
snapshots (`snapshots`), presence bookkeeping (`presence`, `rosters`, `heartbeat`, `sockets`),
bots' JSON sockets (`bot_sockets`), the handshake's Origin check (`origin`), a race spectator's
delay (`delayed`), and the goodbyes when the server stops (`shutdown`) or Redis is lost
(`layer_watch`). (`make run` keeps its lone server on one CPU with taskset, from outside.)

May import `games.rooms` and every folder below it; never `games.web`.
"""
