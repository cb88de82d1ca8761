"""Frames on kbx's sockets: u32 header_len, u64 payload_len (both LE), JSON header, payload."""

from __future__ import annotations

import collections
import json
import os
import socket
import struct
from dataclasses import dataclass
from typing import Any, Iterable

PREFIX = struct.Struct("<IQ")
MAX_FRAME_BYTES = 1 << 32  # header plus payload; a larger frame is a protocol error
_RECV_BYTES = 1 << 16
_MAX_FDS_PER_RECV = 16

Buffer = Any  # bytes, bytearray, memoryview or any object with the buffer protocol


class ProtocolError(Exception):
    """A frame the worker cannot accept. `fatal` when the byte stream can no longer be trusted."""

    def __init__(self, message: str, fatal: bool = False):
        super().__init__(message)
        self.fatal = fatal


@dataclass
class Frame:
    header: dict
    payload: bytes = b""

    @property
    def op(self) -> str:
        return self.header["op"]


def encode_header(header: dict) -> bytes:
    """Compact JSON; NaN and infinities are refused (the protocol writes them as strings)."""
    return json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")


def write_frame(sock: socket.socket, header: dict,
                payload: Iterable[Buffer] | Buffer = b"") -> None:
    """Sends one frame. `payload` is one buffer or a sequence of buffers sent back to back."""
    chunks = [payload] if isinstance(payload, (bytes, bytearray, memoryview)) else list(payload)
    views = [memoryview(c).cast("B") for c in chunks]
    payload_len = sum(v.nbytes for v in views)
    head = encode_header(header)
    if len(head) + payload_len > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {len(head) + payload_len} bytes exceeds the 4 GiB limit")
    sock.sendall(PREFIX.pack(len(head), payload_len) + head)
    for view in views:
        if view.nbytes:
            sock.sendall(view)


def send_frame_with_fd(sock: socket.socket, header: dict, fd: int) -> None:
    """Sends a frame whose first byte carries `fd` as SCM_RIGHTS (how kbx sends a fork)."""
    head = encode_header(header)
    data = PREFIX.pack(len(head), 0) + head
    sent = socket.send_fds(sock, [data[:1]], [fd])
    if sent != 1:
        raise OSError("send_fds sent no byte")
    sock.sendall(data[1:])


def parse_header(raw: bytes) -> dict:
    """The header object; ProtocolError (not fatal: the frame was consumed) when it is not one."""
    try:
        header = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError(f"frame header is not UTF-8 JSON: {e}") from None
    if not isinstance(header, dict):
        raise ProtocolError(f"frame header is a JSON {type(header).__name__}, not an object")
    if not isinstance(header.get("op"), str):
        raise ProtocolError("frame header has no string 'op'")
    return header


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


class FrameReader:
    """Reads frames from a stream socket; with `accept_fds`, queues descriptors passed alongside."""

    def __init__(self, sock: socket.socket, accept_fds: bool = False):
        self._sock = sock
        self._accept_fds = accept_fds
        self._buf = bytearray()
        self._eof = False
        self.fds: collections.deque[int] = collections.deque()

    def frame_buffered(self) -> bool:
        """True when a whole frame is already buffered, so read() will not block."""
        if len(self._buf) < PREFIX.size:
            return False
        header_len, payload_len = PREFIX.unpack_from(self._buf)
        return len(self._buf) >= PREFIX.size + header_len + payload_len

    def read(self) -> Frame | None:
        """The next frame, or None on end of stream at a frame boundary.

        Raises ProtocolError: fatal for a truncated or oversized frame, not fatal for a bad header.
        """
        if not self._fill(PREFIX.size):
            if self._buf:
                raise ProtocolError("stream ended inside a frame prefix", fatal=True)
            return None
        header_len, payload_len = PREFIX.unpack_from(self._buf)
        if header_len + payload_len > MAX_FRAME_BYTES:
            raise ProtocolError(
                f"frame of {header_len + payload_len} bytes exceeds the 4 GiB limit", fatal=True)
        total = PREFIX.size + header_len + payload_len
        if not self._fill(total):
            raise ProtocolError("stream ended inside a frame", fatal=True)
        raw_header = bytes(self._buf[PREFIX.size:PREFIX.size + header_len])
        payload = bytes(self._buf[PREFIX.size + header_len:total])
        del self._buf[:total]
        return Frame(parse_header(raw_header), payload)

    def take_fd(self) -> int | None:
        """The oldest received descriptor not yet taken, or None."""
        return self.fds.popleft() if self.fds else None

    def close_fds(self) -> None:
        """Closes every queued descriptor (they would otherwise leak into forked children)."""
        while self.fds:
            os.close(self.fds.popleft())

    def _fill(self, n: int) -> bool:
        while len(self._buf) < n and not self._eof:
            chunk = self._recv(max(_RECV_BYTES, n - len(self._buf)))
            if not chunk:
                self._eof = True
            self._buf += chunk
        return len(self._buf) >= n

    def _recv(self, size: int) -> bytes:
        if not self._accept_fds:
            return self._sock.recv(min(size, 1 << 24))
        data, fds, flags, _addr = socket.recv_fds(self._sock, _RECV_BYTES, _MAX_FDS_PER_RECV)
        self.fds.extend(fds)
        if flags & socket.MSG_CTRUNC:
            raise ProtocolError("descriptors were lost in transit (MSG_CTRUNC)", fatal=True)
        return data
