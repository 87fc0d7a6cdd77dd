//! The compact view of a big machine: a legend, then a heading and a heat
//! map per socket (one map for a machine with one socket), CPUs in number
//! order; and the one-line summaries of groups of CPUs.

use relm4::gtk::{self, prelude::*};

use gearshift::core::identity::CoreType;
use gearshift::i18n::gettext;

use super::data::{CoreData, CoreEntry, Frame};
use crate::ui::heatmap::{HeatMap, Square};
use crate::ui::model::{epp_text, ghz};

/// One socket's heat map: its CPUs, the map and its heading.
pub struct SocketMap {
    ids: Vec<u32>,
    map: HeatMap,
    heading: gtk::Label,
}

/// The compact view and its maps.
pub fn compact_view(frame: &Frame) -> (gtk::ScrolledWindow, Vec<SocketMap>) {
    let column = gtk::Box::new(gtk::Orientation::Vertical, 8);
    column.set_margin_start(12);
    column.set_margin_end(12);
    column.set_margin_bottom(12);
    column.append(
        &gtk::Label::builder()
            .label(gettext("Each square is a CPU, coloured by its frequency: blue at the lowest it can run at, red at the highest. Hover over one for its EPP and governor."))
            .wrap(true)
            .xalign(0.0)
            .css_classes(["caption", "dim-label"])
            .build(),
    );
    let mut maps = Vec::new();
    for ids in sockets(&frame.borrow()) {
        let heading = gtk::Label::builder().xalign(0.0).wrap(true).css_classes(["heading"]).margin_top(6).build();
        let map = HeatMap::default();
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
        column.append(&heading);
        column.append(&map);
        maps.push(SocketMap { ids, map, heading });
    }
    let scrolled =
        gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).vexpand(true).child(&column).build();
    (scrolled, maps)
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

/// Updates the heat maps and their headings from `data`.
pub fn refresh(maps: &[SocketMap], data: &CoreData) {
    for SocketMap { ids, map, heading } in maps {
        let entries: Vec<&CoreEntry> = ids.iter().filter_map(|id| data.get(*id)).collect();
        map.set(entries.iter().map(|e| Square { id: e.id, level: level(e) }).collect());
        let text = group_heading(data, &entries);
        if heading.label() != text {
            heading.set_label(&text);
            crate::ui::set_accessible_label(map, &text);
        }
    }
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
