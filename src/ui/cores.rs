//! The per-core view: a grid of cards, one per CPU, with frequency, a
//! 60-second sparkline, EPP, governor and limits.
//!
//! The grid is a `GtkGridView`: only the cards on screen exist, so 256 CPUs
//! cost what 30 do. Each tick updates plain data and then the cards that
//! are bound (on screen): labels only where their text changed, and a
//! redraw of the sparkline. No widget is created or destroyed per tick.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use relm4::gtk::{self, gio, glib, prelude::*};

use gearshift::core::identity::CoreType;
use gearshift::core::monitor::CpuSample;
use gearshift::core::status::Status;
use gearshift::i18n::gettext;

use super::model::{epp_text, CoreCard};

/// One CPU's data, kept across ticks.
#[derive(Debug, Clone)]
pub struct CoreEntry {
    /// CPU number.
    pub id: u32,
    /// P- or E-core.
    pub core_type: Option<CoreType>,
    /// Online.
    pub online: bool,
    /// Latest sample.
    pub sample: Option<CpuSample>,
    /// The EPP number behind the sample's reading.
    pub epp_value: Option<u8>,
    /// scaling_min/max_freq.
    pub range: (Option<u64>, Option<u64>),
    /// The hardware maximum, for the sparkline's scale.
    pub hw_max_khz: u64,
    /// Recent frequencies in kHz, oldest first.
    pub history: VecDeque<u64>,
}

/// Every CPU's data.
#[derive(Debug, Default)]
pub struct CoreData {
    /// In display order: P-cores, E-cores, then the rest.
    pub entries: Vec<CoreEntry>,
    index: HashMap<u32, usize>,
    history_len: usize,
}

impl CoreData {
    /// The data for the CPUs of a status report.
    pub fn from_status(status: &Status, history_len: usize) -> CoreData {
        let mut entries: Vec<CoreEntry> = status
            .cpus
            .iter()
            .map(|c| CoreEntry {
                id: c.id,
                core_type: c.core_type,
                online: c.online,
                sample: None,
                epp_value: c.epp_value,
                range: (c.min_khz, c.max_khz),
                hw_max_khz: c.hw_max_khz.unwrap_or(0),
                history: VecDeque::with_capacity(history_len),
            })
            .collect();
        let rank = |t: Option<CoreType>| match t {
            Some(CoreType::Performance) => 0,
            Some(CoreType::Efficiency) => 1,
            None => 2,
        };
        entries.sort_by_key(|e| (rank(e.core_type), e.id));
        let index = entries.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        CoreData { entries, index, history_len: history_len.max(2) }
    }

    /// Takes a tick's samples; `epp_value` maps a reading to its number.
    pub fn push(&mut self, samples: &[CpuSample], epp_value: &dyn Fn(&CpuSample) -> Option<u8>) {
        for sample in samples {
            let Some(&i) = self.index.get(&sample.id) else { continue };
            let entry = &mut self.entries[i];
            if entry.history.len() == self.history_len {
                entry.history.pop_front();
            }
            entry.history.push_back(sample.cur_khz.unwrap_or(0));
            entry.epp_value = epp_value(sample);
            entry.sample = Some(sample.clone());
        }
    }

    /// The entry for a CPU.
    pub fn get(&self, id: u32) -> Option<&CoreEntry> {
        self.index.get(&id).map(|&i| &self.entries[i])
    }

    /// The card text for a CPU.
    pub fn card(&self, id: u32) -> Option<CoreCard> {
        let e = self.get(id)?;
        Some(CoreCard::new(e.id, e.core_type, e.online, e.sample.as_ref(), e.epp_value, e.range))
    }
}

struct CardWidgets {
    root: gtk::Box,
    badge: gtk::Label,
    frequency: gtk::Label,
    epp: gtk::Label,
    detail: gtk::Label,
    graph: gtk::DrawingArea,
    cpu: Rc<std::cell::Cell<Option<u32>>>,
}

/// The per-core page.
pub struct CoreGrid {
    /// The page's top widget.
    pub root: gtk::Box,
    data: Rc<RefCell<CoreData>>,
    bound: Rc<RefCell<HashMap<u32, Rc<CardWidgets>>>>,
}

fn set_if_changed(label: &gtk::Label, text: &str) {
    if label.label() != text {
        label.set_label(text);
    }
}

impl CoreGrid {
    /// Builds the page for `data`.
    pub fn new(data: Rc<RefCell<CoreData>>, hybrid: bool) -> CoreGrid {
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
        super::set_accessible_label(&grid, &gettext("Every CPU"));
        let scrolled =
            gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).vexpand(true).child(&grid).build();

        let root = gtk::Box::new(gtk::Orientation::Vertical, 0);
        if hybrid {
            root.append(&filter_bar(&filter, &filter_kind));
        }
        root.append(&scrolled);
        CoreGrid { root, data, bound }
    }

    /// Refreshes the cards on screen from the data (after [`CoreData::push`]).
    pub fn refresh_visible(&self) {
        let data = self.data.borrow();
        for (id, card) in self.bound.borrow().iter() {
            fill_card(card, &data, *id, false);
        }
    }
}

fn filter_bar(filter: &gtk::CustomFilter, kind: &Rc<std::cell::Cell<Option<CoreType>>>) -> gtk::Box {
    let bar = gtk::Box::new(gtk::Orientation::Horizontal, 0);
    bar.add_css_class("linked");
    bar.set_halign(gtk::Align::Center);
    bar.set_margin_top(12);
    bar.set_margin_bottom(6);
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

fn build_card(data: Rc<RefCell<CoreData>>) -> CardWidgets {
    let root = gtk::Box::new(gtk::Orientation::Vertical, 2);
    root.add_css_class("card");
    root.add_css_class("core-card");
    root.set_width_request(200);
    root.set_focusable(true);
    let head = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    let title = gtk::Label::builder().xalign(0.0).hexpand(true).css_classes(["heading"]).build();
    let badge = gtk::Label::builder().css_classes(["core-badge"]).build();
    head.append(&title);
    head.append(&badge);
    let frequency = gtk::Label::builder().xalign(0.0).width_chars(9).css_classes(["title-3", "numeric"]).build();
    let graph = gtk::DrawingArea::builder().content_height(36).hexpand(true).build();
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
    root.append(&frequency);
    root.append(&graph);
    root.append(&epp);
    root.append(&detail);
    let cpu: Rc<std::cell::Cell<Option<u32>>> = Rc::default();
    {
        let data = data.clone();
        let cpu = cpu.clone();
        graph.set_draw_func(move |area, cr, width, height| {
            let Some(id) = cpu.get() else { return };
            let data = data.borrow();
            let Some(entry) = data.get(id) else { return };
            draw_sparkline(area, cr, width, height, entry);
        });
    }
    {
        let cpu = cpu.clone();
        root.set_has_tooltip(true);
        root.connect_query_tooltip(move |_, _, _, _, tooltip| {
            let Some(card) = cpu.get().and_then(|id| data.borrow().card(id)) else { return false };
            tooltip.set_text(Some(&card.accessible));
            true
        });
    }
    // The title never changes for a bound card, so it is set in fill_card
    // only on bind; keep a handle through the box's first child.
    let _ = &title;
    CardWidgets { root, badge, frequency, epp, detail, graph, cpu }
}

fn fill_card(card: &CardWidgets, data: &CoreData, id: u32, on_bind: bool) {
    let Some(text) = data.card(id) else { return };
    if on_bind {
        if let Some(title) = card.root.first_child().and_then(|head| head.first_child()).and_downcast::<gtk::Label>() {
            title.set_label(&text.title);
        }
        set_if_changed(&card.badge, &text.badge);
        card.badge.set_visible(!text.badge.is_empty());
        card.badge.set_css_classes(match text.badge.as_str() {
            "" => &["core-badge"],
            b if b == gettext("P") => &["core-badge", "core-badge-p"],
            _ => &["core-badge", "core-badge-e"],
        });
        let online = data.get(id).is_some_and(|e| e.online);
        card.graph.set_visible(online);
        if online {
            card.root.remove_css_class("offline");
        } else {
            card.root.add_css_class("offline");
        }
    }
    set_if_changed(&card.frequency, &text.frequency);
    set_if_changed(&card.epp, &text.epp);
    let detail = match (text.governor.is_empty(), text.range.is_empty()) {
        (false, false) => format!("{} · {}", text.governor, text.range),
        (false, true) => text.governor.clone(),
        (true, false) => text.range.clone(),
        (true, true) => String::new(),
    };
    set_if_changed(&card.detail, &detail);
    super::set_accessible_label(&card.root, &text.accessible);
    card.graph.queue_draw();
}

#[allow(deprecated)]
fn draw_sparkline(area: &gtk::DrawingArea, cr: &gtk::cairo::Context, width: i32, height: i32, entry: &CoreEntry) {
    if entry.history.len() < 2 {
        return;
    }
    let style = area.style_context();
    let accent = style.lookup_color("accent_color").unwrap_or_else(|| gtk::gdk::RGBA::new(0.21, 0.52, 0.89, 1.0));
    let max = entry.hw_max_khz.max(entry.history.iter().copied().max().unwrap_or(1)).max(1) as f64;
    let (w, h) = (f64::from(width), f64::from(height));
    let capacity = entry.history.capacity().max(entry.history.len()).max(2) as f64;
    let step = w / (capacity - 1.0);
    let start = w - step * (entry.history.len() as f64 - 1.0);
    let y = |khz: u64| h - 1.0 - (khz as f64 / max) * (h - 2.0);
    cr.move_to(start, h);
    for (i, khz) in entry.history.iter().enumerate() {
        cr.line_to(start + step * i as f64, y(*khz));
    }
    cr.line_to(w, h);
    cr.close_path();
    cr.set_source_rgba(f64::from(accent.red()), f64::from(accent.green()), f64::from(accent.blue()), 0.25);
    let _ = cr.fill();
    for (i, khz) in entry.history.iter().enumerate() {
        let x = start + step * i as f64;
        if i == 0 {
            cr.move_to(x, y(*khz));
        } else {
            cr.line_to(x, y(*khz));
        }
    }
    cr.set_source_rgba(f64::from(accent.red()), f64::from(accent.green()), f64::from(accent.blue()), 1.0);
    cr.set_line_width(1.5);
    let _ = cr.stroke();
}

/// A one-line summary of a group of CPUs ("P-cores: 3.21 GHz average, EPP 64").
pub fn group_summary(data: &CoreData, kind: Option<CoreType>) -> Option<String> {
    let members: Vec<&CoreEntry> = data.entries.iter().filter(|e| e.online && e.core_type == kind).collect();
    let freqs: Vec<u64> = members.iter().filter_map(|e| e.sample.as_ref().and_then(|s| s.cur_khz)).collect();
    if freqs.is_empty() {
        return None;
    }
    let avg = freqs.iter().sum::<u64>() / freqs.len() as u64;
    let epp = members.first().map(|e| epp_text(e.sample.as_ref().and_then(|s| s.epp), e.epp_value)).unwrap_or_default();
    Some(format!("{} · {}", super::model::ghz(avg), epp))
}
