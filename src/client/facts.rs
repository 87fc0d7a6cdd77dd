//! What only the running system can tell a command that reads the machine:
//! the helper's active profile, and the other power managers (by process,
//! unit, and who owns the power panel's bus names).

use super::Helper;
use crate::core::root::SysRoot;
use crate::core::status::HoldLine;
use crate::dbus::Helper1Proxy;

/// What only the running system can tell: the helper's active profile
/// (if a helper answers) and the other power managers (by process, unit,
/// and who owns the power panel's bus names).
pub struct LiveFacts {
    /// The helper's active profile.
    pub active: Option<String>,
    /// Other power managers, by program (`core::conflicts::Program::name`).
    pub conflicts: Vec<String>,
    /// What holds a profile now, as the helper says.
    pub holds: Vec<HoldLine>,
}

/// Gathers [`LiveFacts`] through the process's [`Helper`] handle, on a
/// runtime of its own (the command line's and the tray's first call):
/// whatever cannot be asked is left out.
pub fn gather(root: &SysRoot) -> LiveFacts {
    let mut conflicts = crate::core::conflicts::programs_found(root, &[]);
    let mut add = |program: &str| {
        if !conflicts.iter().any(|c| c == program) {
            conflicts.push(program.to_owned());
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
    let helper = Helper::new();
    let mut holds = Vec::new();
    let active = runtime.ok().and_then(|rt| {
        rt.block_on(async {
            let connection = helper.connection().await.ok()?;
            let dbus = zbus::fdo::DBusProxy::new(&connection).await.ok()?;
            let owner_of = |name: &'static str| {
                let dbus = dbus.clone();
                async move {
                    let name = zbus::names::BusName::try_from(name).ok()?;
                    dbus.get_name_owner(name).await.ok().map(|o| o.to_string())
                }
            };
            let helper_owner = owner_of(crate::dbus::HELPER_NAME).await;
            for (name, id) in crate::core::conflicts::BUS_NAMES {
                let Some(owner) = owner_of(name).await else { continue };
                if Some(&owner) == helper_owner.as_ref() {
                    continue;
                }
                // Who it is, asked of the bus: tlp-pd and tuned-ppd own the
                // power panel's names too.
                let program = match zbus::names::BusName::try_from(name) {
                    Ok(bus_name) => crate::dbus::proxy::owner_program(&dbus, bus_name).await,
                    Err(_) => None,
                };
                add(program.as_deref().unwrap_or(id));
            }
            let proxy = Helper1Proxy::new(&connection).await.ok()?;
            for program in crate::dbus::proxy::conflict_programs(&proxy).await.unwrap_or_default() {
                add(&program);
            }
            holds = super::events::holds(&proxy).await;
            proxy.active_profile().await.ok().filter(|id| !id.is_empty())
        })
    });
    LiveFacts { active, conflicts, holds }
}

/// The active profile and the holds of a helper that serves `root` (a
/// snapshot root under test, or a fleet's staging root), asked only where
/// one runs: none where none answers or the one that runs serves another
/// root.
pub fn served_state(root: &SysRoot) -> (Option<String>, Vec<HoldLine>) {
    let asked = ask_serving(root, |proxy| async move {
        let holds = super::events::holds(&proxy).await;
        Ok((proxy.active_profile().await?, holds))
    });
    match asked {
        Some((active, holds)) => ((!active.is_empty()).then_some(active), holds),
        None => (None, Vec::new()),
    }
}

/// What `ask` learns from the helper that serves `root` (the live system,
/// or the snapshot root it was started on), on a runtime of its own, for
/// the command line: `None` where no helper runs, the one that runs
/// serves another root, or the call fails. Asking starts nothing.
pub fn ask_serving<T, F, Fut>(root: &SysRoot, ask: F) -> Option<T>
where
    F: FnOnce(Helper1Proxy<'static>) -> Fut,
    Fut: std::future::Future<Output = Result<T, crate::dbus::HelperError>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
    runtime.block_on(async {
        let helper = Helper::new();
        if !helper.running().await || !helper.serves(root).await {
            return None;
        }
        helper.call(ask).await.ok()
    })
}
