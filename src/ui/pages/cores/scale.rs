//! The heat maps' colour scale, for their legend (`maps.rs`): a bar as wide
//! as there is room for, up to 240 pixels, drawn by style.css (`heatscale`)
//! in the heat map's colours.

use relm4::gtk::{self, glib, subclass::prelude::*};

mod imp {
    use super::*;

    /// The scale: as wide as there is room for, up to 240 pixels.
    #[derive(Default)]
    pub struct Scale;

    #[glib::object_subclass]
    impl ObjectSubclass for Scale {
        const NAME: &'static str = "GearshiftHeatScale";
        type Type = super::Scale;
        type ParentType = gtk::Widget;

        fn class_init(klass: &mut Self::Class) {
            klass.set_accessible_role(gtk::AccessibleRole::Img);
            klass.set_css_name("heatscale");
        }
    }

    impl ObjectImpl for Scale {}

    impl WidgetImpl for Scale {
        fn measure(&self, orientation: gtk::Orientation, _for_size: i32) -> (i32, i32, i32, i32) {
            match orientation {
                gtk::Orientation::Horizontal => (48, 240, -1, -1),
                _ => (14, 14, -1, -1),
            }
        }
    }
}

glib::wrapper! {
    /// The colour scale (its gradient is style.css's).
    pub struct Scale(ObjectSubclass<imp::Scale>)
        @extends gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for Scale {
    fn default() -> Self {
        glib::Object::new()
    }
}
