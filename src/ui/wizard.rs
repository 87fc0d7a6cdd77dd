//! The first-run wizard: what was found, whether the helper works, other
//! power managers, the AC and battery profiles and the tray, and a summary
//! of what Finish applies; the helper applies Balanced when it first starts.

use std::cell::RefCell;
use std::rc::Rc;

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::client::{ClientError, Helper};
use gearshift::core::conflicts;
use gearshift::core::report::{HardwareReport, Level};
use gearshift::core::status::Status;
use gearshift::dbus::{HelperError, ACTION_SWITCH, HELPER_INSTALLED_PATH};
use gearshift::i18n::{gettext, i18n_f, i18n_text, Text};

use super::model::offers_active_mode;
use crate::settings::{self, Settings};

/// What the helper check found.
#[derive(Debug, Clone)]
pub struct HelperCheck {
    /// The helper binary is installed.
    pub installed: bool,
    /// The helper answered on the system bus (its version), or why not.
    pub reachable: Result<String, ClientError>,
    /// What polkit says about switching for this user: yes, with a password,
    /// no (a sentence, never a raw bus error); `None` where polkit could
    /// not be asked (no system bus).
    pub authorized: Option<Result<String, String>>,
}

/// Asks the bus and polkit (no prompt) about the helper.
pub async fn check_helper(client: &Helper) -> HelperCheck {
    let installed = std::path::Path::new(HELPER_INSTALLED_PATH).exists();
    let reachable = client.call(|p| async move { p.version().await.map_err(HelperError::from) }).await;
    let Ok(connection) = client.connection().await else {
        return HelperCheck { installed, reachable, authorized: None };
    };
    // Whatever fails here is said as a sentence; the bus's own words go to
    // the log only.
    let polkit_unreachable = |err: &dyn std::fmt::Display| {
        log::info!("polkit cannot be asked: {err}");
        gettext("polkit is not running or does not answer, so the helper refuses every change until it does.")
    };
    let authorized = async {
        let authority =
            zbus_polkit::policykit1::AuthorityProxy::new(&connection).await.map_err(|e| polkit_unreachable(&e))?;
        let subject = zbus_polkit::policykit1::Subject::new_for_owner(std::process::id(), None, None)
            .map_err(|e| polkit_unreachable(&e))?;
        let result = authority
            .check_authorization(&subject, ACTION_SWITCH, &std::collections::HashMap::new(), Default::default(), "")
            .await
            .map_err(|e| polkit_unreachable(&e))?;
        Ok(if result.is_authorized {
            gettext("You may switch profiles.")
        } else if result.is_challenge {
            gettext("You may switch profiles after entering a password.")
        } else {
            return Err(i18n_f(
                "polkit does not allow you to switch profiles. An administrator can allow it with a polkit rule for {}.",
                &[&ACTION_SWITCH],
            ));
        })
    }
    .await;
    HelperCheck { installed, reachable, authorized: Some(authorized) }
}

fn page(title: &str, description: &str, icon: &str) -> (gtk::ScrolledWindow, gtk::Box) {
    let content = gtk::Box::new(gtk::Orientation::Vertical, 18);
    content.set_margin_top(24);
    content.set_margin_bottom(24);
    content.set_margin_start(18);
    content.set_margin_end(18);
    let header = gtk::Box::new(gtk::Orientation::Vertical, 8);
    let image = gtk::Image::from_icon_name(icon);
    image.set_pixel_size(48);
    image.add_css_class("dim-label");
    header.append(&image);
    header.append(&gtk::Label::builder().label(title).wrap(true).css_classes(["title-2"]).build());
    header.append(&gtk::Label::builder().label(description).wrap(true).justify(gtk::Justification::Center).build());
    content.append(&header);
    let clamp = adw::Clamp::builder().maximum_size(640).child(&content).build();
    (
        gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).child(&clamp).vexpand(true).build(),
        content,
    )
}

fn row(title: &str, subtitle: &str, icon: Option<&str>) -> adw::ActionRow {
    let row = adw::ActionRow::builder().title(title).subtitle(subtitle).build();
    // Rows that get a control are made focusable again where it is added.
    if icon.is_some() {
        super::read_only_row(&row);
    }
    if let Some(icon) = icon {
        row.add_prefix(&gtk::Image::from_icon_name(icon));
    }
    row
}

fn level_icon(level: Level) -> &'static str {
    match level {
        Level::Good => "emblem-ok-symbolic",
        Level::Warning => "dialog-warning-symbolic",
        Level::Info => "dialog-information-symbolic",
    }
}

/// What the wizard starts with.
pub struct WizardInit {
    /// The window it belongs to.
    pub parent: adw::ApplicationWindow,
    /// The machine's status (with the other power managers found).
    pub status: Status,
    /// The hardware report.
    pub report: HardwareReport,
    /// It shows this computer (the helper can change what it shows).
    pub live: bool,
    /// The way to the helper.
    pub helper: Helper,
    /// Where Finish stores the choice.
    pub settings: Settings,
}

/// What the wizard tells the window.
#[derive(Debug)]
pub enum WizardOut {
    /// Its button switched the driver to active mode: read the machine
    /// again.
    DriverModeChanged,
}

/// The wizard: a component of its own, a window over the main one. It
/// shows, checks and asks; Finish stores the choice (`settings`, the login
/// item, the helper's AC/battery policy).
pub struct Wizard;

impl relm4::SimpleComponent for Wizard {
    type Input = ();
    type Output = WizardOut;
    type Init = WizardInit;
    type Root = adw::Window;
    type Widgets = ();

    fn init_root() -> adw::Window {
        adw::Window::builder()
            .modal(true)
            .title(gettext("Welcome to Gearshift"))
            .default_width(720)
            .default_height(640)
            .build()
    }

    fn init(
        init: WizardInit,
        window: adw::Window,
        sender: relm4::ComponentSender<Self>,
    ) -> relm4::ComponentParts<Self> {
        window.set_transient_for(Some(&init.parent));
        let out = sender.output_sender().clone();
        build(&window, &init, move || out.emit(WizardOut::DriverModeChanged));
        relm4::ComponentParts { model: Wizard, widgets: () }
    }

    fn update(&mut self, (): (), _sender: relm4::ComponentSender<Self>) {}
}

/// Builds the wizard into `window` and shows it; `mode_changed` runs after
/// its button switched the driver to active mode.
fn build(window: &adw::Window, init: &WizardInit, mode_changed: impl Fn() + 'static) {
    let WizardInit { status, report, live, helper: client, settings: prefs, .. } = init;
    let live = *live;
    let stack = gtk::Stack::builder().transition_type(gtk::StackTransitionType::SlideLeftRight).vexpand(true).build();

    // a. What was found.
    let (found, content) = page(&gettext("What Gearshift Found"), &report.summary.localized(), "computer-symbolic");
    let group = adw::PreferencesGroup::new();
    // Where the report recommends active mode, a button that switches to it
    // (through the helper, once its check found it reachable).
    let mode_button = (live && offers_active_mode(report, status)).then(|| {
        gtk::Button::builder()
            .label(gettext("Switch to Active Mode"))
            .valign(gtk::Align::Center)
            .sensitive(false)
            .build()
    });
    let error =
        gtk::Label::builder().wrap(true).css_classes(["error"]).visible(false).margin_start(12).margin_end(12).build();
    let mode_changed: Rc<dyn Fn()> = Rc::new(mode_changed);
    for f in &report.findings {
        let r = row(
            &f.label.localized(),
            &format!("{}\n{}", f.value.localized(), f.detail.localized()),
            Some(level_icon(f.level)),
        );
        r.set_subtitle_lines(0);
        if let (Some(button), "driver_mode") = (&mode_button, f.id) {
            r.add_suffix(button);
            switch_to_active(button, &r, &error, client, mode_changed.clone());
        }
        group.add(&r);
    }
    content.append(&group);
    stack.add_named(&found, Some("found"));

    // b. The helper (filled in when the check returns).
    let (helper_page, helper_content) = page(
        &gettext("The Helper"),
        &gettext("Gearshift changes nothing itself: a small helper does, after polkit allows it. Started for the first time (as this window just did), the helper applies Balanced at once, with this model's own values, as power-profiles-daemon applies its default; Finish then applies and keeps your choice."),
        "system-run-symbolic",
    );
    let helper_group = adw::PreferencesGroup::new();
    helper_content.append(&helper_group);
    stack.add_named(&helper_page, Some("helper"));

    // c. Other power managers.
    let found_conflicts: Vec<String> = status.conflicts.clone();
    let (others, others_content) = page(
        &gettext("Other Power Managers"),
        &if found_conflicts.is_empty() {
            gettext("None found: nothing else writes these settings.")
        } else {
            gettext("Two managers writing the same files undo each other. Gearshift applies nothing on its own while another runs.")
        },
        if found_conflicts.is_empty() { "emblem-ok-symbolic" } else { "dialog-warning-symbolic" },
    );
    let others_group = adw::PreferencesGroup::new();
    for id in &found_conflicts {
        let r = row(id, &format!("{}\n{}", conflicts::explain(id).localized(), conflicts::fix(id).localized()), None);
        r.set_subtitle_lines(0);
        others_group.add(&r);
    }
    others_content.append(&others_group);
    stack.add_named(&others, Some("others"));

    // d. Profiles on AC and battery, and the tray.
    let (choice, choice_content) = page(
        &gettext("Your Profiles"),
        &if report.can_tune && status.battery {
            gettext("Gearshift can switch by itself when you plug in or unplug. Even so, Balanced saves power on battery with the Efficient profile’s values unless you turn off “Save Power on Battery” in the overview.")
        } else if report.can_tune {
            gettext("This machine has no battery: one profile, applied at every start.")
        } else {
            report.why_not.as_ref().map(Text::localized).unwrap_or_default()
        },
        "battery-symbolic",
    );
    let profiles: Vec<(String, String)> =
        status.profiles.iter().filter(|p| p.error.is_none()).map(|p| (p.id.clone(), p.title().localized())).collect();
    let names: Vec<&str> = profiles.iter().map(|(_, n)| n.as_str()).collect();
    let pick = |default: &str| {
        let dropdown = gtk::DropDown::from_strings(&names);
        dropdown.set_valign(gtk::Align::Center);
        if let Some(i) = profiles.iter().position(|(id, _)| id == default) {
            dropdown.set_selected(i as u32);
        }
        dropdown
    };
    let on_ac = pick(report.on_ac);
    let on_battery = pick(report.on_battery.unwrap_or(gearshift::core::profile::BuiltinProfile::BalancePower.id()));
    let choices = adw::PreferencesGroup::new();
    let ac_row = row(&gettext("On AC power"), "", None);
    ac_row.add_suffix(&on_ac);
    let battery_row = row(&gettext("On battery"), "", None);
    battery_row.add_suffix(&on_battery);
    // On by default only where there is something to switch, and only
    // offered for this computer: a snapshot's wizard does not change what
    // starts at login here.
    let tray_switch = gtk::Switch::builder().active(report.can_tune && live).valign(gtk::Align::Center).build();
    let tray_row = adw::ActionRow::builder()
        .title(gettext("Show Gearshift in the panel at login"))
        .subtitle(if live {
            gettext("A tray icon to switch profiles (KDE Plasma, XFCE, GNOME with the AppIndicator extension)")
        } else {
            gettext("Chosen on your own machine, not in a snapshot")
        })
        .activatable_widget(&tray_switch)
        .sensitive(live)
        .build();
    tray_row.add_suffix(&tray_switch);
    choices.add(&ac_row);
    if status.battery {
        choices.add(&battery_row);
    } else {
        ac_row.set_title(&gettext("Profile"));
    }
    choices.add(&tray_row);
    ac_row.set_sensitive(report.can_tune);
    battery_row.set_sensitive(report.can_tune);
    log::debug!("wizard: battery question {}, tray at login {}", status.battery, tray_switch.is_active());
    choice_content.append(&choices);
    stack.add_named(&choice, Some("choice"));

    // e. Summary.
    let (summary_page, summary_content) =
        page(&gettext("Ready"), &gettext("This is what Finish does."), "emblem-ok-symbolic");
    let summary_label = gtk::Label::builder().wrap(true).xalign(0.0).build();
    summary_content.append(&summary_label);
    stack.add_named(&summary_page, Some("summary"));

    let order = ["found", "helper", "others", "choice", "summary"];
    let back = gtk::Button::with_mnemonic(&gettext("_Back"));
    let next =
        gtk::Button::builder().label(gettext("_Next")).use_underline(true).css_classes(["suggested-action"]).build();
    let bar = gtk::Box::new(gtk::Orientation::Horizontal, 12);
    bar.set_margin_top(6);
    bar.set_margin_bottom(12);
    bar.set_margin_start(12);
    bar.set_margin_end(12);
    let spacer = gtk::Box::new(gtk::Orientation::Horizontal, 0);
    spacer.set_hexpand(true);
    let step = gtk::Label::builder().css_classes(["dim-label"]).build();
    bar.append(&back);
    bar.append(&spacer);
    bar.append(&step);
    let spacer2 = gtk::Box::new(gtk::Orientation::Horizontal, 0);
    spacer2.set_hexpand(true);
    bar.append(&spacer2);
    bar.append(&next);
    let body = gtk::Box::new(gtk::Orientation::Vertical, 0);
    body.append(&adw::HeaderBar::new());
    body.append(&stack);
    body.append(&error);
    body.append(&bar);
    window.set_content(Some(&body));

    let index = Rc::new(std::cell::Cell::new(0usize));
    let describe = {
        let profiles = profiles.clone();
        let status = status.clone();
        let (on_ac, on_battery, tray_switch) = (on_ac.clone(), on_battery.clone(), tray_switch.clone());
        let can_tune = report.can_tune;
        let has_battery = status.battery;
        move || {
            let pick = |d: &gtk::DropDown| profiles.get(d.selected() as usize).cloned().unwrap_or_default();
            let (ac, battery) = (pick(&on_ac), pick(&on_battery));
            let epp = |id: &str| status.profiles.iter().find(|p| p.id == id).and_then(|p| p.epp);
            let describe = |(id, name): &(String, String)| match epp(id) {
                // Translators: A profile name, then an EPP number.
                Some(v) => i18n_text("{profile} (EPP {value})").arg("profile", name).arg("value", v).localized(),
                None => name.clone(),
            };
            let mut text = if can_tune && live && !has_battery {
                // Translators: a profile name with its EPP value.
                i18n_text("Finish applies {profile} now; the helper applies it again after every reboot and resume.")
                    .arg("profile", describe(&ac))
                    .localized()
            } else if can_tune && live {
                // Translators: profile names, each with its EPP value.
                i18n_text("Finish turns on automatic switching: {on_ac} on AC power, {on_battery} on battery. The helper applies it now and after every reboot, resume and power-source change.")
                    .arg("on_ac", describe(&ac))
                    .arg("on_battery", describe(&battery))
                    .localized()
            } else if can_tune {
                gettext("This is a snapshot of another machine: Finish only records that you have seen this.")
            } else {
                gettext("Nothing can be tuned here; Finish only records that you have seen this.")
            };
            if live {
                text.push_str("\n\n");
                text.push_str(&if tray_switch.is_active() {
                    gettext("Gearshift's icon will appear in the panel at login.")
                } else {
                    gettext("Gearshift will not start at login.")
                });
            }
            (text, ac.0, battery.0)
        }
    };
    let update = {
        let (stack, back, next, step, summary_label, index) =
            (stack.clone(), back.clone(), next.clone(), step.clone(), summary_label.clone(), index.clone());
        let describe = describe.clone();
        move || {
            let i = index.get();
            stack.set_visible_child_name(order[i]);
            back.set_sensitive(i > 0);
            next.set_label(&if i + 1 == order.len() { gettext("_Finish") } else { gettext("_Next") });
            step.set_label(
                // Translators: Page numbers of the wizard.
                &i18n_text("Step {step} of {steps}").arg("step", i + 1).arg("steps", order.len()).localized(),
            );
            if order[i] == "summary" {
                summary_label.set_label(&describe().0);
            }
        }
    };
    update();
    {
        let (index, update) = (index.clone(), update.clone());
        back.connect_clicked(move |_| {
            index.set(index.get().saturating_sub(1));
            update();
        });
    }
    let finishing = Rc::new(RefCell::new(false));
    {
        let (window, index, update, error) = (window.clone(), index.clone(), update.clone(), error.clone());
        let tray_switch = tray_switch.clone();
        let can_tune = report.can_tune;
        let client = client.clone();
        let prefs = prefs.clone();
        next.connect_clicked(move |button| {
            if index.get() + 1 < order.len() {
                index.set(index.get() + 1);
                update();
                return;
            }
            if *finishing.borrow() {
                return;
            }
            *finishing.borrow_mut() = true;
            button.set_sensitive(false);
            let (_, ac, battery) = describe();
            let tray = tray_switch.is_active();
            let (window, error, button, finishing) = (window.clone(), error.clone(), button.clone(), finishing.clone());
            let (client, prefs) = (client.clone(), prefs.clone());
            relm4::spawn_local(async move {
                let result = if can_tune && live {
                    client.call(|p| async move { p.set_auto_policy(&ac, &battery).await }).await.map(|summary| {
                        if let Some(warning) = gearshift::client::unsaved_warning(&summary) {
                            log::warn!("{warning}");
                        }
                    })
                } else {
                    Ok(())
                };
                match result {
                    Ok(()) | Err(ClientError::NotInstalled) | Err(ClientError::NoBus(_)) => {
                        // A snapshot's (the demo's) wizard leaves this
                        // computer's choices alone: it is marked seen for
                        // snapshots only, and the tray's autostart stays.
                        if live {
                            let _ = settings::set_autostart(tray);
                        }
                        if let Err(err) = prefs.record_wizard(!live) {
                            log::warn!("{}", i18n_f("cannot save the settings: {}", &[&err]));
                        }
                        log::debug!(
                            "wizard finished: done {}, snapshot seen {}",
                            prefs.wizard_done(),
                            prefs.snapshot_wizard_seen()
                        );
                        window.close();
                    }
                    Err(err) => {
                        error.set_label(&format!("{} {}", err.headline(), err.advice()));
                        error.set_visible(true);
                        button.set_sensitive(true);
                        *finishing.borrow_mut() = false;
                    }
                }
            });
        });
    }

    // The helper check runs while the person reads the first page.
    let client = client.clone();
    relm4::spawn_local(async move {
        let check = if live { Some(check_helper(&client).await) } else { None };
        if let (Some(button), Some(check)) = (&mode_button, &check) {
            button.set_sensitive(check.reachable.is_ok());
        }
        fill_helper(&helper_group, check.as_ref());
    });
    window.set_default_widget(Some(&next));
    // Escape closes it, as it does every dialog; nothing is applied then.
    let escape = gtk::ShortcutController::new();
    escape.add_shortcut(gtk::Shortcut::new(
        gtk::ShortcutTrigger::parse_string("Escape"),
        Some(gtk::NamedAction::new("window.close")),
    ));
    window.add_controller(escape);
    window.present();
    next.grab_focus();
}

/// Makes `button` (on the driver mode finding's `row`) switch the driver to
/// active mode through the helper: on success the row says so and
/// `mode_changed` runs (the window reads the machine again); on failure
/// `error` says why and the button can be pressed again.
fn switch_to_active(
    button: &gtk::Button,
    row: &adw::ActionRow,
    error: &gtk::Label,
    client: &Helper,
    mode_changed: Rc<dyn Fn()>,
) {
    let (row, error, client) = (row.clone(), error.clone(), client.clone());
    button.connect_clicked(move |button| {
        button.set_sensitive(false);
        error.set_visible(false);
        let (button, row, error, client, mode_changed) =
            (button.clone(), row.clone(), error.clone(), client.clone(), mode_changed.clone());
        relm4::spawn_local(async move {
            match client.call(|p| async move { p.set_driver_mode("active").await }).await {
                Ok(_) => {
                    row.set_subtitle(&i18n_f("The driver runs in {} mode now.", &[&"active"]));
                    button.set_visible(false);
                    mode_changed();
                }
                Err(err) => {
                    error.set_label(&format!("{} {}", err.headline(), err.advice()));
                    error.set_visible(true);
                    button.set_sensitive(true);
                }
            }
        });
    });
}

fn fill_helper(group: &adw::PreferencesGroup, check: Option<&HelperCheck>) {
    let Some(check) = check else {
        group.add(&row(
            &gettext("Snapshot"),
            &gettext("A snapshot is only shown; the helper is not asked."),
            Some("dialog-information-symbolic"),
        ));
        return;
    };
    for (title, text, good) in helper_rows(check) {
        let r = row(&title, &text, Some(if good { "emblem-ok-symbolic" } else { "dialog-warning-symbolic" }));
        r.set_subtitle_lines(0);
        group.add(&r);
    }
}

/// The helper page's rows: title, what was found and what to do, and
/// whether it is fine. Advice fits the cause: with no system bus there is
/// nothing to reload and no polkit to write a rule for.
pub fn helper_rows(check: &HelperCheck) -> Vec<(String, String, bool)> {
    let mut rows = vec![(
        gettext("Installed"),
        if check.installed {
            i18n_f("Yes, at {}", &[&HELPER_INSTALLED_PATH])
        } else {
            gettext("No. To install it, run ./build-aux/run from Gearshift's source tree, or install the gearshift package.")
        },
        check.installed,
    )];
    let reachable = match &check.reachable {
        Ok(version) => i18n_f("Yes, version {}", &[version]),
        Err(ClientError::NoBus(_)) => gettext(
            "No: there is no system bus here (inside a container there often is none). Gearshift shows this machine, but nothing can be changed.",
        ),
        // Installed, but the bus does not know it yet: reloading helps.
        Err(ClientError::NotInstalled) if check.installed => {
            gettext("No: the bus does not know the helper yet. If it was just installed: sudo systemctl reload dbus")
        }
        Err(err) => i18n_f("No: {}", &[&err.headline()]),
    };
    rows.push((gettext("Reachable"), reachable, check.reachable.is_ok()));
    if let Some(authorized) = &check.authorized {
        let (text, good) = match authorized {
            Ok(text) => (text.clone(), true),
            Err(why) => (why.clone(), false),
        };
        rows.push((gettext("Allowed"), text, good));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_fits_the_cause() {
        // No system bus: nothing to reload, no polkit to write a rule for.
        let no_bus = HelperCheck {
            installed: true,
            reachable: Err(ClientError::NoBus("/run/dbus/system_bus_socket: No such file or directory".into())),
            authorized: None,
        };
        let rows = helper_rows(&no_bus);
        let text: String = rows.iter().map(|(t, s, _)| format!("{t}: {s}\n")).collect();
        assert_eq!(rows.len(), 2, "{text}");
        assert!(text.contains("there is no system bus here"), "{text}");
        for wrong in ["reload", "polkit", "system_bus_socket", "zbus", "org.freedesktop"] {
            assert!(!text.contains(wrong), "{wrong}: {text}");
        }
        // Installed but unknown to the bus: reloading is the advice.
        let unknown = HelperCheck {
            installed: true,
            reachable: Err(ClientError::NotInstalled),
            authorized: Some(Err("polkit does not allow you to switch profiles.".into())),
        };
        let text: String = helper_rows(&unknown).iter().map(|(_, s, _)| s.clone()).collect();
        assert!(text.contains("sudo systemctl reload dbus"), "{text}");
        let fine = HelperCheck {
            installed: true,
            reachable: Ok("0.1.0".into()),
            authorized: Some(Ok("You may switch profiles.".into())),
        };
        assert!(helper_rows(&fine).iter().all(|(_, _, good)| *good));
    }
}
