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

#[cfg(test)]
mod tests {
    use super::*;

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
}
