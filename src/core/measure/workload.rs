//! The lab's built-in workloads (docs/efficiency.md): fixed amounts of work
//! that mirror the benchmarks the makers measured their EPP values with.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

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
    /// A fixed frame rate of fixed work, like video playback: what counts
    /// is the power it takes, and whether every frame is on time.
    Playback,
}

/// What one run of a workload did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Done {
    /// The work, in [`Workload::unit`].
    pub work: f64,
    /// Playback: the frames finished after their deadline.
    pub missed_frames: Option<u64>,
}

impl Done {
    fn work(work: f64) -> Done {
        Done { work, missed_frames: None }
    }
}

/// Playback's frame rate.
pub const FRAMES_PER_SECOND: u32 = 30;

impl Workload {
    /// All of them, in the order the help lists them.
    pub const ALL: [Workload; 4] = [Workload::Build, Workload::Burst, Workload::Wake, Workload::Playback];

    /// The name on the command line and in JSON.
    pub fn id(self) -> &'static str {
        match self {
            Workload::Build => "build",
            Workload::Burst => "burst",
            Workload::Wake => "wake",
            Workload::Playback => "playback",
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
            Workload::Playback => "frames",
        }
    }

    /// The work one run does on `cpus` CPUs at `scale`, in [`Workload::unit`]
    /// (what [`Workload::run`] returns when nothing stops it early): with
    /// a kept measurement's speed, how long a run takes.
    pub fn planned_work(self, cpus: usize, scale: f64) -> f64 {
        let cpus = cpus.max(1);
        let times = |standard: f64| (standard * scale).round().max(1.0);
        match self {
            Workload::Build => times(1536.0) * cpus as f64 * CHUNK as f64 / 1e6,
            Workload::Burst => times(400.0),
            Workload::Wake => 2.0 * times(200_000.0) * (cpus / 2).max(1) as f64,
            Workload::Playback => times(20.0 * f64::from(FRAMES_PER_SECOND)),
        }
    }

    /// Runs the work once on `cpus` CPUs, `scale` times the standard
    /// amount (1.0: some 10 to 30 s on a laptop in a release build).
    /// Returns the work done in [`Workload::unit`]; stops early, with what
    /// was done, when `cancel` is set.
    pub fn run(self, cpus: usize, scale: f64, cancel: &AtomicBool) -> Done {
        let cpus = cpus.max(1);
        match self {
            Workload::Build => Done::work(build(cpus, scale, cancel)),
            Workload::Burst => Done::work(burst(scale, cancel)),
            Workload::Wake => Done::work(wake(cpus, scale, cancel)),
            Workload::Playback => playback(scale, cancel),
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

/// Each frame's work: 1 MiB hashed a word at a time (about a millisecond
/// of one core in a release build, a few in a debug one: the light load
/// of playing a hardware-decoded video, where the CPU's job is to wake up
/// on time, and where EPP decides how fast it ramps up and down).
fn frame(h: u64, data: &[u8]) -> u64 {
    data.chunks_exact(8).fold(h, |h, word| {
        let word = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        (h ^ word).wrapping_mul(0x0100_0000_01b3).rotate_left(5)
    })
}

/// 20 s of frames at [`FRAMES_PER_SECOND`] at scale 1, each one [`frame`].
/// Frame i is due by the start plus (i + 1) / 30 s; one that finishes
/// later is missed, and the next starts at once (a player catching up), so
/// every run does the same work and only its timing and power differ.
fn playback(scale: f64, cancel: &AtomicBool) -> Done {
    let frames = ((20.0 * f64::from(FRAMES_PER_SECOND) * scale).round() as u64).max(1);
    let period = Duration::from_secs(1) / FRAMES_PER_SECOND;
    let data = corpus(CHUNK, 11);
    let start = std::time::Instant::now();
    let (mut h, mut done, mut missed) = (0u64, 0u64, 0u64);
    for i in 0..frames {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        // Wait for the frame's turn; a late player does not wait.
        let due_start = start + period * i as u32;
        if let Some(wait) = due_start.checked_duration_since(std::time::Instant::now()) {
            std::thread::sleep(wait);
        }
        h = frame(h, &data);
        done += 1;
        if std::time::Instant::now() > start + period * (i as u32 + 1) {
            missed += 1;
        }
    }
    std::hint::black_box(h);
    Done { work: done as f64, missed_frames: Some(missed) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_do_their_work_and_stop_when_cancelled() {
        let go = AtomicBool::new(false);
        assert!((Workload::Build.run(2, 0.002, &go).work - 2.0 * 3.0 * CHUNK as f64 / 1e6).abs() < 1e-9);
        assert_eq!(Workload::Burst.run(1, 0.005, &go), Done::work(2.0));
        assert_eq!(Workload::Wake.run(4, 0.0005, &go), Done::work(2.0 * 2.0 * 100.0));
        // What the estimate plans with is what a run does.
        for (w, cpus, scale) in [
            (Workload::Build, 2, 0.002),
            (Workload::Burst, 1, 0.005),
            (Workload::Wake, 4, 0.0005),
            (Workload::Playback, 1, 0.01),
        ] {
            assert!((w.run(cpus, scale, &go).work - w.planned_work(cpus, scale)).abs() < 1e-9, "{w:?}");
        }
        let stop = AtomicBool::new(true);
        assert_eq!(Workload::Build.run(4, 1.0, &stop).work, 0.0);
        assert_eq!(Workload::Wake.run(4, 1.0, &stop).work, 0.0);
        assert_eq!(Workload::Playback.run(1, 1.0, &stop), Done { work: 0.0, missed_frames: Some(0) });
    }

    #[test]
    fn playback_keeps_its_frame_rate_and_counts_late_frames() {
        // 0.01 of 20 s: 6 frames, 0.2 s.
        let start = std::time::Instant::now();
        let done = Workload::Playback.run(1, 0.01, &AtomicBool::new(false));
        let took = start.elapsed();
        assert_eq!(done.work, 6.0);
        assert!(done.missed_frames.is_some_and(|m| m <= 6));
        // The sixth frame starts 5/30 s after the first: the run cannot be quicker.
        assert!(took >= Duration::from_millis(166), "{took:?}");
    }
}
