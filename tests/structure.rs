//! The module map the README draws, checked: which part may import which,
//! no import circles between the files of a part, and a repository that
//! explains itself (no source file cites a document from outside it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A file's code without its tests, comments and doc comments.
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The names after `prefix` in `text` (`super::engine` gives `engine`).
fn named_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(pos) = rest.find(prefix) {
        let before = &rest[..pos];
        rest = &rest[pos + prefix.len()..];
        if before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let name: String =
            rest.chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_').collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

fn rel(path: &Path) -> String {
    path.strip_prefix(src()).unwrap().to_string_lossy().into_owned()
}

#[test]
fn the_user_side_never_imports_the_helper() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !rel(f).starts_with("helper/") && !rel(f).starts_with("bin/"))
        .filter(|f| {
            let code = code(f);
            code.contains("crate::helper::") || code.contains("gearshift::helper::")
        })
        .map(|f| rel(f))
        .collect();
    assert!(offenders.is_empty(), "these import helper::, which is the privileged side's: {offenders:?}");
}

#[test]
fn the_tray_imports_neither_the_window_nor_the_command_line() {
    let mut files = Vec::new();
    rust_files(&src().join("tray"), &mut files);
    for file in files {
        let code = code(&file);
        for forbidden in ["crate::ui", "crate::cli"] {
            assert!(!code.contains(forbidden), "{} uses {forbidden}", rel(&file));
        }
    }
}

#[test]
fn the_core_imports_nothing_but_i18n() {
    let mut files = Vec::new();
    rust_files(&src().join("core"), &mut files);
    for file in files {
        let used = named_after(&code(&file), "crate::");
        let outside: Vec<&String> = used.iter().filter(|n| *n != "core" && *n != "i18n").collect();
        assert!(outside.is_empty(), "{} imports {outside:?}", rel(&file));
    }
}

/// The import graph among the files of `dir`, by `super::NAME` and
/// `crate::PART::NAME`.
fn graph(part: &str) -> BTreeMap<String, BTreeSet<String>> {
    let dir = src().join(part);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    // A directory's mod.rs is the module of the directory's name.
    let module = |f: &PathBuf| {
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "mod" {
            f.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned()
        } else {
            stem
        }
    };
    let names: BTreeSet<String> = files.iter().map(module).filter(|n| n != part).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let name = module(file);
        let code = code(file);
        let mut uses = named_after(&code, "super::");
        uses.extend(named_after(&code, &format!("crate::{part}::")));
        uses.retain(|n| names.contains(n) && *n != name);
        graph.insert(name, uses);
    }
    graph
}

fn find_circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(pos) = path.iter().position(|n| n == node) {
            let mut circle = path[pos..].to_vec();
            circle.push(node.to_owned());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_import_circles_within_a_part() {
    for part in ["core", "helper", "ui", "cli", "tray", "dbus"] {
        let graph = graph(part);
        assert!(!graph.is_empty() || part == "tray", "{part}: no files found");
        assert_eq!(find_circle(&graph), None, "src/{part} has an import circle");
    }
    // The check itself finds a circle.
    let mut circle = BTreeMap::new();
    circle.insert("a".to_owned(), BTreeSet::from(["b".to_owned()]));
    circle.insert("b".to_owned(), BTreeSet::from(["a".to_owned()]));
    assert!(find_circle(&circle).is_some());
}

#[test]
fn no_source_file_cites_a_document_from_outside_the_repository() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"), &mut files);
    // Spelled in pieces, so that this file does not cite them either.
    let outside = [
        concat!("CONTRACT", ".md"),
        concat!("TESTING", ".md"),
        concat!("KERNEL", "-FACTS"),
        concat!("REAL", "-MACHINES"),
        concat!("PEERS", ".md"),
        concat!("..", "/shared"),
    ];
    for file in &files {
        let text = fs::read_to_string(file).unwrap();
        for name in outside {
            assert!(!text.contains(name), "{} cites {name}: point to docs/ instead", file.display());
        }
    }
}

/// The window and the tray are a cargo feature (`gui`, on by default) that
/// the helper is built without: GTK, libadwaita and ksni are optional
/// dependencies of that feature, only the user side's window and tray
/// modules use them, the binary declares those modules under the feature,
/// and the helper's build leaves it out. So the helper can import neither
/// and compiles no GTK (build-aux/test also builds the command line
/// without it and checks what it links).
#[test]
fn the_window_and_the_tray_are_a_feature_the_helper_is_built_without() {
    let manifest = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let table: toml::Table = toml::from_str(&manifest).unwrap();
    assert_eq!(table["features"]["default"].as_array().unwrap(), &[toml::Value::from("gui")]);
    let gui: Vec<&str> = table["features"]["gui"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    for dep in ["relm4", "ksni"] {
        assert!(gui.contains(&format!("dep:{dep}").as_str()), "gui does not enable {dep}: {gui:?}");
        assert_eq!(table["dependencies"][dep]["optional"].as_bool(), Some(true), "{dep} is not optional");
    }
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let gui_parts = ["ui/", "tray/"];
    for file in &files {
        let name = rel(file);
        let code = code(file);
        let uses = ["relm4::", "ksni::", "gtk::", "adw::"].iter().any(|c| code.contains(c));
        if uses {
            assert!(
                gui_parts.iter().any(|p| name.starts_with(p)),
                "{name} uses GTK or ksni outside the window and tray"
            );
        }
    }
    let main = fs::read_to_string(src().join("main.rs")).unwrap();
    for module in ["ui", "tray", "autostart"] {
        assert!(
            main.contains(&format!("#[cfg(feature = \"gui\")]\nmod {module};")),
            "main.rs: mod {module} is not under the gui feature"
        );
    }
    let build = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("build-aux/build-helper")).unwrap();
    assert!(
        build.contains("--no-default-features") && build.contains("--bin gearshift-helper"),
        "the helper is built with the gui feature"
    );
}

/// Every suite that starts a real component (a bus, polkitd, the kernel
/// emulator, a mount namespace, a display) is in the system tier
/// (docs/testing.md), and no other is: a plain `cargo test` needs nothing,
/// and the tier never skips.
#[test]
fn the_suites_that_need_root_are_the_system_tier() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let table: toml::Table = toml::from_str(&manifest).unwrap();
    assert!(table["features"].get("system-tests").is_some(), "no system-tests feature");
    let tier: BTreeMap<String, Vec<String>> = table["test"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let features =
                t["required-features"].as_array().unwrap().iter().filter_map(|f| f.as_str().map(String::from));
            (t["name"].as_str().unwrap().to_owned(), features.collect())
        })
        .collect();
    let starts = ["Bus::start", "Helper::prepare", "Helper::start", "Display::start", "KernelFs::", "unshare"];
    let mut suites = 0;
    for entry in fs::read_dir(root.join("tests")).unwrap().flatten() {
        let path = entry.path();
        // This file names the components it looks for.
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("structure.rs") {
            continue;
        }
        suites += 1;
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&path).unwrap();
        let needs_root = starts.iter().any(|s| text.contains(s));
        let features = tier.get(&name);
        assert_eq!(
            features.is_some_and(|f| f.iter().any(|f| f == "system-tests")),
            needs_root,
            "tests/{name}.rs: {} but {} the system tier",
            if needs_root { "starts a real component" } else { "needs nothing" },
            if features.is_some() { "is in" } else { "is not in" }
        );
        if text.contains("Display::start") {
            assert!(features.unwrap().iter().any(|f| f == "gui"), "tests/{name}.rs opens the window: it needs gui");
        }
    }
    assert!(suites >= 20 && tier.len() >= 14, "{suites} suites, {} in the tier", tier.len());
    let script = fs::read_to_string(root.join("build-aux/test")).unwrap();
    // build-aux/run-tests runs every test binary unless told --only some.
    let runs_all = script.lines().any(|line| {
        line.trim_start().starts_with("build-aux/run-tests --features system-tests") && !line.contains("--only")
    });
    assert!(runs_all, "build-aux/test does not run the tier (build-aux/run-tests --features system-tests)");
}

/// The window's pages, each a component of its own (README, "Where things
/// are").
const PAGES: [&str; 5] =
    ["ui/pages/overview", "ui/pages/cores", "ui/pages/tuning", "ui/pages/efficiency", "ui/pages/wizard"];

#[test]
fn the_pages_are_components_that_know_nothing_of_the_window() {
    for page in PAGES {
        let path = src().join(page);
        let mut files = Vec::new();
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else {
            files.push(path.clone());
        }
        let mut component = false;
        for file in &files {
            let code = code(file);
            component |= code.contains("Component for ");
            // What the window is and says is its own; a page talks through
            // its Input and Output.
            let window = ["super::app", "ui::app", "super::window", "ui::window", "super::msg", "ui::msg", "AppMsg"];
            for forbidden in window {
                assert!(!code.contains(forbidden), "{} uses {forbidden}", rel(file));
            }
            // No page reaches into another, but for the sampler's figures
            // that the Cores page keeps and the overview sums up.
            for other in PAGES.iter().filter(|o| **o != page) {
                let name = other.rsplit('/').next().unwrap_or(other);
                for used in [format!("super::{name}::"), format!("ui::{name}::")] {
                    for (at, _) in code.match_indices(&used) {
                        let what = &code[at + used.len()..];
                        let shared = name == "cores"
                            && ["{group_summary, CoreData}", "CoreData"].iter().any(|s| what.starts_with(s));
                        assert!(shared, "{} reaches into {other}", rel(file));
                    }
                }
            }
        }
        assert!(component, "src/{page} is not a relm4 component");
    }
}

#[test]
fn no_source_file_is_too_long_to_read_and_the_window_only_routes() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    for file in &files {
        let lines = fs::read_to_string(file).unwrap().lines().count();
        assert!(lines <= 600, "{} has {lines} lines: split it by concern", rel(file));
    }
    let app = fs::read_to_string(src().join("ui/app.rs")).unwrap().lines().count();
    assert!(app <= 400, "ui/app.rs has {app} lines: what a page does belongs in the page");
}

/// Files under `src` (relative paths) whose code, comments aside, holds `needle`.
fn files_holding(needle: &str) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found: Vec<String> = files.iter().filter(|f| code(f).contains(needle)).map(|f| rel(f)).collect();
    found.sort();
    found
}

#[test]
fn the_lock_and_polkit_are_checked_in_one_guard() {
    // Every request a person makes passes `Engine::admit`, which yields the
    // permit; no D-Bus method checks the lock or asks polkit itself.
    assert_eq!(files_holding(".check_unlocked("), ["helper/engine/admit.rs"]);
    assert_eq!(files_holding("authority.check("), ["helper/engine/admit.rs"]);
    // Only the guard makes the permit that a person's write needs.
    assert_eq!(files_holding("Permit {"), ["helper/engine/admit.rs"]);
    assert!(files_holding("begin_for(").len() >= 6, "the requests' transactions take their permit");
    // The guard is passed in one place, the dispatch, for all three
    // interfaces; the D-Bus methods build requests and repeat no check.
    assert_eq!(files_holding(".admit("), ["helper/dispatch.rs"]);
    for methods in ["helper/service.rs", "helper/ppd.rs"] {
        let code = code(&src().join(methods));
        for check in ["is_placeholder(", "Need::", "caller_uid(", "check_shape("] {
            assert!(!code.contains(check), "{methods} checks {check} itself instead of in its request");
        }
    }
}

#[test]
fn no_mutable_state_is_shared_between_pages() {
    // The window hands its pages immutable frames and snapshots as
    // messages; a page keeps its own state. A shared cell may live inside
    // one page, for its own callbacks, and there are at most three.
    let mut ui = Vec::new();
    rust_files(&src().join("ui"), &mut ui);
    let mut cells = 0;
    for file in &ui {
        let code = code(file);
        let here = code.matches("Rc<RefCell").count();
        cells += here;
        if here == 0 {
            continue;
        }
        let name = rel(file);
        let page = PAGES.iter().find(|p| name.starts_with(&format!("{p}/")));
        // The person's settings are GSettings, shared by design (every
        // window follows a change); without a schema, a store of the
        // defaults for this run stands in for it and is shared the same way.
        let settings = name == "ui/settings.rs";
        assert!(
            page.is_some() || settings,
            "{name} keeps an Rc<RefCell> outside a page: the window's state is the session"
        );
    }
    assert!(cells <= 3, "{cells} Rc<RefCell> in src/ui (at most 3)");
}

#[test]
fn the_desktop_panels_names_are_mapped_in_one_module() {
    for name in ["\"power-saver\"", "PanelProfile::PowerSaver =>", "PanelProfile::Balanced =>"] {
        let holders = files_holding(name);
        assert!(holders.iter().all(|f| f == "core/panel.rs"), "{name} is mapped outside core/panel.rs: {holders:?}");
    }
}

#[test]
fn the_window_writes_its_state_for_the_tests_and_reads_none_of_it() {
    // The state file serializes the session; the window builds it only to
    // write it (ui/app/pages.rs, `publish`).
    let users: Vec<String> = files_holding("WindowState").into_iter().filter(|f| f != "ui/state.rs").collect();
    assert_eq!(users, ["ui/app/pages.rs"]);
    for file in files_holding("self.seen.") {
        let code = code(&src().join(&file));
        for (at, _) in code.match_indices("self.seen.") {
            let rest = &code[at..];
            let statement = &rest[..rest.find([';', '\n']).unwrap_or(rest.len())];
            let written = statement.contains(" = ") || statement.contains("+= ") || statement.contains(".clone()");
            assert!(written, "{file} reads the tests' counts: {statement}");
        }
    }
}
