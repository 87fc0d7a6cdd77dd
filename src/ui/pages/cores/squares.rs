//! The heat maps for the keyboard and screen readers. The heat map draws a
//! socket's colours in one widget; a `SquareLayer` lays a transparent square
//! over each drawn one: a table cell named "CPU 12", whose description
//! carries its figures (`maps.rs` keeps them), and which draws nothing but
//! its focus ring (`.cpu-square` in style.css).
//!
//! One roving tab stop serves every socket's map (`Navigator`): only the
//! square last visited can take the focus, so Tab enters the maps once and
//! leaves them with the next press instead of walking 256 squares; the
//! arrow keys move across the maps (down from the last row of one socket
//! into the first row of the next), Home and End to the first and the last
//! CPU, and a click moves the tab stop to the square clicked.

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::{Rc, Weak};

use relm4::gtk::{self, gdk, glib, graphene, gsk, prelude::*, subclass::prelude::*};

use crate::ui::heatmap::{HeatMap, CELL};

/// The gap between the heat map's squares (`widgets/heatmap.rs`; checked
/// against its `cpu_at` in debug builds).
const GAP: f32 = 2.0;

/// How many squares a row of a map `width` pixels wide holds (the heat
/// map's own rule).
fn columns(width: i32) -> usize {
    ((width as f32 + GAP) / (CELL + GAP)).floor().max(1.0) as usize
}

mod imp {
    use super::*;

    #[derive(Default)]
    pub struct SquareLayer {
        pub heat: OnceCell<HeatMap>,
        pub squares: RefCell<Vec<gtk::Box>>,
        pub columns: Cell<usize>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for SquareLayer {
        const NAME: &'static str = "GearshiftSquareLayer";
        type Type = super::SquareLayer;
        type ParentType = gtk::Widget;

        fn class_init(klass: &mut Self::Class) {
            klass.set_accessible_role(gtk::AccessibleRole::Grid);
        }
    }

    impl ObjectImpl for SquareLayer {
        fn dispose(&self) {
            while let Some(child) = self.obj().first_child() {
                child.unparent();
            }
        }
    }

    impl WidgetImpl for SquareLayer {
        fn request_mode(&self) -> gtk::SizeRequestMode {
            gtk::SizeRequestMode::HeightForWidth
        }

        fn measure(&self, orientation: gtk::Orientation, for_size: i32) -> (i32, i32, i32, i32) {
            self.heat.get().map_or((0, 0, -1, -1), |heat| heat.measure(orientation, for_size))
        }

        /// GTK's own focus stops at a plain widget: Tab lands on the square
        /// that is the tab stop, and leaves from any square.
        fn focus(&self, _direction: gtk::DirectionType) -> bool {
            if self.obj().focus_child().is_some() {
                return false;
            }
            let stop = self.squares.borrow().iter().find(|square| square.is_focusable()).cloned();
            stop.is_some_and(|square| square.grab_focus())
        }

        fn size_allocate(&self, width: i32, height: i32, baseline: i32) {
            let Some(heat) = self.heat.get() else { return };
            heat.allocate(width, height, baseline, None);
            let columns = columns(width);
            self.columns.set(columns);
            let squares = self.squares.borrow();
            for (at, square) in squares.iter().enumerate() {
                let (x, y) = position(at, columns);
                // GTK wants a size asked before one is given.
                square.measure(gtk::Orientation::Horizontal, -1);
                let place = gsk::Transform::new().translate(&graphene::Point::new(x, y));
                square.allocate(CELL as i32, CELL as i32, -1, Some(place));
            }
            if cfg!(debug_assertions) && !squares.is_empty() {
                let (x, y) = position(squares.len() - 1, columns);
                let drawn = heat.cpu_at(f64::from(x + 1.0), f64::from(y + 1.0));
                debug_assert!(drawn.is_some(), "the squares lie off the heat map's");
            }
        }
    }
}

/// Where square `at` lies in a map `columns` wide.
fn position(at: usize, columns: usize) -> (f32, f32) {
    ((at % columns) as f32 * (CELL + GAP), (at / columns) as f32 * (CELL + GAP))
}

glib::wrapper! {
    /// A socket's heat map with a focusable, described square over each CPU.
    pub struct SquareLayer(ObjectSubclass<imp::SquareLayer>)
        @extends gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl SquareLayer {
    /// `heat` with a square over each of its CPUs, named by `names` ("CPU
    /// 12"), in the same order.
    pub fn new(heat: &HeatMap, names: &[String]) -> SquareLayer {
        let layer: SquareLayer = glib::Object::new();
        heat.set_parent(&layer);
        let _ = layer.imp().heat.set(heat.clone());
        let squares = names
            .iter()
            .map(|name| {
                let square = gtk::Box::builder()
                    .accessible_role(gtk::AccessibleRole::GridCell)
                    .focusable(false)
                    // The pointer goes through to the heat map's tooltip.
                    .can_target(false)
                    .css_classes(["cpu-square"])
                    .build();
                square.set_size_request(CELL as i32, CELL as i32);
                crate::ui::set_accessible_label(&square, name);
                square.set_parent(&layer);
                square
            })
            .collect();
        *layer.imp().squares.borrow_mut() = squares;
        layer
    }

    /// Square `at`.
    pub fn square(&self, at: usize) -> Option<gtk::Box> {
        self.imp().squares.borrow().get(at).cloned()
    }

    /// How many squares a row holds now.
    fn columns(&self) -> usize {
        self.imp().columns.get().max(1)
    }

    fn len(&self) -> usize {
        self.imp().squares.borrow().len()
    }

    /// The square under a point of the layer.
    fn square_at(&self, x: f64, y: f64) -> Option<usize> {
        let (column, row) = ((x as f32 / (CELL + GAP)) as usize, (y as f32 / (CELL + GAP)) as usize);
        let at = row * self.columns() + column;
        (x >= 0.0 && y >= 0.0 && column < self.columns() && at < self.len()).then_some(at)
    }
}

/// A square of the maps: which map, which square in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spot {
    /// The map (socket), in page order.
    pub map: usize,
    /// The square in it, in CPU order.
    pub at: usize,
}

/// A move of the focus across the maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    Left,
    Right,
    Up,
    Down,
    First,
    Last,
}

/// Where `move_` leads from `from`, over maps of `(squares, columns)`;
/// `from` itself at an edge.
fn step(from: Spot, move_: Move, shapes: &[(usize, usize)]) -> Spot {
    let Some(&(len, columns)) = shapes.get(from.map) else { return from };
    let columns = columns.max(1);
    let (row, column) = (from.at / columns, from.at % columns);
    let last_row = len.saturating_sub(1) / columns;
    let next = shapes.get(from.map + 1).filter(|(len, _)| *len > 0);
    let previous = from.map.checked_sub(1).and_then(|map| shapes.get(map).map(|shape| (map, *shape)));
    let to = match move_ {
        Move::Right if from.at + 1 < len => Some(Spot { at: from.at + 1, ..from }),
        Move::Right => next.map(|_| Spot { map: from.map + 1, at: 0 }),
        Move::Left if from.at > 0 => Some(Spot { at: from.at - 1, ..from }),
        Move::Left => previous.filter(|(_, (len, _))| *len > 0).map(|(map, (len, _))| Spot { map, at: len - 1 }),
        Move::Down if row < last_row => Some(Spot { at: (from.at + columns).min(len - 1), ..from }),
        Move::Down => next.map(|(len, _)| Spot { map: from.map + 1, at: column.min(len - 1) }),
        Move::Up if row > 0 => Some(Spot { at: from.at - columns, ..from }),
        Move::Up => previous.filter(|(_, (len, _))| *len > 0).map(|(map, (len, columns))| {
            let columns = columns.max(1);
            Spot { map, at: ((len - 1) / columns * columns + column).min(len - 1) }
        }),
        Move::First => shapes.iter().position(|(len, _)| *len > 0).map(|map| Spot { map, at: 0 }),
        Move::Last => shapes.iter().rposition(|(len, _)| *len > 0).map(|map| Spot { map, at: shapes[map].0 - 1 }),
    };
    to.unwrap_or(from)
}

fn move_for(key: gdk::Key) -> Option<Move> {
    match key {
        gdk::Key::Left | gdk::Key::KP_Left => Some(Move::Left),
        gdk::Key::Right | gdk::Key::KP_Right => Some(Move::Right),
        gdk::Key::Up | gdk::Key::KP_Up => Some(Move::Up),
        gdk::Key::Down | gdk::Key::KP_Down => Some(Move::Down),
        gdk::Key::Home | gdk::Key::KP_Home => Some(Move::First),
        gdk::Key::End | gdk::Key::KP_End => Some(Move::Last),
        _ => None,
    }
}

/// Told the square about to take the focus (`maps.rs` describes it then,
/// with the figures of the moment).
pub type OnFocus = Box<dyn Fn(Spot, &gtk::Box)>;

/// The one tab stop across every map, and the keys that move it.
pub struct Navigator {
    layers: Vec<SquareLayer>,
    current: Cell<Spot>,
    on_focus: OnFocus,
}

impl Navigator {
    /// Serves `layers` (one per socket, in page order); the first square of
    /// the first is the tab stop.
    pub fn new(layers: Vec<SquareLayer>, on_focus: OnFocus) -> Rc<Navigator> {
        let navigator = Rc::new(Navigator { layers, current: Cell::new(Spot::default()), on_focus });
        if let Some(first) = navigator.square(Spot::default()) {
            first.set_focusable(true);
        }
        for (map, layer) in navigator.layers.iter().enumerate() {
            let keys = gtk::EventControllerKey::new();
            let weak = Rc::downgrade(&navigator);
            keys.connect_key_pressed(move |_, key, _, modifiers| {
                let Some((navigator, move_)) = weak.upgrade().zip(move_for(key)) else {
                    return glib::Propagation::Proceed;
                };
                if modifiers.intersects(gdk::ModifierType::ALT_MASK | gdk::ModifierType::SHIFT_MASK) {
                    return glib::Propagation::Proceed;
                }
                navigator.go(step(navigator.current.get(), move_, &navigator.shapes()));
                glib::Propagation::Stop
            });
            layer.add_controller(keys);
            // Tab lands on the tab stop without asking: describe it then.
            let focus = gtk::EventControllerFocus::new();
            let weak = Rc::downgrade(&navigator);
            focus.connect_enter(move |_| {
                if let Some(navigator) = weak.upgrade() {
                    navigator.describe_current();
                }
            });
            layer.add_controller(focus);
            let click = gtk::GestureClick::new();
            let (weak, on): (Weak<Navigator>, _) = (Rc::downgrade(&navigator), layer.downgrade());
            click.connect_pressed(move |_, _, x, y| {
                let Some((navigator, layer)) = weak.upgrade().zip(on.upgrade()) else { return };
                if let Some(at) = layer.square_at(x, y) {
                    navigator.go(Spot { map, at });
                }
            });
            layer.add_controller(click);
        }
        navigator
    }

    /// The square that is the tab stop now.
    pub fn current(&self) -> Spot {
        self.current.get()
    }

    fn square(&self, spot: Spot) -> Option<gtk::Box> {
        self.layers.get(spot.map)?.square(spot.at)
    }

    fn shapes(&self) -> Vec<(usize, usize)> {
        self.layers.iter().map(|layer| (layer.len(), layer.columns())).collect()
    }

    fn describe_current(&self) {
        let spot = self.current.get();
        if let Some(square) = self.square(spot) {
            (self.on_focus)(spot, &square);
        }
    }

    /// Moves the tab stop and the focus to `to`.
    fn go(&self, to: Spot) {
        let from = self.current.get();
        let Some(square) = self.square(to) else { return };
        // Described before the focus lands, so that a screen reader reads
        // the figures of now.
        (self.on_focus)(to, &square);
        square.set_focusable(true);
        self.current.set(to);
        square.grab_focus();
        if from != to {
            if let Some(old) = self.square(from) {
                old.set_focusable(false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sockets of 10 CPUs, 4 to a row: rows of 4, 4 and 2.
    const SHAPES: [(usize, usize); 2] = [(10, 4), (10, 4)];

    fn at(map: usize, at: usize) -> Spot {
        Spot { map, at }
    }

    #[test]
    fn the_arrows_move_across_a_map_by_rows_and_columns() {
        assert_eq!(step(at(0, 0), Move::Right, &SHAPES), at(0, 1));
        assert_eq!(step(at(0, 1), Move::Down, &SHAPES), at(0, 5));
        assert_eq!(step(at(0, 5), Move::Up, &SHAPES), at(0, 1));
        assert_eq!(step(at(0, 5), Move::Left, &SHAPES), at(0, 4));
        // Down into a short last row: its last square.
        assert_eq!(step(at(0, 7), Move::Down, &SHAPES), at(0, 9));
    }

    #[test]
    fn the_arrows_cross_from_one_socket_to_the_next_and_stop_at_the_ends() {
        assert_eq!(step(at(0, 9), Move::Right, &SHAPES), at(1, 0));
        assert_eq!(step(at(1, 0), Move::Left, &SHAPES), at(0, 9));
        // Down from the last row keeps the column in the next map.
        assert_eq!(step(at(0, 9), Move::Down, &SHAPES), at(1, 1));
        // Up from the first row: the previous map's last row, clamped.
        assert_eq!(step(at(1, 3), Move::Up, &SHAPES), at(0, 9));
        assert_eq!(step(at(1, 1), Move::Up, &SHAPES), at(0, 9));
        assert_eq!(step(at(1, 0), Move::Up, &SHAPES), at(0, 8));
        assert_eq!(step(at(0, 0), Move::Left, &SHAPES), at(0, 0));
        assert_eq!(step(at(0, 2), Move::Up, &SHAPES), at(0, 2));
        assert_eq!(step(at(1, 9), Move::Right, &SHAPES), at(1, 9));
        assert_eq!(step(at(1, 8), Move::Down, &SHAPES), at(1, 8));
    }

    #[test]
    fn home_and_end_go_to_the_first_and_the_last_cpu() {
        assert_eq!(step(at(1, 5), Move::First, &SHAPES), at(0, 0));
        assert_eq!(step(at(0, 5), Move::Last, &SHAPES), at(1, 9));
        assert_eq!(step(at(0, 0), Move::Last, &[(3, 4)]), at(0, 2));
        assert_eq!(step(at(0, 0), Move::Right, &[]), at(0, 0));
    }
}
