//! What the panel shows of the tray: its icon, its tooltip and its menu,
//! all derived from the tray's session (`client::session`).

use ksni::menu::{CheckmarkItem, RadioGroup, RadioItem, StandardItem};
use ksni::{MenuItem, ToolTip};

use gearshift::client::options::PowerOption;
use gearshift::dbus::AutoPolicy;
use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::{autostart, icon_for, Action, GearshiftTray};
use crate::context::APP_ID;

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
        icon_for(self.active()).into()
    }

    fn icon_theme_path(&self) -> String {
        self.icon_path.clone()
    }

    fn tool_tip(&self) -> ToolTip {
        let held = self.held_words();
        let title = match self.active() {
            _ if held.is_some() => i18n_f("Gearshift: {}", &[&held.unwrap_or_default()]),
            Some(id) if !id.is_empty() && self.session.overridden() => {
                // Translators: {} is a profile's name.
                i18n_f("Gearshift: {} until the power source changes", &[&self.name_of(id)])
            }
            Some(id) if !id.is_empty() => i18n_f("Gearshift: {}", &[&self.name_of(id)]),
            _ => gettext("Gearshift"),
        };
        let mut lines = vec![self.codename.clone()];
        if let Some(words) = self.menu_words_now() {
            lines.push(capitalized(words));
        }
        if let Some(platform) = &self.platform {
            lines.push(i18n_f("Platform profile: {}", &[platform]));
        }
        if self.on_lap {
            lines.push(gettext("On a lap: the firmware limits performance"));
        }
        if let Some(AutoPolicy { enabled: true, on_ac, on_battery }) = &self.session.auto {
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
        lines.extend(self.problems());
        for id in &self.session.conflicts {
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
        self.autostart = autostart::autostart_enabled();
    }

    fn menu(&self) -> Vec<MenuItem<Self>> {
        let enabled = self.helper_ok();
        let selected =
            self.active().and_then(|a| self.profiles.iter().position(|(id, _)| id == a)).unwrap_or(usize::MAX);
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
        if let Some(held) = self.held_words() {
            items.push(StandardItem { label: held, enabled: false, ..Default::default() }.into());
        }
        for problem in self.problems() {
            items.push(StandardItem { label: problem, enabled: false, ..Default::default() }.into());
        }
        if self.session.overridden() {
            items.push(
                StandardItem {
                    label: gettext("_Return to Automatic"),
                    enabled,
                    activate: Box::new(|this: &mut Self| this.send(Action::ReturnToAutomatic)),
                    ..Default::default()
                }
                .into(),
            );
        }
        items.push(MenuItem::Separator);
        let auto_on = self.session.auto.as_ref().is_some_and(|a| a.enabled);
        items.push(
            CheckmarkItem {
                label: gettext("_Automatic (AC/battery)"),
                checked: auto_on,
                enabled: enabled && self.session.auto.is_some(),
                activate: Box::new(move |this: &mut Self| this.send(Action::Automatic(!auto_on))),
                ..Default::default()
            }
            .into(),
        );
        for (option, on) in self.session.options.switches() {
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

/// `words` as a line of its own: its first letter upper case.
fn capitalized(words: &str) -> String {
    let mut chars = words.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

impl GearshiftTray {
    /// "Performance, held by Steam" while a hold puts the profile in
    /// effect (the session's `held_by`); GameMode's holds write no profile.
    fn held_words(&self) -> Option<String> {
        self.session.held_words(self.active(), |id| self.name_of(id)).map(|t| t.localized())
    }
}
