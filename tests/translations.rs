//! Every file with translatable strings is listed in po/POTFILES.in, and
//! every listed file exists.

mod common;

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
        Some("rs") => {
            ["gettext(\"", "ngettext(\"", "i18n_f(\"", "gettext(\n", "i18n_text(\"", "i18n_text(\n", "i18n_plural(\""]
                .iter()
                .any(|k| text.contains(k))
        }
        Some("ui") => text.contains("translatable=\"yes\""),
        Some("xml") if path.to_string_lossy().ends_with(".gschema.xml") => text.contains("<summary>"),
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
    for keyword in ["gettext(", "i18n_f(", "ngettext(", "i18n_text(", "i18n_plural("] {
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
    let pot =
        fs::read_to_string(root().join("po/gearshift.pot")).expect("po/gearshift.pot (meson compile gearshift-pot)");
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
        "po/gearshift.pot lacks these strings; regenerate it with `build-aux/update-po`:\n{}",
        missing.join("\n")
    );
}

/// One entry of a .po file.
struct PoEntry {
    id: String,
    /// `msgid_plural`, for an entry with plural forms.
    plural: Option<String>,
    /// msgstr, or msgstr[0..].
    strs: Vec<String>,
    fuzzy: bool,
}

/// Every entry of a .po file.
fn po_entries(text: &str) -> Vec<PoEntry> {
    let mut entries = Vec::new();
    for block in text.split("\n\n") {
        let fuzzy = block.lines().any(|l| l.starts_with("#,") && l.contains("fuzzy"));
        let mut plural: Option<String> = None;
        let mut in_plural = false;
        let mut id = String::new();
        let mut strs: Vec<String> = Vec::new();
        let mut target: Option<usize> = None; // None: msgid; Some(i): msgstr i
        let mut in_id = false;
        for line in block.lines() {
            let quoted = |l: &str| l.trim().trim_start_matches(|c: char| c != '"').trim().trim_matches('"').to_owned();
            if line.starts_with("msgid ") {
                id = quoted(line);
                in_id = true;
                target = None;
            } else if line.starts_with("msgid_plural") {
                in_id = false;
                in_plural = true;
                plural = Some(quoted(line));
            } else if line.starts_with("msgstr") {
                in_id = false;
                in_plural = false;
                strs.push(quoted(line));
                target = Some(strs.len() - 1);
            } else if line.starts_with('"') {
                match (in_id, target) {
                    (false, None) if in_plural => plural.get_or_insert_with(String::new).push_str(&quoted(line)),
                    (true, _) => id.push_str(&quoted(line)),
                    (false, Some(i)) => strs[i].push_str(&quoted(line)),
                    _ => {}
                }
            }
        }
        if !strs.is_empty() {
            entries.push(PoEntry { id, plural, strs, fuzzy });
        }
    }
    entries
}

/// Every translation in po/LINGUAS: complete, nothing fuzzy, the same
/// placeholders, up to date with the template, and accepted by msgfmt --check.
#[test]
fn translations_are_complete_and_keep_their_placeholders() {
    let linguas = fs::read_to_string(root().join("po/LINGUAS")).unwrap();
    let languages: Vec<&str> = linguas.split_whitespace().collect();
    assert!(languages.contains(&"de") && languages.contains(&"fr"), "German and French are shipped");
    let pot = po_msgids(&fs::read_to_string(root().join("po/gearshift.pot")).unwrap());
    for lang in languages {
        let path = root().join(format!("po/{lang}.po"));
        let text = fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} is missing", path.display()));
        let entries = po_entries(&text);
        let mut problems = Vec::new();
        for PoEntry { id, plural, strs, fuzzy } in &entries {
            if id.is_empty() {
                if *fuzzy {
                    problems.push("the header is fuzzy".to_owned());
                }
                continue;
            }
            if *fuzzy {
                problems.push(format!("fuzzy: {id:?}"));
            }
            if strs.iter().any(String::is_empty) {
                problems.push(format!("untranslated: {id:?}"));
            }
            match plural {
                None => {
                    for s in strs.iter().filter(|s| !s.is_empty()) {
                        // The same placeholders, `{}` and `{name}`, in any order.
                        if placeholders(s) != placeholders(id) {
                            problems.push(format!("placeholders differ: {id:?} -> {s:?}"));
                        }
                    }
                }
                // Plural forms: the singular may leave the count out ("It
                // already had..."), so each form takes placeholders of the
                // two English forms only; the first form has the singular's,
                // the last (most general) form exactly the plural's.
                Some(plural) => {
                    let mut allowed = placeholders(id);
                    allowed.extend(placeholders(plural));
                    for s in strs.iter().filter(|s| !s.is_empty()) {
                        if let Some(extra) = placeholders(s).into_iter().find(|p| !allowed.contains(p)) {
                            problems.push(format!("placeholder {{{extra}}} is in neither English form: {s:?}"));
                        }
                    }
                    let first = strs.first().map(|s| placeholders(s)).unwrap_or_default();
                    if strs.len() > 1 && !placeholders(id).iter().all(|p| first.contains(p)) {
                        problems.push(format!("the singular's placeholders are missing: {id:?} -> {:?}", strs[0]));
                    }
                    if strs.last().map(|s| placeholders(s)) != Some(placeholders(plural)) {
                        problems.push(format!("placeholders differ: {plural:?} -> {:?}", strs.last()));
                    }
                }
            }
        }
        let translated: Vec<&String> = entries.iter().map(|e| &e.id).filter(|id| !id.is_empty()).collect();
        for id in pot.iter().filter(|id| !id.is_empty()) {
            if !translated.contains(&id) {
                problems.push(format!("not in {lang}.po (run msgmerge): {id:?}"));
            }
        }
        assert!(problems.is_empty(), "{lang}.po:\n{}", problems.join("\n"));
        let check = std::process::Command::new("msgfmt")
            .args(["--check", "--statistics", "-o", "/dev/null"])
            .arg(&path)
            .output()
            .expect("msgfmt (package gettext)");
        let report = String::from_utf8_lossy(&check.stderr).into_owned();
        assert!(check.status.success(), "msgfmt --check {lang}.po: {report}");
        assert!(!report.contains("fuzzy") && !report.contains("untranslated"), "{lang}.po: {report}");
    }
}

/// One word per concept in each catalogue: every message that names a
/// profile, the helper or the window's parts says it as the message of
/// that name alone does, and never in a second way (German had
/// "Ausgeglichen" and "Ausgewogen" for Balanced, "Helfer" and
/// "Hilfsdienst" for the helper).
#[test]
fn each_term_is_said_one_way_across_the_catalogue() {
    // (language, English term, the translation, other words for it that
    // must not appear)
    let glossary: [(&str, &str, &str, &[&str]); 12] = [
        ("de", "Balanced", "Ausgeglichen", &["Ausgewogen", "Ausbalanciert"]),
        ("de", "Efficient", "Effizient", &[]),
        ("de", "Power Saver", "Energiesparmodus", &["Stromsparmodus"]),
        ("de", "helper", "Helfer", &["Hilfsdienst", "Dienst"]),
        ("de", "snapshot", "Schnappschuss", &["Momentaufnahme"]),
        ("de", "custom profile", "eigene", &["benutzerdefiniert"]),
        ("fr", "Balanced", "Équilibré", &["Balancé"]),
        ("fr", "Efficient", "Efficace", &[]),
        ("fr", "Power Saver", "Économie d’énergie", &["Économiseur"]),
        ("fr", "helper", "assistant", &["démon", "service d’aide"]),
        ("fr", "snapshot", "instantané", &[]),
        ("fr", "custom profile", "personnalisé", &[]),
    ];
    let mut wrong = Vec::new();
    for (lang, term, word, others) in glossary {
        let text = fs::read_to_string(root().join(format!("po/{lang}.po"))).unwrap();
        for entry in po_entries(&text).into_iter().filter(|e| !e.id.is_empty()) {
            if !mentions(&entry.id, term) {
                continue;
            }
            for translated in &entry.strs {
                let lower = translated.to_lowercase();
                if !lower.contains(&word.to_lowercase()) {
                    wrong.push(format!("{lang}: {:?} has no {word:?} for {term:?}: {translated:?}", entry.id));
                }
                if let Some(other) = others.iter().find(|o| lower.contains(&o.to_lowercase())) {
                    wrong.push(format!("{lang}: {:?} says {other:?} for {term:?}: {translated:?}", entry.id));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{} messages off the glossary:\n{}", wrong.len(), wrong.join("\n"));
}

/// Whether `text` uses `term` as a word of its own, in the case given
/// (a profile's name is capitalised; "gearshift-helper" is a file's name,
/// not the helper).
fn mentions(text: &str, term: &str) -> bool {
    text.match_indices(term).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + term.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

/// The command line speaks the person's language (German and French
/// catalogues compiled into a temporary locale directory).
#[test]
fn the_command_line_is_translated() {
    let dir = common::compiled_catalogues();
    let run = |lang: &str, args: &[&str]| {
        let out = gearshift_in(&dir, "meteor-lake-155h", args, lang);
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
    };
    let de = run("de", &["detect"]);
    assert!(de.contains("Ausgeglichen"), "{de}");
    assert!(de.contains("Familie 6 Modell 170"), "{de}");
    let fr = run("fr", &["status"]);
    assert!(fr.contains("Économie d’énergie"), "{fr}");
    let help = run("de", &["--help"]);
    assert!(help.contains("Beispiele"), "{help}");
    // Errors too, clap's findings among them.
    let err = run("fr", &["profile", "set", "power"]);
    assert!(!err.contains("The system bus cannot be reached"), "{err}");
    let typo = run("de", &["statu"]);
    assert!(typo.starts_with("gearshift: „statu“ ist kein Befehl von gearshift. Meinten Sie „status“?"), "{typo}");
    assert!(typo.contains("\nAufruf: gearshift") && !typo.contains("Usage") && !typo.contains("error:"), "{typo}");
    let bad = run("fr", &["measure", "--repeats", "beaucoup"]);
    assert!(bad.contains("n’est pas une valeur pour --repeats"), "{bad}");
}

/// Numbers as the person's locale writes them: a decimal comma in German
/// (build-aux/test generates de_DE.UTF-8), a point in the C locale.
#[test]
fn numbers_follow_the_locale() {
    let dir = common::compiled_catalogues();
    let monitor = |lang: &str, locale: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gearshift"))
            .args(["--root", root().join("tests/fixtures/meteor-lake-155h").to_str().unwrap()])
            .args(["monitor", "--count", "1"])
            .env("GEARSHIFT_LOCALEDIR", dir.path())
            .env("LC_ALL", locale)
            .env("LANGUAGE", lang)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_owned()
    };
    let german = monitor("de", "de_DE.UTF-8");
    assert!(german.contains("1,79 GHz"), "{german} (is the de_DE.UTF-8 locale generated?)");
    assert!(german.starts_with("#1 +0,0s"), "{german}");
    let english = monitor("", "C.UTF-8");
    assert!(english.contains("1.79 GHz"), "{english}");
}

/// The placeholders of a message (`{}` and `{name}`), sorted.
fn placeholders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if after[..close].chars().all(|c| c.is_ascii_lowercase() || c == '_') => {
                found.push(after[..close].to_owned());
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    found.sort();
    found
}

/// Runs `gearshift --root FIXTURE ARGS` in `lang` with the catalogues in
/// `locales`.
fn gearshift_in(locales: &tempfile::TempDir, fixture: &str, args: &[&str], lang: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gearshift"))
        .args(["--root", root().join("tests/fixtures").join(fixture).to_str().unwrap()])
        .args(args)
        .env("GEARSHIFT_LOCALEDIR", locales.path())
        .env("LC_ALL", "C.UTF-8")
        .env("LANGUAGE", lang)
        .output()
        .unwrap()
}

/// JSON is data: the same bytes under every language (profile names,
/// problems and reasons stay stable English or ids; the user side
/// translates what it shows).
#[test]
fn json_output_does_not_depend_on_the_language() {
    let dir = common::compiled_catalogues();
    let json = |fixture: &str, args: &[&str], lang: &str| {
        String::from_utf8_lossy(&gearshift_in(&dir, fixture, args, lang).stdout).into_owned()
    };
    let mut checked = 0;
    for entry in fs::read_dir(root().join("tests/fixtures")).unwrap().flatten() {
        if !entry.path().join("sys").is_dir() {
            continue;
        }
        let fixture = entry.file_name().to_string_lossy().into_owned();
        for args in [&["status", "--json"][..], &["detect", "--json"][..]] {
            let english = json(&fixture, args, "");
            assert!(english.starts_with('{'), "{fixture} {args:?}: {english}");
            for lang in ["de", "fr"] {
                let translated = json(&fixture, args, lang);
                assert!(
                    translated == english,
                    "{fixture} {args:?} differs in {lang}:\n{translated}\nagainst\n{english}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} fixture outputs checked");
}

/// clap's own words are translated with the rest of the command line.
#[test]
fn the_help_is_translated_whole() {
    let dir = common::compiled_catalogues();
    let help = |lang: &str, args: &[&str]| {
        String::from_utf8_lossy(&gearshift_in(&dir, "kaby-lake-2cpu", args, lang).stdout).into_owned()
    };
    let english = help("", &["profile", "--help"]);
    for word in ["Usage: gearshift profile", "Commands:", "Options:", "Print help"] {
        assert!(english.contains(word), "{word}: {english}");
    }
    let german = help("de", &["profile", "--help"]);
    for word in ["Aufruf: gearshift profile", "Befehle:", "Optionen:", "Hilfe anzeigen", "auflisten (list)"] {
        assert!(german.contains(word), "{word}: {german}");
    }
    let french = help("fr", &["epp", "set", "--help"]);
    for word in ["Utilisation : gearshift epp set", "Arguments:", "Options:", "Afficher l’aide"] {
        assert!(french.contains(word), "{word}: {french}");
    }
    assert!(help("de", &["--help"]).contains("Version anzeigen"));
}

/// Every error path of the command line that needs no helper, in German:
/// no English sentence gets through (clap's validators, the parsers, the
/// configuration's checks, the root's errors), and quotes are German.
#[test]
fn no_english_leaks_into_german_errors_and_help() {
    let dir = common::compiled_catalogues();
    let scratch = tempfile::tempdir().unwrap();
    let bad_config = scratch.path().join("50-fleet.toml");
    fs::write(&bad_config, "locked = \"yes\"\n").unwrap();
    let unknown_key = scratch.path().join("60-typo.toml");
    fs::write(&unknown_key, "lockd = true\n").unwrap();
    let not_empty = scratch.path().join("full");
    fs::create_dir_all(not_empty.join("x")).unwrap();
    let (bad, unknown, full) =
        (bad_config.to_str().unwrap(), unknown_key.to_str().unwrap(), not_empty.to_str().unwrap());
    let cases: Vec<Vec<&str>> = vec![
        vec!["monitor", "--interval-ms", "5", "--count", "1"],
        vec!["monitor", "--interval-ms", "abc"],
        vec!["monitor", "--count", "-1"],
        vec!["epp", "set", "abc"],
        vec!["epp", "set", "300"],
        vec!["epp", "set", "--cpus", "3-x", "10"],
        vec!["status", "--json", "--json"],
        vec!["statu"],
        vec!["profile", "show", "nope"],
        vec!["profile", "save", "Cool", "--epp", "power", "--governor"],
        vec!["measure", "--repeats", "99"],
        vec!["config", "check", bad],
        vec!["config", "check", unknown],
        vec!["metrics", "--from", "/nonexistent/metrics.prom"],
        vec!["snapshot", full],
        vec!["mode"],
        vec!["--help"],
        vec!["help"],
        vec!["monitor", "--help"],
        vec!["profile", "save", "--help"],
    ];
    let mut leaks = Vec::new();
    for args in &cases {
        let out = gearshift_in(&dir, "meteor-lake-155h", args, "de");
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        // German quotes, not English ones, around what the person typed.
        leaks.extend(common::english_in(&text).into_iter().map(|leak| format!("{args:?}: {leak}")));
    }
    // A root that is not there (without the fixture's --root).
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_gearshift"))
        .args(["--root", "/nonexistent", "status"])
        .env("GEARSHIFT_LOCALEDIR", dir.path())
        .env("LC_ALL", "C.UTF-8")
        .env("LANGUAGE", "de")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&missing.stderr);
    if !said.contains("gibt es nicht") {
        leaks.push(format!("--root /nonexistent: {said:?}"));
    }
    assert!(leaks.is_empty(), "English in the German command line:\n{}", leaks.join("\n"));
}
