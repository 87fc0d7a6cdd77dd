//! The `kernels` section: the switch time on a 24-CPU Ryzen AI 300 laptop
//! on Linux 7.1 with amd-pstate's dynamic EPP on (every CPU switched
//! through its own platform profile, `amd-pstate-epp-cpuN`) beside the same
//! machine with it off (every CPU's `energy_performance_preference`), both
//! on the kernel-faithful sysfs (`tests/kernelfs/`), whose FUSE round trips
//! are in both figures alike: the ratio is the figure, not the milliseconds.

use serde::{Deserialize, Serialize};

use super::common::bus::{Bus, Helper};
use super::common::procfs::cpu_ns;
use super::{helper_syscalls, panel_switcher, time_switches};

/// One machine's figures.
#[derive(Debug, Default, Serialize, Deserialize, Clone)]
pub struct KernelFigures {
    pub snapshot: String,
    pub switches: u32,
    pub per_switch_ms: f64,
    /// Each switch's time, for the interval of the median.
    pub each_ms: Vec<f64>,
    /// System calls and writes a switch (strace -c, plain files only).
    #[serde(default)]
    pub syscalls_per_switch: Option<(f64, f64)>,
    /// The helper's own CPU time a switch (all its threads, schedstat),
    /// which the emulator's speed does not change; the 100 ms the helper
    /// waits for the firmware's files to settle after a switch included.
    pub helper_cpu_ms_per_switch: f64,
}

const MACHINES: [&str; 2] = ["amd-ai300-7.1", "amd-ai300-7.1-dynamic-epp"];

/// Times `switches` switches (power-saver and performance in turn, through
/// the PowerProfiles API) on each machine: on the kernel emulator, and on
/// plain files (the helper's own work alone: no kernel answers there, and
/// no notification follows a write).
pub fn run(switches: u32) -> Vec<KernelFigures> {
    [true, false]
        .into_iter()
        .flat_map(|emulated| MACHINES.iter().map(move |fixture| (emulated, *fixture)))
        .map(|(emulated, fixture)| {
            let bus = Bus::start();
            let mut helper = Helper::prepare(fixture);
            if emulated {
                helper.on_kernel_emulator();
            }
            helper.spawn(&bus);
            let fixture_name = fixture;
            let fixture = if emulated { fixture.to_owned() } else { format!("{fixture} (plain files)") };
            bus.wait_for_name("net.hadess.PowerProfiles");
            let mut switch = panel_switcher(&bus);
            let mut each_ms = Vec::with_capacity(switches as usize);
            let pid = helper.helper_pid();
            let cpu_before = cpu_ns(pid);
            let (_, per_switch_ms) = time_switches(switches, |performance| {
                let start = std::time::Instant::now();
                switch(performance);
                each_ms.push(start.elapsed().as_secs_f64() * 1000.0);
            });
            // The first is time_switches' warm-up, not timed by it either.
            each_ms.remove(0);
            // What the last switch set off (the settle, a firmware read).
            std::thread::sleep(std::time::Duration::from_millis(500));
            let helper_cpu_ms_per_switch = (cpu_ns(pid) - cpu_before) as f64 / 1e6 / f64::from(switches + 1);
            let log = helper.log_text();
            assert!(!log.contains("EBUSY"), "{fixture}: {log}");
            drop(helper);
            let syscalls_per_switch = (!emulated).then(|| helper_syscalls(&bus, fixture_name));
            eprintln!("   {fixture:<28} {per_switch_ms:.2} ms a switch, helper CPU {helper_cpu_ms_per_switch:.2} ms");
            KernelFigures {
                snapshot: (*fixture).to_owned(),
                switches,
                per_switch_ms,
                each_ms,
                helper_cpu_ms_per_switch,
                syscalls_per_switch,
            }
        })
        .collect()
}

/// The median of each machine's switch times with a 95 % interval
/// (order statistics, distribution-free), and the ratio of the medians.
pub fn table(results: &[KernelFigures]) -> String {
    let mut out = String::from(
        "| machine | switches | mean ms/switch | median ms (95 % interval) | helper CPU ms/switch | syscalls (writes)/switch |\n|---|---|---|---|---|---|\n",
    );
    let mut medians = Vec::new();
    for r in results {
        let (median, low, high) = median_interval(&r.each_ms);
        medians.push(median);
        out += &format!(
            "| {} | {} | {:.2} | {:.2} ({:.2}–{:.2}) | {:.2} | {} |\n",
            r.snapshot,
            r.switches,
            r.per_switch_ms,
            median,
            low,
            high,
            r.helper_cpu_ms_per_switch,
            r.syscalls_per_switch.map_or_else(|| "—".to_owned(), |(calls, writes)| format!("{calls:.0} ({writes:.0})"))
        );
    }
    if let [plain, dynamic, plain_files, dynamic_files] = medians.as_slice() {
        out += &format!(
            "\nDynamic EPP against plain 7.1, ratio of the medians: {:.2} on the emulator, {:.2} on plain files\n",
            dynamic / plain,
            dynamic_files / plain_files
        );
    }
    out
}

/// The median and the order statistics around it that cover it with at
/// least 95 % (the binomial method, normal approximation: n/2 ± 1.96·√n/2).
fn median_interval(values: &[f64]) -> (f64, f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let half = 1.96 * (n as f64).sqrt() / 2.0;
    let low = ((n as f64 / 2.0 - half).floor().max(0.0)) as usize;
    let high = ((n as f64 / 2.0 + half).ceil() as usize).min(n - 1);
    (sorted[n / 2], sorted[low], sorted[high])
}
