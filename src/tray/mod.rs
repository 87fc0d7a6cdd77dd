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

use std::process::ExitCode;
use std::time::Duration;

use ksni::menu::{CheckmarkItem, RadioGroup, RadioItem, StandardItem};
use ksni::{MenuItem, ToolTip, TrayMethods};
use tokio::sync::{mpsc, watch};

use gearshift::client::options::{PowerOption, PowerOptions};
use gearshift::client::{ClientError, Helper};
use gearshift::core::parse::parse_flag;
use gearshift::core::paths::DYTC_LAPMODE;
use gearshift::core::platform::PlatformProfile;
use gearshift::core::profile::BuiltinProfile;
use gearshift::core::root::{Probe, SysRoot};
use gearshift::core::status::Status;
use gearshift::dbus::AutoPolicy;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use crate::context::{Context, APP_ID};
use crate::live::{self, HelperEvent, PowerMeter};
use crate::settings;

mod panel;

/// What a menu item asks for; handled outside the tray's callbacks.
#[derive(Debug)]
enum Action {
    Switch(String),
    Automatic(bool),
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
    active: Option<String>,
    auto: Option<AutoPolicy>,
    helper_problem: Option<String>,
    /// The administrator's file that locks switching (docs/fleet.md).
    locked_by: Option<String>,
    conflicts: Vec<String>,
    codename: String,
    /// The firmware's platform profile now (`None` where there is none).
    platform: Option<String>,
    /// The machine sits on a lap and the firmware limits performance.
    on_lap: bool,
    power: Option<f64>,
    /// Battery awareness and the actions (the desktop power API's).
    options: PowerOptions,
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

    fn helper_ok(&self) -> bool {
        self.helper_problem.is_none() && self.locked_by.is_none()
    }
}

impl ksni::Tray for GearshiftTray {
    fn id(&self) -> String {
        APP_ID.into()
    }

    fn title(&self) -> String {
        gettext("Gearshift")
    }

    fn category(&self) -> ksni::Category {
        ksni::Category::Hardware
    }

    fn icon_name(&self) -> String {
        icon_for(self.active.as_deref()).into()
    }

    fn icon_theme_path(&self) -> String {
        self.icon_path.clone()
    }

    fn tool_tip(&self) -> ToolTip {
        let title = match self.active.as_deref() {
            Some(id) if !id.is_empty() => i18n_f("Gearshift: {}", &[&self.name_of(id)]),
            _ => gettext("Gearshift"),
        };
        let mut lines = vec![self.codename.clone()];
        if let Some(platform) = &self.platform {
            lines.push(i18n_f("Platform profile: {}", &[platform]));
        }
        if self.on_lap {
            lines.push(gettext("On a lap: the firmware limits performance"));
        }
        if let Some(AutoPolicy { enabled: true, on_ac, on_battery }) = &self.auto {
            lines.push(
                // Translators: Profile names.
                i18n_text("Automatic: {on_ac} on AC power, {on_battery} on battery")
                    .arg("on_ac", self.name_of(on_ac))
                    .arg("on_battery", self.name_of(on_battery))
                    .localized(),
            );
        }
        if let Some(watts) = self.power {
            lines.push(i18n_f(
                "Package power: {} W (when the menu last opened)",
                &[&gearshift::i18n::decimal(watts, 1)],
            ));
        }
        let locked = self.locked_by.as_deref().map(gearshift::client::locked_words);
        lines.extend(self.helper_problem.iter().chain(&locked).cloned());
        for id in &self.conflicts {
            lines.push(
                // Translators: {program} is another power manager; {fix} a command or an instruction.
                i18n_text("{program} also manages power here: {fix}")
                    .arg("program", id)
                    .arg("fix", gearshift::core::conflicts::fix(id).localized())
                    .localized(),
            );
        }
        ToolTip { icon_name: self.icon_name(), icon_pixmap: Vec::new(), title, description: lines.join("\n") }
    }

    fn activate(&mut self, _x: i32, _y: i32) {
        self.send(Action::Open);
    }

    /// The menu opens: package power is measured for it, and whether the
    /// tray starts at login is read again, as the window's preferences may
    /// have changed it (docs/settings.md).
    fn menu_about_to_show(&mut self) {
        self.send(Action::MeasurePower);
        self.autostart = settings::autostart_enabled();
    }

    fn menu(&self) -> Vec<MenuItem<Self>> {
        let enabled = self.helper_ok();
        let selected =
            self.active.as_deref().and_then(|a| self.profiles.iter().position(|(id, _)| id == a)).unwrap_or(usize::MAX);
        let mut items: Vec<MenuItem<Self>> = vec![RadioGroup {
            selected,
            select: Box::new(|this: &mut Self, index| {
                if let Some((id, _)) = this.profiles.get(index) {
                    this.send(Action::Switch(id.clone()));
                }
            }),
            options: self
                .profiles
                .iter()
                .map(|(_, name)| RadioItem { label: name.clone(), enabled, ..Default::default() })
                .collect(),
        }
        .into()];
        let locked = self.locked_by.as_deref().map(gearshift::client::locked_words);
        for problem in self.helper_problem.iter().chain(&locked) {
            items.push(StandardItem { label: problem.clone(), enabled: false, ..Default::default() }.into());
        }
        items.push(MenuItem::Separator);
        let auto_on = self.auto.as_ref().is_some_and(|a| a.enabled);
        items.push(
            CheckmarkItem {
                label: gettext("_Automatic (AC/battery)"),
                checked: auto_on,
                enabled: enabled && self.auto.is_some(),
                activate: Box::new(move |this: &mut Self| this.send(Action::Automatic(!auto_on))),
                ..Default::default()
            }
            .into(),
        );
        for (option, on) in self.options.switches() {
            if option == PowerOption::BatteryAware && !self.battery {
                continue;
            }
            let (label, _) = option.words();
            items.push(
                CheckmarkItem {
                    label,
                    checked: on,
                    enabled,
                    activate: Box::new(move |this: &mut Self| this.send(Action::Option(option.clone(), !on))),
                    ..Default::default()
                }
                .into(),
            );
        }
        items.push(MenuItem::Separator);
        items.push(
            StandardItem {
                label: gettext("_Open Gearshift"),
                icon_name: "io.github.gearshift.Gearshift-symbolic".into(),
                activate: Box::new(|this: &mut Self| this.send(Action::Open)),
                ..Default::default()
            }
            .into(),
        );
        let autostart = self.autostart;
        items.push(
            CheckmarkItem {
                label: gettext("_Start at Login"),
                checked: autostart,
                activate: Box::new(move |this: &mut Self| this.send(Action::Autostart(!autostart))),
                ..Default::default()
            }
            .into(),
        );
        items.push(
            StandardItem {
                label: gettext("_Quit"),
                icon_name: "application-exit".into(),
                activate: Box::new(|this: &mut Self| this.send(Action::Quit)),
                ..Default::default()
            }
            .into(),
        );
        items
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
/// machine can apply, with the name people see.
fn menu_profiles(ctx: &Context, customs: &[gearshift::core::custom::CustomProfile]) -> Vec<(String, String)> {
    Status::build(&ctx.root_arg, &ctx.resolver(), customs, None, Vec::new(), &ctx.extra_problems)
        .profiles
        .iter()
        .filter(|p| p.error.is_none())
        .map(|p| (p.id.clone(), p.title().localized()))
        .collect()
}

/// Lists the helper's custom profiles again and puts them in the menu (at
/// connecting, and after each CustomProfilesChanged: saved in the window,
/// deleted elsewhere).
async fn refresh_profiles(handle: &ksni::Handle<GearshiftTray>, helper: &Helper, ctx: &Context) {
    let listed = helper.call(|p| async move { p.list_custom_profiles().await }).await;
    match listed.map(|list| gearshift::dbus::profile::list_from_wire(&list)) {
        Ok(Ok(customs)) => {
            let profiles = menu_profiles(ctx, &customs);
            log::debug!("tray profiles: {:?}", profiles.iter().map(|(id, _)| id.as_str()).collect::<Vec<_>>());
            handle.update(move |t| t.profiles = profiles).await;
        }
        Ok(Err(err)) => log::warn!("the helper's custom profiles do not parse: {err}"),
        Err(err) => log::debug!("custom profiles not listed: {}", err.headline()),
    }
}

async fn serve(ctx: Context) -> ExitCode {
    let status = Status::build(&ctx.root_arg, &ctx.resolver(), &ctx.customs, None, Vec::new(), &ctx.extra_problems);
    let (actions, mut requests) = mpsc::unbounded_channel();
    let tray = GearshiftTray {
        actions,
        profiles: menu_profiles(&ctx, &ctx.customs),
        active: status.active_profile.clone(),
        auto: None,
        helper_problem: Some(gettext("Connecting to the Gearshift helper…")),
        locked_by: None,
        conflicts: Vec::new(),
        codename: status.cpu.codename.clone().or(status.cpu.model_name.clone()).unwrap_or_default(),
        platform: ctx.machine.platform_profile.as_ref().map(platform_name),
        on_lap: status.lap_mode == Some(true),
        power: None,
        options: PowerOptions::default(),
        battery: status.battery,
        autostart: settings::autostart_enabled(),
        icon_path: panel::icon_path(),
    };
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
        handle.update(|t| t.helper_problem = Some(panel::nothing_to_tune())).await;
    } else if follow_helper {
        tokio::spawn(live::run(helper.clone(), move |event| drop(events_tx.send(event)), hidden, Default::default()));
    } else {
        handle.update(|t| t.helper_problem = Some(gettext("Showing a snapshot: switching is off"))).await;
    }
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    loop {
        tokio::select! {
            Some(event) = events.recv() => {
                log::debug!("tray event {event:?}");
                let customs = matches!(event, HelperEvent::Connected { .. } | HelperEvent::CustomProfiles);
                apply_event(&handle, event, &ctx.root).await;
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

async fn apply_event(handle: &ksni::Handle<GearshiftTray>, event: HelperEvent, root: &SysRoot) {
    // After these the helper has written (or followed) the firmware's
    // platform profile too; nothing is read otherwise.
    let firmware = event.may_change_firmware().then(|| read_firmware(root));
    handle
        .update(move |tray| {
            if let Some((platform, on_lap)) = firmware {
                tray.platform = platform;
                tray.on_lap = on_lap;
            }
            apply(tray, event);
        })
        .await;
}

fn apply(tray: &mut GearshiftTray, event: HelperEvent) {
    match event {
        HelperEvent::Connected { active, auto } => {
            tray.helper_problem = None;
            tray.active = Some(active);
            tray.auto = Some(auto);
        }
        HelperEvent::Unreachable(err) => {
            tray.helper_problem = Some(match err {
                ClientError::NotInstalled => {
                    gettext("The Gearshift helper is not installed: run ./build-aux/run from the source tree")
                }
                other => other.headline(),
            });
        }
        HelperEvent::Gone => {}
        HelperEvent::ActiveProfile(active) => tray.active = Some(active),
        HelperEvent::AutoPolicy(auto) => tray.auto = Some(auto),
        HelperEvent::Conflicts(conflicts) => tray.conflicts = conflicts,
        HelperEvent::Administration { locked_by, .. } => tray.locked_by = Some(locked_by).filter(|f| !f.is_empty()),
        HelperEvent::PowerOptions(options) => tray.options = options,
        HelperEvent::Applied | HelperEvent::ChangedOutside(_) | HelperEvent::CustomProfiles => {}
        HelperEvent::Power(watts) => tray.power = Some(watts),
        HelperEvent::NoPower => tray.power = None,
    }
}

async fn act(handle: &ksni::Handle<GearshiftTray>, helper: &Helper, action: Action, ctx: &Context) {
    match action {
        Action::Switch(id) => {
            let result = helper.call(|p| async move { p.set_profile(&id).await.map(|_| ()) }).await;
            report(handle, result).await;
        }
        Action::Automatic(on) => {
            let auto = handle.update(|t| t.auto.clone()).await.flatten();
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
            if let Err(err) = settings::set_autostart(on) {
                log::warn!("{}", i18n_f("cannot change the login items: {}", &[&err]));
            }
            let now = settings::autostart_enabled();
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
        let text = format!("{} {}", err.headline(), err.advice().lines().next().unwrap_or(""));
        log::warn!("{text}");
        handle.update(move |t| t.helper_problem = Some(text)).await;
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
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn tray(platform: Option<&str>, on_lap: bool) -> GearshiftTray {
        GearshiftTray {
            actions: mpsc::unbounded_channel().0,
            profiles: vec![("balance_performance".into(), "Balanced".into())],
            active: Some("balance_performance".into()),
            auto: None,
            helper_problem: None,
            locked_by: None,
            conflicts: Vec::new(),
            codename: "Meteor Lake".into(),
            platform: platform.map(str::to_owned),
            on_lap,
            power: None,
            options: Default::default(),
            battery: true,
            autostart: false,
            icon_path: String::new(),
        }
    }

    #[test]
    fn the_tooltip_names_the_firmware_profile_where_there_is_one() {
        use ksni::Tray;
        let tip = tray(Some("balanced"), false).tool_tip();
        assert_eq!(tip.title, "Gearshift: Balanced");
        assert_eq!(tip.description, "Meteor Lake\nPlatform profile: balanced");
        let lap = tray(Some("low-power"), true).tool_tip();
        assert_eq!(
            lap.description,
            "Meteor Lake\nPlatform profile: low-power\nOn a lap: the firmware limits performance"
        );
        assert_eq!(tray(None, false).tool_tip().description, "Meteor Lake");
        // The administrator's lock: said, and the profiles are off.
        let locked = GearshiftTray { locked_by: Some("/etc/gearshift/gearshift.toml".into()), ..tray(None, false) };
        assert!(locked
            .tool_tip()
            .description
            .ends_with("your administrator in /etc/gearshift/gearshift.toml (locked = true)."));
        let menu = locked.menu();
        assert!(matches!(&menu[0], MenuItem::RadioGroup(g) if g.options.iter().all(|o| !o.enabled)));
        assert!(matches!(&menu[1], MenuItem::Standard(i) if !i.enabled && i.label.contains("administrator")));
    }

    #[test]
    fn the_firmware_is_read_from_the_snapshot() {
        let fixture = |name: &str| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let mtl = SysRoot::open(&fixture("meteor-lake-155h")).unwrap();
        assert_eq!(read_firmware(&mtl), (Some("balanced".to_owned()), false));
        let hx = SysRoot::open(&fixture("amd-hx370-platform-class")).unwrap();
        assert_eq!(read_firmware(&hx), (Some("balanced".to_owned()), false));
        let raptor = SysRoot::open(&fixture("raptor-lake-13700h")).unwrap();
        assert_eq!(read_firmware(&raptor), (None, false));
        // Power Saver on two handlers: each shows its own name for it.
        let mut saver = gearshift::core::machine::Machine::read(&hx).platform_profile.unwrap();
        saver.handlers[0].current = Some("quiet".into());
        saver.handlers[1].current = Some("low-power".into());
        saver.current = Some("custom".into());
        assert_eq!(platform_name(&saver), "quiet / low-power");
        saver.handlers[1].current = None;
        assert_eq!(platform_name(&saver), "custom");
    }

    #[test]
    fn an_icon_per_profile() {
        assert_eq!(icon_for(Some("power")), "io.github.gearshift.Gearshift-power-saver-symbolic");
        assert_eq!(icon_for(Some("balance_performance")), "io.github.gearshift.Gearshift-balanced-symbolic");
        assert_eq!(icon_for(Some("quiet")), "io.github.gearshift.Gearshift-custom-symbolic");
        assert_eq!(icon_for(Some("")), "io.github.gearshift.Gearshift-symbolic");
        for id in ["performance", "balance_performance", "balance_power", "power", "x", ""] {
            let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("data/icons/hicolor/symbolic/apps")
                .join(format!("{}.svg", icon_for(Some(id))));
            assert!(file.exists(), "{} is not shipped", file.display());
        }
    }
}
