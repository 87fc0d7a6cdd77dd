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

/// What a process's memory costs (`/proc/PID/smaps_rollup`), in KiB: RSS
/// counts every page it maps in full, PSS each shared page divided among
/// the processes that map it, private what no other process maps.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    pub rss: u64,
    pub pss: u64,
    pub private: u64,
}

/// The process's [`Memory`] (zeros once it is gone).
pub fn memory(pid: u32) -> Memory {
    let text = fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let field = |name: &str| -> u64 {
        text.lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with(':'))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    Memory { rss: field("Rss"), pss: field("Pss"), private: field("Private_Clean") + field("Private_Dirty") }
}

/// Where a process's PSS lies (`/proc/PID/smaps`): KiB per mapping name
/// (the program, each library by file name, `[heap]`, `[stack]`, `anon` for
/// unnamed mappings), largest first.
pub fn pss_by_mapping(pid: u32) -> Vec<(String, u64)> {
    let text = fs::read_to_string(format!("/proc/{pid}/smaps")).unwrap_or_default();
    let mut sums: HashMap<String, u64> = HashMap::new();
    let mut current = String::from("anon");
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            // "start-end perms offset dev inode [path]"
            let path = words.nth(4).unwrap_or("");
            current = match path {
                "" => "anon".to_owned(),
                p if p.starts_with('[') => p.to_owned(),
                p => p.rsplit('/').next().unwrap_or(p).to_owned(),
            };
        } else if first == "Pss:" {
            *sums.entry(current.clone()).or_default() += words.next().and_then(|v| v.parse().ok()).unwrap_or(0);
        }
    }
    let mut sums: Vec<(String, u64)> = sums.into_iter().filter(|(_, kib)| *kib > 0).collect();
    sums.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    sums
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

/// The processes `pid` started that still run (the kernel's list, over all
/// its threads).
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    tasks
        .flatten()
        .flat_map(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|c| c.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}
