//! What the window, the tray and the command line share: the machine read
//! from a root ([`Context`]), with what only the running system can tell
//! (`client::facts`), and the application id. No GTK and no command-line
//! parsing here: the tray imports this, never `ui` or `cli`.

use std::path::Path;

use gearshift::core::custom::{parse_profiles, CustomProfile, PROFILES_FILE};
use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::paths::CPU_DIR;
use gearshift::core::profile::Resolver;
use gearshift::core::root::{Problem, SysRoot};
use gearshift::core::snapshot::STATE_DIR;
use gearshift::i18n::{gettext, i18n_text};

pub use crate::failure::CliError;
pub use crate::hooks::DevHooks;

/// The application id (GApplication, the desktop file, the icon).
#[cfg(feature = "gui")]
pub const APP_ID: &str = "io.github.gearshift.Gearshift";

/// What every reading command needs: the root, the machine, the model
/// table, the custom profiles, and what went wrong reading them.
#[derive(Debug, Clone)]
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
    /// What holds a profile now, as that helper says.
    pub helper_holds: Vec<gearshift::core::status::HoldLine>,
    /// Development and test hooks (the window and the tray set them).
    #[cfg_attr(not(feature = "gui"), allow(dead_code))]
    pub dev: DevHooks,
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
            let facts = gearshift::client::facts::gather(&ctx.root);
            ctx.helper_active = facts.active;
            ctx.conflicts = facts.conflicts;
            ctx.helper_holds = facts.holds;
        } else {
            (ctx.helper_active, ctx.helper_holds) = gearshift::client::facts::served_state(&ctx.root);
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
            Some(dir) => (dir.display().to_string(), SysRoot::open(dir).map_err(|e| CliError::input(e.localized()))?),
            None => ("/".to_owned(), SysRoot::live()),
        };
        if !root.is_live() && !root.path(CPU_DIR).is_dir() {
            // Translators: {dir} is the directory given to --root.
            return Err(CliError::input(
                i18n_text("{dir} is not a machine snapshot: it has no sys/devices/system/cpu.")
                    .arg("dir", &root_arg)
                    .localized(),
            )
            .hint(gettext(
                "A snapshot holds sys/ and proc/ laid out as on a real machine; `gearshift snapshot DIR` makes one.",
            )));
        }
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
            helper_holds: Vec::new(),
            conflicts: Vec::new(),
            dev: DevHooks::default(),
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
