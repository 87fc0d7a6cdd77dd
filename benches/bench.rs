//! Gearshift's helper side by side with power-profiles-daemon, on the same
//! snapshots, on the same private system bus with the real polkitd, driven
//! by this one client process. Run it with `build-aux/bench`.
//!
//! For each snapshot (2, 22, 64 and 256 CPUs) it measures, for both daemons:
//! the time of 200 profile switches, idle RSS, and wake-ups over an idle
//! period; for the helper also the system calls per switch (strace -c,
//! two runs whose difference cancels start-up).

#[path = "bench/agent.rs"]
mod agent;
#[path = "../tests/common/mod.rs"]
mod common;
#[path = "bench/kernels.rs"]
mod kernels;

use std::fs;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::bus::{Bus, Helper};
use common::copy_fixture;
use common::display::{Display, SessionBus, Window};
use common::procfs::{cpu_ns, memory, pss_by_mapping, rss_kib, wakeups_over, Memory};
use common::tray::{spawn_tray, wait_for_item, Watcher};
use serde::{Deserialize, Serialize};

const SNAPSHOTS: [(&str, u32); 4] =
    [("kaby-lake-2cpu", 2), ("meteor-lake-155h", 22), ("emerald-rapids-64", 64), ("granite-rapids-2s-256", 256)];
const PPD_POLICY: &str = "/usr/share/dbus-1/system.d/net.hadess.PowerProfiles.conf";

#[derive(Debug, Default, Serialize, Deserialize, Clone)]
struct DaemonFigures {
    switches: u32,
    total_ms: f64,
    per_switch_ms: f64,
    idle_rss_kib: u64,
    /// What the idle daemon costs the machine: its proportional share of
    /// shared pages, and the pages no other process maps.
    #[serde(default)]
    idle_pss_kib: u64,
    #[serde(default)]
    idle_private_kib: u64,
    /// Where the PSS lies, by mapping (the largest eight).
    #[serde(default)]
    idle_pss_by_mapping: Vec<(String, u64)>,
    idle_wakeups: u64,
    idle_seconds: u64,
}

#[derive(Debug, Default, Serialize, Deserialize, Clone)]
struct SnapshotFigures {
    snapshot: String,
    cpus: u32,
    ppd: DaemonFigures,
    helper: DaemonFigures,
    ratio: f64,
    helper_syscalls_per_switch: f64,
    helper_writes_per_switch: f64,
    floor_writes_per_switch: u32,
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// RSS and wake-ups of an idle process over `seconds`.
fn idle(pid: u32, seconds: u64) -> (u64, u64) {
    std::thread::sleep(Duration::from_millis(500));
    let wake = wakeups_over(pid, seconds);
    (rss_kib(pid), wake)
}

/// Memory (RSS, PSS, private) and wake-ups of an idle daemon over
/// `seconds`, with where its PSS lies.
fn idle_daemon(pid: u32, seconds: u64) -> (Memory, Vec<(String, u64)>, u64) {
    std::thread::sleep(Duration::from_millis(500));
    let wake = wakeups_over(pid, seconds);
    let mut by_mapping = pss_by_mapping(pid);
    by_mapping.truncate(8);
    (memory(pid), by_mapping, wake)
}

struct Ppd {
    child: Child,
    _root: tempfile::TempDir,
}

impl Ppd {
    fn start(bus: &Bus, fixture: &str) -> Ppd {
        let root = copy_fixture(fixture);
        let child = bus
            .command("/usr/libexec/power-profiles-daemon")
            .env("UMOCKDEV_DIR", root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("power-profiles-daemon (package power-profiles-daemon)");
        bus.wait_for_name("net.hadess.PowerProfiles");
        Ppd { child, _root: root }
    }
}

impl Drop for Ppd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Times `count` switches alternating power-saver and performance.
fn time_switches(count: u32, mut switch: impl FnMut(bool)) -> (f64, f64) {
    switch(false);
    let start = Instant::now();
    for i in 0..count {
        switch(i % 2 == 0);
    }
    let total = start.elapsed().as_secs_f64() * 1000.0;
    (total, total / f64::from(count))
}

/// Switches through the PowerProfiles API (net.hadess.PowerProfiles, which
/// both daemons serve), as GNOME's and KDE's panels do.
fn panel_switcher(bus: &Bus) -> impl FnMut(bool) {
    let (runtime, connection) = bus.connect();
    let proxy = runtime
        .block_on(zbus::Proxy::new(
            &connection,
            "net.hadess.PowerProfiles",
            "/net/hadess/PowerProfiles",
            "net.hadess.PowerProfiles",
        ))
        .unwrap();
    move |performance| {
        let profile = if performance { "performance" } else { "power-saver" };
        runtime.block_on(proxy.set_property("ActiveProfile", profile)).expect("switch through the PowerProfiles API");
    }
}

/// The calls column of one row (a syscall's name, or "total") of an
/// `strace -c` summary.
fn strace_calls(summary: &str, name: &str) -> u64 {
    summary
        .lines()
        .find(|l| l.split_whitespace().last() == Some(name))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Syscalls and writes per switch, from two strace runs (`short` and `long`
/// switches) whose difference cancels start-up.
fn helper_syscalls(bus: &Bus, fixture: &str) -> (f64, f64) {
    let count = |switches: u32| -> (u64, u64) {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("strace.log");
        let mut helper = Helper::start_as_shipped(bus, fixture, &["strace", "-f", "-c", "-o", log.to_str().unwrap()]);
        bus.wait_for_name("net.hadess.PowerProfiles");
        let mut switch = panel_switcher(bus);
        for i in 0..switches {
            switch(i % 2 == 0);
        }
        helper.stop();
        let text = fs::read_to_string(&log).unwrap_or_default();
        if let Ok(dir) = std::env::var("BENCH_STRACE_DIR") {
            let _ = fs::write(format!("{dir}/{fixture}-{switches}.txt"), &text);
        }
        (strace_calls(&text, "total"), strace_calls(&text, "pwrite64"))
    };
    let (short, long) = (10, 60);
    let (a, wa) = count(short);
    let (b, wb) = count(long);
    let n = f64::from(long - short);
    ((b.saturating_sub(a)) as f64 / n, (wb.saturating_sub(wa)) as f64 / n)
}

#[derive(Debug, Default, Serialize, Clone)]
struct WindowFigures {
    first_frame_ms: Vec<f64>,
    first_frame_median_ms: f64,
    cores_page_cpu_percent: f64,
    cores_page_large_cpu_percent: f64,
    cores_cards_cpu_percent: f64,
    overview_page_cpu_percent: f64,
    rss_kib: u64,
    hidden_cpu_ticks: u64,
    hidden_wakeups: u64,
    seconds: u64,
}

/// CPU time (utime + stime) of a process in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after ")".
    field(11) + field(12)
}

/// Makes a snapshot look alive: rewrites every CPU's current frequency
/// with a new value twice a second until dropped, so that every card of
/// the window really changes on every tick.
struct Jitter {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Jitter {
    fn start(root: &Path) -> Jitter {
        let files: Vec<_> = fs::read_dir(root.join("sys/devices/system/cpu/cpufreq"))
            .unwrap()
            .flatten()
            .map(|e| e.path().join("scaling_cur_freq"))
            .filter(|p| p.exists())
            .collect();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                for file in &files {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let khz = 800_000 + seed % 3_100_000;
                    let _ = fs::write(file, format!("{khz}\n"));
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        });
        Jitter { stop, thread: Some(thread) }
    }
}

impl Drop for Jitter {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The window: exec to first frame (5 runs), CPU share at 1 Hz with 256
/// changing CPUs on the cores and overview pages, RSS, and work while hidden.
fn window(seconds: u64) -> WindowFigures {
    let mut figures = WindowFigures { seconds, ..Default::default() };
    let mtl = common::fixture("meteor-lake-155h");
    let big_copy = copy_fixture("granite-rapids-2s-256");
    let big = big_copy.path().to_owned();
    let _jitter = Jitter::start(&big);
    // The cards (a relm4 typed grid item per CPU): every one of a hybrid
    // laptop's 22 on screen at once, each changing.
    let laptop_copy = copy_fixture("meteor-lake-155h");
    let laptop = laptop_copy.path().to_owned();
    let _laptop_jitter = Jitter::start(&laptop);
    let display = Display::start(1920, 1080);
    for _ in 0..5 {
        let start = Instant::now();
        let mut window = Window::start(&display, &["--root", mtl.to_str().unwrap()], &[]);
        window.wait_for_line("first frame", 60);
        figures.first_frame_ms.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let mut sorted = figures.first_frame_ms.clone();
    sorted.sort_by(f64::total_cmp);
    figures.first_frame_median_ms = sorted[sorted.len() / 2];
    eprintln!("   window: first frame {:.0} ms (median of 5)", figures.first_frame_median_ms);
    for (page, size, root) in [
        ("cores", "1000x760", &big),
        ("cores", "1900x1000", &big),
        ("overview", "1000x760", &big),
        ("cards", "1900x1000", &laptop),
    ] {
        let cpus = if root == &laptop { 22 } else { 256 };
        // Without the tests' state file (GEARSHIFT_STATE_FILE): writing it
        // after every tick is the tests' cost, not a person's.
        let page_hook = if page == "cards" { "cores" } else { page };
        let mut window = Window::start(
            &display,
            &["--root", root.to_str().unwrap()],
            &[("GEARSHIFT_PAGE", page_hook), ("GEARSHIFT_SIZE", size), ("GEARSHIFT_STATE_FILE", "")],
        );
        window.wait_for_line("first frame", 60);
        std::thread::sleep(Duration::from_secs(3));
        let t0 = cpu_ns(window.pid());
        std::thread::sleep(Duration::from_secs(seconds));
        let share = (cpu_ns(window.pid()) - t0) as f64 / 1e9 / seconds as f64 * 100.0;
        eprintln!(
            "   window, {page} page at {size}, {cpus} changing CPUs at 1 Hz: {share:.2}% of a core over {seconds} s"
        );
        match (page, size) {
            ("cores", "1000x760") => {
                figures.cores_page_cpu_percent = share;
                figures.rss_kib = rss_kib(window.pid());
            }
            ("cores", _) => figures.cores_page_large_cpu_percent = share,
            ("cards", _) => figures.cores_cards_cpu_percent = share,
            _ => figures.overview_page_cpu_percent = share,
        }
        if page == "cores" && size == "1000x760" {
            let id = String::from_utf8_lossy(
                &display
                    .command("xdotool")
                    .args(["search", "--onlyvisible", "--name", "^Gearshift$"])
                    .output()
                    .unwrap()
                    .stdout,
            )
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
            let _ = display.command("xdotool").args(["windowminimize", &id]).status();
            let _ = display.command("xdotool").args(["windowunmap", &id]).status();
            std::thread::sleep(Duration::from_secs(1));
            let t0 = cpu_ticks(window.pid());
            figures.hidden_wakeups = wakeups_over(window.pid(), 10);
            figures.hidden_cpu_ticks = cpu_ticks(window.pid()) - t0;
            eprintln!(
                "   window hidden: {} CPU ticks, {} wake-ups in 10 s; RSS {} KiB",
                figures.hidden_cpu_ticks, figures.hidden_wakeups, figures.rss_kib
            );
        }
    }
    figures
}

#[derive(Debug, Default, Serialize, Clone)]
struct MonitorFigures {
    snapshot: String,
    cpus: u32,
    ticks: u32,
    syscalls_per_tick: f64,
    per_cpu_per_tick: f64,
}

/// `gearshift monitor`'s system calls per tick: two runs under `strace -c`
/// that differ only in their number of ticks, so start-up cancels out.
fn monitor_syscalls(fixture: &str, cpus: u32) -> MonitorFigures {
    let root = common::fixture(fixture);
    let count = |ticks: u32| -> u64 {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("strace.log");
        let status = std::process::Command::new("strace")
            .args(["-f", "-c", "-o"])
            .arg(&log)
            .arg(env!("CARGO_BIN_EXE_gearshift"))
            .arg("--root")
            .arg(&root)
            .args(["monitor", "--json", "--interval-ms", "50", "--count", &ticks.to_string()])
            .stdout(Stdio::null())
            .status()
            .expect("strace (package strace)");
        assert!(status.success(), "gearshift monitor failed under strace");
        strace_calls(&fs::read_to_string(&log).unwrap_or_default(), "total")
    };
    let (short, long) = (10, 110);
    let extra = count(long).saturating_sub(count(short)) as f64;
    let ticks = long - short;
    let per_tick = extra / f64::from(ticks);
    MonitorFigures {
        snapshot: fixture.into(),
        cpus,
        ticks,
        syscalls_per_tick: per_tick,
        per_cpu_per_tick: per_tick / f64::from(cpus),
    }
}

#[derive(Debug, Default, Serialize, Clone)]
struct TrayFigures {
    rss_kib: u64,
    idle_wakeups: u64,
    idle_seconds: u64,
}

/// The tray, registered with a StatusNotifierWatcher on a private session
/// bus and linked to the helper: RSS and wake-ups while nothing happens.
fn tray(seconds: u64) -> TrayFigures {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let session = SessionBus::start();
    let config = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let items: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let _watcher = runtime.block_on(Watcher::serve(&session.address, items.clone())).expect("the watcher");
    let mut child = spawn_tray(&bus, helper.root.path(), &session.address, config.path());
    wait_for_item(&runtime, &items);
    std::thread::sleep(Duration::from_secs(2));
    let (rss, wake) = idle(child.id(), seconds);
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("   tray: {rss} KiB, {wake} wake-ups in {seconds} s");
    TrayFigures { rss_kib: rss, idle_wakeups: wake, idle_seconds: seconds }
}

/// Switch time against CPU count for both daemons, as SVG.
fn plot_svg(results: &[SnapshotFigures]) -> String {
    let (width, height) = (760.0, 460.0);
    let (left, right, top, bottom) = (80.0, 40.0, 70.0, 70.0);
    let max_ms = results.iter().map(|f| f.ppd.per_switch_ms.max(f.helper.per_switch_ms)).fold(1.0, f64::max);
    let step =
        [1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0, 200.0].into_iter().find(|s| max_ms / s <= 6.0).unwrap_or(500.0);
    let y_max = (max_ms / step).ceil() * step;
    let x = |cpus: f64| left + cpus / 256.0 * (width - left - right);
    // Zero sits a little above the x axis, leaving room for the helper's
    // labels under its points.
    let pad = 26.0;
    let y = |ms: f64| height - bottom - pad - ms / y_max * (height - top - bottom - pad);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"DejaVu Sans, sans-serif\" font-size=\"13\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">\
         Time per profile switch through the PowerProfiles API</text>\n\
         <text x=\"{}\" y=\"47\" text-anchor=\"middle\" fill=\"#555\" font-size=\"12\">\
         {} switches each, from one client, on the same private bus with polkitd, on identical snapshot copies</text>\n",
        width / 2.0,
        width / 2.0,
        results.first().map_or(0, |f| f.ppd.switches)
    );
    let mut ms = 0.0;
    while ms <= y_max + 1e-9 {
        svg += &format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y0:.1}\" y2=\"{y0:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{ms}</text>\n",
            width - right,
            left - 8.0,
            y(ms) + 4.0,
            y0 = y(ms)
        );
        ms += step;
    }
    // The x ticks are the snapshots' CPU counts.
    for cpus in results.iter().map(|f| f64::from(f.cpus)) {
        svg += &format!(
            "<line x1=\"{x0:.1}\" x2=\"{x0:.1}\" y1=\"{top}\" y2=\"{}\" stroke=\"#eee\"/>\
             <text x=\"{x0:.1}\" y=\"{}\" text-anchor=\"middle\">{cpus}</text>\n",
            height - bottom,
            height - bottom + 20.0,
            x0 = x(cpus)
        );
    }
    svg += &format!(
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{b}\" y2=\"{b}\" stroke=\"black\"/>\
         <line x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{b}\" stroke=\"black\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">online CPUs in the snapshot</text>\n\
         <text transform=\"translate(24 {}) rotate(-90)\" text-anchor=\"middle\">milliseconds per switch</text>\n",
        width - right,
        (left + width - right) / 2.0,
        height - 22.0,
        (top + height - bottom) / 2.0,
        b = height - bottom
    );
    type Series = (&'static str, &'static str, fn(&SnapshotFigures) -> f64);
    let series: [Series; 2] = [
        ("power-profiles-daemon", "#c01c28", |f| f.ppd.per_switch_ms),
        ("gearshift-helper", "#1c71d8", |f| f.helper.per_switch_ms),
    ];
    for (i, (name, colour, value)) in series.iter().enumerate() {
        let points: Vec<String> =
            results.iter().map(|f| format!("{:.1},{:.1}", x(f64::from(f.cpus)), y(value(f)))).collect();
        svg += &format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2.5\"/>\n",
            points.join(" ")
        );
        // power-profiles-daemon's values above and left of its points, the
        // helper's below and right of its own, so that the two never overlap.
        let (dx, dy, anchor) = if i == 0 { (-6.0, -8.0, "end") } else { (4.0, 17.0, "start") };
        for f in results {
            let (px, py) = (x(f64::from(f.cpus)), y(value(f)));
            svg += &format!(
                "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"4\" fill=\"{colour}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" fill=\"{colour}\" text-anchor=\"{anchor}\">{:.1}</text>\n",
                px + dx,
                py + dy,
                value(f)
            );
        }
        let ly = top + 10.0 + 22.0 * i as f64;
        svg += &format!(
            "<line x1=\"{}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"2.5\"/>\
             <text x=\"{}\" y=\"{}\">{name}</text>\n",
            left + 20.0,
            left + 48.0,
            left + 56.0,
            ly + 4.0
        );
    }
    svg + "</svg>\n"
}

/// Where the plot goes: docs/switch-time.png, or BENCH_PLOT.
fn plot_path() -> std::path::PathBuf {
    std::env::var("BENCH_PLOT")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/switch-time.png"))
}

/// Writes the plot as PNG (rsvg-convert, package librsvg2-bin).
fn write_plot(results: &[SnapshotFigures], png: &Path) {
    let svg = png.with_extension("svg");
    fs::write(&svg, plot_svg(results)).unwrap();
    let status = std::process::Command::new("rsvg-convert")
        .args(["--format", "png", "--output"])
        .arg(png)
        .arg(&svg)
        .status()
        .expect("rsvg-convert (package librsvg2-bin)");
    assert!(status.success(), "rsvg-convert failed");
    let _ = fs::remove_file(&svg);
    eprintln!("plot: {}", png.display());
}

fn daemons_table(results: &[SnapshotFigures]) -> String {
    let mut out = String::from(
        "| snapshot | CPUs | ppd ms/switch | helper ms/switch | helper/ppd | helper syscalls/switch \
         | writes/switch (floor) | ppd idle RSS | helper idle RSS | wake-ups in idle (ppd / helper) |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for f in results {
        out += &format!(
            "| {} | {} | {:.2} | {:.2} | {:.3} | {:.0} | {:.0} ({}) | {:.1} MiB | {:.1} MiB | {} / {} in {} s |\n",
            f.snapshot,
            f.cpus,
            f.ppd.per_switch_ms,
            f.helper.per_switch_ms,
            f.ratio,
            f.helper_syscalls_per_switch,
            f.helper_writes_per_switch,
            f.floor_writes_per_switch,
            f.ppd.idle_rss_kib as f64 / 1024.0,
            f.helper.idle_rss_kib as f64 / 1024.0,
            f.ppd.idle_wakeups,
            f.helper.idle_wakeups,
            f.helper.idle_seconds
        );
    }
    out
}

/// What each idle daemon costs the machine: RSS counts every shared page
/// in full, PSS shares it among the processes that map it, private pages
/// are the daemon's alone (docs/performance.md, "The helper's memory").
fn memory_table(results: &[SnapshotFigures]) -> String {
    let mut out = String::from(
        "| snapshot | ppd RSS | ppd PSS | ppd private | helper RSS | helper PSS | helper private | helper/ppd PSS |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for f in results {
        let (p, h) = (&f.ppd, &f.helper);
        out += &format!(
            "| {} | {} kB | {} kB | {} kB | {} kB | {} kB | {} kB | {:.2} |\n",
            f.snapshot,
            p.idle_rss_kib,
            p.idle_pss_kib,
            p.idle_private_kib,
            h.idle_rss_kib,
            h.idle_pss_kib,
            h.idle_private_kib,
            h.idle_pss_kib as f64 / p.idle_pss_kib.max(1) as f64
        );
    }
    for f in results {
        let list = |d: &DaemonFigures| {
            d.idle_pss_by_mapping.iter().map(|(m, kib)| format!("{m} {kib}")).collect::<Vec<_>>().join(", ")
        };
        out += &format!("\n{}: PSS by mapping, kB: ppd: {}; helper: {}\n", f.snapshot, list(&f.ppd), list(&f.helper));
    }
    out
}

fn monitor_table(results: &[MonitorFigures]) -> String {
    let mut out = String::from(
        "| snapshot | online CPUs | syscalls per tick | per CPU per tick | budget |\n|---|---|---|---|---|\n",
    );
    for m in results {
        out += &format!(
            "| {} | {} | {:.1} | {:.3} | {} |\n",
            m.snapshot,
            m.cpus,
            m.syscalls_per_tick,
            m.per_cpu_per_tick,
            if m.cpus >= 64 { "1.2" } else { "—" }
        );
    }
    out
}

fn window_table(w: &WindowFigures) -> String {
    format!(
        "| figure | measured | target |\n|---|---|---|\n\
         | exec to first frame (median of 5) | {:.0} ms | ≤ 500 ms |\n\
         | cores page, 256 changing CPUs at 1 Hz, 1000×760 | {:.2}% of a core | ≤ 1% |\n\
         | cores page, 256 changing CPUs at 1 Hz, 1900×1000 | {:.2}% of a core | ≤ 1% |\n\
         | cores page, cards: Meteor Lake's 22 changing CPUs, all on screen, 1900×1000 | {:.2}% of a core | ≤ 1% |\n\
         | overview page, 256 CPUs | {:.2}% of a core | — |\n\
         | RSS, cores page, 256 CPUs | {:.0} MiB | ≤ 120 MiB |\n\
         | hidden, 10 s | {} CPU ticks, {} wake-ups | no work |\n",
        w.first_frame_median_ms,
        w.cores_page_cpu_percent,
        w.cores_page_large_cpu_percent,
        w.cores_cards_cpu_percent,
        w.overview_page_cpu_percent,
        w.rss_kib as f64 / 1024.0,
        w.hidden_cpu_ticks,
        w.hidden_wakeups
    )
}

fn main() {
    let sections =
        std::env::var("BENCH_SECTIONS").unwrap_or_else(|_| "daemons,kernels,monitor,window,tray,agent".into());
    let wants = |name: &str| sections.split(',').any(|s| s == name);
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    fs::create_dir_all(&out_dir).unwrap();
    let only: Option<String> = std::env::var("BENCH_ONLY").ok();
    let snapshots: Vec<(&str, u32)> =
        SNAPSHOTS.into_iter().filter(|(f, _)| only.as_deref().is_none_or(|o| o == *f)).collect();
    let mut report = String::new();

    if wants("daemons") {
        let results = daemons(&snapshots);
        fs::write(out_dir.join("results.json"), serde_json::to_string_pretty(&results).unwrap()).unwrap();
        report += &format!("## The helper beside power-profiles-daemon\n\n{}\n", daemons_table(&results));
        report += &format!("## What each idle daemon costs the machine\n\n{}\n", memory_table(&results));
        if results.len() > 1 {
            write_plot(&results, &plot_path());
        }
    }
    if wants("plot") {
        // Redraws the plot from the last run's figures.
        let text =
            fs::read_to_string(out_dir.join("results.json")).expect("target/bench/results.json (run the daemons)");
        let results: Vec<SnapshotFigures> = serde_json::from_str(&text).unwrap();
        write_plot(&results, &plot_path());
    }
    if wants("kernels") {
        eprintln!("== Linux 7.1 with and without dynamic EPP (kernel emulator)");
        let results = kernels::run(env_u64("BENCH_SWITCHES", 200) as u32);
        fs::write(out_dir.join("kernels.json"), serde_json::to_string_pretty(&results).unwrap()).unwrap();
        report += &format!("## Switching under dynamic EPP\n\n{}\n", kernels::table(&results));
    }
    if wants("monitor") {
        eprintln!("== gearshift monitor");
        let results: Vec<MonitorFigures> = snapshots
            .iter()
            .map(|&(fixture, cpus)| {
                let m = monitor_syscalls(fixture, cpus);
                eprintln!(
                    "   {fixture}: {:.1} syscalls a tick, {:.3} per CPU",
                    m.syscalls_per_tick, m.per_cpu_per_tick
                );
                m
            })
            .collect();
        fs::write(out_dir.join("monitor.json"), serde_json::to_string_pretty(&results).unwrap()).unwrap();
        report += &format!("## gearshift monitor\n\n{}\n", monitor_table(&results));
    }
    if wants("window") {
        eprintln!("== window");
        let figures = window(env_u64("BENCH_WINDOW_SECONDS", 30));
        fs::write(out_dir.join("window.json"), serde_json::to_string_pretty(&figures).unwrap()).unwrap();
        report += &format!("## The window\n\n{}\n", window_table(&figures));
    }
    if wants("agent") {
        eprintln!("== gearshift agent");
        let figures = agent::run(env_u64("BENCH_AGENT_SECONDS", 60));
        fs::write(out_dir.join("agent.json"), serde_json::to_string_pretty(&figures).unwrap()).unwrap();
        report += &format!("## The agent (rules)\n\n{}\n", agent::table(&figures));
    }
    if wants("tray") {
        eprintln!("== tray");
        let figures = tray(env_u64("BENCH_IDLE_SECONDS", 10));
        fs::write(out_dir.join("tray.json"), serde_json::to_string_pretty(&figures).unwrap()).unwrap();
        report += &format!(
            "## The tray\n\n| figure | measured | target |\n|---|---|---|\n\
             | RSS, idle | {:.1} MiB | ≤ 30 MiB |\n| wake-ups in {} s idle | {} | 0 |\n\n",
            figures.rss_kib as f64 / 1024.0,
            figures.idle_seconds,
            figures.idle_wakeups
        );
    }
    fs::write(out_dir.join("results.md"), &report).unwrap();
    println!("{report}");
    eprintln!("figures: {}", out_dir.join("results.md").display());
}

/// The files a switch between power-saver and performance must write: on
/// these snapshots the two differ in every CPU's EPP and, where the CPU has
/// one, its energy-performance bias (EPB); the governor is `powersave` in
/// both. So the floor is one write per such file.
fn changed_files(fixture: &str) -> u32 {
    let root = common::fixture(fixture);
    let count = |dir: &str, file: &str| {
        fs::read_dir(root.join(dir))
            .map_or(0, |entries| entries.flatten().filter(|e| e.path().join(file).exists()).count() as u32)
    };
    count("sys/devices/system/cpu/cpufreq", "energy_performance_preference")
        + count("sys/devices/system/cpu", "power/energy_perf_bias")
}

/// Both daemons on each snapshot.
fn daemons(snapshots: &[(&str, u32)]) -> Vec<SnapshotFigures> {
    let switches = env_u64("BENCH_SWITCHES", 200) as u32;
    let idle_seconds = env_u64("BENCH_IDLE_SECONDS", 10);
    let ppd_policy = fs::read_to_string(PPD_POLICY).expect("power-profiles-daemon's bus policy (its package)");
    let bus = Bus::start_with(&[("net.hadess.PowerProfiles.conf", &ppd_policy)]);
    let mut results = Vec::new();
    for &(fixture, cpus) in snapshots {
        eprintln!("== {fixture} ({cpus} CPUs)");
        let floor_writes_per_switch = changed_files(fixture);
        let mut figures =
            SnapshotFigures { snapshot: fixture.into(), cpus, floor_writes_per_switch, ..Default::default() };

        // The same measurement for both daemons, each serving the API on
        // its own copy of the snapshot.
        let measure = |pid: u32, name: &str| {
            let (total, per) = time_switches(switches, panel_switcher(&bus));
            let (mem, by_mapping, wake) = idle_daemon(pid, idle_seconds);
            eprintln!(
                "   {name:<22} {per:.2} ms a switch, RSS {} KiB, PSS {} KiB, private {} KiB, {wake} wake-ups in {idle_seconds} s",
                mem.rss, mem.pss, mem.private
            );
            eprintln!("   {:<22} PSS by mapping: {by_mapping:?}", "");
            DaemonFigures {
                switches,
                total_ms: total,
                per_switch_ms: per,
                idle_rss_kib: mem.rss,
                idle_pss_kib: mem.pss,
                idle_private_kib: mem.private,
                idle_pss_by_mapping: by_mapping,
                idle_wakeups: wake,
                idle_seconds,
            }
        };
        let ppd = Ppd::start(&bus, fixture);
        figures.ppd = measure(ppd.child.id(), "power-profiles-daemon:");
        drop(ppd);
        let helper = Helper::start_as_shipped(&bus, fixture, &[]);
        bus.wait_for_name("net.hadess.PowerProfiles");
        figures.helper = measure(helper.pid(), "gearshift-helper:");
        drop(helper);

        let (syscalls, writes) = helper_syscalls(&bus, fixture);
        figures.helper_syscalls_per_switch = syscalls;
        figures.helper_writes_per_switch = writes;
        figures.ratio = figures.helper.per_switch_ms / figures.ppd.per_switch_ms;
        eprintln!(
            "   helper: {syscalls:.1} syscalls and {writes:.1} writes a switch (floor: {floor_writes_per_switch} writes); ratio {:.3}",
            figures.ratio
        );
        results.push(figures);
    }
    results
}
