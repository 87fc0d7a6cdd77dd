#!/usr/bin/python3
"""Presses a control of the application named by argv[1] the way assistive
technologies do (its AT-SPI action 0, "click"): argv[2] is its role name
("push button"), argv[3] the start of its accessible name. Waits up to
argv[4] seconds for one that is visible and sensitive. Exits 1, naming what
it saw, when there is none."""
import sys
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

want, role, name = sys.argv[1], sys.argv[2], sys.argv[3]
wait = float(sys.argv[4]) if len(sys.argv) > 4 else 20.0


def apps():
    desktop = Atspi.get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        if app is not None and want in (app.get_name() or ""):
            yield app


def usable(acc):
    # GTK 4.8 does not report SHOWING; VISIBLE and SENSITIVE it does.
    s = acc.get_state_set()
    return s.contains(Atspi.StateType.VISIBLE) and s.contains(Atspi.StateType.SENSITIVE)


def find(acc, depth, seen):
    if acc is None or depth > 60:
        return None
    try:
        if acc.get_role_name() == role:
            label = acc.get_name() or ""
            st = acc.get_state_set()
            flags = "".join(letter for flag, letter in ((Atspi.StateType.SHOWING, "s"), (Atspi.StateType.SENSITIVE, "e"),
                                                        (Atspi.StateType.VISIBLE, "v")) if st.contains(flag))
            seen.append(f"{label} [{flags}]")
            # GTK 4.8 names a button by its accessible label followed by
            # its label's text, mnemonic underscores and all.
            if label.replace("_", "").startswith(name) and usable(acc):
                return acc
        for i in range(acc.get_child_count()):
            found = find(acc.get_child_at_index(i), depth + 1, seen)
            if found is not None:
                return found
    except Exception:  # a widget went away while walking
        return None
    return None


deadline = time.time() + wait
seen = []
while True:
    seen = []
    for app in apps():
        target = find(app, 0, seen)
        if target is not None:
            target.do_action(0)
            print(f"pressed {role} {target.get_name()!r}")
            sys.exit(0)
    if time.time() > deadline:
        break
    time.sleep(0.3)
print(f"no usable {role} named {name!r}; saw {sorted(set(seen))}", file=sys.stderr)
sys.exit(1)
