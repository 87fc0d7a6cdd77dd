//! Snapshots of real machines (tests/fixtures/real-*, written by
//! tests/fixtures/real.py from what their owners pasted; docs/real-machines.md
//! names every source). Each must read without a problem, exit 0, and show
//! what its source shows: nothing more, nothing invented, nothing flagged
//! that the kernel does on purpose.

mod common;

use std::fs;

use common::*;
use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::profile::Resolver;
use gearshift::core::report::{HardwareReport, Level};
use gearshift::core::root::SysRoot;
use serde_json::Value;

/// What a real machine's status must say.
struct Expect {
    name: &'static str,
    /// `cpu.model_name`, where the source states it.
    model_name: Option<&'static str>,
    codename: Option<&'static str>,
    driver: Option<&'static str>,
    mode: Option<&'static str>,
    /// `status` (from the status file) or `driver` (implied by its name).
    mode_source: Option<&'static str>,
    online: &'static str,
    /// EPP as the kernel shows it on every online CPU.
    epp: Option<&'static str>,
    governor: Option<&'static str>,
    active: Option<&'static str>,
    /// `frequency_ranges`: CPUs, cpuinfo_min_freq, cpuinfo_max_freq.
    ranges: &'static [(&'static str, Option<u64>, Option<u64>)],
    /// Files whose impossible numbers are ignored.
    ignored: &'static [&'static str],
}

const EXPECT: &[Expect] = &[
    Expect {
        name: "real-amd-32cpu-natalenko",
        model_name: None,
        codename: None,
        driver: None,
        mode: None,
        mode_source: None,
        online: "0-31",
        epp: None,
        governor: None,
        active: None,
        ranges: &[("0-31", None, None)],
        ignored: &[],
    },
    Expect {
        name: "real-amd-5800x-tashkinov",
        model_name: Some("AMD Ryzen 7 5800X"),
        codename: None,
        driver: Some("amd-pstate-epp"),
        mode: Some("active"),
        mode_source: Some("driver"),
        online: "0",
        epp: Some("performance"),
        governor: Some("powersave"),
        // EPP performance under powersave: Gearshift's Performance on
        // amd-pstate-epp now also takes the performance governor (AMD's
        // choice for power-profiles-daemon 0.22), so no profile matches.
        active: None,
        ranges: &[("0", Some(550_000), Some(4_929_000))],
        ignored: &[],
    },
    Expect {
        name: "real-amd-5950x-rene",
        model_name: None,
        codename: None,
        driver: Some("amd-pstate-epp"),
        mode: Some("active"),
        mode_source: Some("driver"),
        online: "0",
        epp: Some("balance_performance"),
        governor: Some("powersave"),
        active: Some("balance_performance"),
        ranges: &[("0", Some(572_131), Some(5_276_318))],
        ignored: &[],
    },
    Expect {
        name: "real-amd-ja4e-tlp764",
        model_name: None,
        codename: None,
        driver: Some("amd-pstate-epp"),
        mode: Some("active"),
        mode_source: Some("status"),
        online: "0",
        epp: Some("power"),
        governor: Some("powersave"),
        active: Some("power"),
        ranges: &[("0", Some(400_000), Some(4_463_000))],
        ignored: &[],
    },
    Expect {
        name: "real-amd-ryzen-ai-7-350-nixos",
        model_name: Some("AMD Ryzen AI 7 350"),
        codename: None,
        driver: None,
        mode: None,
        mode_source: None,
        online: "0-15",
        epp: None,
        governor: None,
        active: None,
        ranges: &[("0,2,4,6,8,10,12,14", None, Some(5_090_910)), ("1,3,5,7,9,11,13,15", None, Some(3_506_494))],
        ignored: &[],
    },
    Expect {
        name: "real-intel-askubuntu-rick-alien",
        model_name: None,
        codename: None,
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("driver"),
        online: "0",
        epp: Some("performance"),
        governor: Some("performance"),
        // The performance governor is not a profile: they keep powersave.
        active: None,
        ranges: &[("0", Some(800_000), Some(3_500_000))],
        ignored: &[],
    },
    Expect {
        name: "real-intel-haswell-ep-nohwp",
        model_name: None,
        codename: Some("Haswell"),
        driver: Some("intel_cpufreq"),
        mode: Some("passive"),
        mode_source: Some("driver"),
        online: "0",
        epp: None,
        governor: None,
        active: None,
        ranges: &[("0", None, None)],
        ignored: &["/sys/devices/system/cpu/intel_pstate/num_pstates"],
    },
    Expect {
        name: "real-intel-i5-14600k-bazzite",
        model_name: Some("Intel Core i5-14600K"),
        codename: None,
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("driver"),
        online: "0-19",
        epp: Some("performance"),
        governor: Some("performance"),
        active: None,
        ranges: &[("0-11", None, Some(5_400_000)), ("12-19", None, Some(4_100_000))],
        ignored: &[],
    },
    Expect {
        name: "real-intel-i5-6300u-tlp671",
        model_name: Some("Intel(R) Core(TM) i5-6300U CPU @ 2.40GHz"),
        codename: None,
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("status"),
        online: "0",
        epp: Some("performance"),
        governor: Some("performance"),
        active: None,
        ranges: &[("0", None, None)],
        ignored: &[],
    },
    Expect {
        name: "real-intel-i7-1255u-e14g4",
        model_name: Some("12th Gen Intel(R) Core(TM) i7-1255U"),
        codename: None,
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("status"),
        online: "0",
        epp: None,
        governor: Some("powersave"),
        // Without EPP every profile is "powersave": the settings name none.
        active: None,
        ranges: &[("0", None, None)],
        ignored: &[],
    },
    Expect {
        name: "real-intel-i7-13620h-vmware-host",
        model_name: Some("i7-13620H"),
        codename: Some("Raptor Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("driver"),
        online: "0-15",
        epp: None,
        governor: Some("powersave"),
        active: None,
        ranges: &[("0-3,5,7-11", None, Some(4_700_000)), ("4,6", None, Some(4_900_000)), ("12-15", None, None)],
        ignored: &[],
    },
    Expect {
        name: "real-intel-i7-13650hx-tlp811",
        model_name: Some("13th Gen Intel(R) Core(TM) i7-13650HX"),
        codename: None,
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("driver"),
        online: "0",
        epp: Some("performance"),
        governor: Some("performance"),
        active: None,
        ranges: &[("0", Some(800_000), Some(2_600_000))],
        ignored: &[],
    },
    Expect {
        name: "real-intel-kf-m2g5-passive",
        model_name: None,
        codename: None,
        driver: Some("intel_cpufreq"),
        mode: Some("passive"),
        mode_source: Some("driver"),
        online: "0",
        epp: Some("balance_performance"),
        governor: Some("ondemand"),
        // Balanced uses schedutil in passive mode; ondemand matches nothing.
        active: None,
        ranges: &[("0", Some(800_000), Some(5_600_000))],
        ignored: &[],
    },
    Expect {
        name: "real-intel-kf-m2g5-passive-no-turbo",
        model_name: None,
        codename: None,
        driver: Some("intel_cpufreq"),
        mode: Some("passive"),
        mode_source: Some("driver"),
        online: "0",
        epp: Some("balance_performance"),
        governor: Some("ondemand"),
        active: None,
        // Since 6.11 cpuinfo_max_freq follows no_turbo: the base frequency.
        ranges: &[("0", Some(800_000), Some(2_200_000))],
        ignored: &[],
    },
    Expect {
        name: "real-intel-latitude-7390-clint",
        model_name: None,
        codename: None,
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("driver"),
        online: "0-7",
        epp: Some("balance_performance"),
        governor: Some("powersave"),
        // No kernel release in the snapshot: the generic 128 is still known.
        active: Some("balance_performance"),
        ranges: &[("0-7", Some(400_000), Some(3_600_000))],
        ignored: &[],
    },
    Expect {
        name: "real-intel-skx-i9-lab",
        model_name: None,
        codename: None,
        driver: Some("intel_pstate"),
        mode: Some("active"),
        mode_source: Some("status"),
        online: "0",
        epp: Some("127"),
        governor: Some("powersave"),
        active: None,
        ranges: &[("0", Some(1_200_000), Some(4_300_000))],
        ignored: &[],
    },
];

fn real_names() -> Vec<String> {
    fixture_names().into_iter().filter(|n| n.starts_with("real-")).collect()
}

fn cpu(status: &Value, id: u64) -> &Value {
    status["cpus"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("no cpu {id}"))
}

fn report(name: &str) -> HardwareReport {
    let root = SysRoot::open(&fixture(name)).unwrap();
    let machine = Machine::read(&root);
    let table = ModelTable::builtin();
    HardwareReport::build(&Resolver::new(&machine, &table))
}

fn finding<'a>(r: &'a HardwareReport, id: &str) -> &'a gearshift::core::report::Finding {
    r.findings.iter().find(|f| f.id == id).unwrap_or_else(|| panic!("no finding {id}"))
}

#[test]
fn every_real_fixture_is_described() {
    let mut described: Vec<String> = EXPECT.iter().map(|e| e.name.to_owned()).collect();
    described.sort();
    assert_eq!(real_names(), described);
    assert!(described.len() >= 11);
}

#[test]
fn status_shows_each_real_machine_as_its_source_does() {
    for e in EXPECT {
        let ctx = e.name;
        let s = status_json(&fixture(e.name));
        assert_eq!(s["cpu"]["model_name"].as_str(), e.model_name, "{ctx}");
        assert_eq!(s["cpu"]["codename"].as_str(), e.codename, "{ctx}");
        assert_eq!(s["driver"].as_str(), e.driver, "{ctx}");
        assert_eq!(s["mode"].as_str(), e.mode, "{ctx}");
        assert_eq!(s["mode_source"].as_str(), e.mode_source, "{ctx}");
        assert_eq!(s["online"].as_str(), Some(e.online), "{ctx}");
        assert_eq!(s["offline"], "", "{ctx}");
        assert_eq!(s["active_profile"].as_str(), e.active, "{ctx}");
        assert_eq!(s["problems"], Value::Array(vec![]), "{ctx}: a real machine's files are not garbage");
        assert_eq!(s["conflicts"], Value::Array(vec![]), "{ctx}");
        for c in s["cpus"].as_array().unwrap() {
            assert_eq!(c["online"], true, "{ctx}: no online file means online");
            assert_eq!(c["epp"].as_str(), e.epp, "{ctx} cpu {}", c["id"]);
            assert_eq!(c["governor"].as_str(), e.governor, "{ctx} cpu {}", c["id"]);
        }
        assert_eq!(s["epp_supported"].as_bool(), Some(e.epp.is_some()), "{ctx}");
        let ranges: Vec<(String, Option<u64>, Option<u64>)> = s["frequency_ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["cpus"].as_str().unwrap().to_owned(), r["hw_min_khz"].as_u64(), r["hw_max_khz"].as_u64()))
            .collect();
        let want: Vec<(String, Option<u64>, Option<u64>)> =
            e.ranges.iter().map(|(c, lo, hi)| ((*c).to_owned(), *lo, *hi)).collect();
        assert_eq!(ranges, want, "{ctx}");
        let ignored: Vec<&str> =
            s["ignored_values"].as_array().unwrap().iter().filter_map(|i| i["file"].as_str()).collect();
        assert_eq!(ignored, e.ignored, "{ctx}");
    }
}

// Their status --json is checked against tests/expected/ with every other
// fixture's (tests/cli_fixtures.rs, status_json_matches_the_checked_in_output).

#[test]
fn every_command_reads_every_real_machine() {
    for name in real_names() {
        let root = fixture(&name);
        for args in [&["status"][..], &["status", "--json"], &["detect"], &["detect", "--json"], &["profile", "list"]] {
            let run = gearshift_at(&root, args);
            let err = stderr(&run);
            assert_eq!(run.status.code(), Some(0), "{name} {args:?}: {err}");
            assert!(err.is_empty(), "{name} {args:?}: {err}");
            assert!(!stdout(&run).is_empty(), "{name} {args:?}");
        }
        let detect: Value = serde_json::from_slice(&gearshift_at(&root, &["detect", "--json"]).stdout).unwrap();
        assert!(detect["findings"].as_array().unwrap().len() >= 6, "{name}");
        assert_eq!(detect["can_tune"], true, "{name}: every one of them has cpufreq policies");
        assert!(!detect["summary"].as_str().unwrap().is_empty(), "{name}");
    }
}

#[test]
fn snapshots_of_real_machines_read_back_the_same() {
    for name in real_names() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("snap");
        let run = gearshift_at(&fixture(&name), &["snapshot", out.to_str().unwrap()]);
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        assert_eq!(status_json(&out), status_json(&fixture(&name)), "{name}");
    }
}

/// Where the source names the CPU, nothing says it is unknown.
#[test]
fn a_named_cpu_is_never_unknown() {
    for e in EXPECT.iter().filter(|e| e.model_name.is_some() || e.codename.is_some()) {
        let r = report(e.name);
        let cpu = finding(&r, "cpu");
        assert_ne!(cpu.value.english(), "Unknown CPU", "{}", e.name);
        let text = stdout(&gearshift_at(&fixture(e.name), &["status"]));
        assert!(!text.starts_with("Unknown CPU"), "{}: {text}", e.name);
        let detect = stdout(&gearshift_at(&fixture(e.name), &["detect"]));
        assert!(!detect.contains("Unknown CPU"), "{}: {detect}", e.name);
    }
    // A brand string, else the code name, else the family and model.
    assert_eq!(finding(&report("real-intel-i7-13620h-vmware-host"), "cpu").value.english(), "i7-13620H");
    let haswell = report("real-intel-haswell-ep-nohwp");
    assert_eq!(finding(&haswell, "cpu").value.english(), "Haswell");
    assert_eq!(finding(&haswell, "cpu").detail.english(), "Haswell, family 6 model 63 (0x3F)");
    assert!(stdout(&gearshift_at(&fixture("real-intel-haswell-ep-nohwp"), &["status"])).starts_with("Haswell\n"));
    // Where no source names it, saying so is the truth.
    assert_eq!(finding(&report("real-amd-5950x-rene"), "cpu").value.english(), "Unknown CPU");
}

#[test]
fn amd_pstate_epp_starts_at_the_lowest_nonlinear_frequency_and_that_is_fine() {
    let s = status_json(&fixture("real-amd-5950x-rene"));
    let c = cpu(&s, 0);
    assert_eq!(c["min_khz"], 1_748_178);
    assert_eq!(c["lowest_nonlinear_khz"], 1_748_178);
    assert_eq!(c["hw_min_khz"], 572_131);
    assert_eq!((c["max_khz"].as_u64(), c["hw_max_khz"].as_u64()), (Some(5_276_318), Some(5_276_318)));
    assert_eq!((c["prefcore_ranking"].as_u64(), c["hw_prefcore"].as_bool()), (Some(206), Some(true)));
    assert_eq!((s["turbo"].as_bool(), s["turbo_control"].as_str()), (Some(true), Some("policy_boost")));
    assert_eq!(s["ignored_values"], Value::Array(vec![]));
    let r = report("real-amd-5950x-rene");
    let warnings: Vec<&str> = r.findings.iter().filter(|f| f.level == Level::Warning).map(|f| f.id).collect();
    assert!(warnings.is_empty(), "nothing is wrong with the default minimum: {warnings:?}");
    let text = stdout(&gearshift_at(&fixture("real-amd-5950x-rene"), &["status"]));
    assert!(text.contains("Frequency limits  572–5276 MHz"), "{text}");
    // The number first, the kernel's name beside it (issue 40: one way
    // to show an EPP everywhere).
    assert!(text.contains("powersave  128 (balance_performance)  —    1748–5276"), "{text}");
    assert!(!text.to_lowercase().contains("limited"), "{text}");
    // The older amd-pstate-epp of Linux 6.3 started at the hardware's lowest.
    let older = status_json(&fixture("real-amd-5800x-tashkinov"));
    assert_eq!(cpu(&older, 0)["min_khz"], 550_000);
    assert_eq!(cpu(&older, 0)["lowest_nonlinear_khz"], 1_752_000);
}

#[test]
fn a_policy_pinned_to_its_minimum_is_shown_as_it_is() {
    let s = status_json(&fixture("real-amd-ja4e-tlp764"));
    let c = cpu(&s, 0);
    assert_eq!((c["min_khz"].as_u64(), c["max_khz"].as_u64()), (Some(400_000), Some(400_000)));
    assert_eq!(c["hw_max_khz"], 4_463_000);
    assert_eq!(c["epp_value"], 255);
    assert_eq!(s["preference_form"], "name");
    let text = stdout(&gearshift_at(&fixture("real-amd-ja4e-tlp764"), &["status"]));
    assert!(text.contains("255 (power)  —    400–400"), "{text}");
}

#[test]
fn favoured_and_efficiency_cores_keep_their_own_ranges() {
    let s = status_json(&fixture("real-intel-i7-13620h-vmware-host"));
    for id in 0..16u64 {
        let c = cpu(&s, id);
        let (want_type, want_max) = match id {
            4 | 6 => ("performance", Some(4_900_000)),
            0..=11 => ("performance", Some(4_700_000)),
            _ => ("efficiency", None),
        };
        assert_eq!(c["core_type"], want_type, "cpu {id}");
        assert_eq!(c["hw_max_khz"].as_u64(), want_max, "cpu {id}");
    }
    assert_eq!((s["cpu"]["performance_cores"].as_u64(), s["cpu"]["efficiency_cores"].as_u64()), (Some(12), Some(4)));
    let text = stdout(&gearshift_at(&fixture("real-intel-i7-13620h-vmware-host"), &["status"]));
    assert!(text.contains("Frequency limits  ≤ 4700 MHz (0-3,5,7-11) · ≤ 4900 MHz (4,6) · — (12-15)"), "{text}");

    let s = status_json(&fixture("real-intel-i5-14600k-bazzite"));
    for id in 0..20u64 {
        let want = if id < 12 { 5_400_000 } else { 4_100_000 };
        assert_eq!(cpu(&s, id)["hw_max_khz"], want, "cpu {id}");
    }
    assert_eq!(s["kernel"], "6.19.14-ogc5.1.fc44.x86_64");
    let bazzite = report("real-intel-i5-14600k-bazzite");
    let cores = finding(&bazzite, "cores");
    assert_eq!(cores.detail.english(), "≤ 5400 MHz (0-11) · ≤ 4100 MHz (12-19)");

    // An AMD hybrid (Zen5 and Zen5c) that sysfs does not mark as hybrid.
    let s = status_json(&fixture("real-amd-ryzen-ai-7-350-nixos"));
    for id in 0..16u64 {
        let c = cpu(&s, id);
        let (max, ranking) = if id % 2 == 0 { (5_090_910, None) } else { (3_506_494, Some(135)) };
        assert_eq!(c["hw_max_khz"], max, "cpu {id}");
        assert_eq!(c["prefcore_ranking"].as_u64(), ranking, "cpu {id}");
        assert_eq!(c["hw_prefcore"], false, "cpu {id}");
    }
    assert_eq!(s["prefcore"], false);
    let zen5 = report("real-amd-ryzen-ai-7-350-nixos");
    assert_eq!(
        finding(&zen5, "cores").detail.english(),
        "≤ 5091 MHz (0,2,4,6,8,10,12,14) · ≤ 3506 MHz (1,3,5,7,9,11,13,15)",
        "its cores top out at 5.1 and 3.5 GHz: not 'all of one kind'"
    );
}

#[test]
fn a_negative_errno_printed_unsigned_is_unknown() {
    let s = status_json(&fixture("real-intel-haswell-ep-nohwp"));
    assert!(s["num_pstates"].is_null());
    assert_eq!(s["ignored_values"][0]["text"], "4294967285");
    // The other intel_pstate numbers are possible, and kept.
    assert_eq!((s["turbo_pct"].as_u64(), s["min_perf_pct"].as_u64()), (Some(0), Some(36)));
    assert_eq!(s["max_perf_pct"], 100);
    // No flags line in its cpuinfo: the features are unknown, not "no".
    for feature in ["hwp", "hwp_epp", "epb", "hypervisor"] {
        assert!(s["cpu"]["features"][feature].is_null(), "{feature}");
    }
    assert_eq!(s["preference_form"], "governor_only");
    // A possible value is read as it is.
    let skx = status_json(&fixture("real-intel-skx-i9-lab"));
    assert_eq!((skx["num_pstates"].as_u64(), skx["turbo_pct"].as_u64()), (Some(32), Some(32)));
}

#[test]
fn impossible_frequencies_are_unknown_and_listed() {
    let tmp = copy_fixture("real-amd-5950x-rene");
    let policy = tmp.path().join("sys/devices/system/cpu/cpufreq/policy0");
    fs::write(policy.join("cpuinfo_max_freq"), "0\n").unwrap();
    fs::write(policy.join("amd_pstate_lowest_nonlinear_freq"), "20000000\n").unwrap();
    fs::write(policy.join("scaling_min_freq"), "5276318\n").unwrap();
    fs::write(policy.join("scaling_max_freq"), "1748178\n").unwrap();
    fs::write(policy.join("amd_pstate_prefcore_ranking"), "4294967285\n").unwrap();
    fs::write(policy.join("scaling_cur_freq"), "0\n").unwrap();
    let s = status_json(tmp.path());
    let c = cpu(&s, 0);
    for field in ["hw_max_khz", "lowest_nonlinear_khz", "min_khz", "max_khz", "prefcore_ranking", "cur_khz"] {
        assert!(c[field].is_null(), "{field} is {}", c[field]);
    }
    assert_eq!(c["hw_min_khz"], 572_131, "the readable bound stays");
    let files: Vec<&str> =
        s["ignored_values"].as_array().unwrap().iter().map(|i| i["file"].as_str().unwrap()).collect();
    let dir = "/sys/devices/system/cpu/cpufreq/policy0";
    for file in [
        "scaling_cur_freq",
        "scaling_min_freq",
        "scaling_max_freq",
        "cpuinfo_max_freq",
        "amd_pstate_lowest_nonlinear_freq",
        "amd_pstate_prefcore_ranking",
    ] {
        assert!(files.contains(&format!("{dir}/{file}").as_str()), "{file} not in {files:?}");
    }
    assert_eq!(s["problems"], Value::Array(vec![]), "an impossible number is not unreadable input");
    // The first sample is the machine as read, the second a live re-read.
    let monitor = gearshift_at(tmp.path(), &["monitor", "--count", "2", "--interval-ms", "50", "--json"]);
    assert!(monitor.status.success(), "{}", stderr(&monitor));
    for line in stdout(&monitor).lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        assert!(line["cpus"][0]["cur_khz"].is_null(), "{line}");
    }
    assert_eq!(stdout(&monitor).lines().count(), 2);

    // A minimum above its maximum: neither can be trusted.
    let tmp = copy_fixture("real-intel-latitude-7390-clint");
    let policy = tmp.path().join("sys/devices/system/cpu/cpufreq/policy3");
    fs::write(policy.join("cpuinfo_min_freq"), "3600000\n").unwrap();
    fs::write(policy.join("cpuinfo_max_freq"), "400000\n").unwrap();
    let s = status_json(tmp.path());
    assert!(cpu(&s, 3)["hw_min_khz"].is_null() && cpu(&s, 3)["hw_max_khz"].is_null());
    assert_eq!(cpu(&s, 2)["hw_max_khz"], 3_600_000);
    assert_eq!(s["ignored_values"].as_array().unwrap().len(), 2);
}

#[test]
fn a_snapshot_without_its_driver_file_is_not_a_machine_without_cpufreq() {
    for name in ["real-amd-ryzen-ai-7-350-nixos", "real-amd-32cpu-natalenko"] {
        let text = stdout(&gearshift_at(&fixture(name), &["status"]));
        assert!(text.contains("Driver   unknown") || text.contains("Driver            unknown"), "{name}: {text}");
        assert!(!text.contains("no CPU frequency control"), "{name}: {text}");
        let r = report(name);
        let driver = finding(&r, "driver");
        assert_eq!(driver.value.english(), "unknown", "{name}");
        assert_ne!(driver.level, Level::Warning, "{name}");
        assert!(r.can_tune && r.why_not.is_none(), "{name}");
    }
    // Preferred-core rankings as the patch era printed them ("supported").
    let s = status_json(&fixture("real-amd-32cpu-natalenko"));
    for id in 0..16u64 {
        assert_eq!(cpu(&s, id)["prefcore_ranking"], cpu(&s, id + 16)["prefcore_ranking"], "SMT siblings {id}");
        assert_eq!(cpu(&s, id)["hw_prefcore"], true);
    }
    let best: Vec<u64> = s["cpus"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["prefcore_ranking"] == 236)
        .map(|c| c["id"].as_u64().unwrap())
        .collect();
    assert_eq!(best, [3, 5, 19, 21]);
}

#[test]
fn the_driver_name_implies_the_mode_where_the_status_file_is_missing() {
    let passive = status_json(&fixture("real-intel-kf-m2g5-passive"));
    assert_eq!((passive["mode"].as_str(), passive["mode_source"].as_str()), (Some("passive"), Some("driver")));
    let c = cpu(&passive, 0);
    assert_eq!((c["epp"].as_str(), c["epp_value"].as_u64()), (Some("balance_performance"), Some(128)));
    assert_eq!(c["base_khz"], 2_200_000);
    assert_eq!(passive["turbo"], true);
    let no_turbo = status_json(&fixture("real-intel-kf-m2g5-passive-no-turbo"));
    assert_eq!(no_turbo["turbo"], false);
    assert_eq!(cpu(&no_turbo, 0)["hw_max_khz"], cpu(&no_turbo, 0)["base_khz"]);
    // The passive driver's governor list keeps its trailing space; it is parsed all the same.
    assert_eq!(c["available_governors"].as_array().unwrap().len(), 6);
    assert_eq!(c["available_preferences"].as_array().unwrap().len(), 5);
}

#[test]
fn epp_read_as_a_number_stays_a_number() {
    let s = status_json(&fixture("real-intel-skx-i9-lab"));
    let c = cpu(&s, 0);
    assert_eq!((c["epp"].as_str(), c["epp_value"].as_u64()), (Some("127"), Some(127)));
    assert_eq!(s["hwp_dynamic_boost"], false);
    let text = stdout(&gearshift_at(&fixture("real-intel-skx-i9-lab"), &["status"]));
    assert!(text.contains("powersave  127"), "{text}");
}

#[test]
fn the_performance_governor_is_shown_and_not_taken_for_a_profile() {
    for name in ["real-intel-askubuntu-rick-alien", "real-intel-i5-6300u-tlp671", "real-intel-i7-13650hx-tlp811"] {
        let s = status_json(&fixture(name));
        assert!(s["active_profile"].is_null(), "{name}");
        assert_eq!(cpu(&s, 0)["epp_value"], 0, "{name}");
        // Profiles keep powersave: EPP cannot be changed under performance.
        assert_eq!(s["profiles"][0]["governor"], "powersave", "{name}");
    }
    let rick = status_json(&fixture("real-intel-askubuntu-rick-alien"));
    assert_eq!(cpu(&rick, 0)["cur_khz"], 3_218_768);
    assert_eq!(cpu(&rick, 0)["policy"], 0);
}

#[test]
fn turbo_off_and_a_performance_cap_are_shown() {
    let s = status_json(&fixture("real-intel-i7-1255u-e14g4"));
    assert_eq!((s["turbo"].as_bool(), s["turbo_control"].as_str()), (Some(false), Some("intel_no_turbo")));
    assert_eq!((s["max_perf_pct"].as_u64(), s["min_perf_pct"].as_u64()), (Some(30), Some(10)));
    // Absent on hybrid CPUs: unknown, and nothing to ignore.
    assert!(s["num_pstates"].is_null() && s["turbo_pct"].is_null());
    assert_eq!(s["ignored_values"], Value::Array(vec![]));
    assert_eq!(cpu(&s, 0)["min_khz"], 400_000);
    assert!(cpu(&s, 0)["max_khz"].is_null());
}

#[test]
fn the_wizard_report_reads_each_real_machine() {
    for name in real_names() {
        let r = report(&name);
        // The reports these snapshots come from show no power supplies:
        // nothing says "on battery", so one profile is suggested (issue 27
        // changed this from a battery suggestion on every machine).
        assert_eq!((r.on_ac, r.on_battery), ("balance_performance", None), "{name}");
        assert!(r.summary.english().ends_with("Suggested: Balanced, all the time."), "{name}: {:?}", r.summary);
        let text = stdout(&gearshift_at(&fixture(&name), &["detect"]));
        assert!(text.contains("Frequency driver: "), "{name}: {text}");
    }
    let amd = report("real-amd-5800x-tashkinov");
    assert!(finding(&amd, "features").value.english().starts_with("CPPC: unknown"));
    assert!(
        amd.summary.english().starts_with("On AMD Ryzen 7 5800X, \"Balanced\" means EPP 128"),
        "{}",
        amd.summary.english()
    );
    // Without cpuinfo the driver still says it is an AMD.
    assert!(finding(&report("real-amd-5950x-rene"), "features").value.english().starts_with("CPPC: unknown"));
    let rpl = report("real-intel-i7-13620h-vmware-host");
    assert!(finding(&rpl, "cores").detail.english().contains("12 logical CPUs on performance cores and 4"));
    assert!(rpl.summary.english().starts_with("Raptor Lake offers no EPP here"), "{}", rpl.summary.english());
}
