//! Every file with translatable strings is listed in po/POTFILES.in, and
//! every listed file exists.

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn listed() -> Vec<String> {
    fs::read_to_string(root().join("po/POTFILES.in"))
        .expect("po/POTFILES.in")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn translatable(path: &Path) -> bool {
    let text = fs::read_to_string(path).unwrap_or_default();
    match path.extension().and_then(|e| e.to_str()) {
        Some("rs") => ["gettext(\"", "ngettext(\"", "i18n_f(\"", "gettext(\n"].iter().any(|k| text.contains(k)),
        Some("ui") => text.contains("translatable=\"yes\""),
        Some("in") => {
            let name = path.to_string_lossy();
            (name.contains("polkit") && text.contains("<message>"))
                || (name.ends_with(".desktop.in") && text.contains("\nName="))
                || (name.ends_with(".metainfo.xml.in") && text.contains("<summary>"))
        }
        _ => false,
    }
}

#[test]
fn every_file_with_translatable_strings_is_in_potfiles() {
    let listed = listed();
    let mut files = Vec::new();
    walk(&root().join("src"), &mut files);
    walk(&root().join("data"), &mut files);
    let mut missing = Vec::new();
    for file in files.iter().filter(|f| translatable(f)) {
        let rel = file.strip_prefix(root()).unwrap().to_string_lossy().into_owned();
        if !listed.contains(&rel) {
            missing.push(rel);
        }
    }
    assert!(missing.is_empty(), "add these to po/POTFILES.in: {missing:?}");
}

#[test]
fn every_file_in_potfiles_exists() {
    for file in listed() {
        assert!(root().join(&file).exists(), "po/POTFILES.in lists {file}, which does not exist");
    }
}

/// The string literals passed to gettext, ngettext and i18n_f in a Rust file.
fn rust_msgids(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for keyword in ["gettext(", "i18n_f(", "ngettext("] {
        let mut rest = text;
        while let Some(pos) = rest.find(keyword) {
            let before = &rest[..pos];
            rest = &rest[pos + keyword.len()..];
            // Skip identifiers that merely end in the keyword (dcgettext...).
            if before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let trimmed = rest.trim_start();
            let Some(literal) = trimmed.strip_prefix('"') else { continue };
            let mut value = String::new();
            let mut chars = literal.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        value.push('\\');
                        if let Some(next) = chars.next() {
                            value.push(next);
                        }
                    }
                    '"' => break,
                    c => value.push(c),
                }
            }
            out.push(value);
        }
    }
    out
}

/// The msgids of a .pot or .po file, in their escaped form.
fn po_msgids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("msgid ") {
            current = Some(rest.trim().trim_matches('"').to_owned());
        } else if line.starts_with('"') {
            if let Some(cur) = current.as_mut() {
                cur.push_str(line.trim().trim_matches('"'));
            }
        } else if let Some(done) = current.take() {
            ids.push(done);
        }
    }
    ids.extend(current);
    ids
}

#[test]
fn the_pot_file_holds_every_translatable_string() {
    let pot = fs::read_to_string(root().join("po/gearshift.pot")).expect("po/gearshift.pot (meson compile gearshift-pot)");
    let ids = po_msgids(&pot);
    let mut missing = Vec::new();
    let mut total = 0;
    for file in listed().iter().filter(|f| f.ends_with(".rs")) {
        let text = fs::read_to_string(root().join(file)).unwrap();
        for id in rust_msgids(&text) {
            total += 1;
            if !ids.contains(&id) {
                missing.push(format!("{file}: {id:?}"));
            }
        }
    }
    assert!(total >= 200, "only {total} translatable strings found in the sources: is the scan broken?");
    assert!(
        missing.is_empty(),
        "po/gearshift.pot lacks these strings; regenerate it with `meson compile -C _build gearshift-pot`:\n{}",
        missing.join("\n")
    );
}
