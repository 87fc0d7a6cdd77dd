#!/usr/bin/python3
"""Walks the focus of the application named by argv[1] with the keyboard, as
a person who uses no mouse does: presses Tab (xdotool, on $DISPLAY) up to
argv[2] times and prints, after each press, the object that has the focus,
one JSON object a line: {"key", "role", "name", "description", "x", "y",
"w", "h", "states"}. Stops early once the focus comes back to the first
object it reached (the walk went round). With `--keys K...` in place of
the count it presses those keys (xdotool's names: Tab, Right, shift+Tab)
once each, in order, and does not stop early. Exits 1 when the
application never shows a focused object.

The focus is followed through AT-SPI's focus events, read from the GLib
main loop between presses, and checked against the tree: an object counts
as focused only when its state set says FOCUSED."""
import json
import subprocess
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

want = sys.argv[1]
if len(sys.argv) > 2 and sys.argv[2] == "--keys":
    keys, walk = sys.argv[3:], False
else:
    keys, walk = ["Tab"] * (int(sys.argv[2]) if len(sys.argv) > 2 else 150), True
focused = []


def app_of(acc):
    try:
        app = acc.get_application()
        return app.get_name() if app is not None else ""
    except Exception:
        return ""


def on_focus(event):
    if event.detail1 == 1 and want in app_of(event.source):
        focused.append(event.source)


listener = Atspi.EventListener.new(on_focus)
listener.register("object:state-changed:focused")


def pump(seconds):
    context = GLib.MainContext.default()
    deadline = time.time() + seconds
    while time.time() < deadline:
        while context.pending():
            context.iteration(False)
        time.sleep(0.01)


def describe(acc):
    try:
        ext = acc.get_extents(Atspi.CoordType.SCREEN)
        states = acc.get_state_set()
        letters = "".join(letter for flag, letter in ((Atspi.StateType.FOCUSED, "F"), (Atspi.StateType.SENSITIVE, "e"),
                                                      (Atspi.StateType.VISIBLE, "v"), (Atspi.StateType.SHOWING, "s"))
                          if states.contains(flag))
        return {"role": acc.get_role_name(), "name": acc.get_name() or "", "description": acc.get_description() or "",
                "x": ext.x, "y": ext.y, "w": ext.width, "h": ext.height, "states": letters}
    except Exception as e:  # gone while asked
        return {"role": "gone", "name": str(e), "description": "", "x": 0, "y": 0, "w": 0, "h": 0, "states": ""}


pump(0.5)
first = None
seen_any = False
for key in keys:
    focused.clear()
    subprocess.run(["xdotool", "key", key], check=True)
    pump(0.25)
    if not focused:
        pump(0.5 if walk else 1.0)
    if not focused:
        print(json.dumps({"key": key, "role": "none", "name": "", "description": "", "x": 0, "y": 0, "w": 0, "h": 0,
                          "states": ""}), flush=True)
        continue
    seen_any = True
    info = dict(key=key, **describe(focused[-1]))
    print(json.dumps(info), flush=True)
    place = (info["role"], info["name"], info["x"], info["y"])
    if first is None:
        first = place
    elif walk and place == first:
        break
if not seen_any:
    print(f"no focus events from {want!r}", file=sys.stderr)
    sys.exit(1)
