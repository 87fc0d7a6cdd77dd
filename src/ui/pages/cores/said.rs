//! What the heat maps' squares tell a screen reader, and the line under
//! the maps with the figures of the square last visited.
//!
//! A square's description is rebuilt only when what it says changed: every
//! square's when its EPP, governor or state changed; its frequency, which
//! changes every tick, when the square takes the focus. 256 descriptions
//! rewritten every second would cost 256 accessibility events a second,
//! and a screen reader would read the focused square's figures out again
//! every second.

use std::cell::RefCell;

use relm4::gtk;

use gearshift::core::parse::EppReading;

use super::data::{CoreData, CoreEntry, Frame};
use super::squares::Spot;
use crate::ui::model::CoreCard;

/// What made a square's description: when these change, it is rebuilt.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Facts {
    online: bool,
    epp: Option<EppReading>,
    epp_value: Option<u8>,
    governor: Option<String>,
}

impl Facts {
    fn of(entry: &CoreEntry) -> Facts {
        let sample = entry.sample.as_ref();
        Facts {
            online: entry.online,
            epp: sample.and_then(|s| s.epp),
            epp_value: entry.epp_value,
            governor: sample.and_then(|s| s.governor.clone()),
        }
    }

    /// Whether `entry` still has these facts (no copy made: this runs for
    /// every square every tick).
    fn hold_for(&self, entry: &CoreEntry) -> bool {
        let sample = entry.sample.as_ref();
        self.online == entry.online
            && self.epp == sample.and_then(|s| s.epp)
            && self.epp_value == entry.epp_value
            && self.governor.as_deref() == sample.and_then(|s| s.governor.as_deref())
    }
}

/// A square's description now and the facts it was made from.
#[derive(Default)]
struct Shown {
    facts: Option<Facts>,
    text: String,
}

/// The squares' descriptions and the line with the visited square's figures.
pub struct Said {
    /// The page's latest frame.
    pub frame: Frame,
    /// Each map's CPUs, in square order.
    ids: Vec<Vec<u32>>,
    shown: RefCell<Vec<Vec<Shown>>>,
    /// The figures of the square last visited.
    readout: gtk::Label,
}

impl Said {
    /// Nothing said yet of the squares of `ids` (each map's CPUs); the
    /// figures of the square last visited go to `readout`.
    pub fn new(frame: Frame, ids: Vec<Vec<u32>>, readout: gtk::Label) -> Said {
        let shown = RefCell::new(ids.iter().map(|map| map.iter().map(|_| Shown::default()).collect()).collect());
        Said { frame, ids, shown, readout }
    }

    /// Describes the square at `spot` (`fresh`: with the figures of now,
    /// for a square taking the focus; else only where its facts changed).
    pub fn describe(&self, data: &CoreData, spot: Spot, square: &gtk::Box, fresh: bool) {
        let Some(entry) = self.ids.get(spot.map).and_then(|ids| ids.get(spot.at)).and_then(|id| data.get(*id)) else {
            return;
        };
        let mut shown = self.shown.borrow_mut();
        let Some(shown) = shown.get_mut(spot.map).and_then(|map| map.get_mut(spot.at)) else { return };
        if !fresh && shown.facts.as_ref().is_some_and(|facts| facts.hold_for(entry)) {
            return;
        }
        let Some(card) = data.card(entry.id) else { return };
        shown.facts = Some(Facts::of(entry));
        let text = description(&card);
        if shown.text != text {
            crate::ui::set_accessible_description(square, &text);
            shown.text = text;
        }
    }

    /// Shows the figures of the square at `spot` in the readout line.
    pub fn read_out(&self, data: &CoreData, spot: Spot) {
        let Some(card) = self.ids.get(spot.map).and_then(|ids| ids.get(spot.at)).and_then(|id| data.card(*id)) else {
            return;
        };
        let text = card.tooltip();
        if self.readout.label() != text {
            self.readout.set_label(&text);
        }
    }
}

/// What a screen reader reads after a square's name ("CPU 12"): its
/// figures, the frequency included.
fn description(card: &CoreCard) -> String {
    let full = card.tooltip();
    match full.strip_prefix(card.title.as_str()).and_then(|rest| rest.strip_prefix(", ")) {
        Some(rest) => rest.to_owned(),
        None => full,
    }
}
