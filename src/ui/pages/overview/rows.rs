//! The overview's rows that come and go: the profile switcher's radio
//! rows and the hardware report's findings (relm4 factories).

use gearshift::core::profile_id::ProfileId;
use relm4::adw::{self, prelude::*};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender};
use relm4::gtk;

use gearshift::core::report::{Finding, Level};

use crate::ui::model::ProfileRow;

/// One profile of the switcher: a radio row.
pub struct ProfileItem {
    pub row: ProfileRow,
    leader: gtk::CheckButton,
    pub active: bool,
    pub allowed: bool,
}

#[relm4::factory(pub)]
impl FactoryComponent for ProfileItem {
    type Init = (ProfileRow, gtk::CheckButton, bool, bool);
    type Input = ();
    type Output = ProfileId;
    type CommandOutput = ();
    type ParentWidget = adw::PreferencesGroup;

    view! {
        adw::ActionRow {
            set_title: &self.row.title,
            set_subtitle: &self.row.subtitle,
            set_activatable_widget: Some(&check),
            #[watch]
            set_sensitive: self.allowed && self.row.usable,
            #[name(check)]
            add_prefix = &gtk::CheckButton {
                set_valign: gtk::Align::Center,
                set_group: Some(&self.leader),
                #[watch]
                #[block_signal(toggled)]
                set_active: self.active,
                connect_toggled[sender, id = ProfileId::parse(&self.row.id)] => move |check| {
                    if let (true, Some(id)) = (check.is_active(), &id) {
                        let _ = sender.output(id.clone());
                    }
                } @toggled,
            },
        }
    }

    fn init_model(
        (row, leader, active, allowed): Self::Init,
        _index: &DynamicIndex,
        _sender: FactorySender<Self>,
    ) -> Self {
        ProfileItem { row, leader, active, allowed }
    }

    fn update(&mut self, (): (), _sender: FactorySender<Self>) {}
}

/// One finding of the hardware report, its explanation in the tooltip.
pub struct FindingItem(Finding);

fn level_icon(level: Level) -> &'static str {
    match level {
        Level::Good => "emblem-ok-symbolic",
        Level::Warning => "dialog-warning-symbolic",
        Level::Info => "dialog-information-symbolic",
    }
}

#[relm4::factory(pub)]
impl FactoryComponent for FindingItem {
    type Init = Finding;
    type Input = ();
    type Output = ();
    type CommandOutput = ();
    type ParentWidget = adw::ExpanderRow;

    view! {
        adw::ActionRow {
            set_title: &self.0.label.localized(),
            set_subtitle: &self.0.value.localized(),
            set_tooltip_text: Some(&self.0.detail.localized()),
            // Shown, not a tab stop (see `read_only_row`).
            set_focusable: false,
            add_prefix = &gtk::Image {
                set_icon_name: Some(level_icon(self.0.level)),
            },
        }
    }

    fn init_model(finding: Finding, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        FindingItem(finding)
    }

    fn update(&mut self, (): (), _sender: FactorySender<Self>) {}
}
