//! An earlier measurement's row on the Efficiency page: what it measured,
//! which profile did best, when and where; its button asks to show it.

use relm4::adw::{self, prelude::*};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender, FactoryView};
use relm4::gtk;

use gearshift::i18n::{gettext, i18n_f};

/// A kept measurement's row: its title and the line under it.
pub struct KeptItem {
    title: String,
    subtitle: String,
    index: DynamicIndex,
}

#[relm4::factory(pub)]
impl FactoryComponent for KeptItem {
    type Init = (String, String);
    type Input = ();
    type Output = DynamicIndex;
    type CommandOutput = ();
    type ParentWidget = adw::PreferencesGroup;

    view! {
        adw::ActionRow {
            set_title: &self.title,
            set_subtitle: &self.subtitle,
            set_activatable_widget: Some(&open),
            #[name(open)]
            add_suffix = &gtk::Button {
                set_icon_name: "go-next-symbolic",
                set_valign: gtk::Align::Center,
                add_css_class: "flat",
                set_tooltip_text: Some(&gettext("Show this measurement")),
                connect_clicked[sender, index = self.index.clone()] => move |_| {
                    let _ = sender.output(index.clone());
                },
            },
        }
    }

    fn init_model((title, subtitle): Self::Init, index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        KeptItem { title, subtitle, index: index.clone() }
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        root: Self::Root,
        _returned_widget: &<Self::ParentWidget as FactoryView>::ReturnedWidget,
        sender: FactorySender<Self>,
    ) -> Self::Widgets {
        let widgets = view_output!();
        crate::ui::set_accessible_label(&widgets.open, &i18n_f("Show {}", &[&self.title]));
        widgets
    }

    fn update(&mut self, (): (), _sender: FactorySender<Self>) {}
}
