//! The Rules page as a keyboard and screen-reader user meets it (AT-SPI,
//! under Xvfb), with the real helper on a private bus: a rule added by an
//! executable's name from the keyboard lands in the person's rules file
//! and enables the agent's user unit once (a stand-in `systemctl` on
//! `$PATH` keeps what it was asked); one added for an installed
//! application names its id; what holds the profile shows with its
//! reason, and the overview names the holder; a rule is removed by its
//! named button, keeping a rule written by hand meanwhile; a file that
//! cannot be read is not written over; under the administrator's lock the
//! page says who decides and the form is off.
//! Screenshots in English and German, 1000 and 360 pixels wide, land in
//! target/screenshots/rules-*.png.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::bus::{wait_for, Bus, Helper};
use common::display::{assert_controls_named, screenshot_dir, Accessibility, Accessible, Display, Window};

/// A scratch place with a stand-in `systemctl` (it writes its arguments to
/// `systemctl.log`) and an installed application, Render Farm
/// (`org.example.Render`).
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let log = dir.path().join("systemctl.log");
        std::fs::write(bin.join("systemctl"), format!("#!/bin/sh\necho \"$@\" >> {}\n", log.display())).unwrap();
        std::fs::set_permissions(bin.join("systemctl"), std::fs::Permissions::from_mode(0o755)).unwrap();
        // The machine's own applications stay out of the list: the data
        // directories hold the icons only.
        std::fs::create_dir_all(dir.path().join("shared")).unwrap();
        std::os::unix::fs::symlink("/usr/share/icons", dir.path().join("shared/icons")).unwrap();
        let apps = dir.path().join("data/applications");
        std::fs::create_dir_all(&apps).unwrap();
        std::fs::write(
            apps.join("org.example.Render.desktop"),
            "[Desktop Entry]\nType=Application\nName=Render Farm\nExec=true\n",
        )
        .unwrap();
        Place { dir }
    }

    fn path_var(&self) -> String {
        format!("{}:/usr/bin:/bin", self.dir.path().join("bin").display())
    }

    fn data_home(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn data_dirs(&self) -> String {
        self.dir.path().join("shared").display().to_string()
    }

    fn systemctl(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("systemctl.log")).unwrap_or_default()
    }
}

fn rules_file(window: &Window) -> PathBuf {
    window.config.path().join("gearshift/rules.toml")
}

fn rules_text(window: &Window) -> String {
    std::fs::read_to_string(rules_file(window)).unwrap_or_default()
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common").join(name)
}

/// Runs an AT-SPI script of tests/common on the window's control `role`
/// named `name…`, giving it `tries`; `failed` says what did not happen.
fn on_control(display: &Display, script_name: &str, role: &str, name: &str, tries: &str, failed: &str) {
    let out = display
        .command("/usr/bin/python3")
        .arg(script(script_name))
        .args(["gearshift", role, name, tries])
        .output()
        .unwrap();
    assert!(out.status.success(), "{failed} {role} {name:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Tabs until the control `role` named `name…` has the focus.
fn tab_to(display: &Display, role: &str, name: &str) {
    on_control(display, "atspi_focus.py", role, name, "40", "Tab never reached");
}

/// Presses a control the way assistive technologies do.
fn press(display: &Display, role: &str, name: &str) {
    on_control(display, "atspi_press.py", role, name, "20", "nothing to press:");
}

fn named(tree: &[Accessible], text: &str) -> bool {
    tree.iter().any(|a| a.name.contains(text))
}

fn open(display: &Display, bus: &Bus, helper: &Helper, place: &Place, extra: &[(&str, &str)]) -> Window {
    let root = helper.root.path().to_str().unwrap().to_owned();
    let (path, data, dirs) = (place.path_var(), place.data_home(), place.data_dirs());
    let mut env = vec![
        ("DBUS_SYSTEM_BUS_ADDRESS", bus.address.as_str()),
        ("GTK_A11Y", "atspi"),
        ("GEARSHIFT_PAGE", "rules"),
        ("GEARSHIFT_TOAST_SECONDS", "0"),
        ("PATH", path.as_str()),
        ("XDG_DATA_HOME", data.as_str()),
        ("XDG_DATA_DIRS", dirs.as_str()),
    ];
    env.extend_from_slice(extra);
    let mut window = Window::start(display, &["--root", &root], &env);
    window.wait_drawn();
    let id = display.window_id("Gearshift");
    assert!(display.command("xdotool").args(["windowfocus", "--sync", &id]).status().unwrap().success());
    window
}

#[test]
fn a_rule_is_added_from_the_keyboard_held_shown_and_removed() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let display = Display::start(1000, 900);
    let atspi = Accessibility::start(&display);
    let place = Place::new();
    let mut window = open(&display, &bus, &helper, &place, &[]);
    let tree = atspi.tree_when(&display, "rules-tree-empty.txt", 30, |t| {
        named(t, "Nothing holds a profile now") && named(t, "No rules yet")
    });
    assert!(assert_controls_named(&tree, "rules-tree-empty.txt") >= 4);

    // By the executable's name, from the keyboard: Tab to the entry (the
    // next stop after the application's list; GTK 4.8's entry tells AT-SPI
    // nothing when it takes the focus), type, Enter.
    tab_to(&display, "combo box", "Application");
    let id = display.window_id("Gearshift");
    display.key(&id, "Tab");
    assert!(display.command("xdotool").args(["type", "--window", &id, "render-job"]).status().unwrap().success());
    display.key(&id, "Return");
    wait_for(|| rules_text(&window).contains("render-job"), "the rule in the person's file");
    assert_eq!(rules_text(&window), "[[rule]]\nprogram = \"render-job\"\nprofile = \"performance\"\n");
    let mode = std::fs::metadata(rules_file(&window)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the person's file is theirs alone");
    wait_for(|| !place.systemctl().is_empty(), "the agent's unit enabled");
    assert_eq!(place.systemctl(), "--user enable --now gearshift-agent.service\n");
    atspi.tree_when(&display, "rules-tree-one.txt", 20, |t| {
        named(t, "while render-job runs, Performance is held") && named(t, "Rules are followed from now on")
    });

    // An installed application, chosen from the list, for Power Saver.
    tab_to(&display, "combo box", "Application");
    // The first entry is "any program"; Render Farm is the next.
    display.key(&id, "space");
    std::thread::sleep(std::time::Duration::from_millis(500));
    display.key(&id, "Down");
    display.key(&id, "Return");
    tab_to(&display, "combo box", "Profile");
    display.key(&id, "space");
    std::thread::sleep(std::time::Duration::from_millis(500));
    display.key(&id, "Down");
    display.key(&id, "Return");
    press(&display, "push button", "Add Rule");
    wait_for(|| rules_text(&window).contains("org.example.Render"), "the app's rule");
    assert!(
        rules_text(&window).ends_with("[[rule]]\napp_id = \"org.example.Render\"\nprofile = \"power-saver\"\n"),
        "{}",
        rules_text(&window)
    );
    assert_eq!(place.systemctl().lines().count(), 1, "enabled once, at the first rule");

    // What holds the profile now, with its reason.
    let mut launched = bus
        .command(env!("CARGO_BIN_EXE_gearshift"))
        .args(["launch", "--reason", "Rendering the film", "--", "sleep", "30"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let tree = atspi
        .tree_when(&display, "rules-tree-held.txt", 20, |t| named(t, "Performance, held by sleep: Rendering the film"));
    assert!(!named(&tree, "Nothing holds a profile now"));
    // The application's rule says its name.
    assert!(named(&tree, "while Render Farm runs, Power Saver is held"), "see target/screenshots/rules-tree-held.txt");
    assert!(assert_controls_named(&tree, "rules-tree-held.txt") >= 6);
    display.park_pointer();
    display.screenshot(&screenshot_dir().join("rules-en-1000.png"));
    // The overview says who holds the profile in effect, as the tray does.
    press(&display, "page tab", "Overview");
    atspi.tree_when(&display, "rules-tree-overview.txt", 20, |t| {
        t.iter().any(|a| a.name == "Active profile: Performance, held by sleep")
    });
    press(&display, "page tab", "Rules");
    let _ = launched.kill();
    let _ = launched.wait();
    atspi.tree_when(&display, "rules-tree-released.txt", 20, |t| named(t, "Nothing holds a profile now"));

    // A rule written by hand while the window is open is kept by the next
    // change the page makes.
    let by_hand = format!("{}\n[[rule]]\nprogram = \"by-hand\"\nprofile = \"performance\"\n", rules_text(&window));
    std::fs::write(rules_file(&window), &by_hand).unwrap();
    // Removed by its own button, named for the rule.
    press(&display, "push button", "Remove the rule for render-job");
    wait_for(|| !rules_text(&window).contains("render-job"), "the rule removed");
    assert_eq!(
        rules_text(&window),
        "[[rule]]\napp_id = \"org.example.Render\"\nprofile = \"power-saver\"\n\n[[rule]]\nprogram = \"by-hand\"\nprofile = \"performance\"\n"
    );
    // A file that cannot be understood is said so, not written over.
    std::fs::write(rules_file(&window), "[[rule]\n").unwrap();
    press(&display, "push button", "Add Rule");
    window.wait_state("the file set aside", 20, |s| s["toast"].as_str().is_some_and(|t| t.contains("is set aside")));
    assert_eq!(rules_text(&window), "[[rule]\n");
}

#[test]
fn under_the_lock_the_page_says_who_decides_and_reads_in_german_wide_and_narrow() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let fleet = helper.root.path().join("etc/gearshift/conf.d/50-fleet.toml");
    std::fs::create_dir_all(fleet.parent().unwrap()).unwrap();
    std::fs::write(&fleet, "locked = true\n\n[[rule]]\napp_id = \"org.example.Farm\"\nprofile = \"performance\"\n")
        .unwrap();
    let german = common::compiled_catalogues();
    let localedir = german.path().to_str().unwrap().to_owned();
    for (lang, width) in [("en", 1000), ("de", 1000), ("de", 360)] {
        let display = Display::start(width, 900);
        let atspi = Accessibility::start(&display);
        let place = Place::new();
        let size = format!("{width}x900");
        let mut extra = vec![("GEARSHIFT_SIZE", size.as_str())];
        if lang == "de" {
            extra.extend([
                ("GEARSHIFT_LOCALEDIR", localedir.as_str()),
                ("LANG", "de_DE.UTF-8"),
                ("LC_ALL", "de_DE.UTF-8"),
                ("LANGUAGE", "de"),
            ]);
        }
        let window = open(&display, &bus, &helper, &place, &extra);
        std::fs::create_dir_all(rules_file(&window).parent().unwrap()).unwrap();
        let file = format!("rules-locked-{lang}-{width}.txt");
        let (decides, farm) = if lang == "de" {
            ("Ihr Administrator entscheidet", "org.example.Farm")
        } else {
            ("Your administrator decides", "while org.example.Farm runs, Performance is held")
        };
        let tree = atspi.tree_when(&display, &file, 30, |t| named(t, decides) && named(t, farm));
        assert_controls_named(&tree, &file);
        // The form is off: a person's rule would not apply.
        let add = tree.iter().find(|a| {
            a.role == "push button"
                && a.name.replace('_', "").contains(if lang == "de" { "Regel hinzufügen" } else { "Add Rule" })
        });
        assert!(add.is_some_and(|a| !a.states.contains('e')), "{add:?}");
        display.park_pointer();
        display.screenshot(&screenshot_dir().join(format!("rules-locked-{lang}-{width}.png")));
    }
}
