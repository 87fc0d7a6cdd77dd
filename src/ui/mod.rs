//! The window (Relm4 + libadwaita). Lives in the `gearshift` binary only,
//! so that the library and the helper never link GTK.

mod actions;
mod app;
pub mod model;
mod msg;
mod pages;
mod reader;
mod reads;
mod sampler;
pub mod settings;
mod state;
mod widgets;
mod window;

use pages::{cores, efficiency, overview, rules, tuning, wizard};
pub use widgets::a11y::{
    descendants, ignore_wheel, label_inner, read_only_row, set_accessible_description, set_accessible_label, unclip,
};
use widgets::{chart, dialogs, heatmap, spark, toasts};

use std::process::ExitCode;

use relm4::RelmApp;

use gearshift::i18n::gettext;

use crate::context::Context;

pub use crate::context::APP_ID;

/// What the window shows.
pub struct Launch {
    /// The machine (live or a snapshot), read before the window opens.
    pub ctx: Context,
    /// Opened with --demo.
    pub demo: bool,
    /// The person's settings.
    pub settings: settings::Settings,
}

/// Opens the window; returns when it is closed. A second `gearshift`
/// started meanwhile only raises this window (GApplication uniqueness).
pub fn run(launch: Launch) -> ExitCode {
    // GTK 4.8's X11 backend probes OpenGL at start-up even when the cairo
    // renderer is forced; without a GPU (Xvfb, many VMs) that loads Mesa's
    // software rasteriser and LLVM, some 50 MB, for a window that never
    // uses them. Skip the probe when the person asked for cairo. Nothing
    // else runs yet, so changing the environment is safe here.
    if std::env::var("GSK_RENDERER").is_ok_and(|r| r == "cairo") && std::env::var_os("GDK_DEBUG").is_none() {
        std::env::set_var("GDK_DEBUG", "gl-disable");
    }
    // Without a display (an SSH session, a console, a container) GTK cannot
    // start: say so and what works instead, rather than panicking inside
    // relm4, which calls gtk::init() and unwraps.
    if let Err(err) = relm4::gtk::init() {
        log::debug!("gtk::init: {err}");
        eprintln!(
            "gearshift: {}",
            gettext("no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY reaches one).")
        );
        eprintln!(
            "{}",
            gettext("Run it in a desktop session, or use the command line: gearshift status, gearshift --help.")
        );
        return ExitCode::from(1);
    }
    let app = RelmApp::new(APP_ID).with_args(Vec::new());
    // This computer has one window: launching again raises it. A snapshot
    // (--root, --demo) gets a window of its own, beside this computer's or
    // another snapshot's, instead of a second launch that does nothing.
    if !launch.ctx.root.is_live() {
        use relm4::gtk::prelude::ApplicationExt;
        relm4::main_application().set_flags(relm4::gtk::gio::ApplicationFlags::NON_UNIQUE);
    }
    relm4::set_global_css(include_str!("style.css"));
    relm4::gtk::Window::set_default_icon_name(APP_ID);
    app.run::<app::App>(launch);
    ExitCode::SUCCESS
}

/// Run from a source tree, with no icon installed: the tree's own icons,
/// so that the window, About and the wizard show them.
fn use_source_icons() {
    let Some(display) = relm4::gtk::gdk::Display::default() else { return };
    let theme = relm4::gtk::IconTheme::for_display(&display);
    let Some(source) = gearshift::client::install::source_tree().map(|tree| tree.join("data/icons")) else { return };
    if !theme.has_icon(APP_ID) && source.is_dir() {
        theme.add_search_path(&source);
        log::debug!("icons from {}", source.display());
    }
}

/// Milliseconds since this process started (from /proc/self/stat).
pub fn process_age_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Field 22 (starttime, in clock ticks since boot) comes after the
    // parenthesised command name, which may hold spaces.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let start_ticks: f64 = after.split_whitespace().nth(19).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|t| t.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(0.0);
    (uptime - start_ticks / hz) * 1000.0
}
