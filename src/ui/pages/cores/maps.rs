//! The compact view of a big machine: a legend, then a heading and a heat
//! map per socket (one map for a machine with one socket), CPUs in number
//! order, and below them a line with the figures of the square last
//! visited from the keyboard; and the one-line summaries of groups of CPUs.
//!
//! Each square is also a focusable table cell (`squares.rs`) whose
//! description carries its frequency, EPP, governor and kind (`said.rs`).

use std::rc::Rc;

use relm4::gtk::{self, prelude::*};

use gearshift::core::identity::CoreType;
use gearshift::i18n::{gettext, i18n_f};

use super::data::{CoreData, CoreEntry, Frame};
use super::said::Said;
use super::scale::Scale;
use super::squares::{Navigator, Spot, SquareLayer};
use crate::ui::heatmap::{HeatMap, Square};
use crate::ui::model::{epp_text, ghz};

/// One socket's heat map: its CPUs, the map, its squares and its heading.
pub struct SocketMap {
    ids: Vec<u32>,
    map: HeatMap,
    layer: SquareLayer,
    heading: gtk::Label,
}

/// The compact view's maps, and what their squares say.
pub struct Compact {
    maps: Vec<SocketMap>,
    navigator: Rc<Navigator>,
    said: Rc<Said>,
}

impl Compact {
    /// How many maps (sockets) there are.
    pub fn groups(&self) -> usize {
        self.maps.len()
    }
}

/// The compact view and its maps.
pub fn compact_view(frame: &Frame) -> (gtk::Box, Compact) {
    let column = gtk::Box::new(gtk::Orientation::Vertical, 8);
    column.set_margin_start(12);
    column.set_margin_end(12);
    column.set_margin_bottom(12);
    column.append(
        &gtk::Label::builder()
            .label(gettext("Each square is a CPU, coloured by its frequency: blue at the lowest it can run at, red at the highest. Hover over one, or reach the squares with Tab and move across them with the arrow keys, for its EPP and governor."))
            .wrap(true)
            .xalign(0.0)
            .css_classes(["caption", "dim-label"])
            .build(),
    );
    column.append(&legend(&frame.borrow()));
    let mut maps = Vec::new();
    for ids in sockets(&frame.borrow()) {
        let heading = gtk::Label::builder().xalign(0.0).wrap(true).css_classes(["heading"]).margin_top(6).build();
        // The squares over the map speak for it.
        let map: HeatMap = gtk::glib::Object::builder().property("accessible-role", gtk::AccessibleRole::None).build();
        map.set_hexpand(true);
        map.set_has_tooltip(true);
        let data = frame.clone();
        map.connect_query_tooltip(move |map, x, y, _, tooltip| {
            let Some(card) = map.cpu_at(f64::from(x), f64::from(y)).and_then(|id| data.borrow().card(id)) else {
                return false;
            };
            tooltip.set_text(Some(&card.tooltip()));
            true
        });
        let names: Vec<String> = ids.iter().map(|id| i18n_f("CPU {}", &[id])).collect();
        let layer = SquareLayer::new(&map, &names);
        layer.set_hexpand(true);
        column.append(&heading);
        column.append(&layer);
        maps.push(SocketMap { ids, map, layer, heading });
    }
    let scrolled =
        gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).vexpand(true).child(&column).build();
    let readout = gtk::Label::builder()
        .xalign(0.0)
        .wrap(true)
        .wrap_mode(gtk::pango::WrapMode::WordChar)
        .margin_start(12)
        .margin_end(12)
        .margin_top(6)
        .margin_bottom(6)
        .css_classes(["caption"])
        .build();
    let page = gtk::Box::new(gtk::Orientation::Vertical, 0);
    page.append(&scrolled);
    page.append(&gtk::Separator::new(gtk::Orientation::Horizontal));
    page.append(&readout);
    let said = Rc::new(Said::new(frame.clone(), maps.iter().map(|m| m.ids.clone()).collect(), readout));
    let on_focus = {
        let said = said.clone();
        Box::new(move |spot: Spot, square: &gtk::Box| {
            let data = said.frame.borrow().clone();
            said.describe(&data, spot, square, true);
            said.read_out(&data, spot);
        })
    };
    let navigator = Navigator::new(maps.iter().map(|m| m.layer.clone()).collect(), on_focus);
    (page, Compact { maps, navigator, said })
}

/// The legend: the colour scale with its ends in words and, where every
/// CPU runs over the same range, in GHz; and the colour of an offline CPU.
fn legend(data: &CoreData) -> gtk::Grid {
    let grid = gtk::Grid::builder().column_spacing(8).row_spacing(2).halign(gtk::Align::Start).build();
    crate::ui::set_accessible_label(&grid, &gettext("Colour legend"));
    let label = |text: &str, xalign: f32| {
        gtk::Label::builder().label(text).xalign(xalign).css_classes(["caption"]).valign(gtk::Align::Center).build()
    };
    // Translators: the heat map's legend, beside the colour of a CPU at the
    // lowest frequency it can run at.
    grid.attach(&label(&gettext("Lowest"), 1.0), 0, 0, 1, 1);
    let scale = Scale::default();
    let meaning = gettext("Colour scale: blue at the lowest frequency a CPU can run at, red at the highest");
    crate::ui::set_accessible_label(&scale, &meaning);
    grid.attach(&scale, 1, 0, 1, 1);
    // Translators: the heat map's legend, beside the colour of a CPU at the
    // highest frequency it can run at.
    grid.attach(&label(&gettext("Highest"), 0.0), 2, 0, 1, 1);
    let offline = gtk::Box::builder().css_classes(["heat-legend-offline"]).valign(gtk::Align::Center).build();
    offline.set_margin_start(8);
    grid.attach(&offline, 3, 0, 1, 1);
    grid.attach(&label(&gettext("Offline"), 0.0), 4, 0, 1, 1);
    if let Some((lowest, highest)) = shared_range(data) {
        for (khz, column, xalign) in [(lowest, 0, 1.0), (highest, 2, 0.0)] {
            let value = label(&ghz(khz), xalign);
            value.add_css_class("dim-label");
            grid.attach(&value, column, 1, 1, 1);
        }
    }
    grid
}

/// The lowest and highest frequencies in kHz where every CPU shares them
/// (the colours then mean the same frequency on every square).
fn shared_range(data: &CoreData) -> Option<(u64, u64)> {
    let first = data.entries.first()?;
    let range = (first.hw_min_khz, first.hw_max_khz);
    let shared = data.entries.iter().all(|e| (e.hw_min_khz, e.hw_max_khz) == range);
    (shared && range.1 > range.0).then_some(range)
}

/// The CPUs of each socket, in number order.
fn sockets(data: &CoreData) -> Vec<Vec<u32>> {
    let mut entries: Vec<&CoreEntry> = data.entries.iter().collect();
    entries.sort_by_key(|e| (e.package, e.id));
    let mut groups: Vec<(Option<u32>, Vec<u32>)> = Vec::new();
    for entry in entries {
        match groups.iter_mut().find(|(p, _)| *p == entry.package) {
            Some((_, ids)) => ids.push(entry.id),
            None => groups.push((entry.package, vec![entry.id])),
        }
    }
    groups.into_iter().map(|(_, ids)| ids).collect()
}

/// Updates the heat maps, their headings, the squares' descriptions and the
/// readout line from `data`.
pub fn refresh(compact: &Compact, data: &CoreData) {
    for (index, SocketMap { ids, map, layer, heading }) in compact.maps.iter().enumerate() {
        let entries: Vec<&CoreEntry> = ids.iter().filter_map(|id| data.get(*id)).collect();
        map.set(entries.iter().map(|e| Square { id: e.id, level: level(e) }).collect());
        let text = group_heading(data, &entries);
        if heading.label() != text {
            heading.set_label(&text);
            crate::ui::set_accessible_label(layer, &text);
        }
        for at in 0..ids.len() {
            if let Some(square) = layer.square(at) {
                compact.said.describe(data, Spot { map: index, at }, &square, false);
            }
        }
    }
    compact.said.read_out(data, compact.navigator.current());
}

/// A one-line summary of a group of CPUs ("P-cores: 3.21 GHz average, EPP 64").
pub fn group_summary(data: &CoreData, kind: Option<CoreType>) -> Option<String> {
    let members: Vec<&CoreEntry> = data.entries.iter().filter(|e| e.online && e.core_type == kind).collect();
    let freqs: Vec<u64> = members.iter().filter_map(|e| e.sample.as_ref().and_then(|s| s.cur_khz)).collect();
    if freqs.is_empty() {
        return None;
    }
    let avg = freqs.iter().sum::<u64>() / freqs.len() as u64;
    let epp = members
        .first()
        .map(|e| epp_text(e.sample.as_ref().and_then(|s| s.epp), e.epp_value, data.profile_name(e.epp_value)))
        .unwrap_or_default();
    Some(format!("{} · {}", ghz(avg), epp))
}

/// Where a CPU's frequency sits between its lowest and highest, or `None`
/// while offline or unread.
fn level(entry: &CoreEntry) -> Option<f32> {
    let khz = entry.sample.as_ref().and_then(|s| s.cur_khz).filter(|_| entry.online)?;
    let (lo, hi) = (entry.hw_min_khz, entry.hw_max_khz.max(entry.hw_min_khz + 1));
    Some((khz.saturating_sub(lo)) as f32 / (hi - lo) as f32)
}

/// "Socket 0 · 128 CPUs · 2.41 GHz average, 1.20 to 3.80 GHz".
fn group_heading(data: &CoreData, entries: &[&CoreEntry]) -> String {
    let name = match entries.first().and_then(|e| e.package) {
        Some(package) if data.entries.iter().any(|e| e.package != Some(package)) => {
            gearshift::i18n::i18n_f("Socket {}", &[&package])
        }
        _ => gettext("Every CPU"),
    };
    let freqs: Vec<u64> =
        entries.iter().filter(|e| e.online).filter_map(|e| e.sample.as_ref().and_then(|s| s.cur_khz)).collect();
    let count =
        gearshift::i18n::i18n_plural("{n} CPU", "{n} CPUs", entries.len() as u64).arg("n", entries.len()).localized();
    match (freqs.iter().min(), freqs.iter().max()) {
        (Some(lo), Some(hi)) => {
            let avg = freqs.iter().sum::<u64>() / freqs.len() as u64;
            // Translators: frequencies such as "2.41 GHz".
            let spread = gearshift::i18n::i18n_text("{average} average, {lowest} to {highest}")
                .arg("average", ghz(avg))
                .arg("lowest", ghz(*lo))
                .arg("highest", ghz(*hi))
                .localized();
            format!("{name} · {count} · {spread}")
        }
        _ => format!("{name} · {count}"),
    }
}
