//! The window's sampler: per-CPU frequency, EPP and governor, read on a
//! relm4 command at the chosen interval, paused (no timer, no reads) while
//! the window is hidden or minimized, refreshed at once after a change.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use relm4::adw::{self, prelude::*};
use relm4::gtk::gdk;
use relm4::Sender;
use tokio::sync::{watch, Notify};

use gearshift::core::machine::Machine;
use gearshift::core::monitor::Sampler;
use gearshift::core::root::SysRoot;

use super::msg::{AppMsg, CmdOut};

/// The window's handles on the sampler.
pub struct SamplerControl {
    /// Whether the window is visible (the sampler pauses while it is not).
    pub visible: watch::Sender<bool>,
    /// Re-read EPP and governors of every CPU now.
    pub refresh: Arc<Notify>,
    /// The sampling interval.
    pub interval_ms: Arc<AtomicU64>,
    /// Read the machine again and open its files afresh (see
    /// [`SamplerControl::reopen`]).
    stale: Arc<AtomicBool>,
}

impl SamplerControl {
    /// Controls for a sampler at `interval_ms`, visible at first.
    pub fn new(interval_ms: Arc<AtomicU64>) -> SamplerControl {
        SamplerControl {
            visible: watch::channel(true).0,
            refresh: Arc::new(Notify::new()),
            interval_ms,
            stale: Arc::new(AtomicBool::new(false)),
        }
    }

    /// After a driver mode change: the kernel made every cpufreq policy
    /// afresh (the open files are gone, EPP may have come or gone), so the
    /// sampler reads the machine again before its next samples.
    pub fn reopen(&self) {
        self.stale.store(true, Ordering::Relaxed);
        self.refresh.notify_one();
    }
}

/// Samples `machine` under `root` until the window goes away; samples go to
/// `out` as [`CmdOut::Samples`]. The window runs it as a relm4 command.
pub fn run(
    root: SysRoot,
    machine: Machine,
    control: &SamplerControl,
    out: Sender<CmdOut>,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let mut visible = control.visible.subscribe();
    let refresh = control.refresh.clone();
    let interval = control.interval_ms.clone();
    let stale = control.stale.clone();
    async move {
        let mut sampler = Sampler::new(&root, &machine, interval.load(Ordering::Relaxed));
        let _ = out.send(CmdOut::Samples(sampler.samples().to_vec()));
        loop {
            if !*visible.borrow() {
                // Hidden or minimized: no timer, no reads, until shown.
                if visible.changed().await.is_err() {
                    return;
                }
                sampler.refresh_all();
            }
            let wait = Duration::from_millis(interval.load(Ordering::Relaxed));
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = refresh.notified() => sampler.refresh_all(),
                changed = visible.changed() => {
                    if changed.is_err() { return; }
                    continue;
                }
            }
            if stale.swap(false, Ordering::Relaxed) || !sampler.tick() {
                let machine = Machine::read(&root);
                sampler = Sampler::new(&root, &machine, interval.load(Ordering::Relaxed));
            }
            if out.send(CmdOut::Samples(sampler.samples().to_vec())).is_err() {
                return;
            }
        }
    }
}

/// Tells the window when it is shown, hidden or minimized.
pub fn watch_visibility(window: &adw::ApplicationWindow, input: &Sender<AppMsg>) {
    let on_map = input.clone();
    window.connect_map(move |_| on_map.emit(AppMsg::Visible(true)));
    let on_unmap = input.clone();
    window.connect_unmap(move |_| on_unmap.emit(AppMsg::Visible(false)));
    let input = input.clone();
    window.connect_realize(move |window| {
        let Some(toplevel) = window.surface().and_downcast::<gdk::Toplevel>() else { return };
        let input = input.clone();
        toplevel.connect_state_notify(move |toplevel| {
            let minimized = toplevel.state().contains(gdk::ToplevelState::MINIMIZED);
            input.emit(AppMsg::Visible(!minimized));
        });
    });
}
