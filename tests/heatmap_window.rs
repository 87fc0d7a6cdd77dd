//! The heat maps of a 256-CPU server (two sockets) as a person meets them
//! who uses the keyboard and a screen reader (AT-SPI, under Xvfb): Tab
//! reaches the squares once, the arrow keys move across them by rows and
//! columns, each square is named "CPU N" and described by its figures (its
//! EPP and governor as the snapshot's sysfs has them), Tab leaves the map
//! at the next press; and the legend says in words what the colours mean.
//! Screenshots of the page with its legend and a focused square, in
//! English and German, 1000 and 360 pixels wide, land in
//! target/screenshots/heatmap-*.png (docs/screenshots/ keeps a copy).

mod common;

use std::path::Path;

use common::display::{screenshot_dir, Accessibility, Accessible, Display, Window};
use common::fixture;

const FIXTURE: &str = "granite-rapids-2s-256";

/// What took the focus after a key.
#[derive(Debug)]
struct Focus {
    role: String,
    name: String,
    description: String,
}

/// Presses `keys` and reads, after each, what has the focus
/// (tests/common/atspi_tab.py).
fn press(display: &Display, keys: &[&str]) -> Vec<Focus> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/atspi_tab.py");
    let out =
        display.command("/usr/bin/python3").arg(&script).args(["gearshift", "--keys"]).args(keys).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| Focus {
            role: v["role"].as_str().unwrap_or_default().to_owned(),
            name: v["name"].as_str().unwrap_or_default().to_owned(),
            description: v["description"].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

/// Tabs until a square of the map has the focus (tests/common/atspi_focus.py).
fn tab_to_a_square(display: &Display) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/atspi_focus.py");
    let out = display
        .command("/usr/bin/python3")
        .arg(&script)
        .args(["gearshift", "table cell", "CPU ", "40"])
        .output()
        .unwrap();
    assert!(out.status.success(), "Tab never reached a square: {}", String::from_utf8_lossy(&out.stderr));
}

/// The window on the Cores page of the snapshot, `width` pixels wide, in
/// German where `german` holds the compiled catalogues.
fn open(display: &Display, width: u32, german: Option<&Path>) -> Window {
    let root = fixture(FIXTURE).to_str().unwrap().to_owned();
    let size = format!("{width}x800");
    let mut env = vec![("GTK_A11Y", "atspi"), ("GEARSHIFT_PAGE", "cores"), ("GEARSHIFT_SIZE", size.as_str())];
    let localedir = german.map(|dir| dir.to_str().unwrap().to_owned()).unwrap_or_default();
    if german.is_some() {
        env.extend([
            ("GEARSHIFT_LOCALEDIR", localedir.as_str()),
            ("LANG", "de_DE.UTF-8"),
            ("LC_ALL", "de_DE.UTF-8"),
            ("LANGUAGE", "de"),
        ]);
    }
    let mut window = Window::start(display, &["--root", &root], &env);
    let drawn = window.wait_drawn();
    // The squares are described from the first samples.
    window.wait_ticks(&drawn, 2);
    let id = display.window_id("Gearshift");
    assert!(display.command("xdotool").args(["windowfocus", "--sync", &id]).status().unwrap().success());
    window
}

/// The snapshot's CPUs of the first socket, in number order: the first map.
fn first_socket() -> Vec<u32> {
    let cpus = fixture(FIXTURE).join("sys/devices/system/cpu");
    let package = |id: u32| {
        std::fs::read_to_string(cpus.join(format!("cpu{id}/topology/physical_package_id")))
            .map(|p| p.trim().to_owned())
            .unwrap_or_default()
    };
    let first = package(0);
    (0..256).filter(|id| package(*id) == first).collect()
}

/// A CPU's file in the snapshot's cpufreq directory.
fn cpufreq(id: u32, file: &str) -> String {
    let path = fixture(FIXTURE).join(format!("sys/devices/system/cpu/cpu{id}/cpufreq/{file}"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).trim().to_owned()
}

fn cpu_number(name: &str) -> Option<u32> {
    name.strip_prefix("CPU ")?.parse().ok()
}

#[test]
fn the_arrow_keys_move_across_the_heat_map_and_each_square_says_its_figures() {
    let display = Display::start(1000, 800);
    let atspi = Accessibility::start(&display);
    let _window = open(&display, 1000, None);
    let squares = |tree: &[Accessible]| -> Vec<Accessible> {
        tree.iter().filter(|a| a.role == "table cell" && a.name.starts_with("CPU ")).cloned().collect()
    };
    let tree = atspi.tree_when(&display, "heatmap-tree.txt", 30, |t| squares(t).len() == 256);
    let cells = squares(&tree);

    // The legend says what the colours mean, in words and in GHz (every CPU
    // of the snapshot runs from 0.8 to 3.9 GHz).
    let lowest = format!("{:.2} GHz", cpufreq(0, "cpuinfo_min_freq").parse::<f64>().unwrap() / 1e6);
    let highest = format!("{:.2} GHz", cpufreq(0, "cpuinfo_max_freq").parse::<f64>().unwrap() / 1e6);
    for text in ["Lowest", "Highest", "Offline", lowest.as_str(), highest.as_str()] {
        assert!(
            tree.iter().any(|a| a.role == "label" && a.name == text),
            "no legend label {text:?}: the tree is in target/screenshots/heatmap-tree.txt"
        );
    }
    assert!(tree.iter().any(|a| a.role == "image" && a.name.starts_with("Colour scale: blue at the lowest")));

    // One tab stop for 256 squares.
    let stops: Vec<&Accessible> = cells.iter().filter(|a| a.states.contains('f')).collect();
    assert_eq!(stops.len(), 1, "tab stops among the squares: {stops:?}");

    // The map's order and its rows, as laid out on the screen.
    let socket = first_socket();
    assert_eq!(cells[0].name, format!("CPU {}", socket[0]));
    let top = cells[0].extents.unwrap().1;
    let columns = cells.iter().take_while(|a| a.extents.unwrap().1 == top).count();
    assert!((2..socket.len()).contains(&columns), "{columns} columns");

    tab_to_a_square(&display);
    let walk = press(&display, &["Right", "Down"]);
    let names: Vec<&str> = walk.iter().map(|f| f.name.as_str()).collect();
    let expected = [format!("CPU {}", socket[1]), format!("CPU {}", socket[1 + columns])];
    assert_eq!(names, expected, "{walk:?}");
    for focus in &walk {
        assert_eq!(focus.role, "table cell", "{focus:?}");
        let id = cpu_number(&focus.name).unwrap();
        let (epp, governor) = (cpufreq(id, "energy_performance_preference"), cpufreq(id, "scaling_governor"));
        assert!(
            focus.description.contains(&epp) && focus.description.contains(&format!("governor {governor}")),
            "CPU {id} is {epp} under {governor}, its description says {:?}",
            focus.description
        );
        assert!(focus.description.contains(" GHz"), "no frequency in {:?}", focus.description);
    }
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("heatmap-en-1000.png"));

    // Home and End: the first and the last CPU; Tab leaves the map at once,
    // Shift+Tab comes back to the square last visited.
    let walk = press(&display, &["End", "Home", "Tab"]);
    let last = squares(&tree).last().unwrap().name.clone();
    assert_eq!(walk[0].name, last, "{walk:?}");
    assert_eq!(walk[1].name, cells[0].name, "{walk:?}");
    assert!(walk[2].role != "table cell", "Tab stayed in the map: {walk:?}");
    let back = press(&display, &["shift+Tab"]);
    assert_eq!(back[0].name, cells[0].name, "{back:?}");
}

#[test]
fn the_legend_reads_well_in_english_and_german_wide_and_narrow() {
    let german = common::compiled_catalogues();
    for (lang, width) in [("en", 360), ("de", 1000), ("de", 360)] {
        let display = Display::start(width, 800);
        let atspi = Accessibility::start(&display);
        let _window = open(&display, width, (lang == "de").then(|| german.path()));
        let (low, high) = if lang == "de" { ("Niedrigste", "Höchste") } else { ("Lowest", "Highest") };
        let file = format!("heatmap-{lang}-{width}.txt");
        let tree = atspi.tree_when(&display, &file, 30, |t| {
            t.iter().any(|a| a.role == "label" && a.name == low)
                && t.iter().any(|a| a.role == "label" && a.name == high)
        });
        // Each legend label is laid out whole, inside the window.
        for a in tree.iter().filter(|a| a.role == "label" && (a.name == low || a.name == high)) {
            let (x, _, w, _) = a.extents.unwrap();
            assert!(x >= 0 && x + w <= width as i32, "{lang} {width}: {a:?} is cut");
        }
        tab_to_a_square(&display);
        press(&display, &["Right", "Down"]);
        display.park_pointer();
        display.screenshot(&screenshot_dir().join(format!("heatmap-{lang}-{width}.png")));
    }
}
