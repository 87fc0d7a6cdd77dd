//! The window's Efficiency page under Xvfb, driven the way a screen reader
//! drives it (AT-SPI actions), against the real helper on a private bus over
//! the kernel-faithful sysfs whose energy counters follow a power model of
//! the EPP (tests/kernelfs): it lists an earlier measurement, measures, can
//! be cancelled, shows the result, puts the profile back each time, keeps
//! the result, and "Use on Battery" sets the AC/battery policy.
//! Screenshots before, during and after land in target/screenshots/.

mod common;

use std::path::Path;
use std::process::Output;

use common::bus::{cli, Bus, Helper};
use common::display::{assert_controls_named, screenshot_dir, Accessibility, Display, Window};
use common::kernelfs::KernelFs;
use common::stderr;

/// Presses the control `role` whose accessible name starts with `name`.
fn press(display: &Display, role: &str, name: &str) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/atspi_press.py");
    display.command("/usr/bin/python3").arg(&script).args(["gearshift", role, name, "20"]).output().unwrap()
}

fn pressed(display: &Display, role: &str, name: &str) {
    let out = press(display, role, name);
    assert!(out.status.success(), "{role} {name:?}: {}", stderr(&out));
}

/// Starts measuring. The snapshot runs on battery, so the window asks
/// first (true: it did); where the test machine is busy (other tests), it
/// asks again. The test says measure anyway.
fn start_measuring(display: &Display, window: &mut Window, shot: Option<&str>) -> bool {
    // From here on, the log is this measurement's.
    window.drain();
    window.log.clear();
    pressed(display, "push button", "Start Measuring");
    // Each question comes at most once: a confirmed request is not asked
    // again.
    let mut answered: Vec<String> = Vec::new();
    loop {
        let state = window.wait_state("a run, or a question first", 30, |s| {
            let asked = s["lab"]["asked"].as_str();
            !s["lab"]["run"].is_null() || asked.is_some_and(|q| !answered.iter().any(|a| a == q))
        });
        if !state["lab"]["run"].is_null() {
            return answered.iter().any(|a| a == "battery");
        }
        answered.push(state["lab"]["asked"].as_str().unwrap().to_owned());
        if let Some(name) = shot {
            std::thread::sleep(std::time::Duration::from_millis(600));
            display.park_pointer();
            display.screenshot(&screenshot_dir().join(name));
        }
        pressed(display, "push button", "Measure Anyway");
    }
}

fn kept_files(bus: &Bus) -> Vec<std::path::PathBuf> {
    let dir = bus.data_home().join("gearshift/measurements");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn the_efficiency_page_measures_cancels_keeps_and_uses_the_result() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    let _kernel = KernelFs::serve_in_place(helper.root.path(), None);
    helper.spawn(&bus);
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    // An earlier measurement, kept by `gearshift measure` a month ago: eight
    // rounds that could not tell Balanced from the kernel's 128.
    let dir = bus.data_home().join("gearshift/measurements");
    std::fs::create_dir_all(&dir).unwrap();
    let tie = serde_json::json!({"pct": 0.8, "ci95_pct": [-1.9, 3.5], "clear": false});
    let earlier = serde_json::json!({
        "time": 1_762_000_000u64, "kernel": "6.8.0-31-generic", "cpu": "Meteor Lake",
        "report": {"workload": "build", "repeats": 8, "energy_source": "psys", "method": "pocock",
            "runs": [{"profile": "balance_performance", "epp": 64, "throughput": 800.0, "unit": "MB/s",
                      "seconds": 12.0, "joules": 230.0, "watts": 19.0, "ppw": 39.5, "ppw_spread": 2.5,
                      "vs_kernel_default_pct": 0.8, "n": 8, "ppw_ci95": [38.7, 40.3],
                      "throughput_ci95": [790.0, 810.0], "watts_ci95": [18.6, 19.4], "outliers": 0,
                      "disturbed": 0, "vs_kernel_default": tie},
                     {"profile": "kernel_default", "epp": 128, "throughput": 790.0, "unit": "MB/s",
                      "seconds": 12.2, "joules": 246.0, "watts": 20.2, "ppw": 39.2, "ppw_spread": 2.7,
                      "vs_kernel_default_pct": null, "n": 8, "ppw_ci95": [38.3, 40.1],
                      "throughput_ci95": [780.0, 800.0], "watts_ci95": [19.8, 20.6], "outliers": 0,
                      "disturbed": 0, "vs_kernel_default": null}],
            "best": null, "tied_best": ["balance_performance", "kernel_default"],
            "lead": {"profile": "balance_performance", "over": "kernel_default", "pct": 0.8,
                     "ci95_pct": [-1.9, 3.5], "clear": false},
            "restored": "balance_power"}
    });
    std::fs::write(dir.join("1762000000-build.json"), earlier.to_string()).unwrap();
    // Something that is not a measurement is left alone and not listed.
    std::fs::write(dir.join("notes.json"), "{\"x\": 1}").unwrap();

    let display = Display::start(1280, 1000);
    let atspi = Accessibility::start(&display);
    let root = helper.root.path().to_str().unwrap().to_owned();
    let data = bus.data_home();
    let mut window = Window::start(
        &display,
        &["--root", &root],
        &[
            ("DBUS_SYSTEM_BUS_ADDRESS", &bus.address),
            ("GEARSHIFT_DEBUG", "1"),
            ("GEARSHIFT_PAGE", "efficiency"),
            ("GEARSHIFT_LAB_SCALE", "0.02"),
            ("GEARSHIFT_SIZE", "1100x1000"),
            ("GEARSHIFT_TOAST_SECONDS", "0"),
            ("GTK_A11Y", "atspi"),
            ("XDG_DATA_HOME", data.to_str().unwrap()),
        ],
    );
    window.wait_drawn();
    let state = window.wait_state("the earlier measurement listed, the helper connected", 20, |s| {
        s["lab"]["kept"] == 1 && s["served"] == true && s["helper"] == "connected" && s["writable"] == true
    });
    window.wait_ticks(&state, 1);
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-before.png"));

    // The earlier one opens in the result view, and says no more than its
    // runs support.
    pressed(&display, "push button", "Show Build: no clear difference");
    let shown = window.wait_state("the earlier result", 10, |s| s["lab"]["verdict"].is_string());
    let verdict = shown["lab"]["verdict"].as_str().unwrap();
    assert!(shown["lab"]["best"].is_null(), "{shown}");
    assert!(
        verdict.starts_with("Balanced and Kernel default (128): no clear difference (+0.8%, between -1.9% and +3.5%)."),
        "{verdict}"
    );
    assert_eq!(verdict.matches("no clear difference").count(), 1, "said once: {verdict}");
    assert!(!verdict.contains("did the most work"), "{verdict}");
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-no-clear-difference.png"));

    // Cancelled after its first run: the profile used before comes back.
    assert!(start_measuring(&display, &mut window, Some("efficiency-battery-question.png")), "no battery question");
    pressed(&display, "push button", "Cancel the measurement");
    let ended = window.wait_state("the measurement cancelled", 60, |s| s["lab"]["ends"] == 1);
    assert_eq!(ended["lab"]["ended"], "cancelled", "{ended}");
    assert_eq!(ended["lab"]["restored"], "balance_power", "{ended}");
    // The toast that says so can be dismissed by a screen reader's user
    // too: its close button has a name (libadwaita 1.2 gives it none).
    // Toasts stay here until dismissed (GEARSHIFT_TOAST_SECONDS=0): a walk
    // of the tree takes longer than a toast's four seconds.
    let tree = atspi.tree_when(&display, "accessibility-toast.txt", 20, |tree| {
        let toast = tree
            .iter()
            .any(|a| a.role == "label" && a.name.starts_with("Measurement cancelled; Efficient is active again."));
        toast && tree.iter().any(|a| a.role == "push button" && a.name.starts_with("Dismiss"))
    });
    assert_controls_named(&tree, "accessibility-toast.txt");
    assert_eq!(helper.policy(0, "energy_performance_preference"), "179");
    assert_eq!(kept_files(&bus).len(), 2, "a cancelled measurement is not kept");

    // Measured to the end.
    assert!(start_measuring(&display, &mut window, None));
    let first = window.wait_for_line("lab run 1/", 20);
    // Standard (the default: 3 to 8 rounds) at the test's 0.02 of the
    // work; the four built-in profiles and the kernel's 128.
    assert!(first.contains("lab run 1/15-40: performance"), "{first}");
    window.wait_state("the third run", 60, |s| s["lab"]["run"][0].as_u64() >= Some(3));
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-during.png"));
    let ended = window.wait_state("the measurement done", 120, |s| s["lab"]["ends"] == 2);
    assert_eq!(ended["lab"]["ended"], "done", "{ended}");
    assert_eq!(ended["lab"]["restored"], "balance_power", "{ended}");
    let shown = window.wait_state("its result", 10, |s| s["lab"]["best"] == "power");
    let verdict = shown["lab"]["verdict"].as_str().unwrap();
    // Twice the work per joule of the next: clear, after the fewest rounds.
    assert!(verdict.contains("On this Meteor Lake, Power Saver did the most work per joule."), "{verdict}");
    assert!(verdict.contains("Against Efficient, the next: +"), "{verdict}");
    assert!(verdict.contains("against the kernel's 128: ") || verdict.contains("and the kernel's 128: "), "{verdict}");
    assert_eq!(helper.policy(0, "energy_performance_preference"), "179");
    assert_eq!(common::stdout(&cli(&bus, None, &["profile", "get"])).trim(), "balance_power");
    let files = kept_files(&bus);
    assert_eq!(files.len(), 3, "{files:?}");
    let newest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(
            files.iter().find(|f| !f.ends_with("notes.json") && !f.ends_with("1762000000-build.json")).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(newest["report"]["best"], "power");
    assert_eq!(newest["report"]["runs"].as_array().unwrap().len(), 5);
    assert_eq!(newest["cpu"], "Meteor Lake");
    let listed = window.wait_state("both listed", 10, |s| s["lab"]["kept"] == 2);
    window.wait_ticks(&listed, 1);
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-after.png"));
    // Narrow (a phone-sized window): the chart's two panels stack.
    let id = display.window_id("^Gearshift$");
    assert!(display.command("xdotool").args(["windowsize", "--sync", &id, "360", "900"]).status().unwrap().success());
    std::thread::sleep(std::time::Duration::from_millis(800));
    display.screenshot(&screenshot_dir().join("efficiency-after-narrow.png"));
    assert!(display.command("xdotool").args(["windowsize", "--sync", &id, "1100", "1000"]).status().unwrap().success());
    // Every control of the page has a name, and the chart says its figures.
    let tree = atspi.tree(&display, "accessibility-efficiency.txt");
    let named = assert_controls_named(&tree, "accessibility-efficiency.txt");
    assert!(named >= 15, "only {named} named controls");
    for (role, name) in [
        ("combo box", "Workload"),
        ("combo box", "Length"),
        ("check box", "Kernel default (128)"),
        ("check box", "Power Saver"),
        ("push button", "Start Measuring"),
        ("push button", "Use Power Saver now"),
        ("push button", "Show Build: no clear difference"),
        ("image", "Efficiency chart. Performance: "),
    ] {
        assert!(tree.iter().any(|a| a.role == role && a.name.starts_with(name)), "no {role} {name:?}");
    }

    // Use it on battery: automatic switching with Power Saver on battery,
    // AC keeping its default, said in a toast with Undo.
    pressed(&display, "push button", "Use Power Saver on battery");
    let policy = || common::stdout(&cli(&bus, None, &["auto", "status", "--json"]));
    common::bus::wait_for(|| policy().contains("\"enabled\":true"), "the AC/battery policy to be turned on");
    let turned_on: serde_json::Value = serde_json::from_str(&policy()).unwrap();
    assert_eq!(turned_on["on_battery"], "power", "{turned_on}");
    assert_eq!(turned_on["on_ac"], "balance_performance", "{turned_on}");
    window.wait_state("the toast with Undo", 10, |s| {
        s["toast"] == "Automatic switching is on: Balanced on AC power, Power Saver on battery."
    });
    // Undo: switching is off again, as it was.
    pressed(&display, "push button", "Undo");
    common::bus::wait_for(|| policy().contains("\"enabled\":false"), "the AC/battery policy to be off again");
    assert!(window.running(), "{:?}", window.log);
}
