//! The per-core grid: cards, one per CPU, with frequency, a
//! 60-second sparkline, EPP, governor and limits.
//!
//! The grid is a `GtkGridView`: only the cards on screen exist, so 256 CPUs
//! cost what 30 do. Each tick updates plain data and then the cards that
//! are bound (on screen): labels only where their text changed, and a
//! redraw of the sparkline. No widget is created or destroyed per tick.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use relm4::gtk::{self, gio, glib, prelude::*};

use gearshift::core::identity::CoreType;
use gearshift::i18n::gettext;

use super::data::{CoreData, CoreEntry};

/// The page's latest frame, shared by the grid's own callbacks (the page
/// gets a new one each tick; no other page sees this cell).
type Frame = Rc<RefCell<Arc<CoreData>>>;
use crate::ui::heatmap::{HeatMap, Square};
use crate::ui::model::{epp_text, ghz};
use crate::ui::spark::SparkGraph;

struct CardWidgets {
    root: gtk::Box,
    title: gtk::Label,
    badge: gtk::Label,
    graph: SparkGraph,
    epp: gtk::Label,
    detail: gtk::Label,
    cpu: Rc<std::cell::Cell<Option<u32>>>,
    /// The accessible label last set (set again only when it changes).
    accessible: RefCell<String>,
    /// What the slow labels show, to skip rebuilding them every tick.
    shown: RefCell<Option<ShownKey>>,
}

type ShownKey =
    (Option<gearshift::core::parse::EppReading>, Option<String>, Option<u8>, (Option<u64>, Option<u64>), bool);

/// The per-core page.
pub struct CoreGrid {
    /// The driver, its mode and the firmware's platform profile.
    header: gtk::Label,
    /// The lap sensor's warning (hidden while not on a lap).
    lap: gtk::Box,
    /// The latest frame, which the cards' callbacks read.
    data: Frame,
    bound: Rc<RefCell<HashMap<u32, Rc<CardWidgets>>>>,
    /// Cards, or the compact heat maps.
    views: gtk::Stack,
    /// One heat map per socket, with its heading.
    maps: Vec<(Vec<u32>, HeatMap, gtk::Label)>,
}

/// Above this many CPUs the page opens on the compact view.
pub const COMPACT_ABOVE: usize = 64;

fn set_if_changed(label: &gtk::Label, text: &str) {
    if label.label() != text {
        label.set_label(text);
    }
}

impl CoreGrid {
    /// Builds the page for `data`, with `header` (the driver, its mode and
    /// the firmware's platform profile: [`crate::ui::model::cores_header`]) and
    /// the lap warning where `on_lap` above the cards.
    pub fn new(root: gtk::Box, frame: Arc<CoreData>, hybrid: bool, header: &[String], on_lap: bool) -> CoreGrid {
        let data: Frame = Rc::new(RefCell::new(frame));
        let bound: Rc<RefCell<HashMap<u32, Rc<CardWidgets>>>> = Rc::default();
        let store = gio::ListStore::new::<glib::BoxedAnyObject>();
        for entry in &data.borrow().entries {
            store.append(&glib::BoxedAnyObject::new(entry.id));
        }
        let filter_kind: Rc<std::cell::Cell<Option<CoreType>>> = Rc::default();
        let filter = {
            let data = data.clone();
            let kind = filter_kind.clone();
            gtk::CustomFilter::new(move |item| {
                let Some(kind) = kind.get() else { return true };
                let Some(obj) = item.downcast_ref::<glib::BoxedAnyObject>() else { return true };
                let id = *obj.borrow::<u32>();
                data.borrow().get(id).is_some_and(|e| e.core_type == Some(kind))
            })
        };
        let filtered = gtk::FilterListModel::new(Some(store), Some(filter.clone()));
        let selection = gtk::NoSelection::new(Some(filtered));
        let factory = gtk::SignalListItemFactory::new();
        let cards: Rc<RefCell<HashMap<gtk::ListItem, Rc<CardWidgets>>>> = Rc::default();
        {
            let data = data.clone();
            let cards = cards.clone();
            factory.connect_setup(move |_, item| {
                let Some(item) = item.downcast_ref::<gtk::ListItem>() else { return };
                let card = Rc::new(build_card(data.clone()));
                item.set_child(Some(&card.root));
                item.set_activatable(false);
                cards.borrow_mut().insert(item.clone(), card);
            });
        }
        {
            let data = data.clone();
            let cards = cards.clone();
            let bound = bound.clone();
            factory.connect_bind(move |_, item| {
                let Some(item) = item.downcast_ref::<gtk::ListItem>() else { return };
                let Some(obj) = item.item().and_downcast::<glib::BoxedAnyObject>() else { return };
                let id = *obj.borrow::<u32>();
                let Some(card) = cards.borrow().get(item).cloned() else { return };
                card.cpu.set(Some(id));
                card.shown.borrow_mut().take();
                fill_card(&card, &data.borrow(), id, true);
                bound.borrow_mut().insert(id, card);
            });
        }
        {
            let cards = cards.clone();
            let bound = bound.clone();
            factory.connect_unbind(move |_, item| {
                let Some(item) = item.downcast_ref::<gtk::ListItem>() else { return };
                if let Some(card) = cards.borrow().get(item) {
                    if let Some(id) = card.cpu.take() {
                        bound.borrow_mut().remove(&id);
                    }
                }
            });
        }
        factory.connect_teardown(move |_, item| {
            if let Some(item) = item.downcast_ref::<gtk::ListItem>() {
                cards.borrow_mut().remove(item);
            }
        });
        let grid = gtk::GridView::new(Some(selection), Some(factory));
        grid.set_min_columns(1);
        grid.set_max_columns(16);
        grid.add_css_class("core-grid");
        crate::ui::set_accessible_label(&grid, &gettext("Every CPU"));
        let scrolled =
            gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).vexpand(true).child(&grid).build();

        let header_label = gtk::Label::builder()
            .use_markup(true)
            .label(header_markup(header))
            .wrap(true)
            .justify(gtk::Justification::Center)
            .css_classes(["dim-label"])
            .build();
        let lap = gtk::Box::new(gtk::Orientation::Horizontal, 6);
        lap.set_halign(gtk::Align::Center);
        lap.add_css_class("warning");
        lap.append(&gtk::Image::from_icon_name("dialog-warning-symbolic"));
        lap.append(
            &gtk::Label::builder()
                .label(gettext("On a lap: the firmware limits performance"))
                .wrap(true)
                .justify(gtk::Justification::Center)
                .build(),
        );
        lap.set_visible(on_lap);
        let top = gtk::Box::new(gtk::Orientation::Vertical, 6);
        top.set_margin_top(12);
        top.set_margin_bottom(6);
        top.set_margin_start(12);
        top.set_margin_end(12);
        top.append(&header_label);
        top.append(&lap);
        if hybrid {
            top.append(&filter_bar(&filter, &filter_kind));
        }
        let (compact, maps) = compact_view(&data);
        let views = gtk::Stack::builder().vexpand(true).build();
        views.add_titled(&scrolled, Some("cards"), &gettext("Cards"));
        views.add_titled(&compact, Some("compact"), &gettext("Compact"));
        let many = data.borrow().entries.len() > COMPACT_ABOVE;
        views.set_visible_child_name(if many { "compact" } else { "cards" });
        log::debug!("cores view: {}, {} groups", if many { "compact" } else { "cards" }, maps.len());
        if data.borrow().entries.len() > 16 {
            let switcher = gtk::StackSwitcher::builder().stack(&views).halign(gtk::Align::Center).build();
            crate::ui::set_accessible_label(&switcher, &gettext("View"));
            top.append(&switcher);
        }
        root.append(&top);
        root.append(&views);
        let grid = CoreGrid { header: header_label, lap, data, bound, views, maps };
        grid.refresh_maps();
        grid
    }

    /// Updates the heat maps and their headings from the data.
    fn refresh_maps(&self) {
        let data = self.data.borrow();
        for (ids, map, heading) in &self.maps {
            let entries: Vec<&CoreEntry> = ids.iter().filter_map(|id| data.get(*id)).collect();
            map.set(entries.iter().map(|e| Square { id: e.id, level: level(e) }).collect());
            let text = group_heading(&data, &entries);
            if heading.label() != text {
                heading.set_label(&text);
                crate::ui::set_accessible_label(map, &text);
            }
        }
    }

    /// Shows a new header (after a switch, a hotkey, the lap sensor).
    pub fn set_header(&self, header: &[String], on_lap: bool) {
        let markup = header_markup(header);
        if self.header.label() != markup {
            self.header.set_markup(&markup);
        }
        self.lap.set_visible(on_lap);
    }

    /// Takes a tick's frame and refreshes the cards on screen from it.
    pub fn refresh_visible(&self, frame: Arc<CoreData>) {
        *self.data.borrow_mut() = frame;
        if self.views.visible_child_name().as_deref() == Some("compact") {
            self.refresh_maps();
            return;
        }
        let data = self.data.borrow();
        for (id, card) in self.bound.borrow().iter() {
            fill_card(card, &data, *id, false);
        }
    }
}

/// The header's parts in a line, each kept whole: a narrow window breaks
/// the line between them ("…, active mode ·" / "Platform profile: low-power"),
/// never inside "low-power".
fn header_markup(parts: &[String]) -> String {
    parts
        .iter()
        .map(|part| format!("<span allow_breaks=\"false\">{}</span>", glib::markup_escape_text(part)))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn filter_bar(filter: &gtk::CustomFilter, kind: &Rc<std::cell::Cell<Option<CoreType>>>) -> gtk::Box {
    let bar = gtk::Box::new(gtk::Orientation::Horizontal, 0);
    bar.add_css_class("linked");
    bar.set_halign(gtk::Align::Center);
    let mut first: Option<gtk::ToggleButton> = None;
    for (label, value) in [
        (gettext("All CPUs"), None),
        (gettext("P-cores"), Some(CoreType::Performance)),
        (gettext("E-cores"), Some(CoreType::Efficiency)),
    ] {
        let button = gtk::ToggleButton::with_label(&label);
        match &first {
            Some(group) => button.set_group(Some(group)),
            None => {
                button.set_active(true);
                first = Some(button.clone());
            }
        }
        let filter = filter.clone();
        let kind = kind.clone();
        button.connect_toggled(move |b| {
            if b.is_active() {
                kind.set(value);
                filter.changed(gtk::FilterChange::Different);
            }
        });
        bar.append(&button);
    }
    bar
}

fn build_card(data: Frame) -> CardWidgets {
    let root = gtk::Box::new(gtk::Orientation::Vertical, 2);
    // Not Adwaita's .card: its blurred shadow is re-rendered with every
    // redraw of the card, and the cards redraw every second.
    root.add_css_class("core-card");
    root.set_width_request(200);
    root.set_focusable(true);
    let head = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    let title = gtk::Label::builder().xalign(0.0).hexpand(true).css_classes(["heading"]).build();
    let badge = gtk::Label::builder().css_classes(["core-badge"]).build();
    head.append(&title);
    head.append(&badge);
    let graph = SparkGraph::default();
    graph.set_hexpand(true);
    let epp = gtk::Label::builder()
        .xalign(0.0)
        .wrap(true)
        .wrap_mode(gtk::pango::WrapMode::WordChar)
        .lines(2)
        .ellipsize(gtk::pango::EllipsizeMode::End)
        .css_classes(["caption"])
        .build();
    let detail = gtk::Label::builder()
        .xalign(0.0)
        .ellipsize(gtk::pango::EllipsizeMode::End)
        .css_classes(["caption", "dim-label"])
        .build();
    root.append(&head);
    root.append(&graph);
    root.append(&epp);
    root.append(&detail);
    let cpu: Rc<std::cell::Cell<Option<u32>>> = Rc::default();
    {
        let cpu = cpu.clone();
        root.set_has_tooltip(true);
        root.connect_query_tooltip(move |_, _, _, _, tooltip| {
            let Some(card) = cpu.get().and_then(|id| data.borrow().card(id)) else { return false };
            tooltip.set_text(Some(&card.tooltip()));
            true
        });
    }
    CardWidgets {
        root,
        title,
        badge,
        graph,
        epp,
        detail,
        cpu,
        accessible: RefCell::default(),
        shown: RefCell::default(),
    }
}

fn fill_card(card: &CardWidgets, data: &CoreData, id: u32, on_bind: bool) {
    let Some(entry) = data.get(id) else { return };
    // Every tick: the frequency and the bars, nothing else.
    let max = entry.hw_max_khz.max(entry.history.iter().copied().max().unwrap_or(1)).max(1) as f32;
    let frequency = match (entry.online, entry.sample.as_ref().and_then(|s| s.cur_khz)) {
        (false, _) => gettext("Offline"),
        (true, Some(khz)) => ghz(khz),
        (true, None) => "—".to_owned(),
    };
    card.graph.set(&frequency, entry.history.iter().map(|khz| *khz as f32 / max), data.history_len);
    // The rest changes rarely (a profile switch): only then are the texts
    // built and the labels touched.
    let sample = entry.sample.as_ref();
    let key = (
        sample.and_then(|s| s.epp),
        sample.and_then(|s| s.governor.clone()),
        entry.epp_value,
        entry.range,
        entry.online,
    );
    if !on_bind && *card.shown.borrow() == Some(key.clone()) {
        return;
    }
    *card.shown.borrow_mut() = Some(key);
    let Some(text) = data.card(id) else { return };
    if on_bind {
        card.title.set_label(&text.title);
        set_if_changed(&card.badge, &text.badge);
        card.badge.set_visible(!text.badge.is_empty());
        card.badge.set_css_classes(match entry.core_type {
            None => &["core-badge"],
            Some(CoreType::Performance) => &["core-badge", "core-badge-p"],
            Some(CoreType::Efficiency) => &["core-badge", "core-badge-e"],
        });
        if entry.online {
            card.root.remove_css_class("offline");
        } else {
            card.root.add_css_class("offline");
        }
    }
    set_if_changed(&card.epp, &text.epp);
    let detail = match (text.governor.is_empty(), text.range.is_empty()) {
        (false, false) => format!("{} · {}", text.governor, text.range),
        (false, true) => text.governor.clone(),
        (true, false) => text.range.clone(),
        (true, true) => String::new(),
    };
    set_if_changed(&card.detail, &detail);
    if card.accessible.replace(text.accessible.clone()) != text.accessible {
        crate::ui::set_accessible_label(&card.root, &text.accessible);
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
    Some(format!("{} · {}", crate::ui::model::ghz(avg), epp))
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

/// The compact view: a legend, then a heading and a heat map per socket
/// (one map for a machine with one socket), CPUs in number order.
fn compact_view(data: &Frame) -> (gtk::ScrolledWindow, Vec<(Vec<u32>, HeatMap, gtk::Label)>) {
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
    let mut groups: Vec<(Option<u32>, Vec<u32>)> = Vec::new();
    let mut entries: Vec<&CoreEntry> = Vec::new();
    let borrowed = data.borrow();
    entries.extend(borrowed.entries.iter());
    entries.sort_by_key(|e| (e.package, e.id));
    for entry in entries {
        match groups.iter_mut().find(|(p, _)| *p == entry.package) {
            Some((_, ids)) => ids.push(entry.id),
            None => groups.push((entry.package, vec![entry.id])),
        }
    }
    drop(borrowed);
    let mut maps = Vec::new();
    for (_, ids) in groups {
        let heading = gtk::Label::builder().xalign(0.0).wrap(true).css_classes(["heading"]).margin_top(6).build();
        let map = HeatMap::default();
        map.set_hexpand(true);
        map.set_has_tooltip(true);
        {
            let data = data.clone();
            map.connect_query_tooltip(move |map, x, y, _, tooltip| {
                let Some(card) = map.cpu_at(f64::from(x), f64::from(y)).and_then(|id| data.borrow().card(id)) else {
                    return false;
                };
                tooltip.set_text(Some(&card.tooltip()));
                true
            });
        }
        column.append(&heading);
        column.append(&map);
        maps.push((ids, map, heading));
    }
    let scrolled =
        gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).vexpand(true).child(&column).build();
    (scrolled, maps)
}
