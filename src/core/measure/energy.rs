//! The energy counters (RAPL zones as the helper reads them): which ones
//! measure the machine, adding them up across wrap-around, and a run timed
//! with readings along the way.

use std::sync::mpsc;
use std::time::{Duration, Instant};

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
pub fn measured<T, W, R>(work: W, mut read: R, every: Duration) -> (T, f64, Option<f64>)
where
    T: Send + Default,
    W: FnOnce() -> T + Send,
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
        worker.join().unwrap_or_default()
    });
    let seconds = start.elapsed().as_secs_f64();
    take(&mut meter);
    (units, seconds, readable.then(|| meter.joules()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(name: &str, uj: u64, max: u64) -> Zone {
        Zone { name: name.into(), energy_uj: uj, max_uj: max }
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
