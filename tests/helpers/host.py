"""The host's messages over the socket.

Moved out of tests/web/test_host_messages.py (issue 34): test modules share helpers from here,
never from each other."""

HANDLE = "0123456789ab"
