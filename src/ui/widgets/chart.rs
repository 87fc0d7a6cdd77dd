//! The efficiency lab's chart: work per joule per profile as bars with
//! their 95% intervals, and throughput against watts as points. Side by side where
//! the window is wide, one above the other where it is narrow. Plain colour
//! and text render nodes, like the heat map; what it shows is also in the
//! rows under it and in its accessible description.

use std::cell::RefCell;

use relm4::gtk::{self, gdk, glib, graphene, gsk, pango, prelude::*, subclass::prelude::*};

/// One profile in the chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The profile's name.
    pub label: String,
    /// Work per joule (the bar), where energy was read.
    pub ppw: Option<f64>,
    /// The 95% interval of `ppw` (none below two runs).
    pub interval: Option<(f64, f64)>,
    /// Mean power.
    pub watts: Option<f64>,
    /// Work per second.
    pub throughput: f64,
    /// The recommended one (drawn in the accent colour).
    pub best: bool,
}

/// What the chart shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChartData {
    /// The profiles, in the order measured.
    pub entries: Vec<Entry>,
    /// The bars' title ("MB per joule").
    pub bars_title: String,
    /// The points' title ("MB/s against watts").
    pub points_title: String,
}

/// Height of one panel.
const PANEL: f32 = 240.0;
/// Height of one profile's row where the bars lie across (a name above
/// its bar).
const ROW: f32 = 44.0;
/// Above the first row: the panel's title.
const ROWS_TOP: f32 = 34.0;

/// How the last chart drawn laid its bars out: 0 none drawn yet, 1
/// upright, 2 across. The window's state file says it (tests).
static LAST_LAYOUT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// How the last chart drawn laid its bars out ("upright", "across"), for
/// the window's state file.
pub fn last_layout() -> Option<&'static str> {
    match LAST_LAYOUT.load(std::sync::atomic::Ordering::Relaxed) {
        1 => Some("upright"),
        2 => Some("across"),
        _ => None,
    }
}
/// Below this width the panels stack.
const SIDE_BY_SIDE: f32 = 640.0;

mod imp {
    use super::*;

    #[derive(Default)]
    pub struct Chart {
        pub data: RefCell<ChartData>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for Chart {
        const NAME: &'static str = "GearshiftEfficiencyChart";
        type Type = super::Chart;
        type ParentType = gtk::Widget;

        fn class_init(klass: &mut Self::Class) {
            klass.set_accessible_role(gtk::AccessibleRole::Img);
        }
    }

    impl ObjectImpl for Chart {}

    impl WidgetImpl for Chart {
        fn request_mode(&self) -> gtk::SizeRequestMode {
            gtk::SizeRequestMode::HeightForWidth
        }

        fn measure(&self, orientation: gtk::Orientation, for_size: i32) -> (i32, i32, i32, i32) {
            match orientation {
                gtk::Orientation::Horizontal => (280, 800, -1, -1),
                _ => {
                    let both = self.has_points();
                    let stacked = for_size > 0 && (for_size as f32) < SIDE_BY_SIDE;
                    let width = if for_size > 0 { for_size as f32 } else { SIDE_BY_SIDE };
                    let bars = bars_height(&*self.obj(), &self.data.borrow(), bars_width(width, both));
                    let h = if stacked && both { bars + PANEL } else { bars.max(PANEL) };
                    (h as i32, h as i32, -1, -1)
                }
            }
        }

        #[allow(deprecated)]
        fn snapshot(&self, snapshot: &gtk::Snapshot) {
            let widget = self.obj();
            let (width, height) = (WidgetExt::width(&*widget) as f32, WidgetExt::height(&*widget) as f32);
            let style = widget.style_context();
            let colours = Colours {
                fg: style.color(),
                accent: style.lookup_color("accent_color").unwrap_or(gdk::RGBA::new(0.21, 0.52, 0.89, 1.0)),
            };
            let data = self.data.borrow();
            let both = self.has_points();
            let stacked = width < SIDE_BY_SIDE;
            let bars_w = bars_width(width, both);
            let bars_h = bars_height(&*widget, &data, bars_w);
            let bars = if both && !stacked {
                graphene::Rect::new(0.0, 0.0, bars_w, height)
            } else if both {
                graphene::Rect::new(0.0, 0.0, width, bars_h)
            } else {
                graphene::Rect::new(0.0, 0.0, width, height)
            };
            let upright = names_fit_under(&*widget, &data, bars_w);
            if upright {
                draw_bars(&widget, snapshot, &data, &bars, &colours);
            } else {
                draw_bars_across(&widget, snapshot, &data, &bars, &colours);
            }
            if !data.entries.is_empty() {
                LAST_LAYOUT.store(if upright { 1 } else { 2 }, std::sync::atomic::Ordering::Relaxed);
            }
            if both {
                let points = if stacked {
                    graphene::Rect::new(0.0, bars_h, width, PANEL)
                } else {
                    graphene::Rect::new(width / 2.0 + 12.0, 0.0, width / 2.0 - 12.0, height)
                };
                draw_points(&widget, snapshot, &data, &points, &colours);
            }
        }
    }

    impl Chart {
        pub fn has_points(&self) -> bool {
            self.data.borrow().entries.iter().any(|e| e.watts.is_some())
        }
    }
}

glib::wrapper! {
    /// The lab's chart.
    pub struct Chart(ObjectSubclass<imp::Chart>)
        @extends gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for Chart {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl Chart {
    /// Shows `data`; `description` is what a screen reader says for it.
    pub fn set(&self, data: ChartData, description: &str) {
        *self.imp().data.borrow_mut() = data;
        crate::ui::set_accessible_label(self, description);
        self.queue_resize();
        self.queue_draw();
    }
}

struct Colours {
    fg: gdk::RGBA,
    accent: gdk::RGBA,
}

fn faint(c: &gdk::RGBA, alpha: f32) -> gdk::RGBA {
    gdk::RGBA::new(c.red(), c.green(), c.blue(), alpha)
}

/// A text at (x, y): `align` 0.0 left of x, 0.5 centred on it, 1.0 right
/// of it; at most `width` wide (ellipsized).
#[allow(clippy::too_many_arguments)]
fn text(
    widget: &impl IsA<gtk::Widget>,
    snapshot: &gtk::Snapshot,
    words: &str,
    x: f32,
    y: f32,
    align: f32,
    width: f32,
    colour: &gdk::RGBA,
    small: bool,
) {
    let layout = layout(widget, words, width, small);
    layout.set_alignment(if align > 0.75 {
        pango::Alignment::Right
    } else if align > 0.25 {
        pango::Alignment::Center
    } else {
        pango::Alignment::Left
    });
    let (_, logical) = layout.pixel_extents();
    let w = logical.width() as f32;
    // The text's own left edge inside its (aligned) layout box.
    let inset = logical.x() as f32;
    snapshot.save();
    snapshot.translate(&graphene::Point::new(x - w * align - inset, y));
    snapshot.append_layout(&layout, colour);
    snapshot.restore();
}

fn line(snapshot: &gtk::Snapshot, x: f32, y: f32, w: f32, h: f32, colour: &gdk::RGBA) {
    snapshot.append_color(colour, &graphene::Rect::new(x, y, w.max(1.0), h.max(1.0)));
}

/// Work per joule as bars, the 95% interval as a whisker, the value above.
fn draw_bars(widget: &Chart, snapshot: &gtk::Snapshot, data: &ChartData, area: &graphene::Rect, c: &Colours) {
    let (x0, y0, w, h) = (area.x(), area.y(), area.width(), area.height());
    text(widget, snapshot, &data.bars_title, x0, y0, 0.0, w, &faint(&c.fg, 0.8), false);
    let entries: Vec<&Entry> = data.entries.iter().filter(|e| e.ppw.is_some()).collect();
    let (top, bottom) = (y0 + 44.0, y0 + h - 46.0);
    line(snapshot, x0, bottom, w, 1.0, &faint(&c.fg, 0.3));
    if entries.is_empty() {
        return;
    }
    let high = |e: &Entry| e.interval.map_or(0.0, |(_, high)| high).max(e.ppw.unwrap_or(0.0));
    let max = entries.iter().map(|e| high(e)).fold(0.0, f64::max);
    let scale = if max > 0.0 { f64::from(bottom - top) / max } else { 0.0 };
    let slot = w / entries.len() as f32;
    for (i, e) in entries.iter().enumerate() {
        let ppw = e.ppw.unwrap_or(0.0);
        let centre = x0 + slot * (i as f32 + 0.5);
        let bar_w = (slot * 0.55).min(72.0);
        let bar_h = (ppw * scale) as f32;
        let colour = if e.best { c.accent } else { faint(&c.fg, 0.35) };
        let rect = graphene::Rect::new(centre - bar_w / 2.0, bottom - bar_h, bar_w, bar_h);
        snapshot.push_rounded_clip(&gsk::RoundedRect::new(
            rect,
            graphene::Size::new(4.0, 4.0),
            graphene::Size::new(4.0, 4.0),
            graphene::Size::zero(),
            graphene::Size::zero(),
        ));
        snapshot.append_color(&colour, &rect);
        snapshot.pop();
        // The 95% interval of the mean, from its low end to its high end.
        let (low_y, high_y) = e.interval.map_or((bottom - bar_h, bottom - bar_h), |(low, high)| {
            (bottom - (low.max(0.0) * scale) as f32, bottom - (high * scale) as f32)
        });
        if low_y - high_y >= 2.0 {
            let ink = faint(&c.fg, 0.85);
            line(snapshot, centre, high_y, 1.5, low_y - high_y, &ink);
            line(snapshot, centre - 5.0, high_y, 11.0, 1.5, &ink);
            line(snapshot, centre - 5.0, low_y, 11.0, 1.5, &ink);
        }
        let value = figure(ppw);
        text(widget, snapshot, &value, centre, high_y.min(bottom - bar_h) - 20.0, 0.5, slot, &c.fg, true);
        text(widget, snapshot, &e.label, centre, bottom + 6.0, 0.5, slot, &faint(&c.fg, 0.8), true);
    }
}

/// The bars' panel's width in a chart `width` wide.
fn bars_width(width: f32, both: bool) -> f32 {
    if both && width >= SIDE_BY_SIDE {
        width / 2.0 - 12.0
    } else {
        width
    }
}

/// The profiles that have a bar.
fn with_bars(data: &ChartData) -> Vec<&Entry> {
    data.entries.iter().filter(|e| e.ppw.is_some()).collect()
}

/// True where every profile's name fits under its bar, on at most two
/// lines, in a panel `width` wide: else the bars lie across, each under its
/// whole name (a narrow window, many profiles, long names in German),
/// rather than cut names short ("Energiespar…").
fn names_fit_under(widget: &impl IsA<gtk::Widget>, data: &ChartData, width: f32) -> bool {
    let entries = with_bars(data);
    let slot = width / entries.len().max(1) as f32;
    entries.iter().all(|e| !layout(widget, &e.label, slot, true).is_ellipsized())
}

/// The bars' panel's height: [`PANEL`] with the bars upright, a row per
/// profile where they lie across.
fn bars_height(widget: &impl IsA<gtk::Widget>, data: &ChartData, width: f32) -> f32 {
    if names_fit_under(widget, data, width) {
        PANEL
    } else {
        ROWS_TOP + ROW * with_bars(data).len() as f32 + 6.0
    }
}

/// The bars lying across: each profile's name on a line of its own, its
/// bar under it from the left, the 95% interval as a whisker, the value
/// after it.
fn draw_bars_across(widget: &Chart, snapshot: &gtk::Snapshot, data: &ChartData, area: &graphene::Rect, c: &Colours) {
    let (x0, y0, w) = (area.x(), area.y(), area.width());
    text(widget, snapshot, &data.bars_title, x0, y0, 0.0, w, &faint(&c.fg, 0.8), false);
    let entries = with_bars(data);
    let high = |e: &Entry| e.interval.map_or(0.0, |(_, high)| high).max(e.ppw.unwrap_or(0.0));
    let max = entries.iter().map(|e| high(e)).fold(0.0, f64::max);
    // Room after the longest bar for its value.
    let length = (w - 64.0).max(40.0);
    let scale = if max > 0.0 { f64::from(length) / max } else { 0.0 };
    line(snapshot, x0, y0 + ROWS_TOP - 4.0, 1.0, ROW * entries.len() as f32, &faint(&c.fg, 0.3));
    for (i, e) in entries.iter().enumerate() {
        let top = y0 + ROWS_TOP + ROW * i as f32;
        text(widget, snapshot, &e.label, x0 + 6.0, top, 0.0, w - 6.0, &faint(&c.fg, 0.8), true);
        let ppw = e.ppw.unwrap_or(0.0);
        let (bar_y, bar_h) = (top + 20.0, 14.0);
        let colour = if e.best { c.accent } else { faint(&c.fg, 0.35) };
        let bar = graphene::Rect::new(x0, bar_y, (ppw * scale) as f32, bar_h);
        snapshot.push_rounded_clip(&gsk::RoundedRect::new(
            bar,
            graphene::Size::zero(),
            graphene::Size::new(4.0, 4.0),
            graphene::Size::new(4.0, 4.0),
            graphene::Size::zero(),
        ));
        snapshot.append_color(&colour, &bar);
        snapshot.pop();
        let middle = bar_y + bar_h / 2.0;
        let (low_x, high_x) = e
            .interval
            .map_or((bar.width(), bar.width()), |(low, high)| ((low.max(0.0) * scale) as f32, (high * scale) as f32));
        if high_x - low_x >= 2.0 {
            let ink = faint(&c.fg, 0.85);
            line(snapshot, x0 + low_x, middle, high_x - low_x, 1.5, &ink);
            line(snapshot, x0 + low_x, middle - 5.0, 1.5, 11.0, &ink);
            line(snapshot, x0 + high_x, middle - 5.0, 1.5, 11.0, &ink);
        }
        let after = x0 + high_x.max(bar.width()) + 6.0;
        text(widget, snapshot, &figure(ppw), after, bar_y - 2.0, 0.0, (x0 + w - after).max(40.0), &c.fg, true);
    }
}

/// About three significant figures: 1234, 123, 12.3, 1.23, 0.123, as the
/// locale writes numbers.
pub fn figure(value: f64) -> String {
    gearshift::client::lab::figure(value)
}

/// Throughput (up) against watts (across), a dot per profile, named.
fn draw_points(widget: &Chart, snapshot: &gtk::Snapshot, data: &ChartData, area: &graphene::Rect, c: &Colours) {
    let (x0, y0, w, h) = (area.x(), area.y(), area.width(), area.height());
    text(widget, snapshot, &data.points_title, x0, y0, 0.0, w, &faint(&c.fg, 0.8), false);
    let entries: Vec<&Entry> = data.entries.iter().filter(|e| e.watts.is_some()).collect();
    let (left, right, top, bottom) = (x0 + 8.0, x0 + w - 8.0, y0 + 44.0, y0 + h - 36.0);
    let axis = faint(&c.fg, 0.3);
    line(snapshot, left, bottom, right - left, 1.0, &axis);
    line(snapshot, left, top, 1.0, bottom - top, &axis);
    let range = |values: Vec<f64>| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let pad = ((hi - lo) * 0.15).max(hi.abs() * 0.05).max(1e-6);
        ((lo - pad).max(0.0), hi + pad)
    };
    let (wlo, whi) = range(entries.iter().filter_map(|e| e.watts).collect());
    let (tlo, thi) = range(entries.iter().map(|e| e.throughput).collect());
    let dim = faint(&c.fg, 0.6);
    text(
        widget,
        snapshot,
        &format!("{} W", gearshift::i18n::decimal(wlo, 1)),
        left,
        bottom + 6.0,
        0.0,
        80.0,
        &dim,
        true,
    );
    text(
        widget,
        snapshot,
        &format!("{} W", gearshift::i18n::decimal(whi, 1)),
        right,
        bottom + 6.0,
        1.0,
        80.0,
        &dim,
        true,
    );
    text(widget, snapshot, &figure(thi), left + 6.0, top - 2.0, 0.0, 80.0, &dim, true);
    text(widget, snapshot, &figure(tlo), left + 6.0, bottom - 18.0, 0.0, 80.0, &dim, true);
    let mut placed: Vec<graphene::Rect> = Vec::new();
    for e in &entries {
        let watts = e.watts.unwrap_or(0.0);
        let x = left + ((watts - wlo) / (whi - wlo).max(1e-9)) as f32 * (right - left);
        let y = bottom - ((e.throughput - tlo) / (thi - tlo).max(1e-9)) as f32 * (bottom - top);
        let colour = if e.best { c.accent } else { faint(&c.fg, 0.55) };
        let dot = graphene::Rect::new(x - 6.0, y - 6.0, 12.0, 12.0);
        snapshot.push_rounded_clip(&gsk::RoundedRect::from_rect(dot, 6.0));
        snapshot.append_color(&colour, &dot);
        snapshot.pop();
        placed.push(dot);
    }
    // Each name beside its dot where it overlaps no dot and no other name:
    // right, left, above, below, then further out.
    let mut dots = placed.clone().into_iter();
    for e in &entries {
        let Some(dot) = dots.next() else { break };
        let (w_text, h_text) = extents(widget, &e.label, w * 0.45);
        let (cx, cy) = (dot.x() + 6.0, dot.y() + 6.0);
        let candidates = [
            (cx + 10.0, cy - h_text / 2.0),
            (cx - 10.0 - w_text, cy - h_text / 2.0),
            (cx - w_text / 2.0, cy - 10.0 - h_text),
            (cx - w_text / 2.0, cy + 10.0),
            (cx + 10.0, cy - 10.0 - h_text),
            (cx - 10.0 - w_text, cy + 10.0),
            (cx + 10.0, cy + 10.0),
            (cx - 10.0 - w_text, cy - 10.0 - h_text),
        ];
        let inside = |r: &graphene::Rect| r.x() >= x0 && r.x() + r.width() <= x0 + w && r.y() >= y0 + 20.0;
        let free = |r: &graphene::Rect| placed.iter().all(|p| p.intersection(r).is_none());
        let rects: Vec<graphene::Rect> =
            candidates.iter().map(|(x, y)| graphene::Rect::new(*x, *y, w_text, h_text)).collect();
        let spot = rects
            .iter()
            .find(|r| inside(r) && free(r))
            .or_else(|| rects.iter().find(|r| inside(r)))
            .copied()
            .unwrap_or(rects[0]);
        text(widget, snapshot, &e.label, spot.x(), spot.y(), 0.0, w * 0.45, &c.fg, true);
        placed.push(spot);
    }
}

/// The size a small text takes, at most `width` wide.
fn extents(widget: &impl IsA<gtk::Widget>, words: &str, width: f32) -> (f32, f32) {
    let (_, logical) = layout(widget, words, width, true).pixel_extents();
    (logical.width() as f32, logical.height() as f32)
}

/// A text's layout, at most `width` wide: names wrap onto a second line,
/// longer ones end in an ellipsis. `small`: 85% of the widget's font.
fn layout(widget: &impl IsA<gtk::Widget>, words: &str, width: f32, small: bool) -> pango::Layout {
    let layout = widget.create_pango_layout(Some(words));
    if small {
        let mut font = widget.pango_context().font_description().unwrap_or_default();
        font.set_size(font.size() * 85 / 100);
        layout.set_font_description(Some(&font));
    }
    layout.set_width((width.max(1.0) * pango::SCALE as f32) as i32);
    // Whole words on up to two lines; a word too long for the line makes
    // it one line that ends in an ellipsis.
    layout.set_wrap(pango::WrapMode::Word);
    layout.set_height(-2);
    layout.set_ellipsize(pango::EllipsizeMode::End);
    if layout.pixel_extents().1.width() as f32 > width {
        layout.set_height(-1);
    }
    layout
}

#[cfg(test)]
mod tests {
    use super::figure;

    #[test]
    fn figures_have_about_three_significant_digits() {
        assert_eq!(figure(13.686), "13.7");
        assert_eq!(figure(344.51), "345");
        assert_eq!(figure(2.345), "2.35");
        assert_eq!(figure(0.04213), "0.042");
    }
}
