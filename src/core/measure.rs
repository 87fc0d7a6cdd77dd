//! The efficiency lab's method (docs/efficiency.md): fixed workloads, the
//! energy they cost, and performance per watt (PPW = work / energy) per
//! profile, the way the kernel and CPU vendors compare EPP values.
//!
//! No D-Bus and no GTK here: the caller switches profiles and reads the
//! energy counters (through the helper), this module runs the work, keeps
//! the schedule (profiles interleaved, A B C A B C ...), adds up energy
//! across counter wrap-around and turns runs into figures.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// A profile id for the run at the kernel's generic EPP (128 on Intel
/// HWP), beside the model's own balanced value.
pub const KERNEL_DEFAULT: &str = "kernel_default";

/// A fixed amount of work, mirroring the benchmarks the EPP values were
/// measured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Every CPU busy hashing an in-memory corpus, like a kernel build.
    Build,
    /// Single-thread bursts with idle gaps, like a browser's responsiveness
    /// tests (Speedometer).
    Burst,
    /// Many short wake-ups and messages between threads, like tbench.
    Wake,
}

impl Workload {
    /// All of them, in the order the help lists them.
    pub const ALL: [Workload; 3] = [Workload::Build, Workload::Burst, Workload::Wake];

    /// The name on the command line and in JSON.
    pub fn id(self) -> &'static str {
        match self {
            Workload::Build => "build",
            Workload::Burst => "burst",
            Workload::Wake => "wake",
        }
    }

    /// From its name.
    pub fn from_id(id: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.id() == id)
    }

    /// The unit its work is counted in.
    pub fn unit(self) -> &'static str {
        match self {
            Workload::Build => "MB",
            Workload::Burst => "bursts",
            Workload::Wake => "messages",
        }
    }

    /// Runs the work once on `cpus` CPUs, `scale` times the standard
    /// amount (1.0: some 10 to 30 s on a laptop in a release build).
    /// Returns the work done in [`Workload::unit`]; stops early, with what
    /// was done, when `cancel` is set.
    pub fn run(self, cpus: usize, scale: f64, cancel: &AtomicBool) -> f64 {
        let cpus = cpus.max(1);
        match self {
            Workload::Build => build(cpus, scale, cancel),
            Workload::Burst => burst(scale, cancel),
            Workload::Wake => wake(cpus, scale, cancel),
        }
    }
}

/// A deterministic corpus: text-like bytes, the same on every run.
fn corpus(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b"etaoin shrdlu cmfwyp vbgkqjxz\n"[(x % 30) as usize]
        })
        .collect()
}

/// FNV-1a over `data`, folded into `state`: cheap, and no compiler can
/// skip it because the result is used.
fn hash(state: u64, data: &[u8]) -> u64 {
    data.iter().fold(state, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

const CHUNK: usize = 1 << 20;

fn build(cpus: usize, scale: f64, cancel: &AtomicBool) -> f64 {
    // 1.5 GiB per CPU at scale 1.
    let chunks_per_cpu = ((1536.0 * scale).round() as usize).max(1);
    let done: usize = std::thread::scope(|s| {
        let workers: Vec<_> = (0..cpus)
            .map(|i| {
                s.spawn(move || {
                    let data = corpus(CHUNK, 0x9e37_79b9_7f4a_7c15 ^ i as u64);
                    let mut h = 0xcbf2_9ce4_8422_2325u64;
                    let mut done = 0;
                    for _ in 0..chunks_per_cpu {
                        if cancel.load(Ordering::Relaxed) {
                            break;
                        }
                        h = hash(h, &data);
                        done += 1;
                    }
                    std::hint::black_box(h);
                    done
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    });
    done as f64 * CHUNK as f64 / 1e6
}

fn burst(scale: f64, cancel: &AtomicBool) -> f64 {
    // 400 bursts of 8 MiB hashing, each after 20 ms idle, at scale 1.
    let bursts = ((400.0 * scale).round() as usize).max(1);
    let data = corpus(CHUNK, 7);
    let mut h = 0u64;
    let mut done = 0;
    for _ in 0..bursts {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        for _ in 0..8 {
            h = hash(h, &data);
        }
        done += 1;
    }
    std::hint::black_box(h);
    done as f64
}

fn wake(cpus: usize, scale: f64, cancel: &AtomicBool) -> f64 {
    // Pairs of threads passing a message back and forth: 200 000 round
    // trips per pair at scale 1, one pair per two CPUs.
    let pairs = (cpus / 2).max(1);
    let trips = ((200_000.0 * scale).round() as usize).max(1);
    let done: usize = std::thread::scope(|s| {
        let workers: Vec<_> = (0..pairs)
            .map(|_| {
                s.spawn(move || {
                    let (to_echo, echo_rx) = mpsc::sync_channel::<u64>(0);
                    let (to_main, main_rx) = mpsc::sync_channel::<u64>(0);
                    let echo = std::thread::spawn(move || {
                        while let Ok(v) = echo_rx.recv() {
                            if to_main.send(v.wrapping_add(1)).is_err() {
                                break;
                            }
                        }
                    });
                    let mut done = 0;
                    let mut v = 0u64;
                    for _ in 0..trips {
                        if cancel.load(Ordering::Relaxed) || to_echo.send(v).is_err() {
                            break;
                        }
                        match main_rx.recv() {
                            Ok(back) => v = back,
                            Err(_) => break,
                        }
                        done += 2;
                    }
                    drop(to_echo);
                    let _ = echo.join();
                    done
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
    });
    done as f64
}

/// One energy counter as read: its name, µJ, and where it wraps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    /// `package-0`, `psys`, `core`, ...
    pub name: String,
    /// The counter in µJ.
    pub energy_uj: u64,
    /// Where it wraps to 0 (`max_energy_range_uj`).
    pub max_uj: u64,
}

/// Which counters measure the machine: `psys` (the whole platform) where
/// there is one, else every package.
pub fn energy_source(zones: &[Zone]) -> Option<&'static str> {
    if zones.iter().any(|z| z.name == "psys") {
        Some("psys")
    } else if zones.iter().any(|z| z.name.starts_with("package")) {
        Some("package")
    } else {
        None
    }
}

/// Energy added up across readings: each step's increase per counter, a
/// counter that went down having wrapped at its `max_uj` once (reading
/// every few seconds keeps that true: the fastest counters wrap after
/// minutes).
#[derive(Debug, Default, Clone)]
pub struct EnergyMeter {
    last: Vec<Zone>,
    joules: f64,
    started: bool,
}

impl EnergyMeter {
    /// Takes a reading; the first one only sets the start.
    pub fn push(&mut self, zones: &[Zone]) {
        let Some(source) = energy_source(zones) else { return };
        let counted = |z: &&Zone| match source {
            "psys" => z.name == "psys",
            _ => z.name.starts_with("package"),
        };
        if self.started {
            for zone in zones.iter().filter(counted) {
                let Some(before) = self.last.iter().find(|l| l.name == zone.name) else { continue };
                let delta = if zone.energy_uj >= before.energy_uj {
                    zone.energy_uj - before.energy_uj
                } else {
                    zone.max_uj.saturating_sub(before.energy_uj) + zone.energy_uj
                };
                self.joules += delta as f64 / 1e6;
            }
        }
        self.started = true;
        self.last = zones.to_vec();
    }

    /// Joules since the first reading.
    pub fn joules(&self) -> f64 {
        self.joules
    }
}

/// Runs `work` on a thread while `read` takes an energy reading every
/// `every` (and at the start and the end): the work done, the seconds it
/// took, and the joules, where counters could be read.
pub fn measured<W, R>(work: W, mut read: R, every: Duration) -> (f64, f64, Option<f64>)
where
    W: FnOnce() -> f64 + Send,
    R: FnMut() -> Option<Vec<Zone>>,
{
    let mut meter = EnergyMeter::default();
    let mut readable = true;
    let mut take = |meter: &mut EnergyMeter| match read() {
        Some(zones) if energy_source(&zones).is_some() => meter.push(&zones),
        _ => readable = false,
    };
    take(&mut meter);
    let start = Instant::now();
    let (done_tx, done_rx) = mpsc::channel();
    let units = std::thread::scope(|s| {
        let worker = s.spawn(move || {
            let units = work();
            let _ = done_tx.send(());
            units
        });
        while done_rx.recv_timeout(every).is_err() {
            take(&mut meter);
            if worker.is_finished() {
                break;
            }
        }
        worker.join().unwrap_or(0.0)
    });
    let seconds = start.elapsed().as_secs_f64();
    take(&mut meter);
    (units, seconds, readable.then(|| meter.joules()))
}

/// The order of the runs: each profile once per round, `repeats` rounds,
/// so that a slow drift (heat, a background task) spreads over all.
pub fn schedule(profiles: &[String], repeats: usize) -> Vec<String> {
    (0..repeats.max(1)).flat_map(|_| profiles.iter().cloned()).collect()
}

/// One run's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The profile id (or [`KERNEL_DEFAULT`]).
    pub profile: String,
    /// The work done, in the workload's unit.
    pub work: f64,
    /// How long it took.
    pub seconds: f64,
    /// What it cost, where counters could be read.
    pub joules: Option<f64>,
    /// Something else changed what the machine ran during it (another
    /// client, a firmware hotkey): its figures are not used.
    pub disturbed: bool,
}

/// A profile's figures over its runs (the JSON `runs[]` entry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileFigures {
    /// The profile id.
    pub profile: String,
    /// The EPP it holds here (null where there is no EPP).
    pub epp: Option<u8>,
    /// Work per second, the mean over runs.
    pub throughput: f64,
    /// The workload's unit (per second, for `throughput`).
    pub unit: String,
    /// Seconds per run, the mean.
    pub seconds: f64,
    /// Joules per run, the mean.
    pub joules: Option<f64>,
    /// Mean power.
    pub watts: Option<f64>,
    /// Work per joule, the mean over runs.
    pub ppw: Option<f64>,
    /// The runs' spread of PPW: their standard deviation as a share of the
    /// mean, in per cent.
    pub ppw_spread: Option<f64>,
    /// PPW against the run at the kernel's generic EPP, in per cent (+7.0:
    /// 7% more work per joule); null for that run itself and without it.
    pub vs_kernel_default_pct: Option<f64>,
    /// Runs set aside because something else changed the profile while
    /// they ran (the figures above are of the others).
    #[serde(default)]
    pub disturbed: usize,
}

/// The lab's result (`gearshift measure --json`; the schema is in
/// docs/interfaces.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// `build`, `burst`, `wake` or `command`.
    pub workload: String,
    /// Runs per profile.
    pub repeats: usize,
    /// `psys`, `package`, or null without counters.
    pub energy_source: Option<String>,
    /// One entry per profile, in the order first run.
    pub runs: Vec<ProfileFigures>,
    /// The profile with the most work per joule (the most throughput
    /// without counters).
    pub best: Option<String>,
    /// The profile put back afterwards.
    pub restored: String,
}

/// Busier than this (a share of the CPUs' time) at the start, and the
/// lab asks first.
pub const BUSY_LIMIT: f64 = 0.15;

/// The share of half a second the CPUs were busy with other work
/// (/proc/stat): above [`BUSY_LIMIT`] the figures are spoiled.
pub fn busy_share() -> Option<f64> {
    let read = || -> Option<(u64, u64)> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let fields: Vec<u64> = stat.lines().next()?.split_whitespace().skip(1).filter_map(|v| v.parse().ok()).collect();
        let idle = fields.get(3)? + fields.get(4).unwrap_or(&0);
        Some((fields.iter().take(8).sum(), idle))
    };
    let (t0, i0) = read()?;
    std::thread::sleep(Duration::from_millis(500));
    let (t1, i1) = read()?;
    let total = t1.checked_sub(t0).filter(|t| *t > 0)?;
    Some(1.0 - (i1 - i0) as f64 / total as f64)
}

/// What to measure: the profiles, the work, how often.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// Profile ids in the order of a round (may hold [`KERNEL_DEFAULT`]).
    pub profiles: Vec<String>,
    /// Each profile's EPP here (for the report).
    pub epps: Vec<(String, Option<u8>)>,
    /// A built-in workload, or `None` for `command`.
    pub workload: Option<Workload>,
    /// The person's own command (one successful run = one unit).
    pub command: Option<String>,
    /// Rounds.
    pub repeats: usize,
    /// Times the standard amount of work.
    pub scale: f64,
    /// Online CPUs, for the workloads that use all.
    pub cpus: usize,
}

impl Session {
    /// The workload's id and unit.
    pub fn work_id_unit(&self) -> (&'static str, &'static str) {
        match (&self.command, self.workload) {
            (Some(_), _) => ("command", "runs"),
            (None, w) => {
                let w = w.unwrap_or(Workload::Build);
                (w.id(), w.unit())
            }
        }
    }

    /// Runs one measurement with `bench` switching profiles and reading
    /// energy from `source` (the counter the caller found, `None`: time
    /// only); `progress` hears each run as it starts (index from 0, the
    /// number of runs, the profile). The caller puts the profile back
    /// (the helper's measurement lease) whatever this returns.
    pub fn run<B: Bench>(
        &self,
        bench: &mut B,
        source: Option<&'static str>,
        cancel: &AtomicBool,
        progress: &mut dyn FnMut(usize, usize, &str),
    ) -> Measured<B::Error> {
        let schedule = schedule(&self.profiles, self.repeats);
        let mut runs = Vec::new();
        for (i, id) in schedule.iter().enumerate() {
            if cancel.load(Ordering::SeqCst) {
                break;
            }
            progress(i, schedule.len(), id);
            // The kernel's generic value is a switch too: the helper applies
            // Balanced with the EPP the kernel itself would write.
            let switched = bench.switch(id);
            if let Err(err) = switched {
                return Measured { runs, source, end: End::Failed(err) };
            }
            let disturbances = bench.disturbances();
            // A short idle settle, so that one run's heat and boost budget
            // do not start the next.
            bench.settle(Duration::from_secs_f64((2.0 * self.scale.min(1.0)).max(0.2)));
            let work = || match &self.command {
                Some(command) => {
                    let ok =
                        std::process::Command::new("sh").arg("-c").arg(command).status().is_ok_and(|s| s.success());
                    f64::from(u8::from(ok))
                }
                None => self.workload.unwrap_or(Workload::Build).run(self.cpus, self.scale, cancel),
            };
            let read = || source.and_then(|_| bench.energy());
            let (done, seconds, joules) = measured(work, read, Duration::from_secs(2));
            log::debug!("run {}: {id}: {done} in {seconds:.2} s, {joules:?} J", i + 1);
            if cancel.load(Ordering::SeqCst) {
                break;
            }
            if done == 0.0 && self.command.is_some() {
                return Measured { runs, source, end: End::CommandFailed };
            }
            // A change by someone else since the switch spoils the run.
            let disturbed = disturbances.zip(bench.disturbances()).is_some_and(|(before, after)| after > before);
            if disturbed {
                log::info!("run {}: {id}: the profile was changed meanwhile, the run is set aside", i + 1);
            }
            runs.push(Run { profile: id.clone(), work: done, seconds, joules: joules.filter(|j| *j > 0.0), disturbed });
        }
        let end = if cancel.load(Ordering::SeqCst) { End::Cancelled } else { End::Done };
        Measured { runs, source, end }
    }

    /// The report of finished runs; `restored` is the profile put back.
    pub fn report(&self, measured: &Measured<impl Sized>, restored: &str) -> Report {
        let (id, unit) = self.work_id_unit();
        // Work per joule only where every run could read the counters.
        let energy = measured.runs.iter().all(|r| r.joules.is_some()).then_some(measured.source).flatten();
        let runs: Vec<Run> = measured.runs.iter().map(|r| Run { joules: energy.and(r.joules), ..r.clone() }).collect();
        let epp = |p: &str| self.epps.iter().find(|(id, _)| id == p).and_then(|(_, e)| *e);
        summarize(id, unit, self.repeats, energy, &runs, &epp, restored)
    }
}

/// The kernel's generic balanced EPP, where it differs from the model's own
/// and the driver takes numbers (Intel HWP): the run the model's value is
/// measured against.
pub fn kernel_default(resolver: &crate::core::profile::Resolver<'_>) -> Option<u8> {
    use crate::core::parse::EppName;
    let generic = resolver.model.as_ref().and_then(|m| m.generic.get(EppName::BalancePerformance));
    let model = resolver.epp_for(EppName::BalancePerformance);
    (resolver.form == crate::core::plan::PreferenceForm::Number && generic != model).then_some(generic).flatten()
}

/// The profiles a measurement compares when none are named: the four
/// built-in ones, with the kernel's generic value after Balanced where it
/// differs.
pub fn default_profiles(kernel_default: Option<u8>) -> Vec<String> {
    let mut ids: Vec<String> = crate::core::profile::BuiltinProfile::ALL.iter().map(|p| p.id().to_owned()).collect();
    if kernel_default.is_some() {
        ids.insert(2, KERNEL_DEFAULT.to_owned());
    }
    ids
}

/// What a measurement asks of the machine: the helper, in the programs; a
/// model, in the tests.
pub trait Bench {
    /// Why a switch failed.
    type Error;
    /// Switches to a profile, or to [`KERNEL_DEFAULT`].
    ///
    /// # Errors
    /// The helper refused or could not write.
    fn switch(&mut self, id: &str) -> Result<(), Self::Error>;
    /// The energy counters now, where they can be read.
    fn energy(&mut self) -> Option<Vec<Zone>>;
    /// How often something else changed what the machine runs since the
    /// measurement began (`None` where that cannot be told).
    fn disturbances(&mut self) -> Option<u32> {
        None
    }
    /// Waits between runs.
    fn settle(&mut self, pause: Duration) {
        std::thread::sleep(pause);
    }
}

/// How a measurement ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End<E> {
    /// Every run was made.
    Done,
    /// Cancelled (Ctrl-C, the window's Cancel).
    Cancelled,
    /// A switch failed.
    Failed(E),
    /// The person's command failed.
    CommandFailed,
}

/// The runs made and how it ended.
#[derive(Debug, Clone)]
pub struct Measured<E> {
    /// The runs, in the order made.
    pub runs: Vec<Run>,
    /// The energy source read (`psys`, `package`), if any.
    pub source: Option<&'static str>,
    /// How it ended.
    pub end: End<E>,
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Sums runs up per profile: means, spread, and each against the kernel's
/// generic value where that was run. `epp` says each profile's EPP here.
pub fn summarize(
    workload: &str,
    unit: &str,
    repeats: usize,
    energy_source: Option<&str>,
    runs: &[Run],
    epp: &dyn Fn(&str) -> Option<u8>,
    restored: &str,
) -> Report {
    let mut order: Vec<&str> = Vec::new();
    for run in runs {
        if !order.contains(&run.profile.as_str()) {
            order.push(&run.profile);
        }
    }
    let mut figures: Vec<ProfileFigures> = order
        .iter()
        .map(|id| {
            let all = runs.iter().filter(|r| r.profile == *id);
            let disturbed = all.clone().filter(|r| r.disturbed).count();
            let mine: Vec<&Run> = all.filter(|r| !r.disturbed).collect();
            let throughput = mean(&mine.iter().map(|r| r.work / r.seconds.max(1e-9)).collect::<Vec<_>>());
            let seconds = mean(&mine.iter().map(|r| r.seconds).collect::<Vec<_>>());
            let joules: Option<Vec<f64>> = mine.iter().map(|r| r.joules.filter(|j| *j > 0.0)).collect();
            let (joules, watts, ppw, spread) = match joules {
                Some(js) if !js.is_empty() => {
                    let ppws: Vec<f64> = mine.iter().zip(&js).map(|(r, j)| r.work / j).collect();
                    let ppw = mean(&ppws);
                    let var = mean(&ppws.iter().map(|p| (p - ppw).powi(2)).collect::<Vec<_>>());
                    let watts = mean(&mine.iter().zip(&js).map(|(r, j)| j / r.seconds.max(1e-9)).collect::<Vec<_>>());
                    (Some(mean(&js)), Some(watts), Some(ppw), Some(var.sqrt() / ppw * 100.0))
                }
                _ => (None, None, None, None),
            };
            ProfileFigures {
                profile: (*id).to_owned(),
                epp: epp(id),
                throughput,
                unit: format!("{unit}/s"),
                seconds,
                joules,
                watts,
                ppw,
                ppw_spread: spread,
                vs_kernel_default_pct: None,
                disturbed,
            }
        })
        .collect();
    let base = figures.iter().find(|f| f.profile == KERNEL_DEFAULT).and_then(|f| f.ppw);
    for f in figures.iter_mut().filter(|f| f.profile != KERNEL_DEFAULT) {
        f.vs_kernel_default_pct = base.zip(f.ppw).map(|(b, p)| (p / b - 1.0) * 100.0);
    }
    let key = |f: &ProfileFigures| f.ppw.unwrap_or(f.throughput);
    let best = figures
        .iter()
        .filter(|f| f.throughput > 0.0)
        .max_by(|a, b| key(a).total_cmp(&key(b)))
        .map(|f| f.profile.clone());
    Report {
        workload: workload.to_owned(),
        repeats,
        energy_source: energy_source.map(str::to_owned),
        runs: figures,
        best,
        restored: restored.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(name: &str, uj: u64, max: u64) -> Zone {
        Zone { name: name.into(), energy_uj: uj, max_uj: max }
    }

    /// A bench that logs what it was asked, counts energy at a fixed rate
    /// per reading, and fails the switch to `fail`.
    #[derive(Default)]
    struct Fake {
        asked: Vec<String>,
        uj: u64,
        fail: Option<&'static str>,
        /// The disturbance counter goes up at this call of `disturbances`
        /// (run i reads it at calls 2i+1 and 2i+2).
        disturb_at: Option<usize>,
        calls: usize,
        disturbances: u32,
    }

    impl Bench for Fake {
        type Error = String;
        fn switch(&mut self, id: &str) -> Result<(), String> {
            self.asked.push(id.to_owned());
            if self.fail == Some(id) {
                return Err(format!("cannot switch to {id}"));
            }
            Ok(())
        }
        fn energy(&mut self) -> Option<Vec<Zone>> {
            self.uj += 1_000_000;
            Some(vec![zone("package-0", self.uj, 1 << 40)])
        }
        fn disturbances(&mut self) -> Option<u32> {
            self.calls += 1;
            if self.disturb_at == Some(self.calls) {
                self.disturbances += 1;
            }
            Some(self.disturbances)
        }
        fn settle(&mut self, _: Duration) {}
    }

    fn session(profiles: &[&str], repeats: usize) -> Session {
        Session {
            profiles: profiles.iter().map(|p| (*p).to_owned()).collect(),
            epps: vec![("power".into(), Some(255)), (KERNEL_DEFAULT.into(), Some(128))],
            workload: Some(Workload::Burst),
            command: None,
            repeats,
            scale: 0.002,
            cpus: 1,
        }
    }

    #[test]
    fn a_session_switches_in_rounds_and_reports() {
        let mut bench = Fake::default();
        let s = session(&["power", KERNEL_DEFAULT], 2);
        let mut heard = Vec::new();
        let measured = s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut |i, n, id| {
            heard.push(format!("{i}/{n} {id}"))
        });
        assert_eq!(measured.end, End::Done);
        assert_eq!(bench.asked, ["power", KERNEL_DEFAULT, "power", KERNEL_DEFAULT]);
        assert_eq!(heard, ["0/4 power", "1/4 kernel_default", "2/4 power", "3/4 kernel_default"]);
        assert_eq!(measured.source, Some("package"));
        let report = s.report(&measured, "balance_power");
        assert_eq!(report.restored, "balance_power");
        assert_eq!(report.energy_source.as_deref(), Some("package"));
        assert_eq!(
            report.runs.iter().map(|f| (f.profile.as_str(), f.epp)).collect::<Vec<_>>(),
            [("power", Some(255)), (KERNEL_DEFAULT, Some(128))]
        );
        assert!(report.runs.iter().all(|f| f.ppw.is_some_and(|p| p > 0.0)));
    }

    #[test]
    fn a_run_during_which_someone_else_switched_is_set_aside() {
        // Run 2 (index 1, the first kernel_default run) is disturbed.
        let mut bench = Fake { disturb_at: Some(4), ..Fake::default() };
        let s = session(&["power", KERNEL_DEFAULT], 2);
        let measured = s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut |_, _, _| {});
        let flags: Vec<bool> = measured.runs.iter().map(|r| r.disturbed).collect();
        assert_eq!(flags, [false, true, false, false]);
        let report = s.report(&measured, "balance_power");
        let kernel = report.runs.iter().find(|f| f.profile == KERNEL_DEFAULT).unwrap();
        assert_eq!(kernel.disturbed, 1);
        // The undisturbed run alone makes the figures: its work per joule,
        // with no spread (one run).
        assert!(kernel.ppw.is_some() && kernel.ppw_spread.is_some_and(|s| s.abs() < 1e-9), "{kernel:?}");
        assert_eq!(report.runs.iter().find(|f| f.profile == "power").unwrap().disturbed, 0);
    }

    #[test]
    fn a_session_stops_at_a_failed_switch_and_when_cancelled() {
        let mut bench = Fake { fail: Some("performance"), ..Fake::default() };
        let measured = session(&["power", "performance"], 3).run(
            &mut bench,
            Some("package"),
            &AtomicBool::new(false),
            &mut |_, _, _| {},
        );
        assert_eq!(measured.end, End::Failed("cannot switch to performance".to_owned()));
        assert_eq!(measured.runs.len(), 1, "the run before the failure is kept");
        let cancel = AtomicBool::new(false);
        let mut bench = Fake::default();
        let measured =
            session(&["power", "performance"], 3).run(&mut bench, Some("package"), &cancel, &mut |i, _, _| {
                if i == 1 {
                    cancel.store(true, Ordering::SeqCst);
                }
            });
        assert_eq!(measured.end, End::Cancelled);
        assert_eq!(measured.runs.len(), 1, "the cancelled run is not counted");
        assert_eq!(bench.asked, ["power", "performance"]);
    }

    #[test]
    fn energy_adds_up_across_wrap_around() {
        let mut meter = EnergyMeter::default();
        meter.push(&[zone("package-0", 4_000_000_000, 4_294_967_295), zone("core", 5, 10)]);
        meter.push(&[zone("package-0", 4_200_000_000, 4_294_967_295), zone("core", 1, 10)]);
        // Wrapped: 94 967 295 µJ to the top, then 100 000 000 more.
        meter.push(&[zone("package-0", 100_000_000, 4_294_967_295), zone("core", 2, 10)]);
        assert!((meter.joules() - (200.0 + 94.967_295 + 100.0)).abs() < 1e-6, "{}", meter.joules());
        // Two packages add up; psys, where present, is the whole machine.
        let mut two = EnergyMeter::default();
        two.push(&[zone("package-0", 0, 100_000_000), zone("package-1", 0, 100_000_000)]);
        two.push(&[zone("package-0", 1_000_000, 100_000_000), zone("package-1", 2_000_000, 100_000_000)]);
        assert!((two.joules() - 3.0).abs() < 1e-9);
        let mut psys = EnergyMeter::default();
        psys.push(&[zone("package-0", 0, 1 << 32), zone("psys", 0, 1 << 32)]);
        psys.push(&[zone("package-0", 1_000_000, 1 << 32), zone("psys", 5_000_000, 1 << 32)]);
        assert!((psys.joules() - 5.0).abs() < 1e-9);
        assert_eq!(energy_source(&[zone("core", 1, 2)]), None);
    }

    #[test]
    fn profiles_are_interleaved() {
        let ids: Vec<String> = ["a", "b", "c"].iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(schedule(&ids, 2), ["a", "b", "c", "a", "b", "c"]);
        assert_eq!(schedule(&ids, 0), ["a", "b", "c"]);
    }

    #[test]
    fn figures_rank_by_work_per_joule_and_compare_with_the_kernel_default() {
        let run = |p: &str, work: f64, seconds: f64, joules: f64| Run {
            profile: p.into(),
            work,
            seconds,
            joules: Some(joules),
            disturbed: false,
        };
        let runs = [
            run("balance_performance", 1000.0, 10.0, 100.0),
            run(KERNEL_DEFAULT, 1000.0, 11.0, 110.0),
            run("power", 1000.0, 20.0, 90.0),
            run("balance_performance", 1000.0, 10.0, 100.0),
            run(KERNEL_DEFAULT, 1000.0, 11.0, 110.0),
            run("power", 1000.0, 20.0, 90.0),
        ];
        let epp = |id: &str| match id {
            "balance_performance" => Some(64),
            KERNEL_DEFAULT => Some(128),
            _ => Some(255),
        };
        let report = summarize("build", "MB", 2, Some("package"), &runs, &epp, "balance_performance");
        assert_eq!(report.best.as_deref(), Some("power"));
        let bp = &report.runs[0];
        assert_eq!((bp.profile.as_str(), bp.epp, bp.unit.as_str()), ("balance_performance", Some(64), "MB/s"));
        assert!((bp.throughput - 100.0).abs() < 1e-9 && (bp.watts.unwrap() - 10.0).abs() < 1e-9);
        assert!((bp.ppw.unwrap() - 10.0).abs() < 1e-9 && bp.ppw_spread.unwrap().abs() < 1e-9);
        // 10 MB/J against 1000/110 = 9.09 MB/J: 10% more work per joule.
        assert!((bp.vs_kernel_default_pct.unwrap() - 10.0).abs() < 1e-6, "{:?}", bp.vs_kernel_default_pct);
        assert_eq!(report.runs[1].vs_kernel_default_pct, None);
        // Without counters: time only, the fastest is best.
        let timed: Vec<Run> = runs.iter().map(|r| Run { joules: None, ..r.clone() }).collect();
        let report = summarize("build", "MB", 2, None, &timed, &epp, "balance_performance");
        assert!(report.runs.iter().all(|r| r.ppw.is_none() && r.watts.is_none()));
        assert_eq!(report.best.as_deref(), Some("balance_performance"));
        let json = serde_json::to_value(&report).unwrap();
        for key in ["workload", "repeats", "energy_source", "runs", "best", "restored"] {
            assert!(json.get(key).is_some(), "{key}");
        }
        for key in [
            "profile",
            "epp",
            "throughput",
            "unit",
            "seconds",
            "joules",
            "watts",
            "ppw",
            "ppw_spread",
            "vs_kernel_default_pct",
        ] {
            assert!(json["runs"][0].get(key).is_some(), "{key}");
        }
    }

    #[test]
    fn workloads_do_their_work_and_stop_when_cancelled() {
        let go = AtomicBool::new(false);
        assert!((Workload::Build.run(2, 0.002, &go) - 2.0 * 3.0 * CHUNK as f64 / 1e6).abs() < 1e-9);
        assert_eq!(Workload::Burst.run(1, 0.005, &go), 2.0);
        assert_eq!(Workload::Wake.run(4, 0.0005, &go), 2.0 * 2.0 * 100.0);
        let stop = AtomicBool::new(true);
        assert_eq!(Workload::Build.run(4, 1.0, &stop), 0.0);
        assert_eq!(Workload::Wake.run(4, 1.0, &stop), 0.0);
    }

    #[test]
    fn a_run_is_timed_and_its_energy_read_along_the_way() {
        let counter = std::cell::Cell::new(0u64);
        let read = || {
            counter.set(counter.get() + 2_000_000);
            Some(vec![zone("package-0", counter.get(), u64::MAX)])
        };
        let (work, seconds, joules) = measured(
            || {
                std::thread::sleep(Duration::from_millis(120));
                7.0
            },
            read,
            Duration::from_millis(25),
        );
        assert_eq!(work, 7.0);
        assert!(seconds >= 0.12);
        // One reading at the start, several along the way, one at the end:
        // 2 J per reading after the first.
        let joules = joules.unwrap();
        assert!(joules >= 6.0 && (joules / 2.0).fract() == 0.0, "{joules}");
        let (_, _, none) = measured(|| 1.0, || None, Duration::from_millis(10));
        assert_eq!(none, None);
    }
}
