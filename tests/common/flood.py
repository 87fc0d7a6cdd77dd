#!/usr/bin/python3
"""Floods the Gearshift helper with polkit-checked calls, as any local user
could: CONNECTIONS connections to the system bus (DBUS_SYSTEM_BUS_ADDRESS),
each keeping OUTSTANDING `SetProfile("power")` calls in flight without
waiting for one before the next, for SECONDS seconds.

Prints "flooding" once every connection has its calls in flight, then, when
the time is up and every call has its answer, one JSON object: how many
answers of each kind came back ("ok", or the D-Bus error name).

Usage: flood.py CONNECTIONS OUTSTANDING SECONDS
"""

import json
import os
import sys
import time

import dbus
import dbus.lowlevel
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

HELPER = "io.github.gearshift.Helper1"
PATH = "/io/github/gearshift/Helper1"


def main():
    connections, outstanding, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    DBusGMainLoop(set_as_default=True)
    address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
    buses = [dbus.bus.BusConnection(address) for _ in range(connections)]
    loop = GLib.MainLoop()
    counts = {}
    state = {"in_flight": 0, "deadline": time.monotonic() + seconds}

    def send(bus):
        call = dbus.lowlevel.MethodCallMessage(HELPER, PATH, HELPER, "SetProfile")
        call.append("power", signature="s")
        state["in_flight"] += 1
        bus.send_message_with_reply(call, lambda reply: answered(bus, reply), 120.0)

    def answered(bus, reply):
        state["in_flight"] -= 1
        name = reply.get_error_name() if isinstance(reply, dbus.lowlevel.ErrorMessage) else "ok"
        counts[name] = counts.get(name, 0) + 1
        if time.monotonic() < state["deadline"]:
            send(bus)
        elif state["in_flight"] == 0:
            loop.quit()

    for bus in buses:
        for _ in range(outstanding):
            send(bus)
    print("flooding", flush=True)
    loop.run()
    print(json.dumps(counts, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
