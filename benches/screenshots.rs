//! Takes the screenshots in data/screenshots/ (used by the AppStream
//! metainfo): the window on a hybrid laptop, a 256-CPU server and a VM,
//! with a real helper behind it so that it looks as it does in use; and
//! the firmware's platform profile (`platform-*.png`) on the demo laptop
//! and on a laptop with two platform profile handlers, light and dark,
//! wide and 360 px narrow, and the lap sensor's warning; and the driver
//! mode's row on a laptop whose intel_pstate runs passive; and what a new
//! user meets (issue 15) in docs/screenshots/.
//!
//! `build-aux/screenshots` runs it (root: polkitd and the helper);
//! `GEARSHIFT_SHOTS=platform-hx370` takes only the files whose names hold
//! that text.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::time::Duration;

use common::bus::{cli, Bus, Helper};
use common::display::{Display, Window};

/// How a screenshot is taken: the screen's (and the window's) size, and
/// the colour scheme.
#[derive(Debug, Clone, Copy)]
struct Look {
    width: u32,
    height: u32,
    dark: bool,
}

/// The window's default size, light: the metainfo's screenshots.
const DEFAULT: Look = Look { width: 1000, height: 760, dark: false };

impl Look {
    const fn wide(height: u32, dark: bool) -> Look {
        Look { width: 1000, height, dark }
    }

    /// A phone's width.
    const fn narrow(height: u32, dark: bool) -> Look {
        Look { width: 360, height, dark }
    }
}

/// Before the window opens: a change to the helper's copy of the snapshot.
type Setup = fn(&Path);

fn take(bus: &Bus, fixture: &str, profile: Option<&str>, setup: Option<Setup>, shots: &[(&str, &str, Look)]) {
    let only = std::env::var("GEARSHIFT_SHOTS").unwrap_or_default();
    if !shots.iter().any(|(_, name, _)| name.contains(only.as_str())) {
        return;
    }
    let helper = Helper::start(bus, fixture);
    if let Some(profile) = profile {
        let out = cli(bus, None, &["profile", "set", profile]);
        assert!(out.status.success(), "{fixture}: profile set {profile}: {}", common::stderr(&out));
    }
    if let Some(setup) = setup {
        setup(helper.root.path());
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/screenshots");
    let only = std::env::var("GEARSHIFT_SHOTS").unwrap_or_default();
    for (page, name, look) in shots.iter().filter(|(_, name, _)| name.contains(only.as_str())) {
        let display = Display::start(look.width, look.height);
        let root = helper.root.path().to_str().unwrap().to_owned();
        let size = format!("{}x{}", look.width, look.height);
        let scheme = if look.dark { "prefer-dark" } else { "default" };
        let mut window = Window::start(
            &display,
            &["--root", &root],
            &[
                ("DBUS_SYSTEM_BUS_ADDRESS", &bus.address),
                ("GEARSHIFT_DEBUG", "1"),
                ("GEARSHIFT_PAGE", page),
                ("GEARSHIFT_SIZE", &size),
                ("ADW_DEBUG_COLOR_SCHEME", scheme),
            ],
        );
        window.wait_for_line("first frame", 60);
        // The pointer starts at the screen's centre, over a card with a
        // tooltip on narrow screens: away with it once the window is up (an
        // X server without clients puts it back), and give the tooltip time
        // to close.
        display.park_pointer();
        window.wait_for_line("Connected", 20);
        // A few samples for the sparklines.
        std::thread::sleep(Duration::from_secs(4));
        display.park_pointer();
        std::thread::sleep(Duration::from_millis(300));
        // "docs/NAME" goes to docs/screenshots/ (the issues' pictures, not
        // the metainfo's).
        let path = match name.strip_prefix("docs/") {
            Some(rest) => Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots").join(rest),
            None => out.join(name),
        };
        let colours = display.screenshot(&path);
        assert!(colours > 100, "{name} looks blank");
        eprintln!("wrote {}", path.display());
    }
}

/// The firmware's platform profile on `fixture` (`short` in the names):
/// the overview (tall enough to show "This Machine") and the per-core
/// page, light and dark, wide and narrow.
fn platform(bus: &Bus, fixture: &str, short: &str, profile: &str) {
    let mut names = Vec::new();
    for (page, wide_height, narrow_height) in [("overview", 1100, 1400), ("cores", 760, 760)] {
        for dark in [false, true] {
            let scheme = if dark { "dark" } else { "light" };
            names.push((page, format!("platform-{short}-{page}-{scheme}.png"), Look::wide(wide_height, dark)));
            names.push((
                page,
                format!("platform-{short}-{page}-{scheme}-narrow.png"),
                Look::narrow(narrow_height, dark),
            ));
        }
    }
    let shots: Vec<(&str, &str, Look)> = names.iter().map(|(p, n, l)| (*p, n.as_str(), *l)).collect();
    take(bus, fixture, Some(profile), None, &shots);
}

/// What a new user meets (issue 15), in docs/screenshots/: the tuning page
/// on the three kinds of energy preference (EPP numbers on the demo laptop,
/// the four names on amd-pstate-epp, the energy bias on Ivy Bridge), the
/// overview's automatic switching rows, and the compact heat maps of a
/// 256-CPU server, light and dark, wide and narrow.
fn newcomer(bus: &Bus) {
    let looks = |page: &'static str, short: &str, wide: u32, narrow: u32| {
        let mut shots = Vec::new();
        for dark in [false, true] {
            let scheme = if dark { "dark" } else { "light" };
            shots.push((page, format!("docs/{short}-{scheme}.png"), Look::wide(wide, dark)));
            shots.push((page, format!("docs/{short}-{scheme}-narrow.png"), Look::narrow(narrow, dark)));
        }
        shots
    };
    let run = |fixture: &str, profile: Option<&str>, shots: Vec<(&'static str, String, Look)>| {
        let shots: Vec<(&str, &str, Look)> = shots.iter().map(|(p, n, l)| (*p, n.as_str(), *l)).collect();
        take(bus, fixture, profile, None, &shots);
    };
    let mut laptop = looks("tuning", "tuning-meteor-lake", 1300, 1700);
    laptop.extend(looks("overview", "overview-automatic-meteor-lake", 1100, 1400));
    run("meteor-lake-155h", Some("balance_performance"), laptop);
    run("amd-7840hs-epp", Some("balance_performance"), looks("tuning", "tuning-amd-epp-names", 1200, 1600));
    run("ivy-bridge-epb", Some("balance_performance"), looks("tuning", "tuning-ivy-bridge-epb", 1100, 1500));
    run("granite-rapids-2s-256", Some("balance_performance"), looks("cores", "cores-256-compact", 900, 900));
}

/// The ThinkPad's lap sensor says it sits on a lap.
fn on_a_lap(root: &Path) {
    std::fs::write(root.join("sys/devices/platform/thinkpad_acpi/dytc_lapmode"), "1\n").expect("dytc_lapmode");
}

fn main() {
    let bus = Bus::start();
    take(
        &bus,
        "meteor-lake-155h",
        Some("balance_performance"),
        None,
        &[
            ("overview", "overview.png", DEFAULT),
            ("cores", "cores-hybrid.png", DEFAULT),
            ("tuning", "tuning.png", DEFAULT),
        ],
    );
    take(&bus, "granite-rapids-2s-256", Some("balance_performance"), None, &[("cores", "cores-256.png", DEFAULT)]);
    take(&bus, "vm-no-cpufreq", None, None, &[("overview", "virtual-machine.png", DEFAULT)]);

    // The firmware's platform profile: the demo laptop on Balanced; the
    // two-handler laptop on Power Saver, where each handler has its own name.
    platform(&bus, "meteor-lake-155h", "meteor-lake", "balance_performance");
    platform(&bus, "amd-hx370-platform-class", "hx370", "power");
    take(
        &bus,
        "meteor-lake-155h",
        Some("power"),
        Some(on_a_lap),
        &[
            ("overview", "platform-meteor-lake-lap.png", Look::wide(1100, false)),
            ("cores", "platform-meteor-lake-lap-cores-narrow.png", Look::narrow(760, true)),
        ],
    );
    newcomer(&bus);
    // The driver mode's row (tall enough to show "This Machine").
    take(
        &bus,
        "tiger-lake-passive",
        Some("balance_performance"),
        None,
        &[("overview", "driver-mode-passive.png", Look::wide(1100, false))],
    );
}
