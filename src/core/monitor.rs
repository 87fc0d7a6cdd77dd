//! The live sampler behind `gearshift monitor` and the window.
//!
//! Each online CPU's `scaling_cur_freq` stays open and is re-read with one
//! `pread` per tick. EPP and governor change rarely (only when someone
//! writes them), so they are re-read round-robin: a slice of the CPUs per
//! tick, each CPU at most once a second and at least every
//! [`SLOW_CYCLE_TICKS`] ticks. That keeps the cost near one system call per
//! CPU per tick however many CPUs there are.

use std::fs::File;
use std::os::unix::fs::FileExt;

use serde::Serialize;

use super::machine::Machine;
use super::parse::{parse_cpu_list, parse_epp, parse_u64, parse_word, plausible_khz, EppReading};
use super::paths::{self, policy_file};
use super::root::SysRoot;

/// The most ticks between two reads of a CPU's EPP and governor.
pub const SLOW_CYCLE_TICKS: usize = 16;

/// One CPU's latest values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CpuSample {
    /// CPU number.
    pub id: u32,
    /// Current frequency in kHz.
    pub cur_khz: Option<u64>,
    /// EPP as the kernel shows it.
    pub epp: Option<EppReading>,
    /// Governor.
    pub governor: Option<String>,
}

struct Slot {
    freq: Option<File>,
    epp: Option<File>,
    governor: Option<File>,
}

/// Samples the online CPUs of a machine.
pub struct Sampler {
    samples: Vec<CpuSample>,
    slots: Vec<Slot>,
    online_mask: Option<File>,
    online_text: Vec<u8>,
    slow_cursor: usize,
    slow_per_tick: usize,
    ticks: u64,
}

impl Sampler {
    /// A sampler for the online CPUs with a cpufreq policy, ticking every
    /// `interval_ms`. Opens the files once.
    pub fn new(root: &SysRoot, machine: &Machine, interval_ms: u64) -> Sampler {
        raise_open_file_limit();
        let open = |rel: &str| File::open(root.path(rel)).ok();
        let mut samples = Vec::new();
        let mut slots = Vec::new();
        for cpu in machine.cpus.iter().filter(|c| c.online) {
            let Some(policy) = machine.policy_of(cpu) else { continue };
            slots.push(Slot {
                freq: open(&policy_file(policy.id, "scaling_cur_freq")),
                epp: policy.has_epp.then(|| open(&policy_file(policy.id, "energy_performance_preference"))).flatten(),
                governor: open(&policy_file(policy.id, "scaling_governor")),
            });
            samples.push(CpuSample {
                id: cpu.id,
                cur_khz: policy.cur_khz,
                epp: policy.epp,
                governor: policy.governor.clone(),
            });
        }
        let cycle = SLOW_CYCLE_TICKS.max(1000usize.div_ceil(interval_ms.max(1) as usize));
        let slow_per_tick = samples.len().div_ceil(cycle).max(1);
        let online_mask = open(paths::ONLINE_MASK);
        let mut sampler =
            Sampler { samples, slots, online_mask, online_text: Vec::new(), slow_cursor: 0, slow_per_tick, ticks: 0 };
        sampler.online_text = sampler.read_online_mask().unwrap_or_default();
        sampler
    }

    /// The latest values.
    pub fn samples(&self) -> &[CpuSample] {
        &self.samples
    }

    /// Re-reads every frequency, and the EPP and governor of the next slice
    /// of CPUs. Returns `false` when the set of online CPUs changed: the
    /// caller should build a new sampler from a fresh [`Machine`].
    pub fn tick(&mut self) -> bool {
        self.ticks += 1;
        let mut buf = [0u8; 64];
        for (sample, slot) in self.samples.iter_mut().zip(&self.slots) {
            // A 0 or an absurd number is no frequency: unknown, as in Machine::read.
            sample.cur_khz = slot
                .freq
                .as_ref()
                .and_then(|f| pread_text(f, &mut buf))
                .and_then(|t| parse_u64(t).ok())
                .filter(|k| plausible_khz(*k));
        }
        let n = self.samples.len();
        if n == 0 {
            return true;
        }
        for _ in 0..self.slow_per_tick.min(n) {
            let i = self.slow_cursor % n;
            self.refresh_slow(i, &mut buf);
            self.slow_cursor = (i + 1) % n;
        }
        // Hotplug check, once per full slow cycle.
        if self.slow_cursor < self.slow_per_tick {
            let now = self.read_online_mask();
            if now.is_some() && now.as_deref() != Some(self.online_text.as_slice()) {
                return false;
            }
        }
        true
    }

    /// Re-reads EPP and governor of every CPU now (after a profile change).
    pub fn refresh_all(&mut self) {
        let mut buf = [0u8; 64];
        for i in 0..self.samples.len() {
            self.refresh_slow(i, &mut buf);
        }
    }

    fn refresh_slow(&mut self, i: usize, buf: &mut [u8; 64]) {
        let slot = &self.slots[i];
        let sample = &mut self.samples[i];
        if let Some(file) = &slot.epp {
            sample.epp = pread_text(file, buf).and_then(|t| parse_epp(t).ok());
        }
        if let Some(file) = &slot.governor {
            sample.governor = pread_text(file, buf).and_then(|t| parse_word(t).ok());
        }
    }

    fn read_online_mask(&self) -> Option<Vec<u8>> {
        let mut buf = [0u8; 64];
        let file = self.online_mask.as_ref()?;
        let text = pread_text(file, &mut buf)?;
        parse_cpu_list(text).ok()?;
        Some(text.as_bytes().to_vec())
    }

    /// Ticks so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }
}

/// One `pread` from offset 0; sysfs regenerates the text on each read.
fn pread_text<'b>(file: &File, buf: &'b mut [u8; 64]) -> Option<&'b str> {
    let n = file.read_at(buf, 0).ok()?;
    std::str::from_utf8(&buf[..n]).ok()
}

/// Keeping three files open per CPU needs more than the usual 1024
/// descriptors on the largest machines: use what the hard limit allows.
fn raise_open_file_limit() {
    // SAFETY: getrlimit/setrlimit only read and write the struct we pass.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max.min(65536);
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
