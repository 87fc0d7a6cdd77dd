//! The `agent` section: what `gearshift agent` costs while nothing
//! happens (docs/rules.md, docs/performance.md), counted as the monitor's
//! and the tray's wake-ups are (context switches of every thread,
//! `/proc/PID/task/*/status`) and its CPU time (schedstat), over
//! `BENCH_AGENT_SECONDS` (60 by default), in three cases:
//! - no rules: no wake-up at all;
//! - rules whose programs are on `$PATH` and an app rule, nothing
//!   matching: no wake-up either (inotify only);
//! - a rule whose program is on no directory of `$PATH`: the 5 s scan,
//!   at most one wake-up per 5 s and under 0.05% of one CPU;
//!
//! and how soon a hold follows: a program started from a terminal, its end,
//! and a desktop app's scope. The agent has a session bus, as in a desktop
//! session, and watches it for GameMode (none runs).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::common::agent::Agent;
use super::common::bus::{panel_holds, Bus, Helper};
use super::common::procfs::{cpu_ns, wakeups_over};

/// One case's idle figures.
#[derive(Debug, Default, Serialize, Deserialize, Clone)]
pub struct IdleFigures {
    pub case: String,
    pub seconds: u64,
    pub wakeups: u64,
    /// Percent of one CPU.
    pub cpu_percent: f64,
    /// The budget: the most wake-ups in `seconds`.
    pub most_wakeups: u64,
}

/// How soon the holds follow, in milliseconds.
#[derive(Debug, Default, Serialize, Deserialize, Clone)]
pub struct Latencies {
    pub program_held_ms: f64,
    pub program_released_ms: f64,
    pub app_held_ms: f64,
    pub app_released_ms: f64,
}

/// The section's figures.
#[derive(Debug, Default, Serialize, Deserialize, Clone)]
pub struct AgentFigures {
    pub idle: Vec<IdleFigures>,
    pub latencies: Latencies,
}

/// The agent, its start-up done.
fn start(bus: &Bus, work: &Path, root: &Path) -> Agent {
    let agent = Agent::start(bus, work, Some(root));
    std::thread::sleep(Duration::from_secs(1));
    agent
}

fn until(limit: Duration, ready: impl Fn() -> bool) -> f64 {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "not within {limit:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    start.elapsed().as_secs_f64() * 1000.0
}

/// Runs the section.
pub fn run(seconds: u64) -> AgentFigures {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "meteor-lake-155h");
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(work.path().join("bin")).unwrap();
    std::fs::copy("/bin/sleep", work.path().join("bin/render-job")).unwrap();
    std::fs::create_dir_all(work.path().join("config/gearshift")).unwrap();
    let root = work.path().join("root");
    let slice = root.join("sys/fs/cgroup/user.slice/user-0.slice/user@0.service/app.slice");
    std::fs::create_dir_all(&slice).unwrap();
    std::fs::create_dir_all(root.join("proc")).unwrap();
    let rules = work.path().join("config/gearshift/rules.toml");
    let cases = [
        ("no rules", String::new(), 0),
        (
            "a program on $PATH and an app, nothing running",
            "[[rule]]\nprogram = \"render-job\"\nprofile = \"performance\"\n\n[[rule]]\napp_id = \"org.example.Render\"\nprofile = \"performance\"\n".to_owned(),
            0,
        ),
        (
            "a program on no directory of $PATH (scanned every 5 s)",
            "[[rule]]\nprogram = \"not-on-path\"\nprofile = \"performance\"\n".to_owned(),
            seconds.div_ceil(5),
        ),
    ];
    let mut figures = AgentFigures::default();
    for (case, text, most) in cases {
        std::fs::write(&rules, text).unwrap();
        let agent = start(&bus, work.path(), &root);
        let cpu_before = cpu_ns(agent.id());
        let wakeups = wakeups_over(agent.id(), seconds);
        let cpu = cpu_ns(agent.id()).saturating_sub(cpu_before) as f64 / (seconds as f64 * 1e9) * 100.0;
        eprintln!("   agent, {case}: {wakeups} wake-ups in {seconds} s, {cpu:.4}% of a CPU");
        figures.idle.push(IdleFigures {
            case: case.to_owned(),
            seconds,
            wakeups,
            cpu_percent: cpu,
            most_wakeups: most,
        });
        if case.starts_with("a program on $PATH") {
            let mut job = Command::new(work.path().join("bin/render-job")).arg("2").spawn().unwrap();
            figures.latencies.program_held_ms = until(Duration::from_secs(5), || !panel_holds(&bus).is_empty());
            job.wait().unwrap();
            figures.latencies.program_released_ms = until(Duration::from_secs(5), || panel_holds(&bus).is_empty());
            let scope = slice.join("app-gnome-org.example.Render-7.scope");
            std::fs::create_dir(&scope).unwrap();
            figures.latencies.app_held_ms = until(Duration::from_secs(1), || !panel_holds(&bus).is_empty());
            std::fs::remove_dir(&scope).unwrap();
            figures.latencies.app_released_ms = until(Duration::from_secs(5), || panel_holds(&bus).is_empty());
        }
        drop(agent);
    }
    figures
}

/// The section's table.
pub fn table(f: &AgentFigures) -> String {
    let mut out = String::from("| case | wake-ups | budget | CPU |\n|---|---|---|---|\n");
    for idle in &f.idle {
        out += &format!(
            "| {} | {} in {} s | ≤ {} | {:.4}% (≤ 0.05%) |\n",
            idle.case, idle.wakeups, idle.seconds, idle.most_wakeups, idle.cpu_percent
        );
    }
    let l = &f.latencies;
    out += &format!(
        "\n| held after | ms | budget |\n|---|---|---|\n| a program started from a terminal | {:.0} | 5000 |\n\
         | its end, let go | {:.0} | 5000 |\n| a desktop app's scope | {:.0} | 1000 |\n| its scope gone, let go | {:.0} | 5000 |\n",
        l.program_held_ms, l.program_released_ms, l.app_held_ms, l.app_released_ms
    );
    out
}
