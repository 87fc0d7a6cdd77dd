//! `gearshift holds`: what holds a profile now (`gearshift launch`, the
//! rules' agent, GameMode, the desktop's holds), and the rules in effect
//! with the files that hold them (docs/rules.md).

use gearshift::client::agent::{Places, RulesFound};
use gearshift::core::status::{HoldLine, RuleLine};
use gearshift::i18n::{gettext, i18n_text};

use super::{CliError, Context};

/// Prints the holds and the rules (`--json`: one object).
///
/// # Errors
/// Nothing: what cannot be asked is said.
pub fn run(ctx: &Context, json: bool) -> Result<(), CliError> {
    let holds = gearshift::client::facts::ask_serving(&ctx.root, |p| async move { Ok(p.holds().await?) })
        .map(|list| list.into_iter().map(HoldLine::from).collect::<Vec<_>>());
    let found = RulesFound::read(&Places::of_session(ctx.root.base()));
    if json {
        // The same lines `status --json` has.
        let value = serde_json::json!({
            "helper": holds.is_some(),
            "holds": holds.as_deref().unwrap_or_default(),
            "rules": found.rules.iter().map(|(rule, file)| RuleLine::of(rule, file)).collect::<Vec<_>>(),
            "locked_by": found.locked_by,
            "problems": found.problems,
        });
        println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
        return Ok(());
    }
    match &holds {
        None => println!("{}", gettext("No helper serves this machine: nothing can hold a profile.")),
        Some(holds) if holds.is_empty() => println!("{}", gettext("Nothing holds a profile now.")),
        Some(holds) => {
            for hold in holds {
                println!("{}", hold.sentence().localized());
            }
        }
    }
    if let Some(file) = &found.locked_by {
        println!(
            "{}",
            i18n_text("Your own rules are off: your administrator's lock in {file} leaves only theirs.")
                .arg("file", file.display())
                .localized()
        );
    }
    if found.rules.is_empty() {
        println!("{}", gettext("No rules (docs/rules.md: [[rule]] tables in ~/.config/gearshift/rules.toml)."));
    }
    for (rule, file) in &found.rules {
        println!("{}", super::config::rule_words(rule, file));
    }
    for problem in &found.problems {
        eprintln!("gearshift: {problem}");
    }
    Ok(())
}
