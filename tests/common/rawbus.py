#!/usr/bin/python3
"""A D-Bus client as any local user could write one: it speaks the wire
protocol itself on a plain socket, so that no library checks, shortens or
reads anything on its behalf.

  rawbus.py flood CONNECTIONS CALLS SPEC
      says Hello, sends CALLS method calls on each of CONNECTIONS
      connections, prints "sent", and sleeps with every reply unread until
      it is killed.
  rawbus.py ask SPEC
      sends one call and prints its answer as JSON: {"type": "error" |
      "return", "name": the error's name, "bytes": the reply's size,
      "text": the start of its first string}, or {"type": "none"} when no
      answer came within 3 s.
  rawbus.py burst CALLS SPEC
      sends CALLS calls at once on one connection, prints "sent" once the
      bus daemon has passed them all on, then reads every answer and prints
      how many of each came back, as JSON keyed by the error's name and the
      start of its text ("return" for an answer).

SPEC is JSON: {"destination": s, "path": s, "interface": s, "member": s,
"args": [["s", text] | ["u", n] | ["b", bool] | ["au", [n, ...]]
| ["repeat", text, count] | ["variant-repeat", text, count] ...]};
["repeat", "A", 1000000] is a string of that text repeated that often,
"variant-repeat" the same string in a variant (a property's value). A
"path_repeat": [text, count] in place of "path" is "/" and the text
repeated that often.
"""

import json
import os
import socket
import struct
import sys
import time


def pad(buf, align):
    return buf + b"\0" * ((-len(buf)) % align)


def string(buf, text, code="s"):
    raw = text if isinstance(text, bytes) else text.encode()
    buf = pad(buf, 4) if code != "g" else buf
    if code == "g":
        return buf + struct.pack("<B", len(raw)) + raw + b"\0"
    return buf + struct.pack("<I", len(raw)) + raw + b"\0"


def path_of(spec):
    if "path_repeat" in spec:
        return "/" + spec["path_repeat"][0] * spec["path_repeat"][1]
    return spec["path"]


def message(serial, destination, path, interface, member, args):
    body = b""
    signature = ""
    for arg in args:
        if arg[0] == "u":
            body = pad(body, 4) + struct.pack("<I", arg[1])
            signature += "u"
        elif arg[0] == "b":
            body = pad(body, 4) + struct.pack("<I", 1 if arg[1] else 0)
            signature += "b"
        elif arg[0] == "au":
            body = pad(body, 4) + struct.pack("<I", 4 * len(arg[1])) + b"".join(struct.pack("<I", n) for n in arg[1])
            signature += "au"
        elif arg[0] == "repeat":
            body = string(body, arg[1].encode() * arg[2])
            signature += "s"
        elif arg[0] == "variant-repeat":
            body = string(body, "s", "g")
            body = string(body, arg[1].encode() * arg[2])
            signature += "v"
        else:
            body = string(body, arg[1])
            signature += "s"
    fields = b""
    for code, kind, value in (
        (1, "o", path),
        (2, "s", interface),
        (3, "s", member),
        (6, "s", destination),
        (8, "g", signature),
    ):
        if value is None or (code == 8 and not value):
            continue
        fields = pad(fields, 8) + struct.pack("<B", code)
        fields = string(fields, kind, "g")
        fields = string(fields, value, kind)
    head = struct.pack("<cBBBII", b"l", 1, 0, 1, len(body), serial) + struct.pack("<I", len(fields)) + fields
    return pad(head, 8) + body


def connect(address):
    path = address.split("unix:path=", 1)[1].split(",", 1)[0]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
    answer = b""
    while b"\r\n" not in answer:
        answer += sock.recv(256)
    if not answer.startswith(b"OK"):
        raise SystemExit(f"authentication refused: {answer!r}")
    sock.sendall(b"BEGIN\r\n")
    sock.sendall(message(1, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", []))
    return sock


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise SystemExit("the bus closed the connection")
        data += chunk
    return data


def read_message(sock):
    """One message: its type, fields (code -> value) and body."""
    fixed = read_exactly(sock, 16)
    _, kind, _, _, body_len, _, fields_len = struct.unpack("<cBBBIII", fixed)
    fields_raw = read_exactly(sock, fields_len + ((-(16 + fields_len)) % 8))[:fields_len]
    body = read_exactly(sock, body_len)
    fields = {}
    at = 0
    while at < len(fields_raw):
        at += (-at) % 8
        code = fields_raw[at]
        sig_len = fields_raw[at + 1]
        sig = fields_raw[at + 2 : at + 2 + sig_len].decode()
        at += 3 + sig_len
        if sig in ("s", "o"):
            at += (-at) % 4
            (length,) = struct.unpack_from("<I", fields_raw, at)
            fields[code] = fields_raw[at + 4 : at + 4 + length].decode("utf-8", "replace")
            at += 4 + length + 1
        elif sig == "g":
            length = fields_raw[at]
            fields[code] = fields_raw[at + 1 : at + 1 + length].decode()
            at += 1 + length + 1
        elif sig == "u":
            at += (-at) % 4
            (fields[code],) = struct.unpack_from("<I", fields_raw, at)
            at += 4
        else:
            break
    return kind, fields, body, 16 + len(fields_raw) + ((-(16 + fields_len)) % 8) + body_len


def ask(spec):
    sock = connect(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    call = message(2, spec["destination"], path_of(spec), spec["interface"], spec["member"], spec["args"])
    sock.sendall(call)
    sock.settimeout(3)
    while True:
        try:
            kind, fields, body, size = read_message(sock)
        except socket.timeout:
            print(json.dumps({"type": "none"}), flush=True)
            return
        if kind in (2, 3) and fields.get(5) == 2:
            text = ""
            if fields.get(8, "").startswith("s") and len(body) >= 4:
                (length,) = struct.unpack_from("<I", body, 0)
                text = body[4 : 4 + min(length, 300)].decode("utf-8", "replace")
            answer = {"type": "error" if kind == 3 else "return", "name": fields.get(4, ""), "bytes": size, "text": text}
            print(json.dumps(answer), flush=True)
            return


def first_text(fields, body):
    if fields.get(8, "").startswith("s") and len(body) >= 4:
        (length,) = struct.unpack_from("<I", body, 0)
        return body[4 : 4 + min(length, 300)].decode("utf-8", "replace")
    return ""


def burst(calls, spec):
    sock = connect(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    template = message(2, spec["destination"], path_of(spec), spec["interface"], spec["member"], spec["args"])
    sock.sendall(b"".join(template[:8] + struct.pack("<I", serial) + template[12:] for serial in range(2, calls + 2)))
    # Then a question to the bus daemon itself: it reads a connection's
    # messages in order and writes each on to its destination as it routes
    # it, so once it has answered this one, every call above lies in the
    # destination's socket. "sent" says so.
    ping = calls + 2
    sock.sendall(message(ping, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", []))
    sock.settimeout(30)
    counts, answered, early = {}, 0, []
    while True:
        kind, fields, body, size = read_message(sock)
        if kind in (2, 3) and fields.get(5) == ping:
            break
        early.append((kind, fields, body, size))
    print("sent", flush=True)
    pending = iter(early)
    while answered < calls:
        kind, fields, body, _ = next(pending, None) or read_message(sock)
        if kind in (2, 3) and 2 <= fields.get(5, 0) < calls + 2:
            answered += 1
            key = "return" if kind == 2 else fields.get(4, "") + ": " + first_text(fields, body)[:40]
            counts[key] = counts.get(key, 0) + 1
    print(json.dumps(counts, sort_keys=True), flush=True)


def main():
    if sys.argv[1] == "ask":
        ask(json.loads(sys.argv[2]))
        return
    if sys.argv[1] == "burst":
        burst(int(sys.argv[2]), json.loads(sys.argv[3]))
        return
    connections, calls, spec = int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
    address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
    # Each call is built once and sent again with a new serial.
    template = message(2, spec["destination"], path_of(spec), spec["interface"], spec["member"], spec["args"])
    socks = [connect(address) for _ in range(connections)]
    for serial in range(2, calls + 2):
        call = template[:8] + struct.pack("<I", serial) + template[12:]
        for sock in socks:
            sock.sendall(call)
    print("sent", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
