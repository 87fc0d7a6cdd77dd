//! The window's own widgets (the efficiency chart, the sparkline, the heat
//! map), its dialogs and toasts, and the accessibility helpers every page
//! uses.

pub mod a11y;
pub mod chart;
pub mod dialogs;
pub mod heatmap;
pub mod spark;
pub mod toasts;
