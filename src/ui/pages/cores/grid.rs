//! The per-core grid: a card per CPU (`card.rs`, relm4's typed grid
//! view), or the compact heat maps (`maps.rs`) on big machines, below a
//! header with the driver, its mode, the platform profile and the lap
//! sensor's warning, and on hybrid CPUs a filter by kind.
//!
//! Only the cards on screen exist, so 256 CPUs cost what 30 do. Each tick
//! the page takes the new frame and the cards on screen refresh from it:
//! labels only where their text changed, and a redraw of the sparkline.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use relm4::gtk::{self, glib, prelude::*};
use relm4::typed_view::grid::TypedGridView;

use gearshift::core::identity::CoreType;
use gearshift::i18n::gettext;

use super::card::CoreItem;
use super::data::{CoreData, Frame};
use super::maps::{self, Compact};

/// Above this many CPUs the page opens on the compact view.
pub const COMPACT_ABOVE: usize = 64;

/// The grid's filters, in the order they are added.
const P_CORES: usize = 0;
const E_CORES: usize = 1;

/// The per-core page's widgets.
pub struct CoreGrid {
    /// The driver, its mode and the firmware's platform profile.
    header: gtk::Label,
    /// The lap sensor's warning (hidden while not on a lap).
    lap: gtk::Box,
    /// The latest frame.
    frame: Frame,
    /// A card per CPU.
    cards: TypedGridView<CoreItem, gtk::NoSelection>,
    /// Cards, or the compact heat maps.
    views: gtk::Stack,
    /// One heat map per socket, with its heading and its squares.
    compact: Compact,
}

impl CoreGrid {
    /// Builds the page for `data`, with `header` (the driver, its mode and
    /// the firmware's platform profile: [`crate::ui::model::cores_header`]) and
    /// the lap warning where `on_lap` above the cards. On a hybrid CPU the
    /// filter bar calls `on_kind` with the kind chosen (`None`: all CPUs).
    pub fn new(
        root: &gtk::Box,
        data: Arc<CoreData>,
        (hybrid, on_kind): (bool, impl Fn(Option<CoreType>) + Clone + 'static),
        header: &[String],
        on_lap: bool,
    ) -> CoreGrid {
        let frame: Frame = Rc::new(RefCell::new(data));
        let mut cards: TypedGridView<CoreItem, gtk::NoSelection> = TypedGridView::new();
        cards.extend_from_iter(frame.borrow().entries.iter().map(|e| CoreItem::new(e.id, e.core_type, frame.clone())));
        cards.add_filter(|card| card.core_type == Some(CoreType::Performance));
        cards.add_filter(|card| card.core_type == Some(CoreType::Efficiency));
        cards.set_filter_status(P_CORES, false);
        cards.set_filter_status(E_CORES, false);
        let grid = &cards.view;
        grid.set_min_columns(1);
        grid.set_max_columns(16);
        grid.add_css_class("core-grid");
        crate::ui::set_accessible_label(grid, &gettext("Every CPU"));
        let scrolled =
            gtk::ScrolledWindow::builder().hscrollbar_policy(gtk::PolicyType::Never).vexpand(true).child(grid).build();

        let header_label = gtk::Label::builder()
            .use_markup(true)
            .label(header_markup(header))
            .wrap(true)
            .justify(gtk::Justification::Center)
            .css_classes(["dim-label"])
            .build();
        let lap = lap_warning(on_lap);
        let top = gtk::Box::new(gtk::Orientation::Vertical, 6);
        top.set_margin_top(12);
        top.set_margin_bottom(6);
        top.set_margin_start(12);
        top.set_margin_end(12);
        top.append(&header_label);
        top.append(&lap);
        if hybrid {
            top.append(&filter_bar(on_kind));
        }
        let (compact_page, compact) = maps::compact_view(&frame);
        let views = gtk::Stack::builder().vexpand(true).build();
        views.add_titled(&scrolled, Some("cards"), &gettext("Cards"));
        views.add_titled(&compact_page, Some("compact"), &gettext("Compact"));
        let count = frame.borrow().entries.len();
        let many = count > COMPACT_ABOVE;
        views.set_visible_child_name(if many { "compact" } else { "cards" });
        log::debug!("cores view: {}, {} groups", if many { "compact" } else { "cards" }, compact.groups());
        if count > 16 {
            let switcher = gtk::StackSwitcher::builder().stack(&views).halign(gtk::Align::Center).build();
            crate::ui::set_accessible_label(&switcher, &gettext("View"));
            top.append(&switcher);
        }
        root.append(&top);
        root.append(&views);
        maps::refresh(&compact, &frame.borrow());
        CoreGrid { header: header_label, lap, frame, cards, views, compact }
    }

    /// Shows a new header (after a switch, a hotkey, the lap sensor).
    pub fn set_header(&self, header: &[String], on_lap: bool) {
        let markup = header_markup(header);
        if self.header.label() != markup {
            self.header.set_markup(&markup);
        }
        self.lap.set_visible(on_lap);
    }

    /// Shows the cards of one kind of CPU (`None`: every CPU).
    pub fn show_kind(&mut self, kind: Option<CoreType>) {
        self.cards.set_filter_status(P_CORES, kind == Some(CoreType::Performance));
        self.cards.set_filter_status(E_CORES, kind == Some(CoreType::Efficiency));
    }

    /// Takes a tick's frame and refreshes what is on screen from it.
    pub fn refresh_visible(&self, frame: Arc<CoreData>) {
        *self.frame.borrow_mut() = frame;
        if self.views.visible_child_name().as_deref() == Some("compact") {
            maps::refresh(&self.compact, &self.frame.borrow());
            return;
        }
        for card in (0..self.cards.len()).filter_map(|at| self.cards.get(at)) {
            card.borrow_mut().refresh();
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

fn lap_warning(on_lap: bool) -> gtk::Box {
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
    lap
}

fn filter_bar(on_kind: impl Fn(Option<CoreType>) + Clone + 'static) -> gtk::Box {
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
        let on_kind = on_kind.clone();
        button.connect_toggled(move |b| {
            if b.is_active() {
                on_kind(value);
            }
        });
        bar.append(&button);
    }
    bar
}
