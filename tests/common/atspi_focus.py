#!/usr/bin/python3
"""Moves the keyboard focus of the application named by argv[1] to the
control whose role is argv[2] and whose accessible name starts with argv[3],
the way a keyboard user does: Tab (xdotool, on $DISPLAY), at most argv[4]
times, until that control has the focus (followed through AT-SPI's focus
events). Exits 1, naming where the focus went, when it never gets there."""
import subprocess
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

want, role, name = sys.argv[1], sys.argv[2], sys.argv[3]
presses = int(sys.argv[4]) if len(sys.argv) > 4 else 60
focused = []


def on_focus(event):
    try:
        app = event.source.get_application()
        if event.detail1 == 1 and app is not None and want in (app.get_name() or ""):
            focused.append((event.source.get_role_name(), event.source.get_name() or ""))
    except Exception:  # gone while asked
        pass


listener = Atspi.EventListener.new(on_focus)
listener.register("object:state-changed:focused")


def pump(seconds):
    context = GLib.MainContext.default()
    deadline = time.time() + seconds
    while time.time() < deadline:
        while context.pending():
            context.iteration(False)
        time.sleep(0.01)


pump(0.3)
went = []
for _ in range(presses):
    focused.clear()
    subprocess.run(["xdotool", "key", "Tab"], check=True)
    pump(0.3)
    if focused:
        went.append(focused[-1])
        if focused[-1][0] == role and focused[-1][1].startswith(name):
            print(f"focused {role} {focused[-1][1]!r}")
            sys.exit(0)
print(f"Tab never reached {role} {name!r}; it went {went}", file=sys.stderr)
sys.exit(1)
