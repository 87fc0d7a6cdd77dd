//! RAPL energy counters, read for callers that polkit allows, at most four
//! times a second per user (fine-grained energy readings leak secrets:
//! CVE-2020-8694). Per user, not per connection: a fresh connection per
//! read must not buy a fresh budget.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use crate::core::machine::RaplZone;
use crate::core::parse::parse_u64;
use crate::core::paths;
use crate::core::root::SysRoot;

/// Readings allowed per user per second.
pub const READS_PER_SECOND: usize = 4;

use crate::dbus::EnergyReading;

/// Reads the package, core and psys (the whole platform, where the firmware
/// has it) zones.
pub fn read(root: &SysRoot, zones: &[RaplZone]) -> Vec<EnergyReading> {
    zones
        .iter()
        .filter(|z| z.name.as_deref().is_some_and(|n| n.starts_with("package") || n == "core" || n == "psys"))
        .filter_map(|z| {
            let dir = format!("{}/{}", paths::POWERCAP_DIR, z.zone);
            let energy = root.read_text(&format!("{dir}/energy_uj"), 64).ok()??;
            Some(EnergyReading {
                name: z.name.clone()?,
                energy_uj: parse_u64(&energy).ok()?,
                max_energy_range_uj: z.max_energy_range_uj?,
            })
        })
        .collect()
}

/// Remembers when each user last read, to enforce [`READS_PER_SECOND`].
#[derive(Debug, Default)]
pub struct RateLimit {
    calls: HashMap<u32, VecDeque<Instant>>,
}

impl RateLimit {
    /// Records a call by user `uid` at `now`; false when it is one too many.
    pub fn allow(&mut self, uid: u32, now: Instant) -> bool {
        let window = Duration::from_secs(1);
        // Forget callers that have been quiet, so the map stays small.
        self.calls.retain(|_, times| times.back().is_some_and(|t| now.duration_since(*t) < window));
        let times = self.calls.entry(uid).or_default();
        while times.front().is_some_and(|t| now.duration_since(*t) >= window) {
            times.pop_front();
        }
        if times.len() >= READS_PER_SECOND {
            return false;
        }
        times.push_back(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_a_second_per_user() {
        let mut limit = RateLimit::default();
        let t0 = Instant::now();
        for i in 0..4 {
            assert!(limit.allow(1000, t0 + Duration::from_millis(i * 10)));
        }
        assert!(!limit.allow(1000, t0 + Duration::from_millis(50)));
        assert!(limit.allow(1001, t0 + Duration::from_millis(50)), "other users have their own budget");
        assert!(limit.allow(1000, t0 + Duration::from_millis(1001)));
    }

    #[test]
    fn reads_package_core_and_psys_zones() {
        let dir = tempfile::tempdir().unwrap();
        for (zone, name, energy) in
            [("intel-rapl:0", "package-0", "123456"), ("intel-rapl:0:0", "core", "42"), ("intel-rapl:1", "psys", "7")]
        {
            let d = dir.path().join(paths::POWERCAP_DIR).join(zone);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("name"), name).unwrap();
            std::fs::write(d.join("energy_uj"), energy).unwrap();
            std::fs::write(d.join("max_energy_range_uj"), "262143328850").unwrap();
        }
        let root = SysRoot::open(dir.path()).unwrap();
        let machine = crate::core::machine::Machine::read(&root);
        let readings = read(&root, &machine.rapl);
        // psys is the whole platform: the efficiency lab counts it where the
        // firmware has one (docs/efficiency.md).
        assert_eq!(readings.len(), 3);
        assert_eq!(readings[0].name, "package-0");
        assert_eq!(readings[0].energy_uj, 123456);
        assert_eq!(readings[1].name, "core");
        assert_eq!((readings[2].name.as_str(), readings[2].energy_uj), ("psys", 7));
    }
}
