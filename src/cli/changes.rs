//! The changing commands: they go through the helper on the system bus.

use gearshift::core::kernel_own::KERNEL_OWN;
use std::future::Future;

use gearshift::client::{ClientError, Helper};
use gearshift::core::custom::find_profile;
use gearshift::core::parse::parse_cpu_list;
use gearshift::core::profile::BuiltinProfile;
use gearshift::dbus::{ApplySummary, AutoPolicy, Helper1Proxy, HelperError};
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::CliError;

/// A helper failure as the command line reports it.
pub fn to_cli(err: ClientError) -> CliError {
    CliError { code: err.exit_code(), message: err.headline(), hint: Some(err.advice()) }
}

/// Runs one call on the helper, on a small single-threaded runtime.
pub fn call<T, F, Fut>(f: F) -> Result<T, CliError>
where
    F: FnOnce(Helper1Proxy<'static>) -> Fut,
    Fut: Future<Output = Result<T, HelperError>>,
{
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(e.to_string()))?;
    runtime.block_on(Helper::new().call(f)).map_err(to_cli)
}

/// Refuses a change when the machine shown is a snapshot (`--root DIR`,
/// `GEARSHIFT_ROOT`, `--demo`) that the helper does not serve: the change
/// would go to this computer instead. Nothing is sent then.
///
/// # Errors
/// Exit 2, naming the snapshot and what to run instead.
pub fn refuse_snapshot(root: Option<&std::path::Path>) -> Result<(), CliError> {
    let Some(dir) = root else {
        return Ok(());
    };
    let root = gearshift::core::root::SysRoot::open(dir).map_err(|e| CliError::input(e.localized()))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(e.to_string()))?;
    if runtime.block_on(Helper::new().serves(&root)) {
        return Ok(());
    }
    Err(CliError::input(
        // Translators: {dir} is a directory given with --root (or the demo's).
        i18n_text("{dir} is a snapshot, and the helper changes this computer, not the snapshot: nothing was changed.")
            .arg("dir", dir.display())
            .localized(),
    )
    .hint(gettext(
        "--root, GEARSHIFT_ROOT and --demo only show a snapshot. To change this computer, run the command without them.",
    )))
}

/// `auto status` on a snapshot the helper does not serve: the policy is the
/// running helper's, and a snapshot has none to show.
///
/// # Errors
/// Exit 2, saying so, where `root` is such a snapshot.
pub fn snapshot_has_no_policy(root: Option<&std::path::Path>) -> Result<(), CliError> {
    refuse_snapshot(root).map_err(|_| {
        let dir = root.map(|d| d.display().to_string()).unwrap_or_default();
        CliError::input(
            // Translators: {dir} is a directory given with --root (or the demo's).
            i18n_text("{dir} is a snapshot: the AC/battery policy is the running helper's, and a snapshot has none.")
                .arg("dir", dir)
                .localized(),
        )
        .hint(gettext("Run `gearshift auto status` without --root to see this computer's."))
    })
}

fn report(summary: &ApplySummary, what: &str) {
    println!("{}", gearshift::client::applied_words(what, summary));
    warn_unsaved(summary);
}

/// Says on stderr when the helper could not save what it applied.
fn warn_unsaved(summary: &ApplySummary) {
    if let Some(warning) = gearshift::client::unsaved_warning(summary) {
        eprintln!("gearshift: {warning}");
    }
}

/// `gearshift profile set ID`: an id or a name, in any case. The custom
/// profiles are asked of the helper; a word that names no profile is
/// refused here (exit 2), listing the ones there are.
pub fn profile_set(word: &str) -> Result<(), CliError> {
    let customs = match call(|p| async move { p.list_custom_profiles().await }) {
        Ok(listed) => gearshift::dbus::profile::list_from_wire(&listed).unwrap_or_default(),
        // No helper to ask: a word that is no built-in profile is still
        // answered as such, not with the bus's error.
        Err(err) if find_profile(word, &[]).is_none() => {
            let known: Vec<String> =
                BuiltinProfile::ALL.iter().map(|p| format!("{} ({})", p.id(), p.name().localized())).collect();
            return Err(CliError::input(i18n_f("No profile is called {}.", &[&word])).hint(format!(
                "{}
{}",
                i18n_f("The built-in profiles: {}", &[&known.join(", ")]),
                i18n_f("Custom profiles could not be listed: {}", &[&err.message])
            )));
        }
        Err(_) => Vec::new(),
    };
    let Some(id) = find_profile(word, &customs) else {
        let mut known: Vec<String> =
            BuiltinProfile::ALL.iter().map(|p| format!("{} ({})", p.id(), p.name().localized())).collect();
        known.extend(customs.iter().map(|p| format!("{} ({})", p.id, p.name)));
        return Err(CliError::input(i18n_f("No profile is called {}.", &[&word]))
            .hint(i18n_f("The profiles here: {}", &[&known.join(", ")])));
    };
    let summary = call(|p| {
        let id = id.clone();
        async move { p.set_profile(&id).await }
    })?;
    if id == KERNEL_OWN {
        report(&summary, &gettext("The kernel's own values are back"));
        println!(
            "{}",
            gettext("Gearshift applies no profile on resume, hotplug or a power source change until you choose one again (gearshift profile set ID).")
        );
        return Ok(());
    }
    let name = match (BuiltinProfile::from_id(&id), customs.iter().find(|p| p.id == id)) {
        (Some(p), _) => format!("{} ({id})", p.name().localized()),
        (None, Some(custom)) => format!("{} ({id})", custom.name),
        (None, None) => id.clone(),
    };
    report(&summary, &i18n_f("Switched to {}", &[&name]));
    Ok(())
}

/// `gearshift mode set MODE`.
pub fn mode_set(mode: gearshift::core::machine::DriverMode) -> Result<(), CliError> {
    let summary = call(|p| async move { p.set_driver_mode(mode.as_str()).await })?;
    println!("{}", i18n_f("The driver runs in {} mode now.", &[&mode]));
    if summary.changed > 0 && !summary.profile.is_empty() {
        report(&summary, &i18n_f("Profile {} applied again", &[&summary.profile]));
    }
    Ok(())
}

fn cpus_arg(list: Option<&String>) -> Result<Vec<u32>, CliError> {
    match list {
        None => Ok(Vec::new()),
        Some(text) => {
            let cpus = parse_cpu_list(text).map_err(|e| {
                CliError::input(
                    // Translators: {list} is what the person typed; {what} describes the expected form.
                    i18n_text("--cpus {list}: expected {what}").arg("list", text).arg("what", e.what).localized(),
                )
                .hint(gettext("Write CPU lists as the kernel does, for example 0-3,8,10-11."))
            })?;
            if cpus.is_empty() {
                return Err(CliError::input(gettext("--cpus names no CPU")));
            }
            Ok(cpus)
        }
    }
}

/// `gearshift epp set [--cpus LIST] VALUE`.
pub fn epp_set(cpus: Option<&String>, value: u32) -> Result<(), CliError> {
    // Checked here, before the helper is asked (or found missing).
    if value > 255 {
        return Err(CliError::input(i18n_f("EPP is 0 to 255, not {}", &[&value])));
    }
    let cpus = cpus_arg(cpus)?;
    let summary = call(|p| async move { p.set_epp(&cpus, value).await })?;
    report(&summary, &i18n_f("EPP {} set", &[&value]));
    Ok(())
}

/// `gearshift governor set [--cpus LIST] NAME`.
pub fn governor_set(cpus: Option<&String>, name: &str) -> Result<(), CliError> {
    let cpus = cpus_arg(cpus)?;
    let summary = call(|p| {
        let name = name.to_owned();
        async move { p.set_governor(&cpus, &name).await }
    })?;
    report(&summary, &i18n_f("Governor {} set", &[&name]));
    Ok(())
}

/// `gearshift auto set --on-ac ID --on-battery ID`.
pub fn auto_set(on_ac: &str, on_battery: &str) -> Result<(), CliError> {
    let summary = call(|p| {
        let (ac, battery) = (on_ac.to_owned(), on_battery.to_owned());
        async move { p.set_auto_policy(&ac, &battery).await }
    })?;
    println!("{}", switching_is_on(on_ac, on_battery));
    warn_unsaved(&summary);
    Ok(())
}

/// "Automatic switching is on: ..." for `auto set` and `auto status`.
fn switching_is_on(on_ac: &str, on_battery: &str) -> String {
    // Translators: Profile ids or names.
    i18n_text("Automatic switching is on: {on_ac} on AC power, {on_battery} on battery.")
        .arg("on_ac", on_ac)
        .arg("on_battery", on_battery)
        .localized()
}

/// `gearshift auto off`.
pub fn auto_off() -> Result<(), CliError> {
    let summary = call(|p| async move { p.disable_auto_policy().await })?;
    println!("{}", gettext("Automatic switching is off; the current profile stays."));
    warn_unsaved(&summary);
    Ok(())
}

/// `gearshift auto status`.
pub fn auto_status(json: bool) -> Result<(), CliError> {
    let AutoPolicy { enabled, on_ac, on_battery } =
        call(|p| async move { p.auto_policy().await.map_err(HelperError::from) })?;
    if json {
        let value = serde_json::json!({"enabled": enabled, "on_ac": on_ac, "on_battery": on_battery});
        println!("{value}");
    } else if enabled {
        println!("{}", switching_is_on(&on_ac, &on_battery));
    } else {
        println!(
            "{}",
            // Translators: Profile ids or names.
            i18n_text("Automatic switching is off (it would use {on_ac} on AC power, {on_battery} on battery).")
                .arg("on_ac", &on_ac)
                .arg("on_battery", &on_battery)
                .localized()
        );
    }
    Ok(())
}
