//! An X display (Xvfb) and a session bus for window tests, started by the
//! tests themselves.

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A virtual X display with its own session bus.
pub struct Display {
    /// `:N`.
    pub name: String,
    xvfb: Child,
    /// Its session bus.
    pub session: SessionBus,
}

impl Display {
    /// Starts Xvfb on a free display number at `width`x`height`.
    pub fn start(width: u32, height: u32) -> Display {
        // Tests of one process start displays in parallel: each takes the
        // next number, so that two never race for the same free one.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let base = 100 + (std::process::id() % 80) * 5 + NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) * 400;
        let mut last_err = String::new();
        for n in base..base + 50 {
            if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() || Path::new(&format!("/tmp/.X{n}-lock")).exists() {
                continue;
            }
            let mut xvfb = Command::new("Xvfb")
                .arg(format!(":{n}"))
                .args(["-screen", "0", &format!("{width}x{height}x24"), "-nolisten", "tcp"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("Xvfb (package xvfb)");
            let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
            let start = Instant::now();
            while !socket.exists() && start.elapsed() < Duration::from_secs(10) {
                if xvfb.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // The socket shows up before the server answers; a window
            // started in between fails to open the display. Ask it.
            let answers = || {
                Command::new("xdpyinfo")
                    .args(["-display", &format!(":{n}")])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            };
            while socket.exists() && !answers() && start.elapsed() < Duration::from_secs(10) {
                if xvfb.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            if !socket.exists() || !answers() {
                let _ = xvfb.kill();
                let _ = xvfb.wait();
                last_err = format!("Xvfb :{n} did not start");
                continue;
            }
            return Display { name: format!(":{n}"), xvfb, session: SessionBus::start() };
        }
        panic!("no free X display: {last_err}");
    }

    /// Whether the X server answers now (xdpyinfo).
    pub fn answers(&self) -> bool {
        Command::new("xdpyinfo")
            .args(["-display", &self.name])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// A command that runs on this display and session bus.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env("DISPLAY", &self.name)
            .env("GDK_BACKEND", "x11")
            .env("GSK_RENDERER", "cairo")
            .env("GTK_A11Y", "none")
            .env("DBUS_SESSION_BUS_ADDRESS", &self.session.address)
            .env("LC_ALL", "C.UTF-8")
            .env("LANGUAGE", "")
            .env_remove("WAYLAND_DISPLAY");
        cmd
    }

    /// `xwininfo -root -tree`.
    pub fn windows(&self) -> String {
        let out = self.command("xwininfo").args(["-root", "-tree"]).output().expect("xwininfo (package x11-utils)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Saves a screenshot of the whole screen as PNG and returns how many
    /// distinct colours it has (1 for a blank screen).
    pub fn screenshot(&self, path: &Path) -> u64 {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        let status =
            self.command("import").args(["-window", "root"]).arg(path).status().expect("import (package imagemagick)");
        assert!(status.success(), "screenshot failed");
        let out = Command::new("identify").args(["-format", "%k"]).arg(path).output().expect("identify");
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap_or(0)
    }

    /// The X id of the first visible window whose title matches the regular
    /// expression `title` (xdotool); fails the test when there is none.
    pub fn window_id(&self, title: &str) -> String {
        let out = self.command("xdotool").args(["search", "--onlyvisible", "--name", title]).output().unwrap();
        let id = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_owned();
        assert!(!id.is_empty(), "xdotool found no window named {title:?}");
        id
    }

    /// Focuses the window with the X id `id` and presses `keys` (xdotool's
    /// names: "ctrl+4", "F5"), as a keyboard user does.
    pub fn key(&self, id: &str, keys: &str) {
        let status = self
            .command("xdotool")
            .args(["windowfocus", "--sync", id, "key", "--clearmodifiers", keys])
            .status()
            .unwrap();
        assert!(status.success(), "xdotool key {keys}");
    }

    /// Moves the pointer away (so that no tooltip covers the screenshot).
    pub fn park_pointer(&self) {
        let _ = self.command("xdotool").args(["mousemove", "0", "0"]).status();
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.xvfb.kill();
        let _ = self.xvfb.wait();
    }
}

/// A private session bus (for the tray, which needs no display).
pub struct SessionBus {
    child: Child,
    /// Its address.
    pub address: String,
    _dir: tempfile::TempDir,
}

impl SessionBus {
    /// Starts `dbus-daemon --session` on a socket in a temporary directory.
    pub fn start() -> SessionBus {
        let dir = tempfile::tempdir().unwrap();
        let address = format!("unix:path={}/session_bus", dir.path().display());
        let child = super::start_dbus_daemon(
            Command::new("dbus-daemon")
                .args(["--session", "--nofork", &format!("--address={address}")])
                .stderr(Stdio::null()),
        );
        SessionBus { child, address, _dir: dir }
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `gearshift` program the window tests and the bench start: this
/// build's, or `GEARSHIFT_WINDOW_UNDER_TEST` (the bench's before-and-after
/// runs of another tree's build).
pub fn window_under_test() -> std::ffi::OsString {
    std::env::var_os("GEARSHIFT_WINDOW_UNDER_TEST")
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_gearshift").into())
}

/// The `gearshift` window running on a display; its stderr is collected.
pub struct Window {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// Everything printed so far.
    pub log: Vec<String>,
    /// The person's config directory (XDG_CONFIG_HOME) for this run.
    pub config: tempfile::TempDir,
}

impl Window {
    /// Starts `gearshift args` with extra environment, for a person who
    /// finished the first-run wizard already.
    pub fn start(display: &Display, args: &[&str], env: &[(&str, &str)]) -> Window {
        Window::start_with_settings(display, args, env, "wizard-done=true\n")
    }

    /// Starts `gearshift args` with `keys` (GSettings `key=value` lines of
    /// io.github.gearshift.Gearshift) as the person's settings, kept in a
    /// key file of their own (GSETTINGS_BACKEND=keyfile), with the schema
    /// this build compiled.
    pub fn start_with_settings(display: &Display, args: &[&str], env: &[(&str, &str)], keys: &str) -> Window {
        let config = tempfile::tempdir().unwrap();
        if !keys.is_empty() {
            let file = settings_file(config.path());
            fs::create_dir_all(file.parent().unwrap()).unwrap();
            fs::write(file, format!("[{SETTINGS_GROUP}]\n{keys}")).unwrap();
        }
        Window::spawn(display, args, env, config)
    }

    /// Starts `gearshift args` for a person with Gearshift 0.1's settings
    /// file (`toml`) and no GSettings keys yet.
    pub fn start_with_legacy_settings(display: &Display, args: &[&str], env: &[(&str, &str)], toml: &str) -> Window {
        let config = tempfile::tempdir().unwrap();
        fs::create_dir_all(config.path().join("gearshift")).unwrap();
        fs::write(config.path().join("gearshift/settings.toml"), toml).unwrap();
        Window::spawn(display, args, env, config)
    }

    fn spawn(display: &Display, args: &[&str], env: &[(&str, &str)], config: tempfile::TempDir) -> Window {
        let mut window = Window::spawn_once(display, args, env, config);
        // Once in a full run (docs/testing.md, "The window"), GTK could not
        // open a display that Display::start had just seen answer: the
        // window said "no display" at once. Where the display answers now,
        // that start is made again, once, and said so; a second such exit
        // stays a failure.
        let deadline = Instant::now() + Duration::from_secs(3);
        // Until it shows its first state, exits, or 3 s have passed.
        while Instant::now() < deadline && window.running() && window.state().is_none() {
            std::thread::sleep(Duration::from_millis(50));
        }
        window.drain();
        if !window.running() && window.log.iter().any(|l| l.contains("no display to open the window on")) {
            eprintln!(
                "window harness: gearshift could not open {} (which answers xdpyinfo: {}); starting it again once",
                display.name,
                display.answers()
            );
            let config = std::mem::replace(&mut window.config, tempfile::tempdir().unwrap());
            window = Window::spawn_once(display, args, env, config);
        }
        window
    }

    fn spawn_once(display: &Display, args: &[&str], env: &[(&str, &str)], config: tempfile::TempDir) -> Window {
        let mut child = display
            .command(window_under_test())
            .args(args)
            .env("XDG_CONFIG_HOME", config.path())
            .env("XDG_CONFIG_DIRS", config.path().join("no-system-autostart"))
            .envs(settings_env())
            .env("GEARSHIFT_REPORT_FIRST_FRAME", "1")
            .env("GEARSHIFT_STATE_FILE", config.path().join("window-state.json"))
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("gearshift starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Window { child, lines: rx, log: Vec::new(), config }
    }

    /// A GSettings key as the window keeps it (`None`: never set, the
    /// schema's default).
    pub fn setting(&self, key: &str) -> Option<String> {
        setting_in(self.config.path(), key)
    }

    /// What the window shows now (its `GEARSHIFT_STATE_FILE`,
    /// src/ui/state.rs), once it wrote it.
    pub fn state(&self) -> Option<serde_json::Value> {
        let text = fs::read_to_string(self.config.path().join("window-state.json")).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Waits up to `secs` until what the window shows satisfies `ready`
    /// (`what` names it in the failure); returns that state.
    pub fn wait_state(
        &mut self,
        what: &str,
        secs: u64,
        ready: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let state = self.state();
            if let Some(state) = state.as_ref().filter(|s| ready(s)) {
                return state.clone();
            }
            if Instant::now() >= deadline {
                self.drain();
                panic!(
                    "the window did not show {what} within {secs} s; it shows:\n{}\nand printed:\n{}",
                    state.map(|s| serde_json::to_string_pretty(&s).unwrap()).unwrap_or_else(|| "nothing yet".into()),
                    self.log.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
            self.drain();
        }
    }

    /// Waits for the first frame.
    pub fn wait_drawn(&mut self) -> serde_json::Value {
        self.wait_state("its first frame", 60, |s| s["drawn"] == true)
    }

    /// Waits until the sampler ticked `ticks` more times than in `state`:
    /// the window runs on, its main loop taking the sampler's news.
    pub fn wait_ticks(&mut self, state: &serde_json::Value, ticks: u64) -> serde_json::Value {
        let from = state["samples"].as_u64().unwrap_or(0);
        self.wait_state(&format!("{ticks} more sampler ticks"), 30, |s| {
            s["samples"].as_u64().unwrap_or(0) >= from + ticks
        })
    }

    /// Waits up to `secs` for a stderr line containing `needle`.
    pub fn wait_for_line(&mut self, needle: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        if let Some(line) = self.log.iter().find(|l| l.contains(needle)) {
            return line.clone();
        }
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.log.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => break,
            }
        }
        panic!("no line with {needle:?} within {secs} s; the window printed:\n{}", self.log.join("\n"));
    }

    /// Collects what was printed so far.
    pub fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            self.log.push(line);
        }
    }

    /// True while the process runs.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The key file group of Gearshift's settings (its schema's path).
const SETTINGS_GROUP: &str = "io/github/gearshift/Gearshift";

/// Where GLib's keyfile backend keeps the settings of `config`
/// (XDG_CONFIG_HOME).
pub fn settings_file(config: &Path) -> PathBuf {
    config.join("glib-2.0/settings/keyfile")
}

/// The environment that keeps a window's settings in its own config
/// directory's key file, with the schema this build compiled (build.rs),
/// not one installed on the machine.
pub fn settings_env() -> [(&'static str, &'static str); 2] {
    [("GSETTINGS_BACKEND", "keyfile"), ("GSETTINGS_SCHEMA_DIR", concat!(env!("OUT_DIR"), "/schemas"))]
}

/// A key of Gearshift's settings in the key file of `config`.
pub fn setting_in(config: &Path, key: &str) -> Option<String> {
    let text = fs::read_to_string(settings_file(config)).ok()?;
    let mut in_group = false;
    for line in text.lines() {
        if let Some(group) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            in_group = group == SETTINGS_GROUP;
        } else if in_group {
            if let Some((k, v)) = line.split_once('=') {
                if k.trim() == key {
                    return Some(v.trim().to_owned());
                }
            }
        }
    }
    None
}

/// Where screenshots are kept for people to look at.
pub fn screenshot_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    // A clean clone has none yet (a test may write here before any screenshot).
    let _ = fs::create_dir_all(&dir);
    dir
}

/// The accessibility bus (AT-SPI) of a display, for windows started with
/// `GTK_A11Y=atspi`; stopped when dropped.
pub struct Accessibility {
    launcher: Child,
}

/// One accessible: its depth in the tree, role, states (f: focusable, s:
/// showing, F: focused, e: sensitive, v: visible, c: checked), name, extents
/// and value.
#[derive(Debug, Clone, PartialEq)]
pub struct Accessible {
    pub depth: usize,
    pub role: String,
    pub states: String,
    pub name: String,
    /// Where it is on the screen: x, y, width, height.
    pub extents: Option<(i32, i32, i32, i32)>,
    /// Its value, where it has one (a slider's).
    pub value: Option<f64>,
    /// Its accessible description ("" where it has none).
    pub description: String,
    /// Its text, where it has some (an entry's; "" otherwise).
    pub text: String,
}

impl Accessible {
    /// Whether its extents and `other`'s share any pixel.
    pub fn overlaps(&self, other: &Accessible) -> bool {
        match (self.extents, other.extents) {
            (Some((x, y, w, h)), Some((ox, oy, ow, oh))) => x < ox + ow && ox < x + w && y < oy + oh && oy < y + h,
            _ => false,
        }
    }
}

/// A name said twice over ("Start Measuring Start Measuring"): GTK 4.8
/// joins a widget's label and the text of what labels it.
pub fn doubled(name: &str) -> bool {
    let words: Vec<&str> = name.split_whitespace().collect();
    let half = words.len() / 2;
    words.len() >= 2 && words.len() % 2 == 0 && words[..half] == words[half..]
}

/// The roles of controls a person operates, which must have a name.
pub const CONTROLS: [&str; 8] =
    ["push button", "toggle button", "check box", "combo box", "spin button", "slider", "text", "page tab"];

impl Accessibility {
    /// Starts the AT-SPI bus launcher on the display.
    pub fn start(display: &Display) -> Accessibility {
        // A process group of its own: the bus daemon the launcher starts is
        // ended with it (each one left behind holds an inotify instance, and
        // root has 128: enough runs used them all up, and then the helper
        // under test could not watch its firmware files).
        let launcher = display
            .command("/usr/libexec/at-spi-bus-launcher")
            .process_group(0)
            .arg("--launch-immediately")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("at-spi-bus-launcher (package at-spi2-core)");
        Accessibility { launcher }
    }

    /// The application's tree (tests/common/atspi.py), also written to
    /// target/screenshots/`file` for people to read.
    pub fn tree(&self, display: &Display, file: &str) -> Vec<Accessible> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/atspi.py");
        let out = display.command("/usr/bin/python3").arg(&script).args(["gearshift", "20"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let tree = String::from_utf8_lossy(&out.stdout).into_owned();
        fs::write(screenshot_dir().join(file), &tree).unwrap();
        tree.lines()
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .filter(|f| f.len() >= 4)
            .map(|f| {
                let numbers: Vec<i32> =
                    f.get(4).map(|e| e.split(',').filter_map(|n| n.parse().ok()).collect()).unwrap_or_default();
                Accessible {
                    depth: f[0].parse().unwrap_or(0),
                    role: f[1].to_owned(),
                    states: f[2].to_owned(),
                    name: f[3].trim().to_owned(),
                    extents: (numbers.len() == 4).then(|| (numbers[0], numbers[1], numbers[2], numbers[3])),
                    value: f.get(5).and_then(|v| v.trim().parse().ok()),
                    description: f.get(6).map(|d| d.trim().to_owned()).unwrap_or_default(),
                    text: f.get(7).map(|t| t.trim().to_owned()).unwrap_or_default(),
                }
            })
            .collect()
    }

    /// Presses Tab up to `presses` times in the focused window and returns
    /// what had the focus after each press (tests/common/atspi_tab.py):
    /// once round, it stops. The walk is kept in target/screenshots/`file`.
    pub fn tab_walk(&self, display: &Display, presses: u32, file: &str) -> Vec<Accessible> {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/atspi_tab.py");
        let out = display
            .command("/usr/bin/python3")
            .arg(&script)
            .args(["gearshift", &presses.to_string()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        fs::write(screenshot_dir().join(file), &text).unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        text.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| {
                let n = |k: &str| v[k].as_i64().unwrap_or(0) as i32;
                Accessible {
                    depth: 0,
                    role: v["role"].as_str().unwrap_or_default().to_owned(),
                    states: v["states"].as_str().unwrap_or_default().to_owned(),
                    name: v["name"].as_str().unwrap_or_default().trim().to_owned(),
                    extents: Some((n("x"), n("y"), n("w"), n("h"))),
                    value: None,
                    description: String::new(),
                    text: String::new(),
                }
            })
            .collect()
    }

    /// The tree once `ready` holds for it, read again until then (a window
    /// builds what it shows over several main loop turns); panics after
    /// `secs` with what the tree held last.
    pub fn tree_when(
        &self,
        display: &Display,
        file: &str,
        secs: u64,
        ready: impl Fn(&[Accessible]) -> bool,
    ) -> Vec<Accessible> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let tree = self.tree(display, file);
            if ready(&tree) {
                return tree;
            }
            assert!(
                Instant::now() < deadline,
                "the accessible tree was not ready within {secs} s; it is in target/screenshots/{file}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// Checks that every focusable control in `tree` has a name a person can
/// understand (not empty, not a widget class); returns how many there are.
pub fn assert_controls_named(tree: &[Accessible], file: &str) -> usize {
    let mut named = 0;
    for a in tree.iter().filter(|a| CONTROLS.contains(&a.role.as_str()) && a.states.contains('f')) {
        let unnamed = a.name.is_empty() || a.name.starts_with("Gtk") || a.name.starts_with("Adw");
        assert!(!unnamed, "a {} without a name ({:?}); the tree is in target/screenshots/{file}", a.role, a.name);
        assert!(
            !doubled(&a.name),
            "a {} named twice over ({:?}); the tree is in target/screenshots/{file}",
            a.role,
            a.name
        );
        named += 1;
    }
    named
}

impl Drop for Accessibility {
    fn drop(&mut self) {
        // SAFETY: a signal to the process group of our own child.
        unsafe { libc::kill(-(self.launcher.id() as i32), libc::SIGTERM) };
        let _ = self.launcher.kill();
        let _ = self.launcher.wait();
    }
}
