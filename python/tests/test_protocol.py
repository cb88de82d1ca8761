"""Frames: round trips with payloads, descriptors passed with a frame, and malformed input."""

from __future__ import annotations

import json
import os
import socket
import struct
import threading

import pytest

from kbx_worker.protocol import (MAX_FRAME_BYTES, PREFIX, FrameReader, ProtocolError,
                                 send_frame_with_fd, write_frame)


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


def test_frame_round_trips_header_and_payload(pair):
    a, b = pair
    payload = bytes(range(256)) * 5
    write_frame(a, {"op": "cases", "results": [1, "x"]}, payload)
    frame = FrameReader(b).read()
    assert frame.header == {"op": "cases", "results": [1, "x"]}
    assert frame.payload == payload


def test_payload_may_be_a_list_of_buffers(pair):
    a, b = pair
    write_frame(a, {"op": "x"}, [b"ab", bytearray(b"cd"), memoryview(b"ef")])
    assert FrameReader(b).read().payload == b"abcdef"


def test_frames_larger_than_one_receive_arrive_whole(pair):
    a, b = pair
    payload = os.urandom(3 << 20)
    reader = FrameReader(b)
    sender = threading.Thread(target=write_frame, args=(a, {"op": "big"}, payload))
    sender.start()
    frame = reader.read()
    sender.join()
    assert frame.payload == payload


def test_several_frames_in_one_write_are_read_one_by_one(pair):
    a, b = pair
    raw = b""
    for i in range(3):
        head = json.dumps({"op": "n", "i": i}).encode()
        raw += PREFIX.pack(len(head), 1) + head + bytes([i])
    a.sendall(raw)
    reader = FrameReader(b)
    got = [reader.read() for _ in range(3)]
    assert [f.header["i"] for f in got] == [0, 1, 2]
    assert [f.payload for f in got] == [b"\x00", b"\x01", b"\x02"]
    assert not reader.frame_buffered()


def test_end_of_stream_at_a_boundary_reads_as_none(pair):
    a, b = pair
    write_frame(a, {"op": "last"})
    a.close()
    reader = FrameReader(b)
    assert reader.read().op == "last"
    assert reader.read() is None


def test_end_of_stream_inside_a_frame_is_fatal(pair):
    a, b = pair
    a.sendall(PREFIX.pack(10, 0) + b"{")
    a.close()
    with pytest.raises(ProtocolError) as e:
        FrameReader(b).read()
    assert e.value.fatal


def test_oversized_frame_is_fatal(pair):
    a, b = pair
    a.sendall(struct.pack("<IQ", 16, MAX_FRAME_BYTES))
    with pytest.raises(ProtocolError) as e:
        FrameReader(b).read()
    assert e.value.fatal


@pytest.mark.parametrize("header", [b"[1, 2]", b"{\"no_op\": 1}", b"not json", b"{\"op\": NaN}",
                                    b"\xff\xfe"])
def test_bad_header_is_not_fatal_and_the_next_frame_still_reads(pair, header):
    a, b = pair
    a.sendall(PREFIX.pack(len(header), 0) + header)
    write_frame(a, {"op": "after"})
    reader = FrameReader(b)
    with pytest.raises(ProtocolError) as e:
        reader.read()
    assert not e.value.fatal
    assert reader.read().op == "after"


def test_non_finite_numbers_are_refused_when_writing(pair):
    a, _ = pair
    with pytest.raises(ValueError):
        write_frame(a, {"op": "x", "v": float("nan")})


def test_descriptors_queue_in_arrival_order(pair):
    a, b = pair
    files = [os.pipe() for _ in range(2)]
    for i, (r, _) in enumerate(files):
        send_frame_with_fd(a, {"op": "fork", "id": i}, r)
    reader = FrameReader(b, accept_fds=True)
    for i, (_, w) in enumerate(files):
        frame = reader.read()
        assert frame.header["id"] == i
        fd = reader.take_fd()
        os.write(w, b"%d" % i)
        assert os.read(fd, 8) == b"%d" % i
        os.close(fd)
    assert reader.take_fd() is None
    for r, w in files:
        os.close(r)
        os.close(w)
