//! `gearshift config check`: the administrator's configuration checked as
//! the helper reads it (`core::config`), without the helper, so that a
//! playbook can validate a file before it installs it (docs/fleet.md).

use std::path::Path;

use gearshift::core::config::{Config, DROP_IN_DIR};
use gearshift::core::panel::PanelProfile;
use gearshift::core::rules::Rule;
use gearshift::i18n::{i18n_f, i18n_plural, i18n_text};

use super::{CliError, Context};

/// Checks the configuration under the context's root, with `file` read
/// last (or as conf.d/`as_name`) where given: a line per problem on stdout and exit 2, or a line
/// that says what is read and exit 0.
///
/// # Errors
/// `file` cannot be read (exit 2), or a problem (exit 2).
pub fn check(ctx: &Context, file: Option<&Path>, as_name: Option<&str>) -> Result<(), CliError> {
    let extra = match file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| CliError::input(i18n_f("cannot read {}: {}", &[&path.display(), &e])))?;
            let checked_as = match as_name {
                Some(name) => ctx.root.path(DROP_IN_DIR).join(name),
                None => path.to_path_buf(),
            };
            Some((checked_as, text))
        }
        None => None,
    };
    let config = Config::load_with(&ctx.root, &ctx.resolver(), extra);
    for problem in &config.problems {
        println!("{problem}");
    }
    if !config.problems.is_empty() {
        return Err(CliError {
            code: 2,
            message: i18n_plural(
                "{n} problem: the helper sets that file aside and applies the others",
                "{n} problems: the helper sets those files aside and applies the others",
                config.problems.len() as u64,
            )
            .arg("n", config.problems.len())
            .localized(),
            hint: None,
        });
    }
    let files: Vec<String> = config.files.iter().map(|f| f.display().to_string()).collect();
    if files.is_empty() {
        println!(
            "{}",
            i18n_f("no configuration files under {}: nothing to check", &[&ctx.root.path("etc/gearshift").display()])
        );
    } else {
        println!("{}", i18n_f("good: {}", &[&files.join(", ")]));
    }
    for rule in &config.rules {
        println!("{}", rule_words(&rule.value, &rule.file));
    }
    Ok(())
}

/// A rule as `config check` lists it: what it follows, what it holds, where.
pub fn rule_words(rule: &Rule, file: &Path) -> String {
    let profile = PanelProfile::from_name(&rule.profile).unwrap_or(PanelProfile::Performance).title();
    let what = gearshift::core::rules::following(rule.program.as_deref(), rule.app_id.as_deref());
    // Translators: a rule of the administrator's configuration; {file} is where it is written.
    i18n_text("rule: while {what} runs, {profile} is held ({file})")
        .arg_text("what", what)
        .arg_text("profile", profile)
        .arg("file", file.display())
        .localized()
}
