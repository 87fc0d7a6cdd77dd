//! Rules that follow what runs: "while PROGRAM runs, hold PROFILE"
//! (docs/rules.md). A rule names a program by its executable's name
//! (`cargo`, `blender`) and/or by its desktop application id
//! (`org.gnome.Builder`, `com.valvesoftware.Steam`), and the profile to
//! hold meanwhile: `performance` or `power-saver`, as any hold takes (when
//! both are held, Power Saver wins).
//!
//! An administrator's rules are `[[rule]]` tables in /etc/gearshift
//! (`core::config`); a person's are the same tables in
//! `~/.config/gearshift/rules.toml`. While the administrator's lock is on,
//! only the administrator's rules apply. This module checks a rule and
//! says whether a program or a desktop's app scope matches it; the
//! per-user agent (`client::agent`) watches and holds.

use serde::{Deserialize, Serialize};

use super::panel::PanelProfile;
use super::parse::quoted_text;
use crate::i18n::{i18n_text, Text};

/// The longest executable name or application id a rule takes.
pub const MAX_NAME_BYTES: usize = 255;
/// The most rules a file (or a person) may have.
pub const MAX_RULES: usize = 64;

/// One rule, as written in a `[[rule]]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The executable's file name (`blender`), as `/proc/PID/exe` ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// The desktop application id (`org.gnome.Builder`), as the desktop
    /// names the app's systemd scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_id: Option<String>,
    /// `performance` or `power-saver` (written `power` too).
    pub profile: String,
}

/// What a rule follows, in words: the program, the app id, or "PROGRAM
/// or APP_ID".
pub fn following(program: Option<&str>, app_id: Option<&str>) -> Text {
    match (program, app_id) {
        (Some(program), Some(app_id)) => {
            i18n_text("{program} or {app_id}").arg("program", program).arg("app_id", app_id)
        }
        (Some(name), None) | (None, Some(name)) => Text::from(name.to_owned()),
        (None, None) => Text::from(String::new()),
    }
}

/// The rules of a file: `[[rule]]` tables.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// The rules, in the file's order.
    #[serde(default)]
    pub rule: Vec<Rule>,
}

impl Rule {
    /// The rule as it is used: its profile by the panel's name
    /// (`power` is `power-saver`), or why it cannot be.
    ///
    /// # Errors
    /// Neither a program nor an app id, a name that is no executable's or
    /// app id, or a profile no hold takes.
    pub fn checked(mut self) -> Result<Rule, Text> {
        if self.program.is_none() && self.app_id.is_none() {
            return Err(i18n_text("a rule names a program, an app_id, or both"));
        }
        if let Some(program) = &self.program {
            if !is_program_name(program) {
                return Err(i18n_text(
                    "program {program} is no executable's name (a file name without /, at most 255 bytes)",
                )
                .arg_text("program", quoted_text(program)));
            }
        }
        if let Some(app_id) = &self.app_id {
            if !is_app_id(app_id) {
                return Err(i18n_text(
                    "app_id {app_id} is no desktop application id (letters, digits, dots, - and _, such as org.gnome.Builder)",
                )
                .arg_text("app_id", quoted_text(app_id)));
            }
        }
        self.profile = match PanelProfile::holdable(&self.profile) {
            Some(panel) => panel.name().to_owned(),
            None => {
                return Err(i18n_text("profile {profile}: a rule holds performance or power-saver, as every hold does")
                    .arg_text("profile", quoted_text(&self.profile)))
            }
        };
        Ok(self)
    }

    /// Who holds the profile while the rule applies: its app id, else its
    /// program (what the desktop's power menu and the tray name).
    pub fn holder_name(&self) -> &str {
        self.app_id.as_deref().or(self.program.as_deref()).unwrap_or_default()
    }

    /// The hold's reason ("rule: while blender runs").
    pub fn reason(&self) -> String {
        format!("rule: while {} runs", self.holder_name())
    }

    /// True for a process whose executable is called `exe_name`.
    pub fn matches_program(&self, exe_name: &str) -> bool {
        self.program.as_deref() == Some(exe_name)
    }

    /// True for the systemd scope (or service) a desktop started an app in,
    /// named `scope` (`app-gnome-org.gnome.Builder-12345.scope`).
    pub fn matches_unit(&self, unit: &str) -> bool {
        let Some(app_id) = &self.app_id else { return false };
        unit_app_ids(unit).iter().any(|id| id == app_id)
    }
}

/// An executable's file name: no `/`, no control character, not `.`/`..`.
pub fn is_program_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.chars().any(char::is_control)
}

/// A desktop application id: letters, digits, `.`, `-`, `_`, starting
/// with a letter or digit.
pub fn is_app_id(id: &str) -> bool {
    id.len() <= MAX_NAME_BYTES
        && id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// The application ids a unit's name may stand for. systemd's naming for
/// desktop apps (systemd.special(7), "app.slice") is
/// `app[-LAUNCHER]-APPID[@RANDOM].service` or
/// `app[-LAUNCHER]-APPID-RANDOM.scope`, with `-` in the id escaped as
/// `\x2d`; the launcher (`gnome`, `flatpak`, `kde`) is optional, so both
/// readings are given where the name has one more part.
pub fn unit_app_ids(unit: &str) -> Vec<String> {
    let Some(rest) = unit.strip_prefix("app-") else { return Vec::new() };
    let body = if let Some(scope) = rest.strip_suffix(".scope") {
        // The random part after the last -.
        match scope.rsplit_once('-') {
            Some((body, random)) if !random.is_empty() => body,
            _ => return Vec::new(),
        }
    } else if let Some(service) = rest.strip_suffix(".service") {
        service.split_once('@').map_or(service, |(body, _)| body)
    } else {
        return Vec::new();
    };
    let mut ids = vec![body.to_owned()];
    if let Some((_launcher, id)) = body.split_once('-') {
        ids.push(id.to_owned());
    }
    ids.iter_mut().for_each(|id| *id = id.replace("\\x2d", "-"));
    ids.retain(|id| is_app_id(id));
    ids
}

/// Parses a rules file (`[[rule]]` tables), each rule checked.
///
/// # Errors
/// TOML that does not parse, an unknown key, more than 64 rules, or the
/// first rule that cannot be, with its number (from 1).
pub fn parse_rules(text: &str) -> Result<Vec<Rule>, Text> {
    let file: RulesFile = toml::from_str(text).map_err(|e| Text::from(e.message().to_owned()))?;
    if file.rule.len() > MAX_RULES {
        return Err(i18n_text("{count} rules; at most {most} are kept")
            .arg("count", file.rule.len())
            .arg("most", MAX_RULES));
    }
    file.rule
        .into_iter()
        .enumerate()
        .map(|(i, rule)| {
            rule.checked().map_err(|why| i18n_text("rule {number}: {why}").arg("number", i + 1).arg_text("why", why))
        })
        .collect()
}

/// Writes rules as a rules file.
///
/// # Errors
/// They cannot be written as TOML.
pub fn format_rules(rules: &[Rule]) -> Result<String, toml::ser::Error> {
    toml::to_string_pretty(&RulesFile { rule: rules.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(program: Option<&str>, app_id: Option<&str>, profile: &str) -> Rule {
        Rule { program: program.map(Into::into), app_id: app_id.map(Into::into), profile: profile.into() }
    }

    #[test]
    fn rules_name_a_program_or_an_app_and_hold_what_holds_take() {
        let blender = rule(Some("blender"), None, "performance").checked().unwrap();
        assert!(blender.matches_program("blender") && !blender.matches_program("blender-thumbnailer"));
        assert_eq!(blender.holder_name(), "blender");
        assert_eq!(blender.reason(), "rule: while blender runs");
        let saver = PanelProfile::PowerSaver.name();
        assert_eq!(rule(None, Some("org.gnome.Builder"), "power").checked().unwrap().profile, saver);
        assert_eq!(rule(None, Some("org.gnome.Builder"), saver).checked().unwrap().profile, saver);
        for bad in [
            rule(None, None, "performance"),
            rule(Some("../bin/sh"), None, "performance"),
            rule(Some(""), None, "performance"),
            rule(Some("a\nb"), None, "performance"),
            rule(Some(&"x".repeat(256)), None, "performance"),
            rule(None, Some("org gnome"), "performance"),
            rule(None, Some(".hidden"), "performance"),
            rule(Some("cargo"), None, "balanced"),
            rule(Some("cargo"), None, "balance_performance"),
        ] {
            assert!(bad.clone().checked().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_desktops_unit_names_its_app() {
        assert_eq!(
            unit_app_ids("app-gnome-org.gnome.Builder-12345.scope"),
            ["gnome-org.gnome.Builder", "org.gnome.Builder"]
        );
        assert_eq!(unit_app_ids("app-org.kde.dolphin-8841.scope"), ["org.kde.dolphin"]);
        assert_eq!(
            unit_app_ids("app-flatpak-com.valvesoftware.Steam-4242.scope"),
            ["flatpak-com.valvesoftware.Steam", "com.valvesoftware.Steam"]
        );
        assert_eq!(unit_app_ids("app-gnome-my\\x2dtool-77.scope"), ["gnome-my-tool", "my-tool"]);
        assert_eq!(
            unit_app_ids("app-gnome-org.gnome.Terminal@a1b2.service"),
            ["gnome-org.gnome.Terminal", "org.gnome.Terminal"]
        );
        for other in ["session-2.scope", "app.slice", "app-.scope", "app-x-.scope", "dbus.service", "app-x y-1.scope"] {
            assert!(unit_app_ids(other).is_empty(), "{other}");
        }
        let builder = rule(None, Some("org.gnome.Builder"), "performance").checked().unwrap();
        assert!(builder.matches_unit("app-gnome-org.gnome.Builder-12345.scope"));
        assert!(!builder.matches_unit("app-gnome-org.gnome.Builder2-12345.scope"));
        assert!(!builder.matches_program("org.gnome.Builder"));
    }

    #[test]
    fn a_rules_file_is_checked_rule_by_rule_and_written_back_the_same() {
        let text = "[[rule]]\nprogram = \"cargo\"\nprofile = \"performance\"\n\n[[rule]]\napp_id = \"com.valvesoftware.Steam\"\nprofile = \"power\"\n";
        let rules = parse_rules(text).unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[1].profile, PanelProfile::PowerSaver.name());
        assert_eq!(parse_rules(&format_rules(&rules).unwrap()).unwrap(), rules);
        let wrong = parse_rules("[[rule]]\nprogram = \"cargo\"\nprofile = \"balanced\"\n").unwrap_err();
        assert!(wrong.english().starts_with("rule 1: profile “balanced”"), "{}", wrong.english());
        assert!(parse_rules("[[rule]]\nprogram = \"cargo\"\nprofile = \"performance\"\nwhen = 1\n").is_err());
        let many = "[[rule]]\nprogram = \"a\"\nprofile = \"performance\"\n".repeat(65);
        assert!(parse_rules(&many).unwrap_err().english().contains("at most 64"));
        assert_eq!(parse_rules("").unwrap(), []);
    }
}
