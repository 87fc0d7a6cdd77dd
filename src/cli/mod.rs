//! The `gearshift` command line: reading commands run on the core directly;
//! changing commands go through the helper.

pub mod args;
mod changes;
mod monitor;
mod show;
pub mod table;

use std::fmt;
use std::path::{Path, PathBuf};

use clap::ArgMatches;

use gearshift::core::custom::{parse_profiles, CustomProfile, PROFILES_FILE};
use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::profile::Resolver;
use gearshift::core::root::{Problem, SysRoot};
use gearshift::core::snapshot::STATE_DIR;
use gearshift::i18n::{gettext, i18n_f};

/// A failure to report: the message, an optional hint, and the exit status.
#[derive(Debug)]
pub struct CliError {
    /// 1: refused or failed; 2: bad usage or unreadable input.
    pub code: u8,
    /// What failed.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl CliError {
    /// A refused or failed operation (exit 1).
    pub fn failed(message: impl Into<String>) -> Self {
        CliError { code: 1, message: message.into(), hint: None }
    }

    /// Bad usage or unreadable input (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        CliError { code: 2, message: message.into(), hint: None }
    }

    /// Adds what to do.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n{hint}")?;
        }
        Ok(())
    }
}

/// What every reading command needs: the root, the machine, the model
/// table, the custom profiles, and what went wrong reading them.
pub struct Context {
    /// The root as given (for display).
    pub root_arg: String,
    /// The root.
    pub root: SysRoot,
    /// The machine.
    pub machine: Machine,
    /// The model table with overrides.
    pub table: ModelTable,
    /// Custom profiles.
    pub customs: Vec<CustomProfile>,
    /// Problems outside the machine's own files (overrides, profiles file).
    pub extra_problems: Vec<Problem>,
    /// The helper's active profile (live machine only, when a helper answers).
    pub helper_active: Option<String>,
    /// Other power managers (live machine only).
    pub conflicts: Vec<String>,
}

impl Context {
    /// Reads everything under the root chosen on the command line.
    ///
    /// # Errors
    /// The root directory cannot be used (exit 2).
    pub fn load(root: Option<&Path>) -> Result<Context, CliError> {
        let mut ctx = Context::load_without_helper(root)?;
        if ctx.root.is_live() {
            let facts = changes::live_facts(&ctx.root);
            ctx.helper_active = facts.active;
            ctx.conflicts = facts.conflicts;
        }
        Ok(ctx)
    }

    /// Like [`Context::load`], without asking the helper (the window asks
    /// it asynchronously).
    ///
    /// # Errors
    /// The root directory cannot be used (exit 2).
    pub fn load_without_helper(root: Option<&Path>) -> Result<Context, CliError> {
        let (root_arg, root) = match root {
            Some(dir) => (dir.display().to_string(), SysRoot::open(dir).map_err(|e| CliError::input(e.to_string()))?),
            None => ("/".to_owned(), SysRoot::live()),
        };
        let machine = Machine::read(&root);
        let (table, mut extra_problems) = ModelTable::load(&root);
        let customs = load_customs(&root, &mut extra_problems);
        Ok(Context {
            root_arg,
            root,
            machine,
            table,
            customs,
            extra_problems,
            helper_active: None,
            conflicts: Vec::new(),
        })
    }

    /// A resolver for the machine.
    pub fn resolver(&self) -> Resolver<'_> {
        Resolver::new(&self.machine, &self.table)
    }

    /// Every problem met while reading.
    pub fn problems(&self) -> Vec<Problem> {
        let mut all = self.machine.problems.clone();
        all.extend(self.extra_problems.iter().cloned());
        all
    }

    /// Exit 2 with the problems listed, if there were any: the output was
    /// printed, but it rests on input that could not be read.
    ///
    /// # Errors
    /// One [`CliError`] (exit 2) naming every unreadable file.
    pub fn check_problems(&self) -> Result<(), CliError> {
        let problems = self.problems();
        if problems.is_empty() {
            return Ok(());
        }
        let mut message = gettext("Some of the machine's files could not be read or understood:");
        for p in &problems {
            message.push_str("\n  ");
            message.push_str(&p.to_string());
        }
        Err(CliError::input(message).hint(gettext(
            "What was readable is shown above. If this is a snapshot, take it again with `gearshift snapshot DIR`.",
        )))
    }
}

fn load_customs(root: &SysRoot, problems: &mut Vec<Problem>) -> Vec<CustomProfile> {
    let rel = format!("{STATE_DIR}/{PROFILES_FILE}");
    match root.read_text(&rel, 1 << 20) {
        Ok(Some(text)) => match parse_profiles(&text) {
            Ok(profiles) => profiles,
            Err(err) => {
                problems.push(Problem::new(&root.path(&rel), err.to_string()));
                Vec::new()
            }
        },
        Ok(None) => Vec::new(),
        Err(problem) => {
            problems.push(problem);
            Vec::new()
        }
    }
}

/// Runs a subcommand.
///
/// # Errors
/// The [`CliError`] to print and exit with.
pub fn run(name: &str, sub: &ArgMatches, root: Option<&PathBuf>) -> Result<(), CliError> {
    let flag = |m: &ArgMatches, id: &str| m.try_get_one::<bool>(id).ok().flatten().copied().unwrap_or(false);
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
        _ => Err(CliError::input(i18n_f("unknown command {}", &[&name]))),
    }
}
