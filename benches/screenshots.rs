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

/// How a screenshot is taken: the screen's (and the window's) size, the
/// colour scheme, and the language (German, or English).
#[derive(Debug, Clone, Copy)]
struct Look {
    width: u32,
    height: u32,
    dark: bool,
    german: bool,
}

/// The window's default size, light: the metainfo's screenshots.
const DEFAULT: Look = Look { width: 1000, height: 760, dark: false, german: false };

impl Look {
    const fn wide(height: u32, dark: bool) -> Look {
        Look { width: 1000, height, dark, german: false }
    }

    /// A phone's width.
    const fn narrow(height: u32, dark: bool) -> Look {
        Look { width: 360, height, dark, german: false }
    }

    const fn in_german(self, german: bool) -> Look {
        Look { german, ..self }
    }
}

/// The German catalogue compiled for the window (`GEARSHIFT_LOCALEDIR`).
fn locales() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("de/LC_MESSAGES");
        std::fs::create_dir_all(&out).unwrap();
        let po = Path::new(env!("CARGO_MANIFEST_DIR")).join("po/de.po");
        let status = std::process::Command::new("msgfmt").arg("-o").arg(out.join("gearshift.mo")).arg(po).status();
        assert!(status.is_ok_and(|s| s.success()), "msgfmt po/de.po");
        dir
    })
    .path()
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
        let localedir = locales().to_str().unwrap().to_owned();
        let mut env = vec![
            ("DBUS_SYSTEM_BUS_ADDRESS", bus.address.as_str()),
            ("GEARSHIFT_DEBUG", "1"),
            ("GEARSHIFT_PAGE", page),
            ("GEARSHIFT_SIZE", &size),
            ("ADW_DEBUG_COLOR_SCHEME", scheme),
        ];
        if look.german {
            env.extend([("GEARSHIFT_LOCALEDIR", localedir.as_str()), ("LC_ALL", "de_DE.UTF-8"), ("LANGUAGE", "de")]);
        }
        // The Efficiency page lists one earlier measurement, the same in
        // every picture (not whatever this machine kept), and the
        // metainfo's picture shows it.
        let data = kept_measurement();
        env.push(("XDG_DATA_HOME", data.to_str().unwrap()));
        if *name == "efficiency.png" {
            env.push(("GEARSHIFT_LAB_SHOW_KEPT", "1"));
        }
        let mut window = Window::start(&display, &["--root", &root], &env);
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

/// A data directory holding one kept measurement: five profiles on the
/// demo laptop, Power Saver clearly ahead.
fn kept_measurement() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("gearshift/measurements");
        std::fs::create_dir_all(&kept).unwrap();
        let run = |profile: &str, epp: u8, ppw: f64, watts: f64, vs: Option<(f64, f64, f64)>| {
            serde_json::json!({
                "profile": profile, "epp": epp, "n": 3, "throughput": ppw * watts, "unit": "MB/s",
                "seconds": 20.0, "joules": watts * 20.0, "watts": watts, "ppw": ppw, "ppw_spread": 2.0,
                "ppw_ci95": [ppw * 0.95, ppw * 1.05], "throughput_ci95": [ppw * watts * 0.97, ppw * watts * 1.03],
                "watts_ci95": [watts * 0.99, watts * 1.01], "outliers": 0, "disturbed": 0,
                "vs_kernel_default_pct": vs.map(|v| v.0),
                "vs_kernel_default": vs.map(|(pct, low, high)| serde_json::json!({"pct": pct, "ci95_pct": [low, high], "clear": low > 0.0 || high < 0.0})),
            })
        };
        let report = serde_json::json!({
            "time": 1_764_600_000u64, "kernel": "6.8.0-45-generic", "cpu": "Meteor Lake",
            "report": {"workload": "build", "repeats": 3, "energy_source": "psys", "method": "pocock",
                "runs": [run("performance", 16, 10.2, 28.1, Some((-37.8, -44.6, -30.9))),
                         run("balance_performance", 64, 12.4, 23.9, Some((-24.3, -34.8, -13.9))),
                         run("kernel_default", 128, 16.4, 18.4, None),
                         run("balance_power", 179, 22.0, 14.1, Some((33.9, 19.5, 48.2))),
                         run("power", 255, 39.8, 7.5, Some((142.3, 95.1, 189.4)))],
                "best": "power", "tied_best": ["power"],
                "lead": {"profile": "power", "over": "balance_power", "pct": 81.0, "ci95_pct": [52.2, 109.7], "clear": true},
                "restored": "balance_performance"}
        });
        std::fs::write(kept.join("1764600000-build.json"), report.to_string()).unwrap();
        dir
    })
    .path()
}

/// Every page as a person meets it (issue 27), in docs/screenshots/pages/:
/// the overview, cores, tuning and efficiency pages of the demo laptop at
/// 1000 and 360 px, light and dark, in English and German.
fn pages(bus: &Bus) {
    let mut names = Vec::new();
    for (page, wide, narrow) in
        [("overview", 1300, 1700), ("cores", 760, 900), ("tuning", 1400, 2000), ("efficiency", 1300, 1900)]
    {
        for german in [false, true] {
            let lang = if german { "de" } else { "en" };
            for dark in [false, true] {
                let scheme = if dark { "dark" } else { "light" };
                let base = format!("docs/pages/{page}-{lang}-{scheme}");
                names.push((page, format!("{base}.png"), Look::wide(wide, dark).in_german(german)));
                names.push((page, format!("{base}-narrow.png"), Look::narrow(narrow, dark).in_german(german)));
            }
        }
    }
    let shots: Vec<(&str, &str, Look)> = names.iter().map(|(p, n, l)| (*p, n.as_str(), *l)).collect();
    take(bus, "meteor-lake-155h", Some("balance_performance"), None, &shots);
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
            ("efficiency", "efficiency.png", DEFAULT),
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
    pages(&bus);
    // The driver mode's row (tall enough to show "This Machine").
    take(
        &bus,
        "tiger-lake-passive",
        Some("balance_performance"),
        None,
        &[("overview", "driver-mode-passive.png", Look::wide(1100, false))],
    );
}
