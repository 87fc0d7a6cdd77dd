//! The `gearshift` binary on every fixture: the facts each machine must
//! show, checked-in expected JSON, snapshot round trips and bad input.

mod common;

use std::fs;
use std::os::unix::fs::symlink;

use common::*;
use gearshift::core::parse::parse_cpu_list;
use serde_json::Value;

/// What each fixture must show, independent of the golden files.
struct Expect {
    name: &'static str,
    vendor: Option<&'static str>,
    family: u32,
    model: u32,
    codename: Option<&'static str>,
    driver: Option<&'static str>,
    mode: Option<&'static str>,
    online: &'static str,
    offline: &'static str,
    /// Online P- and E-cores on hybrid CPUs.
    cores: Option<(u64, u64)>,
    /// EPP for performance, balance_performance, balance_power, power.
    epp: [Option<u64>; 4],
    active: Option<&'static str>,
}

const EXPECT: &[Expect] = &[
    Expect {
        name: "meteor-lake-155h",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 170,
        codename: Some("Meteor Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-21",
        offline: "",
        cores: Some((12, 10)),
        epp: [Some(16), Some(64), Some(179), Some(255)],
        // Linux 6.8 shows balance_performance for 128, not Intel's 64.
        active: None,
    },
    Expect {
        name: "arrow-lake-285k",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 198,
        codename: Some("Arrow Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-23",
        offline: "",
        cores: Some((8, 16)),
        epp: [Some(16), Some(64), Some(179), Some(255)],
        // Linux 6.12 knows 64, so its balance_performance is Gearshift's.
        active: Some("balance_performance"),
    },
    Expect {
        name: "alder-lake-1260p",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 154,
        codename: Some("Alder Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-15",
        offline: "",
        cores: Some((8, 8)),
        epp: [Some(0), Some(102), Some(192), Some(255)],
        active: None,
    },
    Expect {
        // The same laptop with an iPhone charging from it (trickle_charge).
        name: "alder-lake-1260p-iphone",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 154,
        codename: Some("Alder Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-15",
        offline: "",
        cores: Some((8, 8)),
        epp: [Some(0), Some(102), Some(192), Some(255)],
        active: None,
    },
    Expect {
        name: "raptor-lake-13700h",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 186,
        codename: Some("Raptor Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-19",
        offline: "",
        cores: Some((12, 8)),
        epp: [Some(0), Some(128), Some(192), Some(255)],
        active: Some("balance_power"),
    },
    Expect {
        name: "raptor-lake-no-cppc",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 186,
        codename: Some("Raptor Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-19",
        offline: "",
        cores: Some((12, 8)),
        epp: [Some(0), Some(128), Some(192), Some(255)],
        active: Some("balance_power"),
    },
    Expect {
        name: "emerald-rapids-64",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 207,
        codename: Some("Emerald Rapids"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-63",
        offline: "",
        cores: None,
        epp: [Some(0), Some(32), Some(192), Some(255)],
        active: None,
    },
    Expect {
        name: "granite-rapids-2s-256",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 173,
        codename: Some("Granite Rapids"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-255",
        offline: "",
        cores: None,
        epp: [Some(0), Some(32), Some(192), Some(255)],
        active: None,
    },
    Expect {
        name: "ivy-bridge-epb",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 58,
        codename: Some("Ivy Bridge"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-7",
        offline: "",
        cores: None,
        epp: [None, None, None, None],
        active: None,
    },
    Expect {
        name: "tiger-lake-passive",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 140,
        codename: Some("Tiger Lake"),
        driver: Some("intel_cpufreq"),
        mode: Some("passive"),
        online: "0-7",
        offline: "",
        cores: None,
        epp: [Some(0), Some(128), Some(192), Some(255)],
        active: Some("balance_performance"),
    },
    Expect {
        name: "kaby-lake-offline",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 142,
        codename: Some("Kaby Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-3",
        offline: "4-7",
        cores: None,
        epp: [Some(0), Some(128), Some(192), Some(255)],
        active: Some("balance_performance"),
    },
    Expect {
        name: "kaby-lake-2cpu",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 142,
        codename: Some("Kaby Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-1",
        offline: "",
        cores: None,
        epp: [Some(0), Some(128), Some(192), Some(255)],
        active: Some("balance_performance"),
    },
    Expect {
        name: "amd-7840hs-epp",
        vendor: Some("AuthenticAMD"),
        family: 25,
        model: 116,
        codename: Some("Zen 4 (Phoenix)"),
        driver: Some("amd-pstate-epp"),
        mode: Some("active"),
        online: "0-15",
        offline: "",
        cores: None,
        epp: [Some(0), Some(128), Some(191), Some(255)],
        active: Some("balance_performance"),
    },
    Expect {
        name: "amd-hx370-platform-class",
        vendor: Some("AuthenticAMD"),
        family: 26,
        model: 36,
        codename: Some("Zen 5 (Strix Point)"),
        driver: Some("amd-pstate-epp"),
        mode: Some("active"),
        online: "0-23",
        offline: "",
        cores: None,
        epp: [Some(0), Some(128), Some(191), Some(255)],
        active: Some("balance_performance"),
    },
    // Linux 7.1's amd-pstate: raw EPP numbers, dynamic EPP off.
    Expect {
        name: "amd-ai300-7.1",
        vendor: Some("AuthenticAMD"),
        family: 26,
        model: 36,
        codename: Some("Zen 5 (Strix Point)"),
        driver: Some("amd-pstate-epp"),
        mode: Some("active"),
        online: "0-23",
        offline: "",
        cores: None,
        epp: [Some(0), Some(128), Some(191), Some(255)],
        active: Some("balance_performance"),
    },
    // The same with dynamic EPP on: the balanced value is the kernel's.
    Expect {
        name: "amd-ai300-7.1-dynamic-epp",
        vendor: Some("AuthenticAMD"),
        family: 26,
        model: 36,
        codename: Some("Zen 5 (Strix Point)"),
        driver: Some("amd-pstate-epp"),
        mode: Some("active"),
        online: "0-23",
        offline: "",
        cores: None,
        epp: [Some(0), None, None, Some(255)],
        active: Some("balance_performance"),
    },
    Expect {
        name: "panther-lake-asus",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 204,
        codename: Some("Panther Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-11",
        offline: "",
        cores: Some((4, 8)),
        epp: [Some(0), Some(128), Some(192), Some(255)],
        active: Some("balance_performance"),
    },
    Expect {
        name: "tlp-pd-laptop",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 154,
        codename: Some("Alder Lake"),
        driver: Some("intel_pstate"),
        mode: Some("active"),
        online: "0-15",
        offline: "",
        cores: Some((8, 8)),
        epp: [Some(0), Some(102), Some(192), Some(255)],
        active: None,
    },
    Expect {
        name: "amd-5900x-passive",
        vendor: Some("AuthenticAMD"),
        family: 25,
        model: 33,
        codename: Some("Zen 3 (Vermeer)"),
        driver: Some("amd-pstate"),
        mode: Some("passive"),
        online: "0-23",
        offline: "",
        cores: None,
        epp: [None, None, None, None],
        active: Some("balance_performance"),
    },
    Expect {
        name: "amd-2600-acpi",
        vendor: Some("AuthenticAMD"),
        family: 23,
        model: 8,
        codename: Some("Zen+ (Pinnacle Ridge)"),
        driver: Some("acpi-cpufreq"),
        mode: None,
        online: "0-11",
        offline: "",
        cores: None,
        epp: [None, None, None, None],
        active: Some("balance_performance"),
    },
    Expect {
        name: "vm-no-cpufreq",
        vendor: Some("GenuineIntel"),
        family: 6,
        model: 106,
        codename: Some("Ice Lake"),
        driver: None,
        mode: None,
        online: "0-3",
        offline: "",
        cores: None,
        epp: [None, None, None, None],
        active: None,
    },
];

fn text(v: &Value) -> Option<&str> {
    v.as_str()
}

#[test]
fn every_fixture_is_described() {
    let mut described: Vec<String> = EXPECT.iter().map(|e| e.name.to_owned()).collect();
    described.sort();
    // The real-* snapshots are described in tests/real_machines.rs.
    let generated: Vec<String> = fixture_names().into_iter().filter(|n| !n.starts_with("real-")).collect();
    assert_eq!(generated, described);
    assert!(described.len() >= 12);
}

#[test]
fn status_shows_each_machine_as_it_is() {
    for e in EXPECT {
        let s = status_json(&fixture(e.name));
        let cpu = &s["cpu"];
        let ctx = e.name;
        assert_eq!(text(&cpu["vendor"]), e.vendor, "{ctx}");
        assert_eq!(cpu["family"].as_u64(), Some(u64::from(e.family)), "{ctx}");
        assert_eq!(cpu["model"].as_u64(), Some(u64::from(e.model)), "{ctx}");
        assert_eq!(text(&cpu["codename"]), e.codename, "{ctx}");
        assert_eq!(text(&s["driver"]), e.driver, "{ctx}");
        assert_eq!(text(&s["mode"]), e.mode, "{ctx}");
        assert_eq!(text(&s["online"]), Some(e.online), "{ctx}");
        assert_eq!(text(&s["offline"]), Some(e.offline), "{ctx}");
        assert_eq!(cpu["hybrid"].as_bool(), Some(e.cores.is_some()), "{ctx}");
        let epp: Vec<Option<u64>> = s["profiles"].as_array().unwrap()[..4].iter().map(|p| p["epp"].as_u64()).collect();
        assert_eq!(epp, e.epp.to_vec(), "{ctx}");
        let ids: Vec<&str> = s["profiles"].as_array().unwrap()[..4].iter().filter_map(|p| p["id"].as_str()).collect();
        assert_eq!(ids, ["performance", "balance_performance", "balance_power", "power"], "{ctx}");
        assert_eq!(s["epp_supported"].as_bool(), Some(e.epp[0].is_some()), "{ctx}");
        assert_eq!(text(&s["active_profile"]), e.active, "{ctx}");
        assert_eq!(s["conflicts"], Value::Array(vec![]), "{ctx}");
        assert_eq!(s["problems"], Value::Array(vec![]), "{ctx}");

        // Every CPU: online map and core types.
        let cpus = s["cpus"].as_array().unwrap();
        let online: Vec<u64> = cpus.iter().filter(|c| c["online"] == true).map(|c| c["id"].as_u64().unwrap()).collect();
        let want_online: Vec<u64> = parse_cpu_list(e.online).unwrap().into_iter().map(u64::from).collect();
        assert_eq!(online, want_online, "{ctx}");
        assert_eq!(cpus.len(), want_online.len() + parse_cpu_list(e.offline).unwrap().len(), "{ctx}");
        match e.cores {
            Some((p, ecores)) => {
                let count = |t: &str| cpus.iter().filter(|c| c["core_type"] == t).count() as u64;
                assert_eq!((count("performance"), count("efficiency")), (p, ecores), "{ctx}");
                assert_eq!(cpu["performance_cores"].as_u64(), Some(p), "{ctx}");
            }
            None => assert!(cpus.iter().all(|c| c["core_type"].is_null()), "{ctx}"),
        }
        for c in cpus.iter().filter(|c| c["online"] == false) {
            assert!(c["governor"].is_null() && c["epp"].is_null(), "{ctx}: offline CPUs are not read");
        }
    }
}

#[test]
fn meteor_lake_core_types_follow_the_pmu_lists() {
    let s = status_json(&fixture("meteor-lake-155h"));
    for c in s["cpus"].as_array().unwrap() {
        let id = c["id"].as_u64().unwrap();
        let want = if id < 12 { "performance" } else { "efficiency" };
        assert_eq!(c["core_type"], want, "cpu {id}");
        // Linux 6.8 shows the name for 128; Gearshift knows what it means.
        assert_eq!(c["epp"], "balance_performance");
        assert_eq!(c["epp_value"], 128);
    }
    let balanced = &s["profiles"][1];
    assert_eq!(balanced["written_as"], "64");
    assert_eq!(balanced["kernel_epp"], 128);
    assert_eq!(balanced["governor"], "powersave");
}

#[test]
fn amd_writes_names_and_epb_machines_write_a_bias() {
    let amd = status_json(&fixture("amd-7840hs-epp"));
    assert_eq!(amd["preference_form"], "name");
    assert_eq!(amd["profiles"][2]["written_as"], "balance_power");
    let ivy = status_json(&fixture("ivy-bridge-epb"));
    assert_eq!(ivy["preference_form"], "bias");
    let written: Vec<&str> =
        ivy["profiles"].as_array().unwrap().iter().filter_map(|p| p["written_as"].as_str()).collect();
    assert_eq!(written, ["0", "4", "8", "15"]);
    let acpi = status_json(&fixture("amd-2600-acpi"));
    assert_eq!(acpi["preference_form"], "governor_only");
    let governors: Vec<&str> =
        acpi["profiles"].as_array().unwrap().iter().filter_map(|p| p["governor"].as_str()).collect();
    assert_eq!(governors, ["performance", "schedutil", "schedutil", "powersave"]);
}

/// The JSON each fixture gives is checked in under tests/expected/. After a
/// deliberate change, regenerate with GEARSHIFT_BLESS=1 and review the diff.
#[test]
fn status_json_matches_the_checked_in_output() {
    let bless = std::env::var_os("GEARSHIFT_BLESS").is_some();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expected");
    for name in fixture_names() {
        let mut actual = status_json(&fixture(&name));
        actual["gearshift_version"] = Value::String("<version>".into());
        let path = dir.join(format!("{name}.status.json"));
        let text = serde_json::to_string_pretty(&actual).unwrap() + "\n";
        if bless {
            fs::write(&path, &text).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} is missing", path.display()));
        let expected: Value = serde_json::from_str(&expected).unwrap();
        assert!(expected == actual, "{name}: status --json differs from {}", path.display());
    }
}

#[test]
fn snapshot_round_trip_on_every_fixture() {
    for name in fixture_names() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("snap");
        let run = gearshift_at(&fixture(&name), &["snapshot", out.to_str().unwrap()]);
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        assert_eq!(status_json(&out), status_json(&fixture(&name)), "{name}: the snapshot shows another machine");
    }
}

#[test]
fn snapshot_refuses_a_directory_that_is_not_empty() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("keep"), "mine").unwrap();
    let run = gearshift_at(&fixture("kaby-lake-2cpu"), &["snapshot", tmp.path().to_str().unwrap()]);
    // Bad usage (the wrong directory), so 2: issue 27, point 14, changed it from 1.
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("not empty"), "{}", stderr(&run));
    assert_eq!(fs::read_to_string(tmp.path().join("keep")).unwrap(), "mine");
}

/// The live machine: whatever it is, its snapshot reads back the same.
#[test]
fn live_snapshot_reads_back_the_same_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("live");
    let run = gearshift(&["snapshot", out.to_str().unwrap()]);
    assert!(run.status.success() || run.status.code() == Some(2), "{}", stderr(&run));
    let live = gearshift(&["status", "--json"]);
    let live: Value = serde_json::from_slice(&live.stdout).unwrap();
    let snap = status_json(&out);
    for key in ["driver", "mode", "online", "offline", "epp_supported", "preference_form"] {
        assert_eq!(live[key], snap[key], "{key}");
    }
    for key in ["vendor", "family", "model", "model_name", "codename", "hybrid"] {
        assert_eq!(live["cpu"][key], snap["cpu"][key], "cpu.{key}");
    }
    let shape = |s: &Value| -> Vec<(Value, Value, Value, Value)> {
        s["cpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["id"].clone(), c["online"].clone(), c["core_type"].clone(), c["governor"].clone()))
            .collect()
    };
    assert_eq!(shape(&live), shape(&snap));
}

#[test]
fn detect_explains_every_fixture() {
    for name in fixture_names() {
        let run = gearshift_at(&fixture(&name), &["detect"]);
        assert!(run.status.success(), "{name}: {}", stderr(&run));
        let json = gearshift_at(&fixture(&name), &["detect", "--json"]);
        let report: Value = serde_json::from_slice(&json.stdout).unwrap();
        assert!(report["findings"].as_array().unwrap().len() >= 6, "{name}");
        assert!(!report["summary"].as_str().unwrap().is_empty(), "{name}");
    }
    let mtl = stdout(&gearshift_at(&fixture("meteor-lake-155h"), &["detect"]));
    assert!(mtl.contains("Gearshift will write 64 where the kernel would use 128"), "{mtl}");
    let vm = gearshift_at(&fixture("vm-no-cpufreq"), &["detect", "--json"]);
    let vm: Value = serde_json::from_slice(&vm.stdout).unwrap();
    assert_eq!(vm["can_tune"], false);
    assert!(vm["why_not"].as_str().unwrap().contains("no cpufreq driver"));
}

#[test]
fn profile_list_and_get_read_the_snapshot() {
    let list = gearshift_at(&fixture("emerald-rapids-64"), &["profile", "list", "--json"]);
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(list[1]["id"], "balance_performance");
    assert_eq!(list[1]["epp"], 32);
    assert_eq!(list[1]["kernel_epp"], 128);
    let get = gearshift_at(&fixture("raptor-lake-13700h"), &["profile", "get"]);
    assert_eq!(stdout(&get).trim(), "balance_power");
}

#[test]
fn monitor_prints_json_lines() {
    let run = gearshift_at(&fixture("meteor-lake-155h"), &["monitor", "--count", "3", "--interval-ms", "50", "--json"]);
    assert!(run.status.success(), "{}", stderr(&run));
    let lines: Vec<Value> =
        stdout(&run).lines().map(|l| serde_json::from_str(l).expect("one JSON object a line")).collect();
    assert_eq!(lines.len(), 3);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["sample"], i as u64 + 1);
        let cpus = line["cpus"].as_array().unwrap();
        assert_eq!(cpus.len(), 22);
        assert_eq!(cpus[3]["cur_khz"], 1_511_000);
        assert_eq!(cpus[3]["epp"], "balance_performance");
        assert_eq!(cpus[3]["governor"], "powersave");
    }
    let text = gearshift_at(&fixture("kaby-lake-offline"), &["monitor", "--count", "1"]);
    assert!(stdout(&text).contains("   3:  830"), "{}", stdout(&text));
    // EPP and governor too, as the help promises: one value alone, or each
    // value with its CPUs. An EPP is a number first, with the kernel's name
    // beside it where the kernel printed one.
    assert!(stdout(&text).contains("\n  EPP: 128 (balance_performance)\n  Governor: powersave\n"), "{}", stdout(&text));
    let mixed = copy_fixture("meteor-lake-155h");
    let policy = mixed.path().join("sys/devices/system/cpu/cpufreq/policy3");
    fs::write(policy.join("energy_performance_preference"), "power\n").unwrap();
    fs::write(policy.join("scaling_governor"), "performance\n").unwrap();
    let text = gearshift_at(mixed.path(), &["monitor", "--count", "1"]);
    assert!(
        stdout(&text).contains("EPP: 128 (balance_performance) [CPU 0-2,4-21], 255 (power) [CPU 3]\n"),
        "{}",
        stdout(&text)
    );
    assert!(stdout(&text).contains("Governor: powersave [CPU 0-2,4-21], performance [CPU 3]\n"), "{}", stdout(&text));
    let vm = gearshift_at(&fixture("vm-no-cpufreq"), &["monitor", "--count", "1"]);
    assert_eq!(vm.status.code(), Some(1));
    assert!(stderr(&vm).contains("no cpufreq"));
}

#[test]
fn overrides_change_the_table_and_bad_ones_are_reported() {
    let tmp = copy_fixture("raptor-lake-13700h");
    let dir = tmp.path().join("etc/gearshift/cpu-models.d");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("raptor.toml"),
        "[[model]]\nvendor = \"intel\"\nfamily = 6\nmodel = 0xBA\ncodename = \"Raptor Lake P\"\nsource = \"measured here\"\n\
         epp = { performance = 0, balance_performance = 80, balance_power = 170, power = 255 }\n",
    )
    .unwrap();
    let good = status_json(tmp.path());
    assert_eq!(good["profiles"][1]["epp"], 80);
    assert_eq!(good["cpu"]["codename"], "Raptor Lake P");

    fs::write(dir.join("broken.toml"), "[[model]]\nvendor = \"intel\"\n").unwrap();
    let run = gearshift_at(tmp.path(), &["status", "--json"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("broken.toml"), "{}", stderr(&run));
    let shown: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(shown["profiles"][1]["epp"], 80, "the good override still applies");
}

#[test]
fn changing_commands_without_a_helper_say_so() {
    for args in [
        &["profile", "set", "balance_power"][..],
        &["epp", "set", "--cpus", "0-1", "100"],
        &["governor", "set", "powersave"],
        &["auto", "off"],
    ] {
        // No system bus at all, whatever this machine has.
        let run = gearshift_env(args, &[("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/gearshift-test-bus")]);
        assert_eq!(run.status.code(), Some(1), "{args:?}");
        assert!(stderr(&run).contains("helper cannot be asked"), "{args:?}: {}", stderr(&run));
    }
}

#[test]
fn help_teaches() {
    let help = gearshift(&["--help"]);
    assert!(help.status.success());
    let text = stdout(&help);
    for word in ["status", "detect", "profile", "epp", "governor", "auto", "monitor", "snapshot", "--root", "Examples:"]
    {
        assert!(text.contains(word), "--help lacks {word}");
    }
    let usage = gearshift(&["profile", "set"]);
    assert_eq!(usage.status.code(), Some(2));
    let unknown = gearshift(&["frobnicate"]);
    assert_eq!(unknown.status.code(), Some(2));
}

// --- bad input: a clear message on stderr, exit 2, never a panic ---

fn assert_bad_input(root: &std::path::Path, needle: &str) {
    let run = gearshift_at(root, &["status"]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "stderr lacks {needle:?}: {err}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
}

#[test]
fn a_root_that_does_not_exist() {
    assert_bad_input(std::path::Path::new("/nonexistent/snapshot"), "does not exist");
    let file = tempfile::NamedTempFile::new().unwrap();
    assert_bad_input(file.path(), "not a directory");
}

#[test]
fn files_with_garbage() {
    let tmp = copy_fixture("kaby-lake-2cpu");
    let policy = tmp.path().join("sys/devices/system/cpu/cpufreq/policy0");
    fs::write(policy.join("energy_performance_preference"), "banana\n").unwrap();
    fs::write(policy.join("scaling_governor"), [0xffu8, 0xfe, 0x00]).unwrap();
    fs::write(tmp.path().join("sys/devices/system/cpu/online"), "zero-one\n").unwrap();
    assert_bad_input(tmp.path(), "energy_performance_preference holds \"banana\"");
    assert_bad_input(tmp.path(), "scaling_governor holds binary data");
    assert_bad_input(tmp.path(), "online holds \"zero-one\"");
}

#[test]
fn a_symlink_loop() {
    let tmp = copy_fixture("kaby-lake-2cpu");
    let link = tmp.path().join("sys/devices/system/cpu/cpu1/cpufreq");
    fs::remove_file(&link).unwrap();
    symlink("cpufreq", &link).unwrap();
    assert_bad_input(tmp.path(), "loop");
}

#[test]
fn a_multi_megabyte_file() {
    let tmp = copy_fixture("kaby-lake-2cpu");
    fs::write(tmp.path().join("sys/devices/system/cpu/cpufreq/policy1/scaling_max_freq"), vec![b'9'; 3 << 20]).unwrap();
    assert_bad_input(tmp.path(), "larger than");
    fs::write(tmp.path().join("proc/cpuinfo"), vec![b'x'; 20 << 20]).unwrap();
    assert_bad_input(tmp.path(), "cpuinfo is larger than");
}

#[test]
fn a_cpufreq_link_to_nowhere() {
    let tmp = copy_fixture("kaby-lake-2cpu");
    let link = tmp.path().join("sys/devices/system/cpu/cpu1/cpufreq");
    fs::remove_file(&link).unwrap();
    symlink("../cpufreq/policy9", &link).unwrap();
    assert_bad_input(tmp.path(), "policy9, which does not exist");
    // The readable rest is still shown.
    let run = gearshift_at(tmp.path(), &["status", "--json"]);
    let shown: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(shown["cpus"][0]["governor"], "powersave");
    assert!(shown["cpus"][1]["governor"].is_null());
}

#[test]
fn garbage_everywhere_never_panics() {
    // Every file of a fixture replaced by noise, one run per kind of noise.
    for noise in [&b""[..], b"\n", b"-1\n", b"18446744073709551616\n", b"\xff\xfe", b"0-\n", b"a b c d e f\n"] {
        let tmp = copy_fixture("meteor-lake-155h");
        for entry in walk(tmp.path()) {
            fs::write(&entry, noise).unwrap();
        }
        for cmd in [&["status", "--json"][..], &["detect"], &["profile", "list"]] {
            let run = gearshift_at(tmp.path(), cmd);
            let err = stderr(&run);
            assert!(matches!(run.status.code(), Some(0) | Some(2)), "{noise:?} {cmd:?}: {err}");
            assert!(!err.contains("panicked") && !err.contains("internal error"), "{noise:?}: {err}");
        }
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            files.extend(walk(&path));
        } else if meta.is_file() {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_root_that_is_no_snapshot_is_bad_input() {
    let empty = tempfile::tempdir().unwrap();
    assert_bad_input(empty.path(), "is not a machine snapshot: it has no sys/devices/system/cpu");
    // A snapshot's own sys/ is one level too deep.
    let sys = fixture("kaby-lake-2cpu").join("sys");
    assert_bad_input(&sys, "gearshift snapshot DIR");
}

#[test]
fn a_bad_epp_is_refused_before_the_helper_is_asked() {
    let run = gearshift_env(
        &["epp", "set", "300"],
        &[("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/gearshift-test-bus")],
    );
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    assert!(stderr(&run).contains("“300” is not a value for <VALUE>. EPP goes from 0 to 255."), "{}", stderr(&run));
    assert!(!stderr(&run).contains("helper"), "{}", stderr(&run));
    // Said before a snapshot's refusal too: the value is the first mistake.
    let snapshot = gearshift_at(&fixture("meteor-lake-155h"), &["epp", "set", "300"]);
    assert_eq!(snapshot.status.code(), Some(2));
    assert!(stderr(&snapshot).contains("EPP goes from 0 to 255") && !stderr(&snapshot).contains("snapshot"));
}

#[test]
fn a_full_stdout_is_an_io_error_in_one_line() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_gearshift"))
        .args(["--root", fixture("kaby-lake-2cpu").to_str().unwrap(), "status", "--json"])
        .env_remove("GEARSHIFT_ROOT")
        .env("LC_ALL", "C.UTF-8")
        .stdout(full)
        .output()
        .unwrap();
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot write the output"), "{err}");
    assert!(!err.contains("internal error") && !err.contains("panicked"), "{err}");
}

/// What the command line says where something is wrong (issue 27, point
/// 14): no bus, a profile name that is none, a directory that is not
/// empty, a count of nothing, a snapshot asked for the helper's policy.
#[test]
fn mistakes_and_missing_parts_get_plain_words_and_the_right_exit_status() {
    let no_bus = [("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/bus")];
    let out = gearshift_env(&["profile", "set", "power"], &no_bus);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("No system bus at /nonexistent/bus: No such file or directory."), "{}", stderr(&out));
    assert!(!stderr(&out).contains("os error") && !stderr(&out).contains("Unix:path"), "{}", stderr(&out));

    // Not a profile: said so, with the built-in ones, although no helper answers.
    let out = gearshift_env(&["profile", "set", "foo"], &no_bus);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("No profile is called foo."), "{}", stderr(&out));
    assert!(stderr(&out).contains("balance_performance (Balanced)"), "{}", stderr(&out));

    let full = tempfile::tempdir().unwrap();
    fs::write(full.path().join("something"), "").unwrap();
    let out = gearshift(&["snapshot", full.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a directory that is not empty is bad usage: {}", stderr(&out));
    assert!(stderr(&out).contains("is not empty"), "{}", stderr(&out));

    let out = gearshift(&["monitor", "--count", "0"]);
    assert_eq!(out.status.code(), Some(2));
    // In the command's own words, not clap's (issue 27).
    assert!(stderr(&out).contains("“0” is not a value for --count <N>. Give 1 or more samples."), "{}", stderr(&out));
    assert!(!stderr(&out).contains("18446744073709551615"), "{}", stderr(&out));

    let out = gearshift_env(&["--root", fixture("meteor-lake-155h").to_str().unwrap(), "auto", "status"], &no_bus);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a snapshot has none"), "{}", stderr(&out));
}

/// The status explains its own words (issue 27): what the profile table's
/// columns mean, where the platform profile is written, and where two
/// profiles set the same here (a desktop's acpi-cpufreq gives Balanced and
/// Efficient the same governor).
#[test]
fn status_explains_its_terms_and_names_profiles_that_are_the_same_here() {
    let text = |name: &str| stdout(&gearshift(&["--root", fixture(name).to_str().unwrap(), "status"]));
    let desktop = text("amd-2600-acpi");
    assert!(desktop.contains("(the current settings match it) · the same here: Efficient"), "{desktop}");
    assert!(desktop.contains("Written as: what Gearshift writes to energy_performance_preference"), "{desktop}");
    let laptop = text("meteor-lake-155h");
    assert!(!laptop.contains("the same here"), "{laptop}");
    assert!(laptop.contains("set through the ACPI file /sys/firmware/acpi/platform_profile)"), "{laptop}");
    assert!(!laptop.contains("; legacy)"), "{laptop}");
    let two = text("amd-hx370-platform-class");
    assert!(two.contains("the firmware driver's amd-pmf"), "{two}");
}

/// One wording per fact: what `status` says the firmware offers is what
/// `detect` says, on every fixture (before, status named the names every
/// handler shares and detect every name any handler has: on the HX 370,
/// "balanced, performance" against "low-power, quiet, balanced,
/// performance"), and a CPU without EPP is not said to use the generic
/// EPP values.
#[test]
fn status_and_detect_say_the_same_about_the_firmware_on_every_fixture() {
    let mut compared = 0;
    for name in fixture_names() {
        let dir = fixture(&name);
        let machine = gearshift::core::machine::Machine::read(&gearshift::core::root::SysRoot::open(&dir).unwrap());
        let status = stdout(&gearshift_at(&dir, &["status"]));
        let detect = stdout(&gearshift_at(&dir, &["detect"]));
        if let Some(platform) = &machine.platform_profile {
            let offers = format!("offers {}", platform.offered());
            assert!(status.contains(&offers), "{name}: status does not say {offers:?}:\n{status}");
            assert!(detect.contains(&offers), "{name}: detect does not say {offers:?}:\n{detect}");
            compared += 1;
        }
        if !machine.epp_supported() {
            assert!(!detect.contains("uses the generic EPP values"), "{name}: {detect}");
        }
    }
    assert!(compared >= 5, "only {compared} fixtures with a platform profile");
    let hx = stdout(&gearshift_at(&fixture("amd-hx370-platform-class"), &["status"]));
    assert!(
        hx.contains("offers asus-wmi: quiet, balanced, performance / amd-pmf: low-power, balanced, performance"),
        "{hx}"
    );
}
