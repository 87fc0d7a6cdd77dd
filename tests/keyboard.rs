//! The window as a person meets it who uses the keyboard and a screen
//! reader (AT-SPI, under Xvfb): on every page Tab reaches every control
//! that can be used, top to bottom, and a screen reader hears each name
//! once; the mouse wheel over a slider scrolls the page and leaves the
//! slider's value alone; what the administrator locked or declared is
//! shown off, saying which file did. The walks and trees land in
//! target/screenshots/.

mod common;

use std::collections::BTreeSet;

use common::bus::{Bus, Helper};
use common::display::{assert_controls_named, Accessibility, Accessible, Display, Window, CONTROLS};

/// The controls of the page on screen that a person can use: named roles,
/// focusable, visible, sensitive with every widget around them (a switch
/// in an insensitive row cannot be used), and laid out (a page of the stack
/// that is not shown has no extents). The window's own buttons (close,
/// maximize, minimize) are the window manager's, reached by its keys.
fn usable(tree: &[Accessible]) -> BTreeSet<(String, String)> {
    let mut sensitive_above: Vec<bool> = Vec::new();
    let mut usable = BTreeSet::new();
    for a in tree {
        sensitive_above.truncate(a.depth);
        // The application itself has no states.
        let own = a.states.contains('e') || a.role == "application";
        let all_sensitive = sensitive_above.iter().all(|s| *s) && own;
        sensitive_above.push(all_sensitive);
        let control = CONTROLS.contains(&a.role.as_str()) && a.role != "page tab";
        let laid_out = a.extents.is_some_and(|(_, _, w, h)| w > 0 && h > 0);
        let window_button = a.role == "push button" && ["Close", "Maximize", "Minimize"].contains(&a.name.as_str());
        if control && all_sensitive && a.states.contains('f') && a.states.contains('v') && laid_out && !window_button {
            usable.insert((a.role.clone(), a.name.clone()));
        }
    }
    usable
}

/// A helper serving the Meteor Lake snapshot on the kernel emulator: the
/// window's controls are live, as on a person's own laptop.
struct Machine {
    bus: Bus,
    /// It keeps the emulator, and unmounts it after it stopped and before
    /// its root goes.
    helper: Helper,
}

fn machine() -> Machine {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    Machine { bus, helper }
}

fn open(display: &Display, machine: &Machine, page: &str, size: &str) -> Window {
    let root = machine.helper.root.path().to_str().unwrap().to_owned();
    let mut window = Window::start(
        display,
        &["--root", &root],
        &[
            ("DBUS_SYSTEM_BUS_ADDRESS", &machine.bus.address),
            ("GTK_A11Y", "atspi"),
            ("GEARSHIFT_PAGE", page),
            ("GEARSHIFT_SIZE", size),
        ],
    );
    window.wait_drawn();
    window.wait_state("the helper serving the snapshot", 20, |s| s["served"] == true && s["writable"] == true);
    let id = display.window_id("Gearshift");
    assert!(display.command("xdotool").args(["windowfocus", "--sync", &id]).status().unwrap().success());
    window
}

#[test]
fn tab_reaches_every_control_of_every_page_in_order_and_each_is_named_once() {
    // Tall enough that no page scrolls: the order on screen is the order
    // of the walk.
    let display = Display::start(1280, 2600);
    let atspi = Accessibility::start(&display);
    let machine = machine();
    let mut failures = Vec::new();
    for page in ["overview", "cores", "tuning", "efficiency"] {
        let window = open(&display, &machine, page, "1100x2500");
        let file = format!("keyboard-tree-{page}.txt");
        let tree = atspi.tree_when(&display, &file, 20, |tree| {
            tree.len() > 100 && tree.iter().any(|a| a.role == "push button" && a.name.starts_with("Main Menu"))
        });
        assert_controls_named(&tree, &file);
        let wanted = usable(&tree);
        assert!(wanted.len() >= 3, "{page}: only {wanted:?}");
        let walk = atspi.tab_walk(&display, 120, &format!("keyboard-walk-{page}.txt"));
        let reached: BTreeSet<(String, String)> = walk.iter().map(|a| (a.role.clone(), a.name.clone())).collect();
        // A control counts as reached when the row it is the activatable
        // widget of (the same name) is: Space on the row operates it, as
        // with a profile's radio button, of which only the chosen one is a
        // tab stop of its own.
        let missed: Vec<_> = wanted
            .iter()
            .filter(|(role, name)| {
                !reached.contains(&(role.clone(), name.clone()))
                    && !reached.contains(&("list item".into(), name.clone()))
            })
            .collect();
        if !missed.is_empty() {
            failures.push(format!("{page}: Tab never reaches {missed:?}; it went {:?}", names(&walk)));
        }
        // Top to bottom: past the header bar, each control lies below or
        // beside the one before.
        let content: Vec<&Accessible> = walk.iter().filter(|a| a.extents.is_some_and(|(_, y, _, _)| y > 60)).collect();
        for pair in content.windows(2) {
            let (Some((x0, y0, _, h0)), Some((x1, y1, _, _))) = (pair[0].extents, pair[1].extents) else { continue };
            let same_line = (y1 - y0).abs() < h0.max(1);
            if !(y1 >= y0 || same_line && x1 > x0 || pair[1].extents == content[0].extents) {
                failures.push(format!("{page}: Tab went up from {:?} to {:?}", pair[0].name, pair[1].name));
            }
        }
        drop(window);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn names(walk: &[Accessible]) -> Vec<String> {
    walk.iter().map(|a| format!("{} {:?}", a.role, a.name)).collect()
}

#[test]
fn the_wheel_over_a_slider_scrolls_the_page_and_leaves_the_value() {
    let display = Display::start(1280, 800);
    let atspi = Accessibility::start(&display);
    let machine = machine();
    let _window = open(&display, &machine, "tuning", "1000x700");
    let slider = |tree: &[Accessible]| tree.iter().find(|a| a.role == "slider" && a.name == "EPP on E-cores").cloned();
    let tree =
        atspi.tree_when(&display, "wheel-before.txt", 20, |tree| slider(tree).is_some_and(|s| s.value.is_some()));
    let before = slider(&tree).unwrap();
    let (x, y, w, h) = before.extents.expect("extents");
    assert!(y + h / 2 < 800, "the slider is not on screen: {before:?}");
    let centre = [(x + w / 2).to_string(), (y + h / 2).to_string()];
    assert!(display.command("xdotool").args(["mousemove", &centre[0], &centre[1]]).status().unwrap().success());
    for _ in 0..5 {
        assert!(display.command("xdotool").args(["click", "5"]).status().unwrap().success());
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let after = slider(&atspi.tree(&display, "wheel-after.txt")).unwrap();
    assert_eq!(after.value, before.value, "the wheel changed the slider");
    let moved = after.extents.unwrap().1;
    assert!(moved < y, "the page did not scroll: the slider stayed at y {y} (now {moved})");
}

/// Runs one of the AT-SPI scripts in tests/common with `args`.
fn atspi_script(display: &Display, script: &str, args: &[&str]) -> std::process::Output {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common").join(script);
    display.command("/usr/bin/python3").arg(&path).arg("gearshift").args(args).output().unwrap()
}

fn keys(display: &Display, keys: &[&str]) {
    for key in keys {
        assert!(display.command("xdotool").args(["key", key]).status().unwrap().success());
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

#[test]
fn the_driver_mode_is_switched_from_the_keyboard_after_a_question() {
    let display = Display::start(1280, 1200);
    let _atspi = Accessibility::start(&display);
    let machine = machine();
    let mut window = open(&display, &machine, "overview", "1000x1100");
    // Down to passive in the drop-down, from the keyboard; the window asks
    // first, and Cancel keeps the mode.
    let choose_passive = |display: &Display| {
        let out = atspi_script(display, "atspi_focus.py", &["combo box", "Driver mode", "40"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        keys(display, &["Return", "Down", "Return"]);
    };
    choose_passive(&display);
    let out = atspi_script(&display, "atspi_press.py", &["push button", "Cancel", "20"]);
    assert!(out.status.success(), "no question before the switch: {}", String::from_utf8_lossy(&out.stderr));
    let kept = window.wait_state("the mode kept", 10, |s| s["mode_row"]["selected"] == 0);
    assert_eq!(kept["driver_mode"], "active", "{kept}");
    assert_eq!(machine.helper.read("sys/devices/system/cpu/intel_pstate/status").trim(), "active");
    // Switch: the helper switches, and the profile is applied again.
    choose_passive(&display);
    let out = atspi_script(&display, "atspi_press.py", &["push button", "Switch", "20"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let switched = window.wait_state("passive mode", 20, |s| s["driver_mode"] == "passive");
    assert!(
        switched["toast"].as_str().is_some_and(|t| t.starts_with("The driver runs in passive mode now.")),
        "{switched}"
    );
    assert_eq!(machine.helper.read("sys/devices/system/cpu/intel_pstate/status").trim(), "passive");
}

#[test]
fn the_profile_in_use_cannot_be_deleted_and_says_why() {
    let display = Display::start(1280, 1800);
    let atspi = Accessibility::start(&display);
    let machine = machine();
    let root = machine.helper.root.path().to_str().unwrap().to_owned();
    let saved = common::bus::cli(&machine.bus, None, &["--root", &root, "profile", "save", "Quiet", "--epp", "200"]);
    assert!(saved.status.success(), "{}", common::stderr(&saved));
    let set = common::bus::cli(&machine.bus, None, &["profile", "set", "quiet"]);
    assert!(set.status.success(), "{}", common::stderr(&set));
    let mut window = open(&display, &machine, "tuning", "1000x1700");
    window.wait_state("the custom profile active", 20, |s| s["active"] == "quiet");
    let delete =
        |tree: &[Accessible]| tree.iter().find(|a| a.role == "push button" && a.name == "Delete Quiet").cloned();
    let tree = atspi.tree_when(&display, "tuning-in-use.txt", 20, |tree| delete(tree).is_some());
    let button = delete(&tree).unwrap();
    assert!(!button.states.contains('e'), "Delete is on for the profile in use: {button:?}");
    // Another profile in use: Delete is on again.
    assert!(common::bus::cli(&machine.bus, None, &["profile", "set", "power"]).status.success());
    window.wait_state("Power Saver active", 20, |s| s["active"] == "power");
    let tree = atspi
        .tree_when(&display, "tuning-not-in-use.txt", 20, |tree| delete(tree).is_some_and(|b| b.states.contains('e')));
    assert!(delete(&tree).is_some());
}

#[test]
fn the_administrators_lock_and_declared_profiles_are_shown_off_with_the_file() {
    let display = Display::start(1000, 1700);
    let atspi = Accessibility::start(&display);
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    let fleet = helper.root.path().join("etc/gearshift/conf.d/50-fleet.toml");
    std::fs::create_dir_all(fleet.parent().unwrap()).unwrap();
    let declared = "[[profile]]\nid = \"render\"\nname = \"Render farm\"\nepp = 32\n";
    std::fs::write(&fleet, format!("default_profile = \"render\"\nlocked = true\n{declared}")).unwrap();
    helper.spawn(&bus);
    let root = helper.root.path().to_str().unwrap().to_owned();
    let mut window = Window::start(
        &display,
        &["--root", &root],
        &[
            ("DBUS_SYSTEM_BUS_ADDRESS", &bus.address),
            ("GTK_A11Y", "atspi"),
            ("GEARSHIFT_PAGE", "tuning"),
            ("GEARSHIFT_SIZE", "1000x1700"),
        ],
    );
    window.wait_drawn();
    let fleet_text = fleet.to_str().unwrap().to_owned();
    let state = window.wait_state("the lock from 50-fleet.toml", 20, |s| {
        s["served"] == true && s["locked_by"].as_str() == Some(fleet_text.as_str())
    });
    // Switching, saving and measuring are off; the declared profile is
    // the one in use.
    assert_eq!((state["switching"].as_bool(), state["writable"].as_bool()), (Some(false), Some(false)), "{state}");
    assert_eq!(state["active"], "render", "{state}");
    assert_eq!(state["declared"]["render"], fleet_text.as_str(), "{state}");
    let delete =
        |tree: &[Accessible]| tree.iter().find(|a| a.role == "push button" && a.name == "Delete Render farm").cloned();
    let banner = |tree: &[Accessible]| {
        tree.iter().any(|a| a.name.contains("set by your administrator in") && a.name.contains(fleet_text.as_str()))
    };
    let tree = atspi.tree_when(&display, "tuning-locked.txt", 20, |tree| delete(tree).is_some() && banner(tree));
    display.park_pointer();
    display.screenshot(&common::display::screenshot_dir().join("tuning-locked.png"));
    assert!(!delete(&tree).unwrap().states.contains('e'), "{:?}", delete(&tree));
    // The subtitle says why, then what the profile sets (issue 42: each
    // saved row shows its values).
    assert!(
        tree.iter().any(|a| a.name.starts_with("In use now · set by your administrator · EPP")),
        "no subtitle says why"
    );

    // Unlocked by the administrator: switching is back, the declared
    // profile still cannot be deleted.
    std::fs::write(&fleet, format!("default_profile = \"render\"\n{declared}")).unwrap();
    let reload = bus.dbus_send(false, "ReloadConfig", &[]);
    assert!(reload.status.success(), "{}", common::stderr(&reload));
    window.wait_state("unlocked", 20, |s| s["locked_by"].is_null() && s["writable"] == true);
    assert!(common::bus::cli(&bus, None, &["profile", "set", "power"]).status.success());
    window.wait_state("Power Saver active", 20, |s| s["active"] == "power");
    let tree = atspi.tree_when(&display, "tuning-declared.txt", 20, |tree| {
        tree.iter().any(|a| a.name.starts_with("Set by your administrator · EPP"))
    });
    assert!(!delete(&tree).unwrap().states.contains('e'), "{:?}", delete(&tree));
}

#[test]
fn a_custom_profile_is_named_checked_and_saved_from_the_keyboard() {
    let display = Display::start(1280, 1800);
    let atspi = Accessibility::start(&display);
    let machine = machine();
    let _window = open(&display, &machine, "tuning", "1000x1700");
    let save = |tree: &[Accessible]| tree.iter().find(|a| a.role == "push button" && a.name == "Save Profile").cloned();
    let said = |tree: &[Accessible], start: &str| tree.iter().any(|a| a.role == "label" && a.name.starts_with(start));
    let tree = atspi.tree_when(&display, "form-unnamed.txt", 20, |t| save(t).is_some());
    assert!(said(&tree, "Name the profile to save it."), "the tree is in target/screenshots/form-unnamed.txt");
    assert!(!save(&tree).unwrap().states.contains('e'), "Save is on without a name");

    // The form checks itself as it is typed: a name that passes for a
    // built-in profile is refused on the spot, Save stays off.
    let out = atspi_script(&display, "atspi_focus.py", &["text", "Name", "30"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let typed = |text: &str| {
        keys(&display, &["ctrl+a", "BackSpace"]);
        let out = display.command("xdotool").args(["type", "--delay", "40", text]).status().unwrap();
        assert!(out.success());
    };
    typed("Power Saver");
    let tree = atspi.tree_when(&display, "form-refused.txt", 20, |t| said(t, "Name: "));
    assert!(!save(&tree).unwrap().states.contains('e'), "Save is on for a name the helper refuses");
    typed("Quiet office");
    let tree = atspi.tree_when(&display, "form-named.txt", 20, |t| save(t).is_some_and(|b| b.states.contains('e')));
    assert!(
        !said(&tree, "Name: ") && !said(&tree, "Name the profile"),
        "a problem is still shown: the tree is in target/screenshots/form-named.txt"
    );

    // Save: the helper has it, and the page lists it.
    let out = atspi_script(&display, "atspi_press.py", &["push button", "Save Profile", "20"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    common::bus::wait_for(
        || {
            let list = common::bus::cli(&machine.bus, None, &["profile", "list"]);
            String::from_utf8_lossy(&list.stdout).contains("Quiet office")
        },
        "the helper's list to hold Quiet office",
    );
    atspi.tree_when(&display, "form-saved.txt", 20, |t| {
        t.iter().any(|a| a.role == "push button" && a.name == "Delete Quiet office")
    });
}

#[test]
fn the_cores_page_shows_one_kind_of_core_when_asked() {
    let display = Display::start(1280, 2600);
    let atspi = Accessibility::start(&display);
    let machine = machine();
    let _window = open(&display, &machine, "cores", "1100x2500");
    let cards = |tree: &[Accessible]| -> Vec<String> {
        tree.iter().filter(|a| a.role == "panel" && a.name.starts_with("CPU ")).map(|a| a.name.clone()).collect()
    };
    let all = atspi.tree_when(&display, "cores-all.txt", 20, |t| cards(t).len() == 22);
    let efficiency = cards(&all).iter().filter(|name| name.contains("efficiency core")).count();
    assert!(efficiency > 0 && efficiency < 22, "{:?}", cards(&all));
    let press = |name: &str| {
        let out = atspi_script(&display, "atspi_press.py", &["push button", name, "20"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    press("E-cores");
    let shown = atspi.tree_when(&display, "cores-e.txt", 20, |t| cards(t).len() == efficiency);
    assert!(cards(&shown).iter().all(|name| name.contains("efficiency core")), "{:?}", cards(&shown));
    display.park_pointer();
    assert!(display.screenshot(&common::display::screenshot_dir().join("cores-e-cores.png")) > 50);
    press("P-cores");
    let shown = atspi.tree_when(&display, "cores-p.txt", 20, |t| cards(t).len() == 22 - efficiency);
    assert!(cards(&shown).iter().all(|name| name.contains("performance core")), "{:?}", cards(&shown));
    press("All CPUs");
    atspi.tree_when(&display, "cores-all-again.txt", 20, |t| cards(t).len() == 22);
}

/// A profile saved from the command line (EPP 200, the firmware's
/// low-power) can be read on its row, opened with Edit, changed in one
/// value and saved again without a question: the values it did not touch
/// stay (before, the form started blank, and saving under the same name
/// reset the E-cores and dropped the platform profile). Apply is off for
/// the profile in effect and says why; Duplicate starts a copy.
#[test]
fn a_saved_profile_is_read_edited_in_one_value_and_duplicated() {
    let display = Display::start(1280, 1800);
    let atspi = Accessibility::start(&display);
    let machine = machine();
    let root = machine.helper.root.path().to_str().unwrap().to_owned();
    let cli = |args: &[&str]| common::bus::cli(&machine.bus, None, args);
    let saved = cli(&["--root", &root, "profile", "save", "Quiet", "--epp", "200", "--platform-profile", "low-power"]);
    assert!(saved.status.success(), "{}", String::from_utf8_lossy(&saved.stderr));
    assert!(cli(&["profile", "set", "quiet"]).status.success());
    let mut window = open(&display, &machine, "tuning", "1000x1700");
    let named =
        |tree: &[Accessible], role: &str, name: &str| tree.iter().find(|a| a.role == role && a.name == name).cloned();
    let tree = atspi.tree_when(&display, "saved-row.txt", 20, |t| named(t, "push button", "Edit Quiet").is_some());
    // The row says what the profile sets.
    assert!(
        tree.iter().any(|a| a.name == "In use now · EPP 200 · Platform profile low-power"),
        "the tree is in target/screenshots/saved-row.txt"
    );
    // Apply is off for the profile in effect, and says why.
    let apply = named(&tree, "push button", "Apply Quiet").expect("Apply Quiet");
    assert!(!apply.states.contains('e'), "{apply:?}");
    assert_eq!(apply.description, "“Quiet” is in effect already", "{apply:?}");

    // Edit: the form holds the profile's values under its name.
    let out = atspi_script(&display, "atspi_press.py", &["push button", "Edit Quiet", "20"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tree = atspi.tree_when(&display, "saved-edit.txt", 20, |t| t.iter().any(|a| a.name == "Edit “Quiet”"));
    assert!(tree.iter().any(|a| a.role == "text" && a.name == "Name" && a.text == "Quiet"), "saved-edit.txt");
    display.park_pointer();
    assert!(display.screenshot(&common::display::screenshot_dir().join("tuning-edit.png")) > 50);
    // One value changed from the keyboard: the P-cores' EPP, up by ten.
    let out = atspi_script(&display, "atspi_focus.py", &["slider", "EPP on P-cores", "40"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    keys(&display, &["Right"; 10]);
    let toasts = window.state().map(|s| s["toasts"].as_u64().unwrap_or(0)).unwrap_or(0);
    let out = atspi_script(&display, "atspi_press.py", &["push button", "Save Profile", "20"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Saved at once, without the question a new profile of the same name asks.
    window.wait_state("the edit saved", 20, |s| s["toasts"].as_u64().unwrap_or(0) > toasts);
    let shown = cli(&["--root", &root, "profile", "show", "quiet", "--json"]);
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let values = &shown["values"];
    assert_eq!(values["platform_profile"], "low-power", "{values}");
    assert_eq!(values["epp_efficiency_cores"], 200, "{values}");
    assert_eq!(values["epp_performance_cores"], 210, "{values}");

    // Duplicate: a copy under a new name, the values the same.
    let out = atspi_script(&display, "atspi_press.py", &["push button", "Duplicate Quiet", "20"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tree = atspi.tree_when(&display, "saved-duplicate.txt", 20, |t| {
        t.iter().any(|a| a.role == "text" && a.name == "Name" && a.text == "Copy of Quiet")
    });
    assert!(tree.iter().any(|a| a.name == "New Custom Profile"), "saved-duplicate.txt");
}
