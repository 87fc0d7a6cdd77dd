#!/usr/bin/python3
"""Sends forged D-Bus signals, as an ordinary user would, for the tests.

Usage: forge.py DESTINATION SIGNALS.jsonl

Each line of SIGNALS.jsonl is an object: {"path", "interface", "member",
"args": [[type, value], ...], "repeat": n}. Types: "b" (boolean), "s"
(string), "a{sv}-bool" (a dict with one boolean, for PropertiesChanged),
"as" (list of strings). DESTINATION is a unique name, or "" to broadcast.
"""
import json
import sys

import dbus
import dbus.lowlevel


def argument(kind, value):
    if kind == "b":
        return dbus.Boolean(value)
    if kind == "s":
        return dbus.String(value)
    if kind == "as":
        return dbus.Array(value, signature="s")
    if kind == "a{sv}-bool":
        return dbus.Dictionary({key: dbus.Boolean(v) for key, v in value.items()}, signature="sv")
    raise ValueError(kind)


def main():
    destination, script = sys.argv[1], sys.argv[2]
    bus = dbus.SystemBus()
    sent = 0
    with open(script, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            spec = json.loads(line)
            for _ in range(spec.get("repeat", 1)):
                message = dbus.lowlevel.SignalMessage(spec["path"], spec["interface"], spec["member"])
                if destination:
                    message.set_destination(destination)
                message.append(*[argument(kind, value) for kind, value in spec["args"]])
                bus.send_message(message)
                sent += 1
    bus.flush()
    print(sent)


main()
