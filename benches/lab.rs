//! How long the efficiency lab takes to a verdict: `gearshift measure` as
//! it ships (release build), the real helper on a private bus, over the
//! kernel emulator (tests/kernelfs) whose energy counters follow a power
//! model of the EPP, with the work running for real on this machine. Each
//! case starts from a fresh copy of the Meteor Lake snapshot and reports
//! the rounds made, the minutes taken and the verdict.
//!
//! `cargo bench --bench lab` as root (polkitd, FUSE), like the tests;
//! `BENCH_LAB_SCALE` (default 1: the work of a real measurement) scales
//! every run. Results in target/bench/lab.md.

#[path = "../tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::Path;
use std::time::Instant;

use common::bus::{cli, Bus, Helper};
use common::kernelfs::KernelFs;
use common::stderr;
use serde_json::Value;

/// A case: its name, and the arguments after `measure`.
const CASES: [(&str, &[&str]); 4] = [
    ("Power Saver against Performance, build", &["--profiles", "power,performance"]),
    ("Balanced (64) against the kernel's 128, build", &["--profiles", "balanced,kernel_default"]),
    (
        "Balanced (64) against the kernel's 128, playback",
        &["--workload", "playback", "--profiles", "balanced,kernel_default"],
    ),
    (
        "A custom 128 against the kernel's 128, playback",
        &["--workload", "playback", "--profiles", "generic,kernel_default"],
    ),
];

fn main() {
    let scale = std::env::var("BENCH_LAB_SCALE").unwrap_or_else(|_| "1".into());
    let mut table = format!(
        "Work scale {scale}, Meteor Lake snapshot (22 CPUs) on the kernel emulator, on this machine \
         ({} CPUs).\n\n| case | rounds | minutes | verdict |\n|---|---|---|---|\n",
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    for (name, args) in CASES {
        eprintln!("== {name}");
        let bus = Bus::start();
        let mut helper = Helper::prepare("meteor-lake-155h");
        let _kernel = KernelFs::serve_in_place(helper.root.path(), None);
        helper.spawn(&bus);
        let root = helper.root.path().to_str().unwrap().to_owned();
        let saved = cli(
            &bus,
            None,
            &["--root", &root, "profile", "save", "Generic", "--epp", "128", "--e-core-epp", "128", "--yes"],
        );
        assert!(saved.status.success(), "{}", stderr(&saved));
        let started = Instant::now();
        let out =
            cli(&bus, None, &[&["--root", &root, "measure", "--yes", "--json", "--scale", &scale], args].concat());
        let minutes = started.elapsed().as_secs_f64() / 60.0;
        assert!(out.status.success(), "{}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        let verdict = match (&report["best"], &report["lead"]) {
            (Value::String(best), lead) => format!("{best} clearly best ({})", figure(lead)),
            (_, lead) => format!("no clear difference ({})", figure(lead)),
        };
        eprintln!("   {} rounds, {minutes:.1} min: {verdict}", report["repeats"]);
        table += &format!("| {name} | {} | {minutes:.1} | {verdict} |\n", report["repeats"]);
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("lab.md"), &table).unwrap();
    println!("{table}");
}

/// "+95.5%, between +75.9% and +115.1%" from a lead's JSON.
fn figure(lead: &Value) -> String {
    let pct = |v: &Value| v.as_f64().map_or_else(|| "?".into(), |p| format!("{p:+.1}%"));
    format!("{}, between {} and {}", pct(&lead["pct"]), pct(&lead["ci95_pct"][0]), pct(&lead["ci95_pct"][1]))
}
