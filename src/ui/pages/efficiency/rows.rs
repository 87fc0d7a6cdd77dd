//! The Efficiency page's row lists, as factories: a check box per profile
//! to compare, and a row of figures per profile measured.

use relm4::adw::{self, prelude::*};
use relm4::factory::{DynamicIndex, FactoryComponent, FactorySender, FactoryView};
use relm4::gtk;

/// A profile to compare: what its row shows and whether it is checked.
pub struct ChoiceItem {
    /// The profile's id (or `kernel_default`).
    pub id: String,
    title: String,
    subtitle: String,
    /// Whether it takes part in the next measurement.
    pub checked: bool,
}

/// What a profile's check row starts with.
pub struct ChoiceInit {
    /// The profile's id.
    pub id: String,
    /// Its name.
    pub title: String,
    /// What it is, under the name; empty for none.
    pub subtitle: String,
    /// Checked at first.
    pub checked: bool,
}

#[relm4::factory(pub)]
impl FactoryComponent for ChoiceItem {
    type Init = ChoiceInit;
    /// The box was checked (true) or cleared.
    type Input = bool;
    /// The choice changed.
    type Output = ();
    type CommandOutput = ();
    type ParentWidget = adw::PreferencesGroup;

    view! {
        adw::ActionRow {
            set_title: &self.title,
            set_subtitle: &self.subtitle,
            set_activatable_widget: Some(&check),
            #[name(check)]
            add_prefix = &gtk::CheckButton {
                set_active: self.checked,
                connect_toggled[sender] => move |check| sender.input(check.is_active()),
            },
        }
    }

    fn init_model(init: ChoiceInit, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        ChoiceItem { id: init.id, title: init.title, subtitle: init.subtitle, checked: init.checked }
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        root: Self::Root,
        _returned_widget: &<Self::ParentWidget as FactoryView>::ReturnedWidget,
        sender: FactorySender<Self>,
    ) -> Self::Widgets {
        let widgets = view_output!();
        crate::ui::set_accessible_label(&widgets.check, &self.title);
        widgets
    }

    fn update(&mut self, checked: bool, sender: FactorySender<Self>) {
        if checked != self.checked {
            self.checked = checked;
            let _ = sender.output(());
        }
    }
}

/// A profile's difference from the kernel's value.
pub struct Against {
    /// "+5.0%", beside the name where it is clear.
    pub short: String,
    /// "+5.0% compared with the kernel's 128", with "no clear difference"
    /// where the runs do not support one.
    pub words: String,
    /// Its style class: `success`, `warning`, or `dim-label` where unclear.
    pub class: &'static str,
}

/// One profile's figures in a result, as shown.
pub struct FigureRow {
    /// The profile's name.
    pub title: String,
    /// EPP, throughput and watts, joined.
    pub facts: String,
    /// Work per joule with its spread.
    pub per_joule: Option<String>,
    /// The change against the kernel's value.
    pub against_kernel: Option<Against>,
    /// The profile did best.
    pub best: bool,
}

impl FigureRow {
    /// The facts, then the work per joule and the difference from the
    /// kernel's value (where it is no clear one), a line each.
    fn subtitle(&self) -> String {
        let mut lines = vec![relm4::gtk::glib::markup_escape_text(&self.facts).to_string()];
        let mut figures: Vec<&str> = self.per_joule.iter().map(String::as_str).collect();
        if let Some(against) = self.against_kernel.as_ref().filter(|a| a.class == "dim-label") {
            figures.push(&against.words);
        }
        if !figures.is_empty() {
            lines.push(relm4::gtk::glib::markup_escape_text(&figures.join(" · ")).to_string());
        }
        lines.join("\n")
    }
}

/// A result's row.
pub struct FigureItem {
    row: FigureRow,
}

#[relm4::factory(pub)]
impl FactoryComponent for FigureItem {
    type Init = FigureRow;
    type Input = ();
    type Output = ();
    type CommandOutput = ();
    type ParentWidget = adw::PreferencesGroup;

    view! {
        adw::ActionRow {
            set_title: &self.row.title,
            set_subtitle: &self.row.subtitle(),
            set_focusable: false,
        }
    }

    fn init_model(row: FigureRow, _index: &DynamicIndex, _sender: FactorySender<Self>) -> Self {
        FigureItem { row }
    }

    fn init_widgets(
        &mut self,
        _index: &DynamicIndex,
        root: Self::Root,
        _returned_widget: &<Self::ParentWidget as FactoryView>::ReturnedWidget,
        _sender: FactorySender<Self>,
    ) -> Self::Widgets {
        let widgets = view_output!();
        // The figures sit under the name, not beside it: beside it they
        // squeezed the name in a narrow window until it broke mid-word
        // ("Performan-ce"). The difference from the kernel's value keeps
        // its colour where the runs support it.
        if let Some(against) = self.row.against_kernel.as_ref().filter(|a| a.class != "dim-label") {
            // The figure alone beside the name; what it is against in its
            // tooltip and for a screen reader.
            let label = gtk::Label::builder()
                .label(&against.short)
                .tooltip_text(&against.words)
                .css_classes([against.class])
                .build();
            crate::ui::set_accessible_label(&label, &against.words);
            root.add_suffix(&label);
        }
        if self.row.best {
            root.add_suffix(&gtk::Image::from_icon_name("emblem-ok-symbolic"));
        }
        widgets
    }

    fn update(&mut self, (): (), _sender: FactorySender<Self>) {}
}
