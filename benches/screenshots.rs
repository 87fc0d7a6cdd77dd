//! Takes the screenshots in data/screenshots/ (used by the AppStream
//! metainfo): the window on a hybrid laptop, a 256-CPU server and a VM,
//! with a real helper behind it so that it looks as it does in use.
//!
//! `build-aux/screenshots` runs it (root: polkitd and the helper).

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::time::Duration;

use common::bus::{cli, Bus, Helper};
use common::display::{Display, Window};

fn take(bus: &Bus, fixture: &str, profile: Option<&str>, shots: &[(&str, &str)]) {
    let helper = Helper::start(bus, fixture);
    if let Some(profile) = profile {
        assert!(cli(bus, None, &["profile", "set", profile]).status.success());
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/screenshots");
    for (page, name) in shots {
        let display = Display::start(1000, 760);
        let root = helper.root.path().to_str().unwrap().to_owned();
        let mut window = Window::start(
            &display,
            &["--root", &root],
            &[
                ("DBUS_SYSTEM_BUS_ADDRESS", &bus.address),
                ("GEARSHIFT_SNAPSHOT_HELPER", "1"),
                ("GEARSHIFT_DEBUG", "1"),
                ("GEARSHIFT_PAGE", page),
            ],
        );
        window.wait_for_line("first frame", 60);
        window.wait_for_line("Connected", 20);
        // A few samples for the sparklines.
        std::thread::sleep(Duration::from_secs(4));
        display.park_pointer();
        let colours = display.screenshot(&out.join(name));
        assert!(colours > 100, "{name} looks blank");
        eprintln!("wrote data/screenshots/{name}");
    }
}

fn main() {
    let bus = Bus::start();
    take(
        &bus,
        "meteor-lake-155h",
        Some("balance_performance"),
        &[("overview", "overview.png"), ("cores", "cores-hybrid.png"), ("tuning", "tuning.png")],
    );
    take(&bus, "granite-rapids-2s-256", Some("balance_performance"), &[("cores", "cores-256.png")]);
    take(&bus, "vm-no-cpufreq", None, &[("overview", "virtual-machine.png")]);
}
