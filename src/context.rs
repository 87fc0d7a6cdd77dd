//! What the window, the tray and the command line share: the machine read
//! from a root ([`Context`]), what only the running system can tell
//! ([`LiveFacts`]), the failure they report ([`CliError`]) and the
//! application id. No GTK and no command-line parsing here: the tray
//! imports this, never `ui` or `cli`.

use std::fmt;
use std::path::Path;

use gearshift::core::custom::{parse_profiles, CustomProfile, PROFILES_FILE};
use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::paths::CPU_DIR;
use gearshift::core::profile::Resolver;
use gearshift::core::root::{Problem, SysRoot};
use gearshift::core::snapshot::STATE_DIR;
use gearshift::dbus::Helper1Proxy;
use gearshift::i18n::{gettext, i18n_text};

/// The application id (GApplication, the desktop file, the icon).
#[cfg(feature = "gui")]
pub const APP_ID: &str = "io.github.gearshift.Gearshift";

/// The development and test hooks, read from `GEARSHIFT_*` variables once,
/// in `main`, and nowhere else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DevHooks {
    /// `GEARSHIFT_SIZE=WxH`: the window's size (screenshots).
    pub size: Option<(i32, i32)>,
    /// `GEARSHIFT_PAGE`: the page to open on (screenshots).
    pub page: Option<String>,
    /// `GEARSHIFT_REPORT_FIRST_FRAME`: print when the first frame was drawn
    /// (the bench).
    pub report_first_frame: bool,
    /// `GEARSHIFT_LAB_SCALE` (0.001 to 1): multiplies the Efficiency page's
    /// work, so that tests and screenshots measure in seconds. Kept in
    /// thousandths.
    pub lab_scale_milli: Option<u32>,
    /// `GEARSHIFT_TOAST_SECONDS` (0 to 60): how long toasts stay, 0 until
    /// dismissed, so that a test can read one with a screen reader's slow
    /// walk of the tree and press its buttons.
    pub toast_seconds: Option<u32>,
    /// `GEARSHIFT_STATE_FILE`: where the window keeps what it shows, as
    /// JSON, for tests to wait on (src/ui/state.rs).
    pub state_file: Option<std::path::PathBuf>,
    /// `GEARSHIFT_LAB_SHOW_KEPT`: the Efficiency page opens on the newest
    /// kept measurement (screenshots of a result).
    pub lab_show_kept: bool,
}

impl DevHooks {
    /// Reads the variables.
    #[cfg(feature = "gui")]
    pub fn from_env() -> DevHooks {
        let size = std::env::var("GEARSHIFT_SIZE").ok().and_then(|v| {
            let (w, h) = v.split_once('x')?;
            Some((w.parse::<i32>().ok()?, h.parse::<i32>().ok()?))
        });
        DevHooks {
            size,
            page: std::env::var("GEARSHIFT_PAGE").ok(),
            report_first_frame: std::env::var_os("GEARSHIFT_REPORT_FIRST_FRAME").is_some(),
            lab_scale_milli: std::env::var("GEARSHIFT_LAB_SCALE")
                .ok()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.001 && *v <= 1.0)
                .map(|v| (v * 1000.0).round() as u32),
            toast_seconds: std::env::var("GEARSHIFT_TOAST_SECONDS")
                .ok()
                .and_then(|v| v.parse::<u32>().ok())
                .filter(|s| *s <= 60),
            state_file: std::env::var_os("GEARSHIFT_STATE_FILE")
                .filter(|p| !p.is_empty())
                .map(std::path::PathBuf::from),
            lab_show_kept: std::env::var_os("GEARSHIFT_LAB_SHOW_KEPT").is_some(),
        }
    }
}

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
            let facts = live_facts(&ctx.root);
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

/// What only the running system can tell: the helper's active profile
/// (if a helper answers) and the other power managers (by process, unit,
/// and who owns the power panel's bus names).
pub struct LiveFacts {
    /// The helper's active profile.
    pub active: Option<String>,
    /// Other power managers (ids in docs/interfaces.md).
    pub conflicts: Vec<String>,
}

/// Gathers [`LiveFacts`]; whatever cannot be asked is left out.
pub fn live_facts(root: &gearshift::core::root::SysRoot) -> LiveFacts {
    let mut conflicts: Vec<String> =
        gearshift::core::conflicts::detect(root, &[]).into_iter().map(|c| c.id.to_owned()).collect();
    let mut add = |id: &str| {
        if !conflicts.iter().any(|c| c == id) {
            conflicts.push(id.to_owned());
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let active = runtime.ok().and_then(|rt| {
        rt.block_on(async {
            let connection = zbus::Connection::system().await.ok()?;
            let dbus = zbus::fdo::DBusProxy::new(&connection).await.ok()?;
            let owner_of = |name: &'static str| {
                let dbus = dbus.clone();
                async move {
                    let name = zbus::names::BusName::try_from(name).ok()?;
                    dbus.get_name_owner(name).await.ok().map(|o| o.to_string())
                }
            };
            let helper_owner = owner_of(gearshift::dbus::HELPER_NAME).await;
            for (name, id) in gearshift::core::conflicts::BUS_NAMES {
                if let Some(owner) = owner_of(name).await {
                    if Some(&owner) != helper_owner.as_ref() {
                        add(id);
                    }
                }
            }
            let proxy = Helper1Proxy::new(&connection).await.ok()?;
            for id in proxy.conflicts().await.unwrap_or_default() {
                add(&id);
            }
            proxy.active_profile().await.ok().filter(|id| !id.is_empty())
        })
    });
    LiveFacts { active, conflicts }
}
