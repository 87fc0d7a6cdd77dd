//! The Cores page: a card per CPU with frequency, a 60-second sparkline,
//! EPP, governor and limits, or compact heat maps on big machines.
//!
//! A component: the window sends it each tick's frame of figures (an
//! immutable [`CoreData`] behind an `Arc`, the same the overview gets) and
//! the header (driver, mode, the firmware's platform profile, the lap
//! sensor) when it changed. The grid (`grid.rs`) lays out the header,
//! the filter and the views; a card per CPU is relm4's typed grid item
//! (`card.rs`); the compact heat maps and their legend are `maps.rs`, with
//! the legend's colour scale (`scale.rs`), and their squares for the
//! keyboard and screen readers (`squares.rs`, described by `said.rs`).

mod card;
mod data;
mod grid;
mod maps;
mod said;
mod scale;
mod squares;

use std::sync::Arc;

use gearshift::core::identity::CoreType;
use relm4::gtk;
use relm4::{ComponentParts, ComponentSender, SimpleComponent};

pub use data::CoreData;
pub use maps::group_summary;

/// What the window tells the page.
#[derive(Debug)]
pub enum CoresMsg {
    /// A tick's frame: refresh what is on screen.
    Samples(Arc<CoreData>),
    /// The header's parts ([`crate::ui::model::cores_header`]) and whether the
    /// machine sits on a lap.
    Header(Vec<String>, bool),
    /// The filter bar's choice: the cards of one kind of CPU, or all.
    Kind(Option<CoreType>),
}

/// What the page starts with.
pub struct CoresInit {
    /// The first frame of figures.
    pub data: Arc<CoreData>,
    /// The CPU has P- and E-cores (a filter by kind).
    pub hybrid: bool,
    /// The header's parts.
    pub header: Vec<String>,
    /// On a lap now.
    pub on_lap: bool,
}

/// The page.
pub struct CoresPage {
    grid: grid::CoreGrid,
}

impl SimpleComponent for CoresPage {
    type Input = CoresMsg;
    type Output = ();
    type Init = CoresInit;
    type Root = gtk::Box;
    type Widgets = ();

    fn init_root() -> gtk::Box {
        gtk::Box::new(gtk::Orientation::Vertical, 0)
    }

    fn init(init: CoresInit, root: gtk::Box, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let input = sender.input_sender().clone();
        let on_kind = move |kind| input.emit(CoresMsg::Kind(kind));
        let grid = grid::CoreGrid::new(&root, init.data, (init.hybrid, on_kind), &init.header, init.on_lap);
        ComponentParts { model: CoresPage { grid }, widgets: () }
    }

    fn update(&mut self, msg: CoresMsg, _sender: ComponentSender<Self>) {
        match msg {
            CoresMsg::Samples(frame) => self.grid.refresh_visible(frame),
            CoresMsg::Header(header, on_lap) => self.grid.set_header(&header, on_lap),
            CoresMsg::Kind(kind) => self.grid.show_kind(kind),
        }
    }
}
