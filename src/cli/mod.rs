//! The `gearshift` command line: reading commands run on the core directly;
//! changing commands go through the helper.

pub mod args;
mod changes;
mod measure;
mod monitor;
mod show;
pub mod table;

use std::path::PathBuf;

use clap::ArgMatches;

use gearshift::i18n::i18n_f;

pub use crate::context::{CliError, Context};

/// Runs a subcommand.
///
/// # Errors
/// The [`CliError`] to print and exit with.
pub fn run(name: &str, sub: &ArgMatches, root: Option<&PathBuf>) -> Result<(), CliError> {
    let flag = |m: &ArgMatches, id: &str| m.try_get_one::<bool>(id).ok().flatten().copied().unwrap_or(false);
    let changes = matches!(
        (name, sub.subcommand_name()),
        ("mode" | "profile" | "epp" | "governor", Some("set")) | ("auto", Some("set" | "off")) | ("measure", _)
    );
    if changes {
        changes::refuse_snapshot(root.map(PathBuf::as_path))?;
    }
    match (name, sub.subcommand()) {
        ("status", _) => show::status(&Context::load(root.map(PathBuf::as_path))?, flag(sub, "json")),
        ("detect", _) => show::detect(&Context::load(root.map(PathBuf::as_path))?, flag(sub, "json")),
        ("profile", Some(("list", m))) => {
            show::profile_list(&Context::load(root.map(PathBuf::as_path))?, flag(m, "json"))
        }
        ("profile", Some(("get", m))) => {
            show::profile_get(&Context::load(root.map(PathBuf::as_path))?, flag(m, "json"))
        }
        ("monitor", _) => monitor::run(
            &Context::load(root.map(PathBuf::as_path))?,
            sub.get_one::<u64>("count").copied(),
            sub.get_one::<u64>("interval_ms").copied().unwrap_or(1000),
            flag(sub, "json"),
        ),
        ("snapshot", _) => {
            let out = sub.get_one::<PathBuf>("outdir").cloned().unwrap_or_default();
            show::snapshot(root.map(PathBuf::as_path), &out)
        }
        ("mode", Some(("set", m))) => changes::mode_set(m.get_one::<String>("mode").map_or("", String::as_str)),
        ("mode", None) => show::mode(&Context::load(root.map(PathBuf::as_path))?, flag(sub, "json")),
        ("profile", Some(("set", m))) => changes::profile_set(m.get_one::<String>("id").map_or("", String::as_str)),
        ("epp", Some(("set", m))) => {
            changes::epp_set(m.get_one::<String>("cpus"), m.get_one::<u32>("value").copied().unwrap_or_default())
        }
        ("governor", Some(("set", m))) => {
            changes::governor_set(m.get_one::<String>("cpus"), m.get_one::<String>("name").map_or("", String::as_str))
        }
        ("auto", Some(("set", m))) => changes::auto_set(
            m.get_one::<String>("on_ac").map_or("", String::as_str),
            m.get_one::<String>("on_battery").map_or("", String::as_str),
        ),
        ("auto", Some(("off", _))) => changes::auto_off(),
        ("auto", Some(("status", m))) => changes::auto_status(flag(m, "json")),
        ("measure", _) => {
            let request = measure::Request {
                workload: sub
                    .get_one::<String>("workload")
                    .and_then(|w| gearshift::core::measure::Workload::from_id(w)),
                command: sub.get_one::<String>("command").cloned(),
                profiles: sub
                    .get_one::<String>("profiles")
                    .map(|p| p.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect())
                    .unwrap_or_default(),
                repeats: sub.get_one::<u64>("repeats").copied().unwrap_or(3) as usize,
                scale: sub.get_one::<f64>("scale").copied().unwrap_or(1.0),
                yes: flag(sub, "yes"),
                json: flag(sub, "json"),
            };
            measure::run(&Context::load(root.map(PathBuf::as_path))?, &request)
        }
        _ => Err(CliError::input(i18n_f("unknown command {}", &[&name]))),
    }
}
