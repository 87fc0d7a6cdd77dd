//! The overview's switches for battery awareness and power-profiles-daemon
//! 0.30's actions (a relm4 factory): one row each, shown where the desktop's
//! power API lists them (docs/dbus-api.md, "Battery awareness", "Actions").

use relm4::adw::{self, prelude::*};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender, FactoryVecDeque};
use relm4::gtk::{self, glib};

use gearshift::client::options::PowerOption;

/// One switch: its words, whether it is on, whether it may be changed now.
pub struct OptionItem {
    pub option: PowerOption,
    title: String,
    subtitle: String,
    pub on: bool,
    pub allowed: bool,
}

#[relm4::factory(pub)]
impl FactoryComponent for OptionItem {
    type Init = (PowerOption, bool, bool);
    type Input = ();
    type Output = (PowerOption, bool);
    type CommandOutput = ();
    type ParentWidget = adw::PreferencesGroup;

    view! {
        adw::ActionRow {
            set_title: &self.title,
            set_subtitle: &self.subtitle,
            set_activatable_widget: Some(&switch),
            #[watch]
            set_sensitive: self.allowed,
            #[name(switch)]
            add_suffix = &gtk::Switch {
                set_valign: gtk::Align::Center,
                #[watch]
                #[block_signal(state_set)]
                set_active: self.on,
                connect_state_set[sender, option = self.option.clone()] => move |_, on| {
                    let _ = sender.output((option.clone(), on));
                    glib::Propagation::Proceed
                } @state_set,
            },
        }
    }

    fn init_model((option, on, allowed): Self::Init, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        let (title, subtitle) = option.words();
        OptionItem { option, title, subtitle, on, allowed }
    }

    fn update(&mut self, (): (), _sender: FactorySender<Self>) {}
}

/// Shows the switches: rows added or taken away only when the list of
/// switches changed, otherwise each row's state set in place.
pub fn show_options(rows: &mut FactoryVecDeque<OptionItem>, switches: &[(PowerOption, bool)], allowed: bool) {
    rows.widget().set_visible(!switches.is_empty());
    let mut rows = rows.guard();
    let same = rows.len() == switches.len() && rows.iter().zip(switches).all(|(row, (o, _))| row.option == *o);
    if !same {
        rows.clear();
        for (option, on) in switches {
            rows.push_back((option.clone(), *on, allowed));
        }
        return;
    }
    for (i, (_, on)) in switches.iter().enumerate() {
        if let Some(row) = rows.get_mut(i) {
            row.on = *on;
            row.allowed = allowed;
        }
    }
}
