//! The window and the tray show one picture of the helper's state, the
//! session the user side folds from the helper's events and replies
//! (docs/flow.md): real dbus-daemon, polkitd and helper on a private system
//! bus, python-dbusmock's UPower, the window under Xvfb read over AT-SPI and
//! through its state file, the tray through its dbusmenu.
//!
//! Each test failed before the session: a failed switch left the clicked
//! radio checked; a helper that stopped left no word on screen and the
//! "Battery and Devices" switches gone after it came back; a choice by hand
//! under automatic switching showed as if the policy had made it; one switch
//! redrew the pages three times.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::bus::{cli, wait_for, Bus, Helper, Mock, MOCK_POLICY};
use common::display::{screenshot_dir, Accessibility, Accessible, Display, SessionBus, Window};
use common::tray::{checked, click, layout, spawn_tray, tooltip, wait_for_item, Item, Watcher};
use common::{stderr, stdout};
use serde_json::Value;

/// The tray on a private session bus with a stand-in watcher.
struct Tray {
    runtime: tokio::runtime::Runtime,
    conn: zbus::Connection,
    service: String,
    /// Stopped when dropped.
    _child: common::tray::TrayProcess,
    _session: SessionBus,
    _config: tempfile::TempDir,
}

impl Tray {
    fn start(bus: &Bus, helper: &Helper) -> Tray {
        let session = SessionBus::start();
        let config = tempfile::tempdir().unwrap();
        let child = spawn_tray(bus, helper.root.path(), &session.address, config.path());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let items: Arc<Mutex<Vec<String>>> = Arc::default();
        let conn = runtime.block_on(Watcher::serve(&session.address, items.clone())).expect("the mock watcher");
        let service = wait_for_item(&runtime, &items);
        Tray { runtime, conn, service, _child: child, _session: session, _config: config }
    }

    fn menu(&self) -> Vec<Item> {
        layout(&self.runtime, &self.conn, &self.service)
    }

    fn checked(&self) -> Option<String> {
        checked(&self.menu())
    }

    fn click(&self, label: &str) {
        let id = self.menu().into_iter().find(|i| i.label() == label).unwrap_or_else(|| panic!("no {label}")).id;
        click(&self.runtime, &self.conn, &self.service, id);
    }

    fn tooltip(&self) -> String {
        tooltip(&self.runtime, &self.conn, &self.service)
    }
}

fn key(display: &Display, keys: &str) {
    display.key(&display.window_id("^Gearshift$"), keys);
}

/// The profile radios the window shows checked on screen, over AT-SPI (the
/// lab's check boxes on the hidden page have no size).
fn checked_radio(tree: &[Accessible]) -> Vec<String> {
    tree.iter()
        .filter(|a| matches!(a.role.as_str(), "radio button" | "check box") && a.states.contains('c'))
        .filter(|a| a.extents.is_some_and(|(_, _, width, _)| width > 0))
        .map(|a| a.name.clone())
        .collect()
}

fn number(state: &Value, key: &str) -> u64 {
    state[key].as_u64().unwrap_or_else(|| panic!("no {key} in {state}"))
}

fn start_window(display: &Display, bus: &Bus, helper: &Helper) -> Window {
    let root = helper.root.path().to_str().unwrap().to_owned();
    Window::start(
        display,
        &["--root", &root],
        &[("DBUS_SYSTEM_BUS_ADDRESS", &bus.address), ("GEARSHIFT_DEBUG", "1"), ("GTK_A11Y", "atspi")],
    )
}

#[test]
fn one_switch_redraws_once_and_a_failed_one_leaves_every_view_on_the_profile_in_effect() {
    let bus = Bus::start();
    let mut helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("org.freedesktop.UPower.PowerProfiles");
    assert!(cli(&bus, None, &["profile", "set", "balance_performance"]).status.success());
    let display = Display::start(1280, 900);
    let atspi = Accessibility::start(&display);
    let tray = Tray::start(&bus, &helper);
    let mut window = start_window(&display, &bus, &helper);
    window.wait_drawn();
    let state = window.wait_state("connected, Balanced, the desktop's switches", 20, |s| {
        s["helper"] == "connected" && s["active"] == "balance_performance" && s["options"]["battery_aware"] == true
    });
    wait_for(|| tray.checked().as_deref() == Some("Balanced"), "Balanced checked in the tray");

    // One switch from the window: the pages are told once, the firmware's
    // files read once, whatever signals and replies carry the news.
    std::thread::sleep(Duration::from_millis(1500));
    let before = window.state().expect("the state file");
    key(&display, "ctrl+4");
    let after = window.wait_state("Power Saver and its toast", 20, |s| {
        s["active"] == "power" && number(s, "toasts") > number(&before, "toasts")
    });
    std::thread::sleep(Duration::from_millis(1500));
    let settled = window.state().expect("the state file");
    eprintln!(
        "one switch: refreshes {} -> {}, firmware reads {} -> {}",
        number(&before, "refreshes"),
        number(&settled, "refreshes"),
        number(&before, "firmware_reads"),
        number(&settled, "firmware_reads")
    );
    assert_eq!(number(&settled, "refreshes") - number(&before, "refreshes"), 1, "{settled}");
    assert_eq!(number(&settled, "firmware_reads") - number(&before, "firmware_reads"), 1, "{settled}");
    assert_eq!(settled["platform_profile"], "low-power", "{after}");
    wait_for(|| tray.checked().as_deref() == Some("Power Saver"), "Power Saver checked in the tray");
    drop(state);

    // The helper stops (every upgrade stops it): a lasting banner says so,
    // with Retry, and not that it is missing; what it last said stays.
    helper.stop();
    let gone = window.wait_state("the helper gone", 20, |s| s["helper"] == "gone");
    let banner = gone["banner"].as_str().unwrap_or_default().to_owned();
    assert!(banner.contains("stopped") && !banner.contains("not installed"), "{gone}");
    assert_eq!(gone["active"], "power");
    let tree = atspi.tree_when(&display, "session-gone.txt", 20, |t| {
        t.iter().any(|a| a.role == "push button" && a.name == "Retry")
    });
    assert_eq!(checked_radio(&tree), ["Power Saver"], "the tree is in target/screenshots/session-gone.txt");
    display.park_pointer();
    assert!(display.screenshot(&screenshot_dir().join("window-helper-stopped.png")) > 50);
    wait_for(|| tray.tooltip().contains("stopped"), "the tray says the helper stopped");

    // A switch now fails (nothing starts the helper on this bus): the
    // radio goes back to the profile in effect, the heading stays, a toast
    // says why; the tray's check stays too.
    let toasts = number(&gone, "toasts");
    key(&display, "ctrl+1");
    let failed = window.wait_state("the failed switch's toast", 20, |s| number(s, "toasts") > toasts);
    assert_eq!(failed["active"], "power", "{failed}");
    assert!(failed["toast"].as_str().unwrap_or_default().contains("stopped"), "{failed}");
    let tree = atspi.tree_when(&display, "session-failed.txt", 20, |t| checked_radio(t) == ["Power Saver"]);
    assert!(
        tree.iter().any(|a| a.name.starts_with("Active profile: Power Saver")),
        "the tree is in target/screenshots/session-failed.txt"
    );
    tray.click("Performance");
    wait_for(|| tray.tooltip().contains("could not"), "the tray's failed switch said");
    assert_eq!(tray.checked().as_deref(), Some("Power Saver"));

    // It comes back: every section returns without F5, the banner goes.
    helper.spawn(&bus);
    let back = window.wait_state("the helper back, with the desktop's switches", 20, |s| {
        s["helper"] == "connected" && s["options"]["battery_aware"] == true && s["banner"].is_null()
    });
    assert_eq!(back["mode_row"]["sensitive"], true, "{back}");
    atspi.tree_when(&display, "session-back.txt", 20, |t| {
        t.iter().any(|a| a.role == "check box" && a.name == "Save Power on Battery" && a.states.contains('e'))
    });
    wait_for(|| !tray.tooltip().contains("stopped"), "the tray's word gone");

    // Handing the CPU back from the window, from the keyboard (Tab to its
    // row, followed over AT-SPI, then Space): the helper writes the
    // kernel's own values, and the window, the tray and the command line
    // all say so.
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/atspi_focus.py");
    let focus = display
        .command("/usr/bin/python3")
        .arg(&script)
        .args(["gearshift", "list item", "The kernel's own values", "60"])
        .output()
        .unwrap();
    assert!(focus.status.success(), "{}{}", stdout(&focus), stderr(&focus));
    key(&display, "space");
    let toasts = number(&back, "toasts");
    let handed = window.wait_state("the kernel's own values and their toast", 20, |s| {
        s["active"] == "kernel" && number(s, "toasts") > toasts
    });
    assert!(handed["toast"].as_str().unwrap_or_default().contains("kernel's own values are back"), "{handed}");
    wait_for(|| tray.checked().as_deref() == Some("The Kernel's Own Values"), "the tray's check follows");
    assert_eq!(stdout(&cli(&bus, None, &["profile", "get"])).trim(), "kernel");
    assert!(window.running(), "{:?}", window.log);
}

#[test]
fn a_choice_by_hand_under_automatic_lasts_until_the_power_source_changes() {
    let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
    let _upower = Mock::start(&bus, "upower", "org.freedesktop.UPower");
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("org.freedesktop.UPower.PowerProfiles");
    let out = cli(&bus, None, &["auto", "set", "--on-ac", "balance_performance", "--on-battery", "balance_power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let display = Display::start(1280, 900);
    let atspi = Accessibility::start(&display);
    let tray = Tray::start(&bus, &helper);
    let mut window = start_window(&display, &bus, &helper);
    window.wait_drawn();
    window.wait_state("the policy's Balanced", 20, |s| {
        s["helper"] == "connected" && s["active"] == "balance_performance" && s["reason"] == "policy"
    });

    // Power Saver chosen in the tray while the policy is on: every view
    // says it lasts until the power source changes, and offers the way back.
    wait_for(|| tray.checked().as_deref() == Some("Balanced"), "Balanced checked in the tray");
    tray.click("Power Saver");
    let chosen = window.wait_state("Power Saver by hand", 20, |s| {
        s["active"] == "power" && s["reason"] == "until-power-change" && s["overridden"] == true
    });
    assert_eq!(chosen["auto"]["enabled"], true, "{chosen}");
    let tree = atspi.tree_when(&display, "session-override.txt", 20, |t| {
        t.iter().any(|a| a.role == "push button" && a.name == "Return to Automatic" && a.states.contains('e'))
    });
    assert!(
        tree.iter().any(|a| a.name == "Active profile: Power Saver until the power source changes"),
        "the tree is in target/screenshots/session-override.txt"
    );
    wait_for(
        || tray.tooltip().starts_with("Gearshift: Power Saver until the power source changes"),
        "the tray's tooltip says how long",
    );
    assert!(tray.menu().iter().any(|i| i.label() == "Return to Automatic"));
    display.park_pointer();
    assert!(display.screenshot(&screenshot_dir().join("window-until-power-change.png")) > 50);

    // Return to Automatic, pressed as a screen reader presses it.
    let press = display
        .command("/usr/bin/python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/common/atspi_press.py"))
        .args(["gearshift", "push button", "Return to Automatic", "20"])
        .output()
        .unwrap();
    assert!(press.status.success(), "{}", String::from_utf8_lossy(&press.stderr));
    window.wait_state("the policy's choice again", 20, |s| {
        s["active"] == "balance_performance" && s["reason"] == "policy" && s["overridden"] == false
    });
    wait_for(|| !tray.menu().iter().any(|i| i.label() == "Return to Automatic"), "the tray's item gone");

    // Chosen by hand again, then the power source changes: the policy picks.
    tray.click("Performance");
    window.wait_state("Performance by hand", 20, |s| s["active"] == "performance" && s["overridden"] == true);
    bus.set_on_battery(true);
    window.wait_state("the battery's profile", 20, |s| {
        s["active"] == "balance_power" && s["reason"] == "policy" && s["overridden"] == false
    });
    wait_for(|| tray.checked().as_deref() == Some("Efficient"), "Efficient checked in the tray");
    assert!(!tray.tooltip().contains("until the power source changes"));
    assert!(window.running(), "{:?}", window.log);
}

/// The subtitle of the profile row titled `title` on the overview.
fn row_subtitle(tree: &[Accessible], title: &str) -> Option<String> {
    let at = tree.iter().position(|a| a.role == "list item" && a.name == title)?;
    let depth = tree[at].depth;
    let row = tree[at + 1..].iter().take_while(|a| a.depth > depth);
    row.filter(|a| a.role == "label").last().map(|a| a.name.clone())
}

#[test]
fn the_desktop_menu_the_window_and_the_tray_name_each_profile_alike() {
    // The one rule (core::panel): Efficient is balanced; a custom profile
    // goes by its EPP among Meteor Lake's 16, 64, 179, 255.
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let root = helper.root.path().to_str().unwrap().to_owned();
    for (name, epp) in [("Fast", "0"), ("Middle", "128"), ("Frugal", "255")] {
        let save = cli(&bus, None, &["--root", &root, "profile", "save", name, "--epp", epp]);
        assert!(save.status.success(), "{}", stderr(&save));
    }
    let display = Display::start(1280, 1400);
    let atspi = Accessibility::start(&display);
    let tray = Tray::start(&bus, &helper);
    let mut window = start_window(&display, &bus, &helper);
    window.wait_drawn();
    window.wait_state("connected, with the custom profiles", 20, |s| {
        s["helper"] == "connected" && s["customs"].as_array().is_some_and(|c| c.len() == 3)
    });
    wait_for(|| tray.menu().iter().any(|i| i.label() == "Frugal"), "the custom profiles in the tray");
    let menu_title = |panel: &str| match panel {
        "performance" => "Performance",
        "balanced" => "Balanced",
        _ => "Power Saver",
    };
    for (id, title, panel) in [
        ("performance", "Performance", "performance"),
        ("balance_performance", "Balanced", "balanced"),
        ("balance_power", "Efficient", "balanced"),
        ("power", "Power Saver", "power-saver"),
        ("fast", "Fast", "performance"),
        ("middle", "Middle", "balanced"),
        ("frugal", "Frugal", "power-saver"),
    ] {
        let set = cli(&bus, None, &["profile", "set", id]);
        assert!(set.status.success(), "{}", stderr(&set));
        let get = bus.command("powerprofilesctl").arg("get").output().expect("powerprofilesctl");
        assert_eq!(String::from_utf8_lossy(&get.stdout).trim(), panel, "the desktop's menu for {title}");
        window.wait_state(title, 20, |s| s["active"] == id);
        let words = format!("shown as {} in the desktop's power menu", menu_title(panel));
        let tree = atspi.tree_when(&display, "session-panel.txt", 20, |t| row_subtitle(t, title).is_some());
        let subtitle = row_subtitle(&tree, title).unwrap();
        let tip = || tray.tooltip();
        if title == menu_title(panel) {
            assert!(!subtitle.contains("desktop's power menu"), "{title}: {subtitle}");
            wait_for(|| tip().starts_with(&format!("Gearshift: {title}\n")), &format!("{title} in the tray"));
            assert!(!tip().contains("desktop's power menu"), "{title}: {}", tip());
        } else {
            assert!(subtitle.ends_with(&words), "{title}: {subtitle}");
            let line = format!("\nS{}", &words[1..]);
            wait_for(
                || tip().starts_with(&format!("Gearshift: {title}\n")) && tip().contains(&line),
                &format!("{title} and its name in the desktop's menu in the tray"),
            );
        }
    }
    assert!(window.running(), "{:?}", window.log);
}

#[test]
fn a_german_speaker_reads_the_session_in_german() {
    // German strings from po/de.po: the window's own words, not English.
    let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
    let _upower = Mock::start(&bus, "upower", "org.freedesktop.UPower");
    let mut helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("org.freedesktop.UPower.PowerProfiles");
    let out = cli(&bus, None, &["auto", "set", "--on-ac", "balance_performance", "--on-battery", "balance_power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let locales = common::compiled_catalogues();
    let display = Display::start(1280, 900);
    let atspi = Accessibility::start(&display);
    let root = helper.root.path().to_str().unwrap().to_owned();
    let mut window = Window::start(
        &display,
        &["--root", &root],
        &[
            ("DBUS_SYSTEM_BUS_ADDRESS", &bus.address),
            ("GEARSHIFT_DEBUG", "1"),
            ("GTK_A11Y", "atspi"),
            ("GEARSHIFT_LOCALEDIR", locales.path().to_str().unwrap()),
            ("LANGUAGE", "de"),
            ("LC_ALL", "de_DE.UTF-8"),
        ],
    );
    window.wait_drawn();
    window.wait_state("the policy's Balanced", 20, |s| s["helper"] == "connected" && s["reason"] == "policy");

    // A choice by hand under automatic switching, in German.
    assert!(cli(&bus, None, &["profile", "set", "power"]).status.success());
    window.wait_state("Power Saver by hand", 20, |s| s["active"] == "power" && s["overridden"] == true);
    let tree = atspi.tree_when(&display, "de-until-power-change.txt", 20, |t| {
        t.iter().any(|a| a.name.contains("Energiesparmodus, bis die Stromquelle wechselt"))
    });
    let said = |tree: &[Accessible], role: &str, name: &str| tree.iter().any(|a| a.role == role && a.name == name);
    assert!(
        said(&tree, "push button", "Zurück zum automatischen Wechsel"),
        "see target/screenshots/de-until-power-change.txt"
    );
    assert!(!said(&tree, "push button", "Return to Automatic"));
    display.park_pointer();
    assert!(display.screenshot(&screenshot_dir().join("de-until-power-change.png")) > 50);

    // The helper stops: the lasting banner and its Retry, in German.
    helper.stop();
    window.wait_state("the helper gone", 20, |s| s["helper"] == "gone");
    let tree = atspi.tree_when(&display, "de-helper-stopped.txt", 20, |t| said(t, "push button", "Erneut versuchen"));
    assert!(
        tree.iter().any(|a| a.name.starts_with("Der Gearshift-Helfer wurde beendet.")),
        "see target/screenshots/de-helper-stopped.txt"
    );
    assert!(!said(&tree, "push button", "Retry"));
    display.park_pointer();
    assert!(display.screenshot(&screenshot_dir().join("de-helper-stopped.png")) > 50);
    assert!(window.running(), "{:?}", window.log);
}
