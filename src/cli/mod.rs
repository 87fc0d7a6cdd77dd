//! The `gearshift` command line: reading commands run on the core directly;
//! changing commands go through the helper.

pub mod args;
mod changes;
mod config;
mod custom;
mod holds;
pub mod launch;
mod measure;
mod metrics;
pub mod mistakes;
mod monitor;
mod show;
pub mod table;
mod textfile;
mod values;

use std::path::Path;

use args::{AutoAction, Command, ConfigAction, EppAction, GovernorAction, ModeAction, ProfileAction, Repeats};
use gearshift::core::measure::Rounds;

pub use crate::context::{CliError, Context};

/// Runs a subcommand.
///
/// # Errors
/// The [`CliError`] to print and exit with.
pub fn run(command: Command, root: Option<&Path>) -> Result<(), CliError> {
    let changes = matches!(
        &command,
        Command::Mode { action: Some(_), .. }
            | Command::Profile {
                action: ProfileAction::Set { .. } | ProfileAction::Save(_) | ProfileAction::Delete { .. }
            }
            | Command::Epp { .. }
            | Command::Governor { .. }
            | Command::Auto { action: AutoAction::Set { .. } | AutoAction::Off }
            | Command::Measure { .. }
    );
    if changes {
        changes::refuse_snapshot(root)?;
    }
    let load = || Context::load(root);
    match command {
        Command::Status(o) => show::status(&load()?, o.json),
        Command::Detect(o) => show::detect(&load()?, o.json),
        Command::Profile { action: ProfileAction::List(o) } => {
            show::profile_list(&custom::with_helper_customs(load()?), o.json)
        }
        Command::Profile { action: ProfileAction::Get(o) } => show::profile_get(&load()?, o.json),
        Command::Profile { action: ProfileAction::Set { id } } => changes::profile_set(&id),
        Command::Profile { action: ProfileAction::Save(args) } => custom::profile_save(&load()?, args),
        Command::Profile { action: ProfileAction::Delete { name } } => custom::profile_delete(&name),
        Command::Profile { action: ProfileAction::Show { name, json } } => {
            custom::profile_show(&custom::with_helper_customs(load()?), &name, json.json)
        }
        Command::Monitor { count, interval_ms, json } => monitor::run(&load()?, count, interval_ms, json),
        Command::Snapshot { outdir } => show::snapshot(root, &outdir),
        Command::Launch(args) => launch::run(args, root),
        Command::Holds(o) => holds::run(&load()?, o.json),
        Command::Agent => {
            let places = gearshift::client::agent::Places::of_session(root.unwrap_or(std::path::Path::new("/")));
            // A thread of the blocking pool (the bus's address lookup) goes
            // at once after use, not 10 s later: the agent wakes for nothing.
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .thread_keep_alive(std::time::Duration::from_millis(200))
                .build()
                .map_err(|e| CliError::failed(e.to_string()))?;
            runtime.block_on(gearshift::client::agent::run(places)).map_err(|e| CliError::failed(e.to_string()))
        }
        Command::Config { action: ConfigAction::Check { file, as_name } } => {
            config::check(&load()?, file.as_deref(), as_name.as_deref())
        }
        Command::Metrics { output, textfile, from } => {
            let target = metrics::Target { output: output.as_deref(), textfile, from: from.as_deref() };
            metrics::run(&load()?, &target)
        }
        Command::Mode { action: Some(ModeAction::Set { mode }), .. } => changes::mode_set(mode),
        Command::Mode { action: None, json } => show::mode(&load()?, json.json),
        Command::Epp { action: EppAction::Set { cpus, value } } => changes::epp_set(cpus.cpus.as_ref(), value),
        Command::Governor { action: GovernorAction::Set { cpus, name } } => {
            changes::governor_set(cpus.cpus.as_ref(), &name)
        }
        Command::Auto { action: AutoAction::Set { on_ac, on_battery } } => changes::auto_set(&on_ac, &on_battery),
        Command::Auto { action: AutoAction::Off } => changes::auto_off(),
        Command::Auto { action: AutoAction::Status(o) } => {
            changes::snapshot_has_no_policy(root)?;
            changes::auto_status(o.json)
        }
        Command::Measure { workload, command, profiles, repeats, max_repeats, scale, yes, json } => {
            let rounds = match repeats {
                Repeats::Auto => Rounds::Auto { min: 3, max: max_repeats as usize },
                Repeats::Fixed(n) => Rounds::Fixed(n as usize),
            };
            let request = measure::Request {
                workload: gearshift::core::measure::Workload::from_id(&workload),
                command,
                profiles: profiles
                    .map(|p| p.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect())
                    .unwrap_or_default(),
                rounds,
                scale,
                yes,
                json: json.json,
            };
            measure::run(&custom::with_helper_customs(load()?), &request)
        }
    }
}
