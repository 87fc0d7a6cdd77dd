//! A card's live part: the current frequency in large digits over a
//! 60-second bar sparkline, drawn as plain GTK render nodes.
//!
//! Why a widget of its own: a GtkDrawingArea rasterises a cairo surface on
//! every redraw and a GtkLabel whose text changes re-lays out the whole
//! grid. With 50 cards on screen ticking once a second both cost several
//! per cent of a core; colour and text nodes in a widget of fixed size cost
//! a fraction of that.

use std::cell::RefCell;

use relm4::gtk::{self, glib, graphene, pango, prelude::*, subclass::prelude::*};

mod imp {
    use super::*;

    #[derive(Default)]
    pub struct SparkGraph {
        /// Values from 0.0 to 1.0, oldest first.
        pub values: RefCell<Vec<f32>>,
        /// How many values make a full width.
        pub capacity: std::cell::Cell<usize>,
        /// The text over the graph.
        pub text: RefCell<String>,
        pub layout: RefCell<Option<pango::Layout>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for SparkGraph {
        const NAME: &'static str = "GearshiftSparkGraph";
        type Type = super::SparkGraph;
        type ParentType = gtk::Widget;
    }

    impl ObjectImpl for SparkGraph {}

    impl WidgetImpl for SparkGraph {
        fn measure(&self, orientation: gtk::Orientation, _for_size: i32) -> (i32, i32, i32, i32) {
            match orientation {
                gtk::Orientation::Horizontal => (120, 200, -1, -1),
                _ => (68, 68, -1, -1),
            }
        }

        #[allow(deprecated)]
        fn snapshot(&self, snapshot: &gtk::Snapshot) {
            let widget = self.obj();
            let (w, h) = (WidgetExt::width(&*widget) as f32, WidgetExt::height(&*widget) as f32);
            let style = widget.style_context();
            let fg = style.color();
            let accent = style.lookup_color("accent_color").unwrap_or(fg);
            // The graph fills the lower 36 px; the text sits above it.
            let graph_h = 36.0_f32.min(h);
            let values = self.values.borrow();
            let capacity = self.capacity.get().max(values.len()).max(2) as f32;
            let bar_w = w / capacity;
            let faded = gtk::gdk::RGBA::new(accent.red(), accent.green(), accent.blue(), 0.55);
            let start = w - bar_w * values.len() as f32;
            for (i, v) in values.iter().enumerate() {
                let bar_h = (v.clamp(0.0, 1.0) * (graph_h - 1.0)).max(1.0);
                let rect = graphene::Rect::new(start + bar_w * i as f32, h - bar_h, (bar_w - 0.5).max(0.5), bar_h);
                snapshot.append_color(if i + 1 == values.len() { &accent } else { &faded }, &rect);
            }
            let mut layout = self.layout.borrow_mut();
            let layout = layout.get_or_insert_with(|| {
                let layout = widget.create_pango_layout(None);
                let mut font = widget.pango_context().font_description().unwrap_or_default();
                font.set_size(font.size() * 3 / 2);
                font.set_weight(pango::Weight::Bold);
                layout.set_font_description(Some(&font));
                layout
            });
            let text = self.text.borrow();
            if layout.text().as_str() != text.as_str() {
                layout.set_text(&text);
            }
            snapshot.append_layout(layout, &fg);
        }
    }
}

glib::wrapper! {
    /// Frequency text over a bar sparkline.
    pub struct SparkGraph(ObjectSubclass<imp::SparkGraph>)
        @extends gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for SparkGraph {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl SparkGraph {
    /// Sets what is shown and redraws: `values` from 0 to 1, oldest first,
    /// `capacity` values filling the width.
    pub fn set(&self, text: &str, values: impl Iterator<Item = f32>, capacity: usize) {
        let imp = self.imp();
        {
            let mut stored = imp.values.borrow_mut();
            stored.clear();
            stored.extend(values);
        }
        imp.capacity.set(capacity);
        if imp.text.borrow().as_str() != text {
            *imp.text.borrow_mut() = text.to_owned();
        }
        self.queue_draw();
    }
}
