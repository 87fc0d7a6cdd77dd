//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The German and French catalogues compiled into a temporary locale
/// directory (for `GEARSHIFT_LOCALEDIR`).
pub fn compiled_catalogues() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for lang in ["de", "fr"] {
        let out = dir.path().join(lang).join("LC_MESSAGES");
        std::fs::create_dir_all(&out).unwrap();
        let status = Command::new("msgfmt")
            .arg("-o")
            .arg(out.join("gearshift.mo"))
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("po/{lang}.po")))
            .status()
            .expect("msgfmt (package gettext)");
        assert!(status.success(), "msgfmt po/{lang}.po");
    }
    dir
}

/// Words that give an English sentence away in German output (a word
/// list is enough: a translated sentence has none of them).
pub const ENGLISH_WORDS: [&str; 11] = [
    " the ",
    "is not",
    "does not",
    "Invalid",
    "invalid",
    "expected",
    "Print ",
    "[default:",
    "[OPTIONS]",
    "[COMMAND]",
    "Modus active",
];

/// Each line of `text` that holds one of [`ENGLISH_WORDS`], with the word,
/// and a text that quotes the English way (“…” without „).
pub fn english_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for word in ENGLISH_WORDS {
        if let Some(line) = text.lines().find(|l| l.contains(word)) {
            found.push(format!("{word:?} in {line:?}"));
        }
    }
    if text.contains('“') && !text.contains('„') {
        found.push(format!("English quotes in {text:?}"));
    }
    found
}

/// The fixtures directory.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// One fixture's directory.
pub fn fixture(name: &str) -> PathBuf {
    fixtures().join(name)
}

/// Every fixture's name, sorted.
pub fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures())
        .expect("fixtures directory")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // Python's __pycache__ is no machine.
        .filter(|name| !name.starts_with('_') && !name.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Runs `gearshift` with `args`, in the C locale, without GEARSHIFT_ROOT.
pub fn gearshift(args: &[&str]) -> Output {
    gearshift_env(args, &[])
}

/// Runs `gearshift` with `args` and extra environment variables.
pub fn gearshift_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gearshift"))
        .args(args)
        .env_remove("GEARSHIFT_ROOT")
        .env("LC_ALL", "C.UTF-8")
        .env("LANGUAGE", "")
        // The person's rules of whoever runs the tests stay out of them.
        .env("XDG_CONFIG_HOME", "/nonexistent/gearshift-tests")
        .envs(env.iter().copied())
        .output()
        .expect("gearshift runs")
}

/// `gearshift --root DIR args...`.
pub fn gearshift_at(root: &Path, args: &[&str]) -> Output {
    let root = root.to_str().expect("utf-8 path");
    let mut all = vec!["--root", root];
    all.extend_from_slice(args);
    gearshift(&all)
}

/// stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `status --json` of a root, parsed, with the root path blanked out.
pub fn status_json(root: &Path) -> serde_json::Value {
    let out = gearshift_at(root, &["status", "--json"]);
    assert!(out.status.success(), "status failed for {}: {}", root.display(), stderr(&out));
    let mut value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("status prints JSON");
    value["root"] = serde_json::Value::String("<root>".into());
    value
}

/// Copies a fixture into a fresh temporary directory (links kept).
pub fn copy_fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", fixture(name).display()))
        .arg(dir.path())
        .status()
        .expect("cp runs");
    assert!(status.success());
    dir
}

/// Starts `dbus-daemon` (its arguments in `cmd`) and answers once it
/// accepts connections: it prints its address when it listens, while its
/// socket's file shows up at bind(), before that (a client connecting then
/// is refused).
pub fn start_dbus_daemon(cmd: &mut Command) -> std::process::Child {
    use std::io::BufRead;
    let mut child = cmd
        .arg("--print-address")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("dbus-daemon (package dbus-daemon)");
    let mut line = String::new();
    let stdout = child.stdout.take().unwrap();
    std::io::BufReader::new(stdout).read_line(&mut line).unwrap();
    assert!(line.starts_with("unix:"), "dbus-daemon did not start: it printed {line:?}");
    child
}

pub mod agent;
pub mod bus;
pub mod display;
pub mod kernelfs;
pub mod procfs;
pub mod tray;
