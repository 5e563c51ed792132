"""What is said on the wire, and how much of it: the one table of a room's messages for the
socket and the API (`message_table`: what each is, who may send it, what it spends, its
handler), a client's messages parsed once, at the edge, into small values (`messages`), the
audience keys and typed controls of a room's messages between processes and sockets
(`audiences`), and the budgets a socket's frames and a seat's moves spend (`flood`).

Imports nothing of games but the loose modules (`limits`): every kind's rules take these values.
"""
