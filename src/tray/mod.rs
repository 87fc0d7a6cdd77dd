//! `gearshift --tray`: a StatusNotifierItem (ksni), for KDE Plasma, XFCE
//! and GNOME with the AppIndicator extension.
//!
//! It loads no GTK: the window is another `gearshift` process, started (or
//! raised: GApplication keeps one instance) on request. The tray holds
//! plain state and a channel sender, never widgets; it learns of changes
//! from the helper's signals, so it does nothing while nothing changes.
//! The firmware's platform profile and lap sensor are read again (a few
//! small files) only when the helper says something changed.
//! Package power is measured only when the menu opens.

use gearshift::core::kernel_own::KERNEL_OWN;
use gearshift::core::profile_id::ProfileId;
use std::process::ExitCode;
use std::time::Duration;

use ksni::TrayMethods;
use tokio::sync::{mpsc, watch};

use gearshift::client::events::{self, HelperEvent, PowerMeter};
use gearshift::client::options::PowerOption;
use gearshift::client::session::{InEffect, Link, Session};
use gearshift::client::{ClientError, Helper};
use gearshift::core::parse::parse_flag;
use gearshift::core::paths::DYTC_LAPMODE;
use gearshift::core::platform::PlatformProfile;
use gearshift::core::profile::BuiltinProfile;
use gearshift::core::root::{Probe, SysRoot};
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use crate::autostart;
use crate::context::Context;

mod menu;
mod panel;

/// What a menu item asks for; handled outside the tray's callbacks.
#[derive(Debug)]
enum Action {
    Switch(String),
    Automatic(bool),
    /// End a choice by hand: the AC/battery policy chooses again.
    ReturnToAutomatic,
    /// Battery awareness or an action, on or off.
    Option(PowerOption, bool),
    Autostart(bool),
    Open,
    MeasurePower,
    Quit,
}

/// The tray's state: plain data and a sender.
pub struct GearshiftTray {
    actions: mpsc::UnboundedSender<Action>,
    /// (id, display name) of every profile.
    profiles: Vec<(String, String)>,
    /// How the desktop's power menu shows a profile, by id, where that is
    /// another name.
    menu_words: Vec<(String, String)>,
    /// What the helper has said, folded as the window folds it.
    session: Session,
    /// The profile the files held at start, until the helper says.
    at_start: Option<String>,
    /// Why nothing can be switched from here at all (a snapshot, nothing
    /// to tune), where that is so.
    fixed: Option<String>,
    /// The last failed request from the menu, until the session changes.
    failed: Option<String>,
    codename: String,
    /// The firmware's platform profile now (`None` where there is none).
    platform: Option<String>,
    /// The machine sits on a lap and the firmware limits performance.
    on_lap: bool,
    power: Option<f64>,
    /// The machine has a battery of its own: battery awareness is offered.
    battery: bool,
    autostart: bool,
    icon_path: String,
}

/// The icon for a profile (symbolic icons shipped in `data/icons`).
pub fn icon_for(active: Option<&str>) -> &'static str {
    match active.filter(|id| !id.is_empty()).map(BuiltinProfile::from_id) {
        Some(Some(BuiltinProfile::Performance)) => "io.github.gearshift.Gearshift-performance-symbolic",
        Some(Some(BuiltinProfile::BalancePerformance)) => "io.github.gearshift.Gearshift-balanced-symbolic",
        Some(Some(BuiltinProfile::BalancePower)) => "io.github.gearshift.Gearshift-efficient-symbolic",
        Some(Some(BuiltinProfile::Power)) => "io.github.gearshift.Gearshift-power-saver-symbolic",
        Some(None) => "io.github.gearshift.Gearshift-custom-symbolic",
        None => "io.github.gearshift.Gearshift-symbolic",
    }
}

impl GearshiftTray {
    fn send(&self, action: Action) {
        let _ = self.actions.send(action);
    }

    fn name_of(&self, id: &str) -> String {
        self.profiles.iter().find(|(p, _)| p == id).map_or_else(|| id.to_owned(), |(_, n)| n.clone())
    }

    /// Switching from the menu can go through.
    fn helper_ok(&self) -> bool {
        self.fixed.is_none() && self.session.can_switch() && self.session.link != Link::Waiting
    }

    /// Takes the profiles to offer ([`menu_lines`]).
    fn set_profiles(&mut self, lines: Vec<(String, String, Option<String>)>) {
        self.menu_words = lines.iter().filter_map(|(id, _, words)| Some((id.clone(), words.clone()?))).collect();
        self.profiles = lines.into_iter().map(|(id, name, _)| (id, name)).collect();
    }

    /// How the desktop's power menu shows the profile in effect, where
    /// that is another name.
    fn menu_words_now(&self) -> Option<&str> {
        let active = self.active()?;
        self.menu_words.iter().find(|(id, _)| id == active).map(|(_, words)| words.as_str())
    }

    /// The profile in effect: the helper's word, else the files'.
    fn active(&self) -> Option<&str> {
        match &self.session.active {
            // Until the helper says, what the files held at start.
            InEffect::NotHeard => self.at_start.as_deref(),
            heard => heard.profile().map(ProfileId::as_str),
        }
    }

    /// What keeps switching off, or went wrong, in the menu's words.
    fn problems(&self) -> Vec<String> {
        let link = match &self.session.link {
            Link::Connected => None,
            Link::Waiting => Some(gettext("Connecting to the Gearshift helper…")),
            Link::Gone => Some(gettext("The Gearshift helper stopped; the next change starts it again")),
            Link::Unreachable(ClientError::NotInstalled) => {
                Some(match gearshift::client::install::origin().command() {
                    // Translators: {command} installs the helper ("./build-aux/run", "sudo apt install gearshift-helper").
                    Some(command) => i18n_text("The Gearshift helper is not installed: {command}")
                        .arg("command", command)
                        .localized(),
                    None => gettext("The Gearshift helper is not installed: install the gearshift-helper package"),
                })
            }
            Link::Unreachable(other) => Some(other.headline()),
        };
        let locked = self.session.locked_by.as_deref().map(gearshift::client::locked_words);
        match &self.fixed {
            Some(why) => vec![why.clone()],
            None => link.into_iter().chain(self.failed.clone()).chain(locked).collect(),
        }
    }
}

/// Runs the tray until Quit or a termination signal.
pub fn run(ctx: Context) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_keep_alive(Duration::from_millis(50))
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            log::error!("{err}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(serve(ctx))
}

/// The menu's profiles: the built-in ones and `customs`, each that this
/// machine can apply, with the name people see, and last the kernel's own
/// values (handing the CPU back) where there is something to hand back.
/// Each: its id, its name, and how the desktop's power menu shows it where
/// that is another name (`core::panel`).
fn menu_lines(
    ctx: &Context,
    customs: &[gearshift::core::custom::CustomProfile],
) -> Vec<(String, String, Option<String>)> {
    let mut lines: Vec<(String, String, Option<String>)> =
        Status::build(&ctx.root_arg, &ctx.resolver(), customs, None, Vec::new(), &ctx.extra_problems)
            .profiles
            .iter()
            .filter(|p| p.error.is_none())
            .map(|p| {
                let name = p.title().localized();
                let menu = p.power_panel.menu_words(&name);
                (p.id.clone(), name, menu)
            })
            .collect();
    if !ctx.machine.nothing_to_drive() {
        lines.push((KERNEL_OWN.to_owned(), gettext("The Kernel's Own Values"), None));
    }
    lines
}

/// Lists the helper's custom profiles again and puts them in the menu (at
/// connecting, and after each CustomProfilesChanged: saved in the window,
/// deleted elsewhere).
async fn refresh_profiles(handle: &ksni::Handle<GearshiftTray>, helper: &Helper, ctx: &Context) {
    let listed = helper.call(|p| async move { p.list_custom_profiles().await }).await;
    match listed.map(|list| gearshift::dbus::profile::list_from_wire(&list)) {
        Ok(Ok(customs)) => {
            let lines = menu_lines(ctx, &customs);
            log::debug!("tray profiles: {:?}", lines.iter().map(|(id, _, _)| id.as_str()).collect::<Vec<_>>());
            handle.update(move |t| t.set_profiles(lines)).await;
        }
        Ok(Err(err)) => log::warn!("the helper's custom profiles do not parse: {err}"),
        Err(err) => log::debug!("custom profiles not listed: {}", err.headline()),
    }
}

async fn serve(ctx: Context) -> ExitCode {
    let status = Status::build(&ctx.root_arg, &ctx.resolver(), &ctx.customs, None, Vec::new(), &ctx.extra_problems);
    let (actions, mut requests) = mpsc::unbounded_channel();
    let mut tray = GearshiftTray {
        actions,
        profiles: Vec::new(),
        menu_words: Vec::new(),
        session: Session::default(),
        at_start: status.active_profile.clone(),
        fixed: None,
        failed: None,
        codename: status.cpu.codename.clone().or(status.cpu.model_name.clone()).unwrap_or_default(),
        platform: ctx.machine.platform_profile.as_ref().map(platform_name),
        on_lap: status.lap_mode == Some(true),
        power: None,
        battery: status.battery,
        autostart: autostart::autostart_enabled(),
        icon_path: panel::icon_path(),
    };
    tray.set_profiles(menu_lines(&ctx, &ctx.customs));
    panel::say_where_none_listens().await;
    let handle = match tray.assume_sni_available(true).spawn().await {
        Ok(handle) => handle,
        Err(err) => {
            log::error!("{}", i18n_f("the tray cannot start: {}", &[&err]));
            return ExitCode::from(1);
        }
    };
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let helper = Helper::new();
    // The tray never reads power on a timer: it is never "visible".
    let (_never_visible, hidden) = watch::channel(false);
    // A snapshot is followed only where the helper serves that very
    // directory (its `Root`, the tests' setup); otherwise a switch would
    // change this computer, not the snapshot shown.
    let follow_helper = helper.serves(&ctx.root).await;
    if ctx.machine.nothing_to_drive() {
        // Nothing to switch: say so, rather than what the helper answers.
        handle.update(|t| t.fixed = Some(panel::nothing_to_tune())).await;
    } else if follow_helper {
        tokio::spawn(events::run(helper.clone(), move |event| drop(events_tx.send(event)), hidden, Default::default()));
    } else {
        handle.update(|t| t.fixed = Some(gettext("Showing a snapshot: switching is off"))).await;
    }
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    loop {
        tokio::select! {
            Some(event) = events.recv() => {
                log::debug!("tray event {event:?}");
                let customs = apply_event(&handle, event, &ctx.root).await;
                if customs {
                    refresh_profiles(&handle, &helper, &ctx).await;
                }
            }
            Some(action) = requests.recv() => {
                log::debug!("tray action {action:?}");
                if matches!(action, Action::Quit) {
                    break;
                }
                act(&handle, &helper, action, &ctx).await;
            }
            _ = tokio::signal::ctrl_c() => break,
            Some(()) = async { match term.as_mut() { Some(t) => t.recv().await, None => std::future::pending().await } } => break,
        }
    }
    handle.shutdown().await;
    ExitCode::SUCCESS
}

/// The platform profile's name as the tooltip says it: what the handlers
/// show, or each one's name where they differ ("quiet / low-power": each got
/// its own for the same profile; the machine then says `custom`).
fn platform_name(platform: &PlatformProfile) -> String {
    let mut names: Vec<&str> = Vec::new();
    for handler in &platform.handlers {
        match handler.current.as_deref() {
            Some(name) if !names.contains(&name) => names.push(name),
            Some(_) => {}
            None => {
                names.clear();
                break;
            }
        }
    }
    match names.as_slice() {
        [_, _, ..] => names.join(" / "),
        _ => platform.current.clone().unwrap_or_else(|| gettext("unknown")),
    }
}

/// The firmware's platform profile and whether the machine is on a lap,
/// read again under `root`.
fn read_firmware(root: &SysRoot) -> (Option<String>, bool) {
    let mut probe = Probe::new(root);
    let platform = PlatformProfile::read(&mut probe).as_ref().map(platform_name);
    let on_lap = probe.parsed(DYTC_LAPMODE, parse_flag) == Some(true);
    (platform, on_lap)
}

/// Folds a helper event into the tray's session; true when the custom
/// profiles are to be listed again.
async fn apply_event(handle: &ksni::Handle<GearshiftTray>, event: HelperEvent, root: &SysRoot) -> bool {
    let watts = match event {
        HelperEvent::Power(watts) => Some(Some(watts)),
        HelperEvent::NoPower => Some(None),
        _ => None,
    };
    if let Some(watts) = watts {
        handle.update(move |t| t.power = watts).await;
        return false;
    }
    let news = !matches!(event, HelperEvent::ActiveProfile(..) | HelperEvent::Applied);
    let changed = handle
        .update(move |tray| {
            let changed = tray.session.take(&event);
            if changed.shown() {
                tray.failed = None;
            }
            changed
        })
        .await
        .unwrap_or_default();
    // After a new profile or a change the helper set back, the firmware's
    // platform profile may differ: read once per change, however many
    // signals carry it; nothing is read otherwise.
    if changed.firmware && (changed.active || news) {
        let (platform, on_lap) = read_firmware(root);
        handle
            .update(move |tray| {
                tray.platform = platform;
                tray.on_lap = on_lap;
            })
            .await;
    }
    changed.customs
}

async fn act(handle: &ksni::Handle<GearshiftTray>, helper: &Helper, action: Action, ctx: &Context) {
    match action {
        Action::Switch(id) => {
            let result = helper.call(|p| async move { p.set_profile(&id).await.map(|_| ()) }).await;
            report(handle, result).await;
        }
        Action::ReturnToAutomatic => {
            let auto = handle.update(|t| t.session.auto.clone()).await.flatten().filter(|a| a.enabled);
            if let Some(auto) = auto {
                let result = helper.set_auto(true, Some(&auto)).await.map(drop);
                report(handle, result).await;
            }
        }
        Action::Automatic(on) => {
            let auto = handle.update(|t| t.session.auto.clone()).await.flatten();
            let result = helper.set_auto(on, auto.as_ref()).await.map(|summary| {
                if let Some(warning) = gearshift::client::unsaved_warning(&summary) {
                    log::warn!("{warning}");
                }
            });
            report(handle, result).await;
        }
        Action::Option(option, on) => {
            let result = helper.set_power_option(&option, on).await;
            report(handle, result).await;
        }
        Action::Autostart(on) => {
            if let Err(err) = autostart::set_autostart(on) {
                log::warn!("{}", i18n_f("cannot change the login items: {}", &[&err]));
            }
            let now = autostart::autostart_enabled();
            handle.update(move |t| t.autostart = now).await;
        }
        Action::Open => open_window(ctx),
        Action::MeasurePower => measure_power(handle, helper).await,
        Action::Quit => {}
    }
}

/// A failed call from the menu: the tooltip says why (the tray has no
/// other place to say it).
async fn report(handle: &ksni::Handle<GearshiftTray>, result: Result<(), ClientError>) {
    if let Err(err) = result {
        handle
            .update(move |t| {
                let text = t
                    .session
                    .failure_words(&err)
                    .unwrap_or_else(|| format!("{} {}", err.headline(), err.advice().lines().next().unwrap_or("")));
                log::warn!("{text}");
                t.failed = Some(text);
            })
            .await;
    }
}

/// Two energy readings half a second apart, when the menu opens.
async fn measure_power(handle: &ksni::Handle<GearshiftTray>, helper: &Helper) {
    let Ok(proxy) = helper.proxy().await else { return };
    let mut meter = PowerMeter::default();
    for _ in 0..2 {
        match proxy.read_energy().await {
            Ok((time_us, zones)) => {
                if let Some(watts) = meter.push(time_us, &zones) {
                    handle.update(move |t| t.power = Some(watts)).await;
                }
            }
            Err(_) => return,
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Starts the window, or raises it (GApplication keeps one instance).
fn open_window(ctx: &Context) {
    let Ok(exe) = std::env::current_exe() else { return };
    let mut command = std::process::Command::new(exe);
    if !ctx.root.is_live() {
        command.arg("--root").arg(ctx.root.base());
    }
    if let Some(token) = ksni::current_xdg_activation_token() {
        command.env("XDG_ACTIVATION_TOKEN", token);
    }
    if let Err(err) = command.spawn() {
        log::warn!("{}", i18n_f("cannot open the window: {}", &[&err]));
    }
}

#[cfg(test)]
mod tests;
