//! The form's inputs: the EPP slider with this model's marks (or the four
//! names, where the driver takes nothing else), and the combo rows.

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::core::custom::EppSetting;
use gearshift::core::parse::EppName;
use gearshift::core::profile::BuiltinProfile;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_text};

/// An EPP control: a slider where the driver takes numbers, the four names
/// where it takes only those (amd-pstate-epp before Linux 7.1).
pub(super) enum EppInput {
    Slider(gtk::Scale),
    Names(adw::ComboRow),
}

impl EppInput {
    pub(super) fn setting(&self) -> EppSetting {
        match self {
            EppInput::Slider(s) => EppSetting::Value(s.value().round().clamp(0.0, 255.0) as u8),
            EppInput::Names(d) => EppSetting::Name(
                EppName::PROFILES
                    .get(d.selected() as usize)
                    .unwrap_or(&EppName::BalancePerformance)
                    .as_str()
                    .to_owned(),
            ),
        }
    }

    /// Shows `setting`: a number on the slider (a name as this model's
    /// value for it), a name in the list (a number as the name nearest).
    pub(super) fn set(&self, setting: &EppSetting, resolver: &gearshift::core::profile::Resolver<'_>) {
        let name = |text: &str| EppName::PROFILES.into_iter().find(|n| n.as_str() == text);
        match (self, setting) {
            (EppInput::Slider(s), EppSetting::Value(v)) => s.set_value(f64::from(*v)),
            (EppInput::Slider(s), EppSetting::Name(n)) => {
                if let Some(value) = name(n).and_then(|n| resolver.epp_for(n)) {
                    s.set_value(f64::from(value));
                }
            }
            (EppInput::Names(d), EppSetting::Name(n)) => {
                if let Some(i) = EppName::PROFILES.iter().position(|x| x.as_str() == n) {
                    d.set_selected(i as u32);
                }
            }
            (EppInput::Names(d), EppSetting::Value(v)) => {
                // 0, 128, 191/192, 255: the nearest of the four.
                let i = match v {
                    0..=63 => 0,
                    64..=159 => 1,
                    160..=222 => 2,
                    _ => 3,
                };
                d.set_selected(i);
            }
        }
    }

    pub(super) fn connect_changed(&self, f: impl Fn() + 'static) {
        match self {
            EppInput::Slider(s) => drop(s.connect_value_changed(move |_| f())),
            EppInput::Names(d) => drop(d.connect_selected_notify(move |_| f())),
        }
    }
}

/// A row that picks one of `labels`: libadwaita's combo row, which
/// assistive technologies read with its title.
pub(super) fn choice_row(title: &str, labels: &[String]) -> adw::ComboRow {
    let strings: Vec<&str> = labels.iter().map(String::as_str).collect();
    let row = adw::ComboRow::builder().title(title).model(&gtk::StringList::new(&strings)).build();
    crate::ui::unclip(&row);
    row
}

/// What an EPP value is, in words: the profile it matches on this model.
fn epp_meaning(status: &Status, value: u8) -> String {
    match status.profiles.iter().find(|p| p.builtin && p.epp == Some(value)) {
        // Translators: An EPP number, then a profile name.
        Some(p) => i18n_text("{value} · {profile}, the maker's value for this model")
            .arg("value", value)
            .arg("profile", p.title().localized())
            .localized(),
        None => value.to_string(),
    }
}

/// A titled EPP slider: one row with the title, a line that says what the
/// value means, a full-width scale with marks at this model's values, and
/// its ends labelled. One row, so that the scale is a tab stop in the list:
/// GTK moves Tab from row to row only while each row can take the focus,
/// and a title row of its own above the scale (not a tab stop) ended Tab
/// there, out of reach of every control below.
pub(super) fn epp_slider(group: &adw::PreferencesGroup, status: &Status, title: &str) -> gtk::Scale {
    let scale = gtk::Scale::with_range(gtk::Orientation::Horizontal, 0.0, 255.0, 1.0);
    scale.set_hexpand(true);
    scale.set_digits(0);
    scale.set_draw_value(false);
    let mut marks = Vec::new();
    for p in status.profiles.iter().filter(|p| p.builtin) {
        if let Some(epp) = p.epp {
            scale.add_mark(f64::from(epp), gtk::PositionType::Bottom, None);
            marks.push(format!("{} {epp}", p.title().localized()));
        }
    }
    crate::ui::set_accessible_label(&scale, title);
    crate::ui::ignore_wheel(&scale);
    // What the marks are: too close together on a narrow window for a
    // label each, so they are named in one line under the ends.
    // Translators: {marks} is "Performance 16, Balanced 64, Efficient 179, Power Saver 255".
    let marks_text = i18n_text("Marks: this CPU's profiles, {marks}").arg("marks", marks.join(", ")).localized();
    crate::ui::set_accessible_description(&scale, &marks_text);
    let heading = gtk::Label::builder().label(title).xalign(0.0).wrap(true).build();
    let meaning = gtk::Label::builder().xalign(0.0).wrap(true).css_classes(["caption", "dim-label"]).build();
    let ends = gtk::Box::new(gtk::Orientation::Horizontal, 0);
    ends.append(
        &gtk::Label::builder()
            .label(gettext("Fastest"))
            .css_classes(["caption", "dim-label"])
            .hexpand(true)
            .xalign(0.0)
            .build(),
    );
    ends.append(&gtk::Label::builder().label(gettext("Saves power")).css_classes(["caption", "dim-label"]).build());
    let column = gtk::Box::new(gtk::Orientation::Vertical, 2);
    column.set_margin_top(10);
    column.set_margin_bottom(8);
    column.set_margin_start(12);
    column.set_margin_end(12);
    column.append(&heading);
    column.append(&meaning);
    column.append(&scale);
    column.append(&ends);
    if !marks.is_empty() {
        column.append(
            &gtk::Label::builder()
                .label(&marks_text)
                .xalign(0.0)
                .wrap(true)
                .css_classes(["caption", "dim-label"])
                .build(),
        );
    }
    // The scale is the tab stop, not the row around it.
    let slider_row =
        adw::PreferencesRow::builder().child(&column).activatable(false).selectable(false).focusable(false).build();
    group.add(&slider_row);
    {
        let status = status.clone();
        let meaning = meaning.clone();
        scale.connect_value_changed(move |s| meaning.set_label(&epp_meaning(&status, s.value().round() as u8)));
    }
    let balanced = status.profiles.get(1).and_then(|p| p.epp).unwrap_or(128);
    scale.set_value(f64::from(balanced));
    meaning.set_label(&epp_meaning(status, balanced));
    scale
}

/// The four preference names, for drivers that take nothing else, each
/// with the profile it stands for.
pub(super) fn epp_names(group: &adw::PreferencesGroup, title: &str) -> adw::ComboRow {
    let labels: Vec<String> = EppName::PROFILES
        .iter()
        .map(|n| {
            let profile = BuiltinProfile::ALL.iter().find(|p| p.id() == n.as_str());
            // Translators: a profile's name, then the kernel's word for it.
            profile.map_or_else(
                || n.as_str().to_owned(),
                |p| {
                    i18n_text("{profile} ({word})")
                        .arg("profile", p.name().localized())
                        .arg("word", n.as_str())
                        .localized()
                },
            )
        })
        .collect();
    let row = choice_row(title, &labels);
    row.set_subtitle(&gettext("This driver takes the four names only, no numbers"));
    row.set_selected(1);
    group.add(&row);
    row
}
