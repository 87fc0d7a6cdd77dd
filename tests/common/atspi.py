#!/usr/bin/python3
"""Prints the accessibility tree of the application named by argv[1], one
accessible a line: depth, role, states (f: focusable, s: showing, F:
focused, e: sensitive, v: visible, c: checked), name, extents on the screen (x,y,w,h)
the value of those that have one (a slider's), the description, and the
text of those that have text (an entry's), tab-separated. Exits 1
when no such application shows up within argv[2] seconds."""
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

want, wait = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 20.0


def find():
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is not None and want in (app.get_name() or ""):
            return app
    return None


def states(acc):
    s = acc.get_state_set()
    out = ""
    for flag, letter in ((Atspi.StateType.FOCUSABLE, "f"), (Atspi.StateType.SHOWING, "s"),
                         (Atspi.StateType.FOCUSED, "F"), (Atspi.StateType.SENSITIVE, "e")):
        if s.contains(flag):
            out += letter
    if s.contains(Atspi.StateType.VISIBLE):
        out += "v"
    if s.contains(Atspi.StateType.CHECKED):
        out += "c"
    return out or "-"


def extents(acc):
    try:
        e = acc.get_extents(Atspi.CoordType.SCREEN)
        return f"{e.x},{e.y},{e.width},{e.height}"
    except Exception:
        return ""


def value(acc):
    try:
        v = acc.get_value_iface()
        return "" if v is None else repr(v.get_current_value())
    except Exception:
        return ""


def description(acc):
    try:
        return (acc.get_description() or "").replace("\t", " ").replace("\n", " ")
    except Exception:
        return ""


def text(acc):
    try:
        t = acc.get_text_iface()
        if t is None:
            return ""
        return (t.get_text(0, min(t.get_character_count(), 400)) or "").replace("\t", " ").replace("\n", " ")
    except Exception:
        return ""


def walk(acc, depth, seen):
    if acc is None or depth > 60 or len(seen) > 20000:
        return
    try:
        role = acc.get_role_name()
        name = (acc.get_name() or "").replace("\t", " ").replace("\n", " ")
        print(f"{depth}\t{role}\t{states(acc)}\t{name}\t{extents(acc)}\t{value(acc)}\t{description(acc)}\t{text(acc)}")
        seen.add(id(acc))
        for i in range(acc.get_child_count()):
            walk(acc.get_child_at_index(i), depth + 1, seen)
    except Exception as e:  # a widget went away while walking
        print(f"{depth}\terror\t-\t{e}")


deadline = time.time() + wait
app = find()
while app is None and time.time() < deadline:
    time.sleep(0.3)
    app = find()
if app is None:
    print(f"no application {want!r} on the accessibility bus", file=sys.stderr)
    sys.exit(1)
walk(app, 0, set())
