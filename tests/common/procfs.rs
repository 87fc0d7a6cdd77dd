//! What `/proc` says of a process: its resident memory and its wake-ups
//! (context switches of every thread), for the tests' budgets and the bench.

use std::collections::HashMap;
use std::fs;
use std::time::Duration;

/// Resident memory in KiB (0 once the process is gone).
pub fn rss_kib(pid: u32) -> u64 {
    fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Voluntary and involuntary context switches of each thread.
pub fn switches_by_thread(pid: u32) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { return out };
    for task in tasks.flatten() {
        let status = fs::read_to_string(task.path().join("status")).unwrap_or_default();
        let total: u64 = status
            .lines()
            .filter(|l| l.starts_with("voluntary_ctxt_switches:") || l.starts_with("nonvoluntary_ctxt_switches:"))
            .filter_map(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<u64>().ok()))
            .sum();
        out.insert(task.file_name().to_string_lossy().into_owned(), total);
    }
    out
}

/// Wake-ups of a process between two readings: each thread's new context
/// switches (a thread born in between counts from zero; one that ended in
/// between counts its exit as one).
pub fn wakeups_between(before: &HashMap<String, u64>, after: &HashMap<String, u64>) -> u64 {
    let grown: u64 = after.iter().map(|(tid, n)| n.saturating_sub(before.get(tid).copied().unwrap_or(0))).sum();
    let ended = before.keys().filter(|tid| !after.contains_key(*tid)).count() as u64;
    grown + ended
}

/// CPU time of every thread of a process, in nanoseconds (the first field
/// of each thread's `schedstat`): precise where `stat`'s utime and stime
/// count 10 ms ticks. A thread that ended takes its time with it.
pub fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { return 0 };
    tasks
        .flatten()
        .filter_map(|t| fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next().and_then(|v| v.parse::<u64>().ok()))
        .sum()
}

/// Wake-ups over the next `seconds` of an idle process.
pub fn wakeups_over(pid: u32, seconds: u64) -> u64 {
    let before = switches_by_thread(pid);
    std::thread::sleep(Duration::from_secs(seconds));
    wakeups_between(&before, &switches_by_thread(pid))
}
