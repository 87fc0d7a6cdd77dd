//! Bad usage said in the person's language. clap writes its own errors in
//! English ("error: unrecognized subcommand 'foo'"); these are the same
//! findings, taken from clap's error context and worded through the
//! catalogue, with the usage line and where to read more.

use clap::error::{ContextKind, ContextValue, ErrorKind};

use gearshift::i18n::{gettext, i18n_text};

/// The words for `err`, or `None` where clap's own output is what is
/// wanted (help and version) or its kind is one this does not know.
pub fn explain(err: &clap::Error) -> Option<String> {
    let text = |kind: ContextKind| match err.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(list)) => Some(list.join(", ")),
        Some(ContextValue::StyledStr(s)) => Some(s.to_string()),
        Some(ContextValue::StyledStrs(list)) => {
            Some(list.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))
        }
        _ => None,
    };
    let quoted = |s: String| i18n_text("“{word}”").arg("word", s).localized();
    let mut words = match err.kind() {
        ErrorKind::InvalidSubcommand => {
            // Translators: {word} is what was typed, quoted.
            i18n_text("{word} is not a command of gearshift.")
                .arg("word", quoted(text(ContextKind::InvalidSubcommand)?))
        }
        ErrorKind::UnknownArgument => {
            // Translators: {word} is what was typed, quoted.
            i18n_text("{word} is not an option here.").arg("word", quoted(text(ContextKind::InvalidArg)?))
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let value = text(ContextKind::InvalidValue).unwrap_or_default();
            let option = text(ContextKind::InvalidArg)?;
            let mut line = i18n_text("{value} is not a value for {option}.")
                .arg("value", quoted(value))
                .arg("option", option)
                .localized();
            // A validator's own reason (already translated), or the values
            // it takes.
            if let Some(reason) = std::error::Error::source(err).map(|e| e.to_string()) {
                line = format!("{line} {}", sentence(&reason));
            } else if let Some(valid) = text(ContextKind::ValidValue) {
                line = format!("{line} {}", i18n_text("It takes: {values}.").arg("values", valid).localized());
            }
            return Some(finish(err, line));
        }
        ErrorKind::MissingRequiredArgument => {
            i18n_text("This needs {what}.").arg("what", text(ContextKind::InvalidArg)?)
        }
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let valid = text(ContextKind::ValidSubcommand)?;
            // Translators: {commands} lists the subcommands ("list, get, set").
            i18n_text("Say what to do: {commands}.").arg("commands", valid.replace(", help", ""))
        }
        ErrorKind::ArgumentConflict => {
            let (first, second) = (text(ContextKind::InvalidArg)?, text(ContextKind::PriorArg)?);
            // clap says an option given twice conflicts with itself.
            let name = |arg: &str| arg.split_whitespace().next().unwrap_or(arg).to_owned();
            if name(&first) == name(&second) {
                // Translators: {option} is an option such as --json.
                i18n_text("{option} is given twice.").arg("option", name(&first))
            } else {
                i18n_text("{first} cannot be used together with {second}.").arg("first", first).arg("second", second)
            }
        }
        _ => return None,
    }
    .localized();
    if let Some(suggested) = text(ContextKind::SuggestedSubcommand).or_else(|| text(ContextKind::SuggestedArg)) {
        words = format!("{words} {}", i18n_text("Did you mean {word}?").arg("word", quoted(suggested)).localized());
    }
    Some(finish(err, words))
}

/// "gearshift" and the subcommands `args` name ("gearshift measure"), up to
/// `--` or the first word that is no subcommand of the one before.
fn named_subcommand(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut command = super::args::command();
    let mut named = vec!["gearshift".to_owned()];
    for word in args {
        if word == "--" {
            break;
        }
        if word.starts_with('-') {
            continue;
        }
        let Some(sub) = command.find_subcommand(&word).cloned() else {
            if named.len() > 1 {
                break;
            }
            // A value of a top-level option (--root DIR).
            continue;
        };
        named.push(word);
        command = sub;
    }
    named
}

/// clap's own words inside help and usage text ("[OPTIONS]", the help
/// subcommand's line) in the reader's language.
pub fn clap_words(text: &str) -> String {
    text.replace("[OPTIONS]", &gettext("[OPTIONS]"))
        .replace("[COMMAND]", &gettext("[COMMAND]"))
        .replace("<COMMAND>", &gettext("<COMMAND>"))
        .replace(
            "Print this message or the help of the given subcommand(s)",
            &gettext("Print this message or the help of the given subcommand(s)"),
        )
}

/// The message, the usage line with its label translated, and where to
/// read more.
fn finish(err: &clap::Error, words: String) -> String {
    let usage = match err.get(ContextKind::Usage) {
        Some(ContextValue::StyledStr(usage)) => usage.to_string(),
        _ => String::new(),
    };
    let usage = clap_words(
        &usage
            .trim()
            .strip_prefix("Usage:")
            .map_or(usage.clone(), |rest| format!("{} {}", gettext("Usage:"), rest.trim())),
    );
    // The help of the command the usage line is about ("gearshift profile
    // save"), which says more than the top level's.
    let mut command: Vec<String> =
        usage.split_whitespace().skip(1).take_while(|w| !w.starts_with(['[', '<', '-'])).map(str::to_owned).collect();
    if command.is_empty() {
        // A value's mistake comes without the usage line: the subcommand
        // is the one the command line named.
        command = named_subcommand(std::env::args().skip(1));
    }
    let more = if command.len() > 1 {
        // Translators: {command} is a command such as "gearshift profile save".
        i18n_text("For more, see {command} --help.").arg("command", command.join(" ")).localized()
    } else {
        gettext("For more, see gearshift --help.")
    };
    if usage.is_empty() {
        format!("gearshift: {words}\n\n{more}\n")
    } else {
        format!("gearshift: {words}\n\n{usage}\n\n{more}\n")
    }
}

/// `reason` as a sentence: a capital first letter and a full stop.
fn sentence(reason: &str) -> String {
    let reason = reason.trim().trim_end_matches('.');
    let mut chars = reason.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>()).unwrap_or_default();
    format!("{first}{}.", chars.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explained(args: &[&str]) -> String {
        let err = super::super::args::command().try_get_matches_from(args).expect_err("bad usage");
        explain(&err).unwrap_or_else(|| panic!("no words for {:?}", err.kind()))
    }

    #[test]
    fn each_mistake_is_said_in_words_with_the_usage() {
        let unknown = explained(&["gearshift", "foo"]);
        assert!(unknown.starts_with("gearshift: “foo” is not a command of gearshift."), "{unknown}");
        assert!(unknown.contains("\n\nUsage: gearshift"), "{unknown}");
        assert!(unknown.ends_with("For more, see gearshift --help.\n"), "{unknown}");
        let close = explained(&["gearshift", "statu"]);
        assert!(close.contains("Did you mean “status”?"), "{close}");
        let option = explained(&["gearshift", "status", "--bogus"]);
        assert!(option.starts_with("gearshift: “--bogus” is not an option here."), "{option}");
        let value = explained(&["gearshift", "measure", "--repeats", "many"]);
        assert!(value.starts_with("gearshift: “many” is not a value for --repeats <auto|N>. Give auto"), "{value}");
        let listed = explained(&["gearshift", "measure", "--workload", "video"]);
        assert!(listed.contains("It takes: build, burst, wake, playback."), "{listed}");
        let missing = explained(&["gearshift", "profile"]);
        assert!(missing.starts_with("gearshift: Say what to do: list, get, set, save, show, delete."), "{missing}");
        let required = explained(&["gearshift", "epp", "set"]);
        assert!(required.starts_with("gearshift: This needs <VALUE>."), "{required}");
        // A subcommand's mistake points to that subcommand's help.
        assert!(required.ends_with("For more, see gearshift epp set --help.\n"), "{required}");
        assert!(option.ends_with("For more, see gearshift status --help.\n"), "{option}");
        // A value's mistake (no usage line from clap): the subcommand named.
        let named = |args: &[&str]| named_subcommand(args.iter().map(|a| (*a).to_owned())).join(" ");
        assert_eq!(named(&["--root", "/x", "measure", "--repeats", "many"]), "gearshift measure");
        assert_eq!(named(&["profile", "save", "Cool", "--epp", "x"]), "gearshift profile save");
        assert_eq!(named(&["launch", "--profile", "balanced", "--", "status"]), "gearshift launch");
        assert_eq!(named(&["--demo"]), "gearshift");
    }

    /// An EPP out of range is said as such, before anything else.
    #[test]
    fn an_epp_out_of_range_is_said_first() {
        let high = explained(&["gearshift", "--root", "/nonexistent", "epp", "set", "300"]);
        assert!(high.starts_with("gearshift: “300” is not a value for <VALUE>. EPP goes from 0 to 255."), "{high}");
    }

    /// An option given twice is said so, not as a conflict with itself.
    #[test]
    fn an_option_given_twice_is_said_so() {
        let twice = explained(&["gearshift", "status", "--json", "--json"]);
        assert!(twice.starts_with("gearshift: --json is given twice."), "{twice}");
    }

    #[test]
    fn help_and_version_are_clap_s_own() {
        let err = super::super::args::command().try_get_matches_from(["gearshift", "--help"]).expect_err("help");
        assert!(explain(&err).is_none());
    }
}
