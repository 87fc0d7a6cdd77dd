#!/usr/bin/python3
"""Holds profiles through the PowerProfiles API over several connections
of one user, and keeps them while stdin stays open.

Usage: holds.py CONNECTIONS HOLDS_EACH

Prints one JSON object once every call has its answer: how many answers
of each kind came back ("ok", or the D-Bus error name), then waits for
stdin to close (the holds end with the connections).
"""

import json
import os
import sys

import dbus

NAME = "net.hadess.PowerProfiles"
PATH = "/net/hadess/PowerProfiles"


def main():
    connections, each = int(sys.argv[1]), int(sys.argv[2])
    address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
    buses = [dbus.bus.BusConnection(address) for _ in range(connections)]
    counts = {}
    for bus in buses:
        proxy = dbus.Interface(bus.get_object(NAME, PATH), NAME)
        for n in range(each):
            try:
                proxy.HoldProfile("performance", "test %d" % n, "org.example.Holds")
                name = "ok"
            except dbus.exceptions.DBusException as err:
                name = err.get_dbus_name()
            counts[name] = counts.get(name, 0) + 1
    print(json.dumps(counts, sort_keys=True), flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
