//! The compact per-core view for large machines: one dense heat map per
//! socket, a small square per CPU coloured by its frequency (from the
//! lowest to the highest this CPU can run at), its number inside, the
//! card's text in the tooltip.
//!
//! One widget draws a whole socket as plain colour and text render nodes,
//! so 256 CPUs cost one redraw a tick, not 256 labels.

use std::cell::RefCell;

use relm4::gtk::{self, gdk, glib, graphene, pango, prelude::*, subclass::prelude::*};

/// A square's side in pixels.
pub const CELL: f32 = 30.0;
/// The gap between squares.
const GAP: f32 = 2.0;

/// One CPU's square.
#[derive(Debug, Clone, PartialEq)]
pub struct Square {
    /// The CPU number shown inside.
    pub id: u32,
    /// Its frequency between the lowest and the highest, 0.0 to 1.0;
    /// `None` while offline or unread.
    pub level: Option<f32>,
}

mod imp {
    use super::*;

    #[derive(Default)]
    pub struct HeatMap {
        pub squares: RefCell<Vec<Square>>,
        /// The numbers' layouts, made once per CPU.
        pub layouts: RefCell<Vec<pango::Layout>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for HeatMap {
        const NAME: &'static str = "GearshiftHeatMap";
        type Type = super::HeatMap;
        type ParentType = gtk::Widget;
    }

    impl ObjectImpl for HeatMap {}

    impl WidgetImpl for HeatMap {
        fn request_mode(&self) -> gtk::SizeRequestMode {
            gtk::SizeRequestMode::HeightForWidth
        }

        fn measure(&self, orientation: gtk::Orientation, for_size: i32) -> (i32, i32, i32, i32) {
            let n = self.squares.borrow().len().max(1);
            match orientation {
                gtk::Orientation::Horizontal => {
                    let natural = (n.min(32) as f32 * (CELL + GAP)) as i32;
                    ((CELL + GAP) as i32 * 4, natural.max(200), -1, -1)
                }
                _ => {
                    let width = if for_size > 0 { for_size as f32 } else { 32.0 * (CELL + GAP) };
                    let columns = ((width + GAP) / (CELL + GAP)).floor().max(1.0) as usize;
                    let rows = n.div_ceil(columns);
                    let height = (rows as f32 * (CELL + GAP)) as i32;
                    (height, height, -1, -1)
                }
            }
        }

        #[allow(deprecated)]
        fn snapshot(&self, snapshot: &gtk::Snapshot) {
            let widget = self.obj();
            let width = WidgetExt::width(&*widget) as f32;
            let columns = ((width + GAP) / (CELL + GAP)).floor().max(1.0) as usize;
            let style = widget.style_context();
            let fg = style.color();
            let squares = self.squares.borrow();
            let layouts = self.layouts.borrow();
            for (i, square) in squares.iter().enumerate() {
                let (x, y) = ((i % columns) as f32 * (CELL + GAP), (i / columns) as f32 * (CELL + GAP));
                let rect = graphene::Rect::new(x, y, CELL, CELL);
                snapshot.append_color(&colour(square.level, &fg), &rect);
                if let Some(layout) = layouts.get(i) {
                    let (_, logical) = layout.pixel_extents();
                    let text_colour = match square.level {
                        Some(_) => gdk::RGBA::new(1.0, 1.0, 1.0, 0.95),
                        None => fg,
                    };
                    snapshot.save();
                    snapshot.translate(&graphene::Point::new(
                        x + (CELL - logical.width() as f32) / 2.0,
                        y + (CELL - logical.height() as f32) / 2.0,
                    ));
                    snapshot.append_layout(layout, &text_colour);
                    snapshot.restore();
                }
            }
        }
    }
}

glib::wrapper! {
    /// A socket's CPUs as a heat map.
    pub struct HeatMap(ObjectSubclass<imp::HeatMap>)
        @extends gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for HeatMap {
    fn default() -> Self {
        glib::Object::new()
    }
}

/// Cool blue at the lowest frequency to warm red at the highest; offline
/// squares are a faint outline colour.
fn colour(level: Option<f32>, fg: &gdk::RGBA) -> gdk::RGBA {
    match level {
        None => gdk::RGBA::new(fg.red(), fg.green(), fg.blue(), 0.12),
        Some(t) => {
            let t = t.clamp(0.0, 1.0);
            let mix = |a: f32, b: f32| a + (b - a) * t;
            gdk::RGBA::new(mix(0.11, 0.88), mix(0.44, 0.24), mix(0.80, 0.16), 1.0)
        }
    }
}

impl HeatMap {
    /// Shows `squares` (the same CPUs in the same order every tick).
    pub fn set(&self, squares: Vec<Square>) {
        let imp = self.imp();
        if *imp.squares.borrow() == squares {
            return;
        }
        let relayout = imp.squares.borrow().len() != squares.len();
        if imp.layouts.borrow().len() != squares.len() {
            let layouts = squares
                .iter()
                .map(|s| {
                    let layout = self.create_pango_layout(Some(&s.id.to_string()));
                    let mut font = pango::FontDescription::new();
                    font.set_size(8 * pango::SCALE);
                    layout.set_font_description(Some(&font));
                    layout
                })
                .collect();
            *imp.layouts.borrow_mut() = layouts;
        }
        *imp.squares.borrow_mut() = squares;
        if relayout {
            self.queue_resize();
        }
        self.queue_draw();
    }

    /// The CPU under a point, for the tooltip.
    pub fn cpu_at(&self, x: f64, y: f64) -> Option<u32> {
        let width = self.width() as f32;
        let columns = ((width + GAP) / (CELL + GAP)).floor().max(1.0) as usize;
        let (column, row) = ((x as f32 / (CELL + GAP)) as usize, (y as f32 / (CELL + GAP)) as usize);
        if column >= columns {
            return None;
        }
        self.imp().squares.borrow().get(row * columns + column).map(|s| s.id)
    }
}
