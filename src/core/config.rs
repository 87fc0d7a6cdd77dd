//! The administrator's configuration (docs/fleet.md): what a machine does
//! at boot and what its people may change, written as files under /etc by
//! hand or by configuration management (Ansible), read by the helper at
//! start and on reload, and checked by `gearshift config check`.
//!
//! `<root>/etc/gearshift/gearshift.toml`, then `<root>/etc/gearshift/conf.d/
//! *.toml` in lexical order; a later file's keys win. A file with any
//! problem (its syntax, an unknown key, an unknown profile, a value this
//! machine refuses) is set aside whole, with the line of each problem, and
//! the others still apply.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::custom::{check_shape, checked_for_saving, CustomProfile, MAX_CUSTOM_PROFILES};
use super::parse::quoted_text;
use super::profile::{BuiltinProfile, Resolver};
use super::root::SysRoot;
use super::rules::{Rule, MAX_RULES};
use crate::i18n::{i18n_text, Text};

/// The main file, under the root.
pub const CONFIG_FILE: &str = "etc/gearshift/gearshift.toml";
/// The drop-in directory, under the root.
pub const DROP_IN_DIR: &str = "etc/gearshift/conf.d";
/// Debian's node_exporter reads textfiles here, unless a file says another.
pub const DEFAULT_TEXTFILE_DIR: &str = "/var/lib/prometheus/node-exporter";
/// A file larger than this is not configuration.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// One file as written. `profile` is the boot profile (a string) or the
/// declared profiles (`[[profile]]` tables); TOML takes one or the other
/// in a file, so `default_profile` names the boot profile beside them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    profile: Option<toml::Spanned<toml::Value>>,
    #[serde(default)]
    default_profile: Option<toml::Spanned<String>>,
    #[serde(default)]
    locked: Option<bool>,
    #[serde(default)]
    auto: Option<RawAuto>,
    #[serde(default)]
    metrics: Option<RawMetrics>,
    /// "While PROGRAM runs, hold PROFILE" (`core::rules`).
    #[serde(default)]
    rule: Vec<toml::Spanned<Rule>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAuto {
    #[serde(default)]
    enabled: Option<bool>,
    #[serde(default)]
    on_ac: Option<toml::Spanned<String>>,
    #[serde(default)]
    on_battery: Option<toml::Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMetrics {
    #[serde(default)]
    textfile_dir: Option<PathBuf>,
}

/// A setting and the file it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// The file that set it (the last one to).
    pub file: PathBuf,
}

/// Something wrong in a file, with its line (from 1) where it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigProblem {
    /// The file.
    pub file: PathBuf,
    /// The line of the problem.
    pub line: Option<usize>,
    /// What is wrong: in English in the helper's log and in JSON, in the
    /// reader's language where a person reads it (`config check`, status).
    pub message: Text,
}

impl ConfigProblem {
    /// `FILE:LINE: what`, with `message` as `words` gives it.
    fn line(&self, words: String) -> String {
        match self.line {
            Some(line) => format!("{}:{line}: {words}", self.file.display()),
            None => format!("{}: {words}", self.file.display()),
        }
    }

    /// The line in English (logs, JSON).
    pub fn english(&self) -> String {
        self.line(self.message.english())
    }
}

/// The line in the reader's language.
impl std::fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line(self.message.localized()))
    }
}

/// The configuration in effect: every good file merged in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Config {
    /// The files read and used, in order.
    pub files: Vec<PathBuf>,
    /// Problems, each in a file that was set aside.
    pub problems: Vec<ConfigProblem>,
    /// The profile applied at boot while no person has chosen one.
    pub profile: Option<Setting<String>>,
    /// Switching and tuning are the administrator's alone.
    pub locked: Option<Setting<bool>>,
    /// The AC/battery policy: on or off.
    pub auto_enabled: Option<Setting<bool>>,
    /// The profile on AC power.
    pub on_ac: Option<Setting<String>>,
    /// The profile on battery.
    pub on_battery: Option<Setting<String>>,
    /// Declared custom profiles (usable, not editable by people).
    pub profiles: Vec<Setting<CustomProfile>>,
    /// Where `gearshift metrics` writes for node_exporter.
    pub textfile_dir: Option<Setting<PathBuf>>,
    /// The administrator's rules (`[[rule]]`), every good file's, in order.
    pub rules: Vec<Setting<Rule>>,
}

impl Config {
    /// The file that locks switching and tuning, where one does.
    pub fn locked_by(&self) -> Option<&PathBuf> {
        self.locked.as_ref().filter(|l| l.value).map(|l| &l.file)
    }

    /// Every custom profile: the declared ones, then those of `saved` whose
    /// id no declared profile takes (a declared id hides a saved one).
    pub fn with_saved(&self, saved: &[CustomProfile]) -> Vec<CustomProfile> {
        let declared = self.profiles.iter().map(|p| p.value.clone());
        let own = saved.iter().filter(|p| !self.profiles.iter().any(|d| d.value.id == p.id));
        declared.chain(own.cloned()).collect()
    }

    /// Where metrics go: the configured directory, else Debian's.
    pub fn textfile_dir(&self) -> PathBuf {
        self.textfile_dir.as_ref().map_or_else(|| PathBuf::from(DEFAULT_TEXTFILE_DIR), |s| s.value.clone())
    }

    /// Which file set each setting ("profile", "locked", "auto.enabled",
    /// "auto.on_ac", "auto.on_battery", "profile.ID", "metrics.textfile_dir").
    pub fn sources(&self) -> BTreeMap<String, PathBuf> {
        let mut sources = BTreeMap::new();
        let mut put = |key: String, file: Option<&PathBuf>| {
            if let Some(file) = file {
                sources.insert(key, file.clone());
            }
        };
        put("profile".into(), self.profile.as_ref().map(|s| &s.file));
        put("locked".into(), self.locked.as_ref().map(|s| &s.file));
        put("auto.enabled".into(), self.auto_enabled.as_ref().map(|s| &s.file));
        put("auto.on_ac".into(), self.on_ac.as_ref().map(|s| &s.file));
        put("auto.on_battery".into(), self.on_battery.as_ref().map(|s| &s.file));
        put("metrics.textfile_dir".into(), self.textfile_dir.as_ref().map(|s| &s.file));
        for p in &self.profiles {
            put(format!("profile.{}", p.value.id), Some(&p.file));
        }
        sources
    }

    /// Reads and checks every file under `root` for this machine.
    pub fn load(root: &SysRoot, resolver: &Resolver<'_>) -> Config {
        Config::load_with(root, resolver, None)
    }

    /// [`Config::load`], with `extra` (its path and text) read too: what
    /// `gearshift config check FILE` checks before a playbook installs the
    /// file. A path in the drop-in directory takes its place in the order,
    /// in place of a file of that name if there is one (`config check
    /// --as NAME`); any other path is read last.
    pub fn load_with(root: &SysRoot, resolver: &Resolver<'_>, extra: Option<(PathBuf, String)>) -> Config {
        let mut files: Vec<(PathBuf, Result<String, ConfigProblem>)> = Vec::new();
        let mut extra = extra;
        let mut read = |rel: &str, extra: &mut Option<(PathBuf, String)>| {
            let path = root.path(rel);
            if let Some((_, text)) = extra.take_if(|(p, _)| *p == path) {
                files.push((path, Ok(text)));
                return;
            }
            match root.read_trusted_text(rel, MAX_FILE_BYTES) {
                Ok(Some(text)) => files.push((path, Ok(text))),
                Ok(None) => {}
                Err(problem) => {
                    files.push((
                        path.clone(),
                        Err(ConfigProblem { file: path, line: None, message: Text::from(problem.what) }),
                    ));
                }
            }
        };
        read(CONFIG_FILE, &mut extra);
        let mut names = root.list_dir(DROP_IN_DIR).unwrap_or_default();
        names.retain(|n| n.ends_with(".toml") && !n.starts_with('.'));
        let drop_ins = root.path(DROP_IN_DIR);
        if let Some(name) =
            extra.as_ref().filter(|(p, _)| p.parent() == Some(drop_ins.as_path())).and_then(|(p, _)| p.file_name())
        {
            names.push(name.to_string_lossy().into_owned());
        }
        names.sort();
        names.dedup();
        for name in names {
            read(&format!("{DROP_IN_DIR}/{name}"), &mut extra);
        }
        if let Some((path, text)) = extra {
            files.push((path, Ok(text)));
        }
        check(files, resolver)
    }
}

/// One file, parsed, with its problems so far.
struct Parsed {
    file: PathBuf,
    text: String,
    raw: RawFile,
    declared: Vec<(CustomProfile, usize)>,
    boot: Option<(String, usize)>,
    rules: Vec<Rule>,
    problems: Vec<ConfigProblem>,
}

/// Checks and merges files read in order: each on its own (syntax, keys,
/// declared profiles against this machine), then the profiles they name
/// against the built-in and declared ones of the files still good, until
/// no more is set aside.
fn check(files: Vec<(PathBuf, Result<String, ConfigProblem>)>, resolver: &Resolver<'_>) -> Config {
    let mut config = Config::default();
    let mut parsed: Vec<Parsed> = Vec::new();
    for (file, text) in files {
        match text.map(|text| parse(file.clone(), text, resolver)) {
            Ok(p) => parsed.push(p),
            Err(problem) => config.problems.push(problem),
        }
    }
    loop {
        let declared: Vec<String> = parsed
            .iter()
            .filter(|p| p.problems.is_empty())
            .flat_map(|p| p.declared.iter().map(|(d, _)| d.id.clone()))
            .collect();
        let known = |id: &str| BuiltinProfile::from_id(id).is_some() || declared.iter().any(|d| d == id);
        let mut changed = false;
        for p in parsed.iter_mut().filter(|p| p.problems.is_empty()) {
            let mut named: Vec<(String, usize)> = p.boot.iter().cloned().collect();
            if let Some(auto) = &p.raw.auto {
                for side in [&auto.on_ac, &auto.on_battery].into_iter().flatten() {
                    named.push((side.get_ref().clone(), line_of(&p.text, side.span().start)));
                }
            }
            for (id, line) in named.into_iter().filter(|(id, _)| !known(id)) {
                // Translators: {id} is what the file names.
                let message = i18n_text(
                    "no profile is called {id}: use performance, balance_performance, balance_power, power or a declared profile's id",
                )
                .arg_text("id", quoted_text(&id));
                p.problems.push(ConfigProblem { file: p.file.clone(), line: Some(line), message });
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for p in parsed {
        if !p.problems.is_empty() {
            config.problems.extend(p.problems);
            continue;
        }
        let setting = |value| Setting { value, file: p.file.clone() };
        if let Some((id, _)) = p.boot {
            config.profile = Some(setting(id));
        }
        if let Some(locked) = p.raw.locked {
            config.locked = Some(Setting { value: locked, file: p.file.clone() });
        }
        if let Some(auto) = p.raw.auto {
            if let Some(enabled) = auto.enabled {
                config.auto_enabled = Some(Setting { value: enabled, file: p.file.clone() });
            }
            if let Some(on_ac) = auto.on_ac {
                config.on_ac = Some(setting(on_ac.into_inner()));
            }
            if let Some(on_battery) = auto.on_battery {
                config.on_battery = Some(setting(on_battery.into_inner()));
            }
        }
        for (profile, line) in p.declared {
            // A later file's profile of the same id replaces the earlier.
            config.profiles.retain(|d| d.value.id != profile.id);
            if config.profiles.len() >= MAX_CUSTOM_PROFILES {
                config.problems.push(ConfigProblem {
                    file: p.file.clone(),
                    line: Some(line),
                    // Translators: {id} is a profile's id, {most} a count.
                    message: i18n_text(
                        "profile {id}: {most} profiles are declared already, the most the helper keeps; this one is set aside",
                    )
                    .arg_text("id", quoted_text(&profile.id))
                    .arg("most", MAX_CUSTOM_PROFILES),
                });
                continue;
            }
            config.profiles.push(Setting { value: profile, file: p.file.clone() });
        }
        if let Some(dir) = p.raw.metrics.and_then(|m| m.textfile_dir) {
            config.textfile_dir = Some(Setting { value: dir, file: p.file.clone() });
        }
        config.rules.extend(p.rules.into_iter().map(|rule| Setting { value: rule, file: p.file.clone() }));
        config.files.push(p.file);
    }
    config
}

/// Parses one file and checks what it holds on its own.
fn parse(file: PathBuf, text: String, resolver: &Resolver<'_>) -> Parsed {
    let mut problems = Vec::new();
    let problem = |line: Option<usize>, message: Text| ConfigProblem { file: file.clone(), line, message };
    let raw: RawFile = match toml::from_str(&text) {
        Ok(raw) => raw,
        Err(err) => {
            let line = err.span().map(|s| line_of(&text, s.start));
            let raw = err.message().trim();
            let message = if raw.contains("duplicate key") && text.contains("[[profile]]") {
                i18n_text("the key profile is given twice: a file holds either profile = \"...\" or [[profile]] tables; name the boot profile with default_profile beside them")
            } else {
                crate::core::parse::serde_words(raw)
            };
            problems.push(problem(line, message));
            return Parsed {
                file,
                text,
                raw: RawFile::default(),
                declared: Vec::new(),
                boot: None,
                rules: Vec::new(),
                problems,
            };
        }
    };
    let mut boot = raw.default_profile.as_ref().map(|d| (d.get_ref().clone(), line_of(&text, d.span().start)));
    let mut declared = Vec::new();
    if let Some(value) = &raw.profile {
        let line = line_of(&text, value.span().start);
        match value.get_ref() {
            toml::Value::String(id) if boot.is_none() => boot = Some((id.clone(), line)),
            toml::Value::String(_) => {
                problems.push(problem(Some(line), i18n_text("profile and default_profile both name the boot profile")))
            }
            toml::Value::Array(tables) => {
                for (i, table) in tables.iter().enumerate() {
                    let at = nth_table_line(&text, i).unwrap_or(line);
                    match CustomProfile::deserialize(table.clone()) {
                        Ok(profile) => {
                            let before: Vec<CustomProfile> =
                                declared.iter().map(|(p, _): &(CustomProfile, usize)| p.clone()).collect();
                            match declared_profile(profile, &before, resolver) {
                                // Translators: {id} is a profile's id; {why} says what is wrong.
                                Err(message) => problems.push(problem(Some(at), message)),
                                Ok(profile) => declared.push((profile, at)),
                            }
                        }
                        Err(err) => {
                            let id = table.get("id").and_then(toml::Value::as_str).unwrap_or("?");
                            let raw = err.message().trim();
                            let why = if raw.contains("EppSetting") {
                                i18n_text("an EPP is a number from 0 to 255 or a preference name")
                            } else {
                                crate::core::parse::serde_words(raw)
                            };
                            // Translators: {id} is a profile's id; {why} says what is wrong.
                            problems.push(problem(
                                Some(at),
                                i18n_text("profile {id}: {why}").arg_text("id", quoted_text(id)).arg_text("why", why),
                            ));
                        }
                    }
                }
            }
            _ => problems.push(problem(
                Some(line),
                i18n_text("profile is the boot profile's id (a string) or [[profile]] tables"),
            )),
        }
    }
    let rules = checked_rules(&raw, &text, &mut |line, message| problems.push(problem(Some(line), message)));
    Parsed { file, text, raw, declared, boot, rules, problems }
}

/// The file's `[[rule]]` tables, each checked (`Rule::checked`); `refuse`
/// hears the line and the problem of each that cannot be.
fn checked_rules(raw: &RawFile, text: &str, refuse: &mut dyn FnMut(usize, Text)) -> Vec<Rule> {
    if raw.rule.len() > MAX_RULES {
        let line = line_of(text, raw.rule[MAX_RULES].span().start);
        refuse(
            line,
            i18n_text("{count} rules; at most {most} are kept").arg("count", raw.rule.len()).arg("most", MAX_RULES),
        );
        return Vec::new();
    }
    let mut rules = Vec::new();
    for rule in &raw.rule {
        match rule.get_ref().clone().checked() {
            Ok(rule) => rules.push(rule),
            Err(why) => refuse(line_of(text, rule.span().start), why),
        }
    }
    rules
}

/// A declared profile as it is used here (its name in NFKC form), or why
/// it cannot be: the rules of a profile a person saves (`core::names`:
/// nothing invisible, no mixed scripts, nothing that looks like a built-in
/// profile or one declared before it in the file), and this machine's.
fn declared_profile(
    profile: CustomProfile,
    before: &[CustomProfile],
    resolver: &Resolver<'_>,
) -> Result<CustomProfile, Text> {
    if BuiltinProfile::from_id(&profile.id).is_some() {
        // Translators: {id} is a built-in profile's id.
        return Err(i18n_text("profile {id}: a built-in profile's id cannot be declared again")
            .arg_text("id", quoted_text(&profile.id)));
    }
    let id = profile.id.clone();
    let checked = check_shape(&profile)
        .and_then(|()| checked_for_saving(profile, before))
        .and_then(|p| resolver.custom(&p).map(|_| p));
    // Translators: {id} is a profile's id, {key} the key at fault, {why} what is wrong with it.
    checked.map_err(|err| {
        i18n_text("profile {id}: {key}: {why}")
            .arg_text("id", quoted_text(&id))
            .arg("key", err.field.key())
            .arg_text("why", err.message)
    })
}

/// The line (from 1) of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].bytes().filter(|b| *b == b'\n').count() + 1
}

/// The line of the `i`th `[[profile]]` header.
fn nth_table_line(text: &str, i: usize) -> Option<usize> {
    text.lines().enumerate().filter(|(_, l)| l.trim_start().starts_with("[[profile]]")).nth(i).map(|(n, _)| n + 1)
}

#[cfg(test)]
mod tests;
