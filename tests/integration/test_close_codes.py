"""What a real Daphne answers a peer that breaks the websocket's rules: a frame past the 1 MiB
limit closes with 1009 and text that is not UTF-8 with 1007 (docs/operations.md, "Limits"),
each with a close frame, not a dropped connection the peer would read as 1006."""

import struct

import pytest

from games.patches.daphne_frames import MESSAGE_LIMIT_BYTES
from tests.helpers import servers
from tests.helpers.clients import api, open_non_reading_socket
from tests.helpers.environment import skip_or_fail
from tests.helpers.servers import Daphne

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def daphne(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("close-codes")
    try:
        env = servers.migrated_database_env(folder, "close")
    except servers.ServiceUnavailable as error:
        skip_or_fail(str(error))
    server = Daphne(env, folder / "daphne.log")
    try:
        with server:
            yield server
    finally:
        servers.drop_database(env)


def client_frame_header(opcode: int, length: int) -> bytes:
    """A masked client frame's header (a zero mask leaves the payload as it is)."""
    if length < 126:
        return bytes([0x80 | opcode, 0x80 | length]) + b"\0\0\0\0"
    return bytes([0x80 | opcode, 0x80 | 127]) + struct.pack("!Q", length) + b"\0\0\0\0"


def close_code_after(daphne: Daphne, sent: bytes) -> int | None:
    """The code of the close frame Daphne answers `sent` with; None if it drops the connection."""
    status, created = api(
        daphne.url, "POST", "/api/rooms", {"game": "minesweeper", "preset": "beginner"}
    )
    assert status == 201, created
    client = open_non_reading_socket(daphne, f"/ws/r/{created['code']}/?watch=1")
    try:
        client.sendall(sent)
        received = bytearray()
        while True:
            frame = next_frame(received)
            if frame is None:
                try:
                    chunk = client.recv(65536)
                except ConnectionResetError:
                    return None
                if not chunk:
                    return None
                received += chunk
            elif frame[0] == CLOSE:
                return int.from_bytes(frame[1][:2], "big")
    finally:
        client.close()


CLOSE = 0x8


def next_frame(buffer: bytearray) -> tuple[int, bytes] | None:
    """The first whole (unmasked, server) frame taken off `buffer` as (opcode, payload)."""
    if len(buffer) < 2:
        return None
    length, start = buffer[1] & 0x7F, 2
    if length == 126:
        length, start = int.from_bytes(buffer[2:4], "big"), 4
    elif length == 127:
        length, start = int.from_bytes(buffer[2:10], "big"), 10
    if len(buffer) < start + length:
        return None
    frame = (buffer[0] & 0x0F, bytes(buffer[start : start + length]))
    del buffer[: start + length]
    return frame


def test_a_frame_past_the_limit_closes_with_1009(daphne):
    too_long = MESSAGE_LIMIT_BYTES + 1
    assert close_code_after(daphne, client_frame_header(0x1, too_long)) == 1009


def test_text_that_is_not_utf8_closes_with_1007(daphne):
    payload = b"\xff\xfe"
    assert close_code_after(daphne, client_frame_header(0x1, len(payload)) + payload) == 1007
