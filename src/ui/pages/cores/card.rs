//! One CPU's card in the grid: relm4's typed grid item. The item is the
//! CPU (its number and kind); while its card is on screen it keeps the
//! card's widgets and refreshes them from each tick's frame. Only the cards
//! on screen exist, and none is created or destroyed per tick.

use relm4::gtk::{self, glib, prelude::*};
use relm4::typed_view::grid::RelmGridItem;

use gearshift::core::identity::CoreType;
use gearshift::i18n::gettext;

use super::data::{CoreData, Frame};
use crate::ui::model::ghz;
use crate::ui::spark::SparkGraph;

/// A card's widgets.
#[derive(Clone)]
pub struct CardWidgets {
    root: gtk::Box,
    title: gtk::Label,
    badge: gtk::Label,
    graph: SparkGraph,
    epp: gtk::Label,
    detail: gtk::Label,
}

/// What the slow labels show, to skip rebuilding them every tick.
type ShownKey =
    (Option<gearshift::core::parse::EppReading>, Option<String>, Option<u8>, (Option<u64>, Option<u64>), bool);

/// A card on screen: its widgets, its tooltip's handler, and what its
/// labels show now.
struct OnScreen {
    widgets: CardWidgets,
    tooltip: glib::SignalHandlerId,
    shown: Option<ShownKey>,
    accessible: String,
}

/// One CPU of the grid.
pub struct CoreItem {
    /// The CPU's number.
    pub id: u32,
    /// P- or E-core.
    pub core_type: Option<CoreType>,
    /// The page's latest frame (its tooltips read it when asked).
    frame: Frame,
    on_screen: Option<OnScreen>,
}

impl CoreItem {
    /// The item for CPU `id`.
    pub fn new(id: u32, core_type: Option<CoreType>, frame: Frame) -> CoreItem {
        CoreItem { id, core_type, frame, on_screen: None }
    }

    /// Refreshes the card from the frame, where the card is on screen.
    pub fn refresh(&mut self) {
        let Some(card) = self.on_screen.as_mut() else { return };
        let frame = self.frame.borrow();
        fill(card, &frame, self.id, false);
    }
}

impl RelmGridItem for CoreItem {
    type Root = gtk::Box;
    type Widgets = CardWidgets;

    fn setup(item: &gtk::ListItem) -> (gtk::Box, CardWidgets) {
        item.set_activatable(false);
        let widgets = build();
        (widgets.root.clone(), widgets)
    }

    fn bind(&mut self, widgets: &mut CardWidgets, _root: &mut gtk::Box) {
        let (frame, id) = (self.frame.clone(), self.id);
        let tooltip = widgets.root.connect_query_tooltip(move |_, _, _, _, tooltip| {
            let Some(card) = frame.borrow().card(id) else { return false };
            tooltip.set_text(Some(&card.tooltip()));
            true
        });
        let mut card = OnScreen { widgets: widgets.clone(), tooltip, shown: None, accessible: String::new() };
        fill(&mut card, &self.frame.borrow(), self.id, true);
        self.on_screen = Some(card);
    }

    fn unbind(&mut self, widgets: &mut CardWidgets, _root: &mut gtk::Box) {
        if let Some(card) = self.on_screen.take() {
            widgets.root.disconnect(card.tooltip);
        }
    }
}

fn set_if_changed(label: &gtk::Label, text: &str) {
    if label.label() != text {
        label.set_label(text);
    }
}

fn build() -> CardWidgets {
    let root = gtk::Box::new(gtk::Orientation::Vertical, 2);
    // Not Adwaita's .card: its blurred shadow is re-rendered with every
    // redraw of the card, and the cards redraw every second.
    root.add_css_class("core-card");
    root.set_width_request(200);
    root.set_focusable(true);
    root.set_has_tooltip(true);
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
    CardWidgets { root, title, badge, graph, epp, detail }
}

fn fill(card: &mut OnScreen, data: &CoreData, id: u32, on_bind: bool) {
    let Some(entry) = data.get(id) else { return };
    let widgets = &card.widgets;
    // Every tick: the frequency and the bars, nothing else.
    let max = entry.hw_max_khz.max(entry.history.iter().copied().max().unwrap_or(1)).max(1) as f32;
    let frequency = match (entry.online, entry.sample.as_ref().and_then(|s| s.cur_khz)) {
        (false, _) => gettext("Offline"),
        (true, Some(khz)) => ghz(khz),
        (true, None) => "—".to_owned(),
    };
    widgets.graph.set(&frequency, entry.history.iter().map(|khz| *khz as f32 / max), data.history_len);
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
    if !on_bind && card.shown.as_ref() == Some(&key) {
        return;
    }
    card.shown = Some(key);
    let Some(text) = data.card(id) else { return };
    if on_bind {
        widgets.title.set_label(&text.title);
        set_if_changed(&widgets.badge, &text.badge);
        widgets.badge.set_visible(!text.badge.is_empty());
        widgets.badge.set_css_classes(match entry.core_type {
            None => &["core-badge"],
            Some(CoreType::Performance) => &["core-badge", "core-badge-p"],
            Some(CoreType::Efficiency) => &["core-badge", "core-badge-e"],
        });
        if entry.online {
            widgets.root.remove_css_class("offline");
        } else {
            widgets.root.add_css_class("offline");
        }
    }
    set_if_changed(&widgets.epp, &text.epp);
    let detail = match (text.governor.is_empty(), text.range.is_empty()) {
        (false, false) => format!("{} · {}", text.governor, text.range),
        (false, true) => text.governor.clone(),
        (true, false) => text.range.clone(),
        (true, true) => String::new(),
    };
    set_if_changed(&widgets.detail, &detail);
    if card.accessible != text.accessible {
        card.accessible.clone_from(&text.accessible);
        crate::ui::set_accessible_label(&widgets.root, &text.accessible);
    }
}
