//! The privileged helper: a D-Bus system service that polkit guards.
//!
//! - [`engine`]: the state and every operation on it;
//! - [`control`]: which profile should be active (holds, power source);
//! - [`service`]: the `io.github.gearshift.Helper1` interface;
//! - [`ppd`]: the desktop power panel's PowerProfiles API;
//! - [`watch`]: UPower, logind, holders leaving, CPU hotplug;
//! - [`inbox`]: the bus socket, refusing oversized calls before zbus reads them;
//! - [`request`]: every request's first steps (sizes, calls in flight, lock, polkit);
//! - [`properties`]: `org.freedesktop.DBus.Properties`, bounded like the rest;
//! - [`authorize`]: polkit checks for the caller of each method;
//! - [`blocklist`]: power-profiles-daemon's daemon options;
//! - [`validate`]: every request checked before anything is written;
//! - [`apply`]: all-or-nothing sysfs writes;
//! - [`state`]: the saved state, replaced atomically; [`saver`] saves it in
//!   the background;
//! - [`energy`]: RAPL readings, rate-limited;
//! - [`memory`]: what the idle helper keeps resident;
//! - [`takeover`]: power-profiles-daemon's last choices, at the first start;
//! - [`writes`]: every file it may write (what its unit must allow);
//! - [`error`]: the D-Bus errors.
//!
//! It links the core and zbus, never GTK.

pub mod apply;
pub mod authorize;
pub mod blocklist;
pub mod boot_values;
pub mod control;
pub mod dispatch;
pub mod energy;
pub mod engine;
pub mod error;
pub mod firmware;
pub mod inbox;
pub mod journal;
pub mod memory;
pub mod ppd;
pub mod properties;
pub mod quota;
pub mod request;
pub mod saver;
pub mod service;
pub mod state;
pub mod takeover;
pub mod validate;
pub mod watch;
pub mod writes;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context as _};
use zbus::fdo::{RequestNameFlags, RequestNameReply};

use crate::core::models::ModelTable;
use crate::core::profile::BuiltinProfile;
use crate::core::root::SysRoot;
use crate::dbus::{HELPER_NAME, HELPER_PATH};
use engine::Engine;
pub use memory::tune_allocator;
use service::Helper1;
use state::Store;

/// Locks a mutex of the helper's: a panic while holding one must not take
/// the helper down with it.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The helper's one thread for blocking disk and /proc work: the state
/// files and the scan for other power managers (src/worker.rs).
static DISK: crate::worker::Worker = crate::worker::Worker::new("gearshift-disk");

/// Runs blocking disk or /proc work on the helper's disk thread, off the
/// async runtime, in the order asked.
pub(crate) async fn off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, crate::worker::Lost> {
    DISK.run(work).await
}

/// [`off_runtime`] for work that answers an I/O result (the state files):
/// work lost to a panic is an I/O error too.
pub(crate) async fn disk_io<T: Send + 'static>(
    work: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    off_runtime(work).await.unwrap_or_else(|lost| Err(std::io::Error::other(lost)))
}

/// Where the helper keeps its state unless told otherwise.
pub const DEFAULT_STATE_DIR: &str = "/var/lib/gearshift";

/// How the helper was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The root to read and write (`/` in production, a snapshot in tests).
    pub root: PathBuf,
    /// The state directory.
    pub state_dir: PathBuf,
    /// What power-profiles-daemon's options turned off.
    pub blocklist: blocklist::Blocklist,
    /// `-v`: debug messages in the log too.
    pub verbose: bool,
}

/// Serves on the system bus until SIGTERM or SIGINT.
///
/// # Errors
/// The root cannot be opened, the bus cannot be reached, or another
/// process owns the helper's name.
pub async fn run(options: Options) -> anyhow::Result<()> {
    // First: a SIGTERM while starting (the names may already be visible)
    // is then a clean stop once started, not death by the default action.
    let shutdown = shutdown_signals()?;
    // SIGHUP reads the administrator's configuration again (the unit's
    // ExecReload=); caught from the start, as its default action kills.
    let hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let root = SysRoot::open(&options.root)?;
    let (table, table_problems) = ModelTable::load(&root);
    for problem in &table_problems {
        log::warn!("{problem}");
    }
    let store = Store::new(&options.state_dir);
    let mut loaded = store.load();
    for note in &loaded.set_aside {
        log::warn!("{note}");
    }
    if loaded.nothing_chosen && loaded.state.active_profile.is_none() {
        // First start: the files hold whatever the kernel booted with, and
        // ActiveProfile must not claim a profile they do not hold. The
        // user's last choice in power-profiles-daemon, if it left one, or
        // Balanced, with the model's own values, is applied (unless another
        // power manager runs), as power-profiles-daemon does.
        let ppd = takeover::read(&root).unwrap_or_default();
        let profile = ppd.profile.unwrap_or(BuiltinProfile::BalancePerformance);
        if ppd.is_empty() {
            log::info!("no saved state: applying the Balanced profile");
        } else {
            log::info!(
                "no saved state: taking over power-profiles-daemon's last choices from /{}: profile {}{}{}",
                takeover::PPD_STATE_FILE,
                profile.id(),
                ppd.battery_aware
                    .map(|on| format!(", battery awareness {}", if on { "on" } else { "off" }))
                    .unwrap_or_default(),
                ppd.actions
                    .iter()
                    .map(|(a, on)| format!(", {a} {}", if *on { "on" } else { "off" }))
                    .collect::<String>(),
            );
        }
        loaded.state.active_profile = Some(profile.id().to_owned());
        loaded.state.by_default = true;
        loaded.state.battery_aware = ppd.battery_aware;
        loaded.state.actions = ppd.actions;
    }
    // The firmware's files are watched before the machine is read: a
    // driver that loads meanwhile is then seen (helper::firmware).
    let firmware_watch = firmware::watch(&root);
    let connection = inbox::connect_system_bus().await.context("cannot connect to the system bus")?;
    let blocklist = options.blocklist;
    blocklist.log();
    let engine =
        Arc::new(Engine::new(root, table, store, (loaded.state, loaded.profiles), blocklist, connection.clone()));
    connection.object_server().at(HELPER_PATH, Helper1 { engine: engine.clone() }).await?;
    service::subscribe(&engine);
    ppd::serve(&connection, &engine).await?;
    // zbus's own Properties interface repeats what it is sent: the three
    // objects get a bounded one (`properties`).
    for served in [properties::Served::Helper1, properties::Served::UPower, properties::Served::Hadess] {
        properties::serve(&connection, served).await?;
    }
    // Subscribed before the name is taken: a signal sent once a client has
    // found the helper waits in its stream until the start is done.
    let signals = watch::subscribe(engine.clone()).await?;
    let reply = connection
        .request_name_with_flags(HELPER_NAME, RequestNameFlags::DoNotQueue.into())
        .await
        .with_context(|| format!("cannot own {HELPER_NAME} (is the bus policy installed?)"))?;
    if reply != RequestNameReply::PrimaryOwner {
        bail!("another process already owns {HELPER_NAME}");
    }
    let panel_served_elsewhere = watch::panel_names_served_elsewhere(&engine).await;
    // A measurement that lasted when the helper stopped: taken up again,
    // or (its client gone) ended, so that the start puts the choice back.
    engine.resume_measurement(loaded.lease.take()).await;
    tokio::spawn(reload_on_hangup(engine.clone(), hangup));
    tokio::spawn(watch::uevents(engine.clone(), watch::listen_uevents()));
    tokio::spawn(firmware::follow(engine.clone(), firmware_watch));
    // The administrator's configuration (docs/fleet.md), then boot (the
    // unit is enabled for it) or restart: the saved choice again.
    engine.load_config().await;
    engine.reapply("at start", false).await;
    // The desktop's names only now, so that whoever waits for them reads
    // the profile in effect.
    if !panel_served_elsewhere {
        watch::take_panel_names(&engine).await;
    }
    tokio::spawn(memory::give_back_when_settled());
    // Losing the bus is fatal: off the bus nobody can reach the helper, and
    // exiting lets D-Bus activation or systemd start a fresh one.
    let result = tokio::select! {
        lost = signals.follow() => lost.context("gearshift-helper lost the system bus"),
        stop = wait_for_shutdown(shutdown) => stop,
    };
    engine.flush().await;
    result
}

/// Reads the administrator's configuration again on each SIGHUP.
async fn reload_on_hangup(engine: Arc<Engine>, mut hangup: tokio::signal::unix::Signal) {
    while hangup.recv().await.is_some() {
        log::info!("SIGHUP: reading the administrator's configuration again");
        engine.reload_config("the configuration was reloaded (SIGHUP)").await;
    }
}

/// SIGTERM and SIGINT, caught from now on.
fn shutdown_signals() -> anyhow::Result<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)> {
    use tokio::signal::unix::{signal, SignalKind};
    Ok((signal(SignalKind::terminate())?, signal(SignalKind::interrupt())?))
}

async fn wait_for_shutdown(
    (mut term, mut int): (tokio::signal::unix::Signal, tokio::signal::unix::Signal),
) -> anyhow::Result<()> {
    tokio::select! {
        _ = term.recv() => {},
        _ = int.recv() => {},
    }
    Ok(())
}
