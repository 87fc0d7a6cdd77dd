//! The window's Efficiency page under Xvfb, driven the way a screen reader
//! drives it (AT-SPI actions), against the real helper on a private bus over
//! the kernel-faithful sysfs whose energy counters follow a power model of
//! the EPP (tests/kernelfs): it lists an earlier measurement, estimates how
//! long a measurement takes, asks once before measuring on battery and on
//! a busy machine, measures with the time left, can be cancelled, shows
//! the result with what each figure is compared with, puts the profile back
//! each time, keeps the result, says why a Use button is off, and "Use on
//! Battery" sets the AC/battery policy.
//! Screenshots before, during and after land in target/screenshots/.

mod common;

use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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

/// Keeps every CPU of this machine busy until dropped: what a compiler in
/// the background does to a measurement.
struct BusyCpus {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl BusyCpus {
    fn start() -> BusyCpus {
        let stop = Arc::new(AtomicBool::new(false));
        let cpus = std::thread::available_parallelism().map_or(2, usize::from);
        let threads = (0..cpus)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        BusyCpus { stop, threads }
    }
}

impl Drop for BusyCpus {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// Every push button and label of the window as a screen reader has it:
/// role, states (e: sensitive), name and description, tab-separated (the
/// tree of tests/common/atspi.py has no descriptions).
const DESCRIBED: &str = r#"
import sys, gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi
def walk(acc, depth):
    if acc is None or depth > 60:
        return
    try:
        role = acc.get_role_name()
        if role in ("push button", "label"):
            s = acc.get_state_set()
            states = "e" if s.contains(Atspi.StateType.SENSITIVE) else "-"
            clean = lambda t: (t or "").replace("\t", " ").replace("\n", " ")
            print(f"{role}\t{states}\t{clean(acc.get_name())}\t{clean(acc.get_description())}")
        for i in range(acc.get_child_count()):
            walk(acc.get_child_at_index(i), depth + 1)
    except Exception:
        pass
desktop = Atspi.get_desktop(0)
for i in range(desktop.get_child_count()):
    app = desktop.get_child_at_index(i)
    if app is not None and "gearshift" in (app.get_name() or ""):
        walk(app, 0)
"#;

/// One push button or label: role, sensitive, name, description.
#[derive(Debug, Clone)]
struct Described {
    role: String,
    sensitive: bool,
    name: String,
    description: String,
}

fn described(display: &Display) -> Vec<Described> {
    let out = display.command("/usr/bin/python3").args(["-c", DESCRIBED]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (f.len() == 4).then(|| Described {
                role: f[0].to_owned(),
                sensitive: f[1] == "e",
                name: f[2].trim().to_owned(),
                description: f[3].trim().to_owned(),
            })
        })
        .collect()
}

/// What a screen reader has for the push button named `name` (GTK 4.8
/// adds the label's text to the name: the start is compared).
fn button(display: &Display, name: &str) -> Described {
    let all = described(display);
    all.iter().find(|d| d.role == "push button" && d.name.starts_with(name)).cloned().unwrap_or_else(|| {
        panic!("no push button {name:?}: {:?}", all.iter().filter(|d| d.role == "push button").collect::<Vec<_>>())
    })
}

/// Waits until the label holding `needle` shows, and returns its text.
fn label_with(display: &Display, needle: &str, secs: u64) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let all = described(display);
        if let Some(label) = all.iter().find(|d| d.role == "label" && d.name.contains(needle)) {
            return label.name.clone();
        }
        assert!(std::time::Instant::now() < deadline, "no label with {needle:?} within {secs} s");
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

/// "2 to 2 minutes": an estimate that says the same end twice.
fn same_ends(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.windows(3).any(|w| w[1] == "to" && w[0] == w[2] && w[0].chars().all(|c| c.is_ascii_digit()))
}

/// Starts measuring. The snapshot runs on battery, so the window asks
/// first, once, whatever else spoils the figures (`busy`: every CPU of
/// this machine spins until the question is up), saying how long it takes
/// and what it changes; the test says measure anyway. Returns the
/// question's words as a screen reader reads them.
fn start_measuring(display: &Display, window: &mut Window, busy: bool, shot: Option<&str>) -> String {
    // From here on, the log is this measurement's.
    window.drain();
    window.log.clear();
    let asked_before = window.state().unwrap()["lab"]["questions"].as_u64().unwrap_or(0);
    let spinning = busy.then(BusyCpus::start);
    pressed(display, "push button", "Start Measuring");
    let state = window.wait_state("the question", 30, |s| s["lab"]["asked"] == "before");
    let question = label_with(display, "each profile is switched on in turn", 10);
    drop(spinning);
    assert_eq!(state["lab"]["questions"].as_u64(), Some(asked_before + 1), "{state}");
    if let Some(name) = shot {
        std::thread::sleep(std::time::Duration::from_millis(600));
        display.park_pointer();
        display.screenshot(&screenshot_dir().join(name));
    }
    pressed(display, "push button", "Measure Anyway");
    let running = window.wait_state("a run", 30, |s| !s["lab"]["run"].is_null());
    // One question, not one for each thing that spoils the figures.
    assert_eq!(running["lab"]["questions"].as_u64(), Some(asked_before + 1), "{running}");
    assert!(running["lab"]["asked"].is_null(), "{running}");
    question
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
    // Quick, from the keyboard: the estimate is timed from the earlier
    // measurement of this CPU, rounded honestly, and never says the same
    // end twice (it said "About 2 to 2 minutes for 15 to 25 runs").
    let id = display.window_id("^Gearshift$");
    assert!(display.command("xdotool").args(["windowfocus", "--sync", &id]).status().unwrap().success());
    let choose_length = |keys: &[&str]| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/atspi_focus.py");
        let out = display
            .command("/usr/bin/python3")
            .arg(&script)
            .args(["gearshift", "combo box", "Length", "40"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        for key in keys {
            assert!(display.command("xdotool").args(["key", key]).status().unwrap().success());
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
    };
    choose_length(&["Return", "Up", "Return"]);
    let quick = window.wait_state("Quick's estimate", 10, |s| {
        s["lab"]["estimate"].as_str().is_some_and(|e| e.contains("for 15 to 25 runs"))
    });
    let estimate = quick["lab"]["estimate"].as_str().unwrap();
    assert!(!same_ends(estimate), "{estimate}");
    assert!(estimate.starts_with("Less than a minute for 15 to 25 runs."), "{estimate}");
    assert!(estimate.contains("Timed from this computer's last measurement of this workload."), "{estimate}");
    let shown = label_with(&display, "for 15 to 25 runs", 10);
    assert!(!same_ends(&shown) && shown.starts_with("Less than a minute"), "{shown}");
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-quick.png"));
    choose_length(&["Return", "Down", "Return"]);
    window.wait_state("Standard again", 10, |s| {
        s["lab"]["estimate"].as_str().is_some_and(|e| e.contains("for 15 to 40 runs"))
    });
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-before.png"));

    // The earlier one opens in the result view, and says no more than its
    // runs support, naming what its figure is compared with.
    pressed(&display, "push button", "Show Build: no clear difference");
    let shown = window.wait_state("the earlier result", 10, |s| s["lab"]["verdict"].is_string());
    let verdict = shown["lab"]["verdict"].as_str().unwrap();
    assert!(shown["lab"]["best"].is_null(), "{shown}");
    assert!(
        verdict.starts_with("Balanced and Kernel default (128): no clear difference (Balanced gave +0.8% work per joule compared with Kernel default (128), between -1.9% and +3.5%)."),
        "{verdict}"
    );
    assert_eq!(verdict.matches("no clear difference").count(), 1, "said once: {verdict}");
    assert!(!verdict.contains("did the most work"), "{verdict}");
    // No profile to use: each Use button is off and says why, to a screen
    // reader and under the buttons.
    let why = "No profile did clearly best, so there is none to use.";
    for name in ["Use This Profile", "Use on Battery", "Use on AC Power"] {
        let use_button = button(&display, name);
        assert!(!use_button.sensitive, "{use_button:?}");
        assert_eq!(use_button.description, why, "{use_button:?}");
    }
    assert_eq!(label_with(&display, "none to use", 5), why);
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-no-clear-difference.png"));
    // Its tooltip, under the pointer.
    let tree = atspi.tree(&display, "efficiency-no-clear-difference.txt");
    let at =
        tree.iter().find(|a| a.role == "push button" && a.name.starts_with("Use This Profile")).and_then(|a| a.extents);
    if let Some((x, y, w, h)) = at {
        let (x, y) = ((x + w / 2).to_string(), (y + h / 2).to_string());
        assert!(display.command("xdotool").args(["mousemove", &x, &y]).status().unwrap().success());
        std::thread::sleep(std::time::Duration::from_millis(1500));
        display.screenshot(&screenshot_dir().join("efficiency-why-not.png"));
        display.park_pointer();
    }

    // Cancelled after its first run: the profile used before comes back.
    // On battery, with the CPUs busy besides: one question says both.
    let question = start_measuring(&display, &mut window, true, Some("efficiency-question.png"));
    assert!(question.contains("This computer runs on battery"), "{question}");
    assert!(question.contains("per cent busy with other work"), "{question}");
    assert!(question.contains("About ") || question.contains("Less than a minute"), "{question}");
    assert!(question.contains("for 15 to 40 runs."), "{question}");
    assert!(!same_ends(&question), "{question}");
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

    // Measured to the end: asked once again, on battery.
    let question = start_measuring(&display, &mut window, false, None);
    assert!(question.contains("runs on battery"), "{question}");
    let first = window.wait_for_line("lab run 1/", 20);
    // Standard (the default: 3 to 8 rounds) at the test's 0.02 of the
    // work; the four built-in profiles and the kernel's 128.
    assert!(first.contains("lab run 1/15-40: performance"), "{first}");
    // From the first run's time on, it says the time left.
    let third = window.wait_state("the third run", 60, |s| s["lab"]["run"][0].as_u64() >= Some(3));
    let left = third["lab"]["left"].as_str().unwrap_or_default();
    assert!(left.ends_with(" left.") && !same_ends(left), "{third}");
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
    // Each profile against the kernel's value says so, clear or not.
    // (three or four: where the kernel's value is the runner-up, the
    // sentence above compared the two already).
    assert!(verdict.matches("against the kernel's 128: ").count() >= 3, "{verdict}");
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
    // The next estimate is timed from this one.
    let estimate = listed["lab"]["estimate"].as_str().unwrap_or_default();
    assert!(estimate.contains("Timed from this computer's last measurement") && !same_ends(estimate), "{estimate}");
    window.wait_ticks(&listed, 1);
    // Five names fit under their bars in English at this width.
    window.wait_state("the bars upright", 10, |s| s["chart"] == "upright");
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("efficiency-after.png"));
    // Narrow (a phone-sized window): the chart's two panels stack, and
    // the bars lie across, each under its whole name, rather than cut
    // the names short ("Perfor…").
    let id = display.window_id("^Gearshift$");
    assert!(display.command("xdotool").args(["windowsize", "--sync", &id, "360", "900"]).status().unwrap().success());
    window.wait_state("the bars across", 10, |s| s["chart"] == "across");
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

    // Power Saver in effect already: Use This Profile is off and says so.
    for (name, sensitive, description) in [
        ("Use Power Saver now", true, ""),
        ("Use Power Saver on battery", true, ""),
        ("Use Power Saver on AC power", true, ""),
    ] {
        let b = button(&display, name);
        assert_eq!((b.sensitive, b.description.as_str()), (sensitive, description), "{b:?}");
    }
    assert!(cli(&bus, None, &["profile", "set", "power"]).status.success());
    window.wait_state("Power Saver active", 20, |s| s["active"] == "power");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while button(&display, "Use Power Saver now").sensitive && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let now = button(&display, "Use Power Saver now");
    assert!(!now.sensitive, "{now:?}");
    assert_eq!(now.description, "Power Saver is already in effect.", "{now:?}");
    assert!(button(&display, "Use Power Saver on battery").sensitive);
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    window.wait_state("Efficient active again", 20, |s| s["active"] == "balance_power");

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
