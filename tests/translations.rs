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
        Some("in") if path.to_string_lossy().contains("polkit") => text.contains("<message>"),
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
