//! The kernels people run now (6.18 to 7.2) and the daemons beside them
//! (docs/kernels.md): the helper on a private system bus, with the real
//! dbus-daemon, polkitd and powerprofilesctl, over the kernel-faithful sysfs
//! (`tests/kernelfs/`) of machines on those kernels:
//!
//! - a Ryzen AI 300 laptop on Linux 7.1, with amd-pstate's dynamic EPP on
//!   (every EPP write EBUSY, a platform profile per CPU) and off (raw EPP
//!   numbers read back as numbers, `custom` offered, per-policy boost);
//! - a Panther Lake laptop on 6.18, Intel's "SoC Power Slider" beside
//!   asus-wmi;
//! - TLP 1.9's tlp-pd serving the power panel's names.

mod common;

use std::process::{Child, Stdio};

use common::bus::{cli, wait_for, Bus, Helper, Mock, MOCK_POLICY};
use common::{stderr, stdout};

const DYNAMIC: &str = "amd-ai300-7.1-dynamic-epp";
const PLAIN: &str = "amd-ai300-7.1";
const CPUS: std::ops::Range<u32> = 0..24;
const EPP: &str = "energy_performance_preference";
const DYNAMIC_EPP: &str = "sys/devices/system/cpu/amd_pstate/dynamic_epp";

fn started(fixture: &str) -> (Bus, Helper) {
    let bus = Bus::start();
    let mut helper = Helper::prepare(fixture);
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    (bus, helper)
}

/// CPU N's own platform profile (amd-pstate-epp-cpuN is platform-profile-N
/// on the dynamic-EPP fixture).
fn cpu_profile(cpu: u32) -> String {
    format!("sys/devices/system/cpu/cpu{cpu}/platform-profile/platform-profile-{cpu}/profile")
}

fn every(read: impl Fn(u32) -> String) -> Vec<String> {
    CPUS.map(read).collect()
}

fn ctl(bus: &Bus, args: &[&str]) -> std::process::Output {
    bus.command("powerprofilesctl").args(args).output().expect("powerprofilesctl (package power-profiles-daemon)")
}

/// Problem 1: with dynamic EPP on, every built-in profile reaches the CPUs
/// through their own platform profiles, from the desktop panel's API, the
/// helper's own API and the helper's start; nothing answers EBUSY.
#[test]
fn under_dynamic_epp_every_profile_goes_through_the_cpus_own_platform_profiles() {
    let (bus, helper) = started(DYNAMIC);
    let log = helper.log_text();
    assert!(!log.contains("EBUSY") && !log.contains("failed"), "the start applied Balanced: {log}");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let profiles = |h: &Helper| every(|cpu| h.read(&cpu_profile(cpu)).trim().to_owned());
    let epps = |h: &Helper| every(|cpu| h.policy(cpu, EPP));
    // (how, profile, each CPU's platform profile, the EPP the kernel then shows)
    let cases: [(&str, &str, &str, &str); 5] = [
        ("panel", "power-saver", "low-power", "power"),
        ("panel", "performance", "performance", "performance"),
        // On battery (the fixture's charger is out): the kernel's 128.
        ("panel", "balanced", "balanced", "balance_performance"),
        ("helper", "power", "low-power", "power"),
        ("helper", "balance_power", "balanced", "balance_performance"),
    ];
    for (how, profile, choice, epp) in cases {
        let out =
            if how == "panel" { ctl(&bus, &["set", profile]) } else { cli(&bus, None, &["profile", "set", profile]) };
        assert!(out.status.success(), "{how} {profile}: {}{}", stderr(&out), helper.log_text());
        assert_eq!(profiles(&helper), vec![choice; 24], "{how} {profile}");
        assert_eq!(epps(&helper), vec![epp; 24], "{how} {profile}");
    }
    // The firmware's two handlers are written as before, each its own best.
    cli(&bus, None, &["profile", "set", "power"]);
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-24/profile").trim(), "quiet");
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-25/profile").trim(), "low-power");
    // The charger comes: the kernel moves Balanced's CPUs to 0 by itself,
    // and Gearshift's Balanced still holds (nothing to fight).
    assert!(cli(&bus, None, &["profile", "set", "balance_performance"]).status.success());
    helper.kernel().unwrap().firmware("ac 1");
    assert_eq!(epps(&helper), vec!["performance"; 24]);
    assert_eq!(stdout(&ctl(&bus, &["get"])).trim(), "balanced");
}

/// Problem 1, the rule on values of one's own: a custom EPP (raw tuning or a
/// custom profile) is refused with the reason and the way out, and leaves
/// every file as it was; a custom profile without EPP still works.
#[test]
fn under_dynamic_epp_a_value_of_ones_own_is_refused_with_the_way_out() {
    let (bus, helper) = started(DYNAMIC);
    let before = helper.tree();
    let out = cli(&bus, None, &["epp", "set", "200"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    for words in ["dynamic EPP", "echo disabled | sudo tee /sys/devices/system/cpu/amd_pstate/dynamic_epp"] {
        assert!(err.contains(words), "{err}");
    }
    assert!(!err.contains("performance governor"), "not blamed on the governor: {err}");
    assert!(before == helper.tree(), "a refusal writes nothing");

    // A custom profile with an EPP of its own is refused as it is saved.
    let saved = bus.save_custom("[[profile]]\nid = \"own\"\nname = \"Own\"\nepp = 90\n");
    match saved {
        Err(gearshift::dbus::HelperError::Unsupported(msg)) => assert!(msg.contains("dynamic EPP"), "{msg}"),
        other => panic!("saved: {other:?}"),
    }
    assert!(before == helper.tree(), "a refusal writes nothing");
    // Without EPP: the governor and the firmware's profile, as asked.
    bus.save_custom("[[profile]]\nid = \"quiet-desk\"\nname = \"Quiet desk\"\nplatform_profile = \"balanced\"\n")
        .unwrap();
    let out = cli(&bus, None, &["profile", "set", "quiet-desk"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Problem 2: `status`, `detect` and the helper's reports say that the
/// kernel's dynamic EPP is on, what the profiles mean, and what to do.
#[test]
fn status_and_detect_say_that_dynamic_epp_is_on() {
    let (_bus, helper) = started(DYNAMIC);
    let root = helper.root.path();
    let status = common::gearshift_at(root, &["status"]);
    let text = stdout(&status);
    assert!(text.contains("Dynamic EPP       on: the kernel sets EPP itself"), "{text}");
    assert!(text.contains("0 on AC, 128 on battery"), "{text}");
    let json = common::status_json(root);
    assert_eq!(json["dynamic_epp"], true);
    assert_eq!(json["preference_form"], "kernel_dynamic");
    let detect = common::gearshift_at(root, &["detect", "--json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout(&detect)).unwrap();
    let finding = report["findings"].as_array().unwrap().iter().find(|f| f["id"] == "dynamic_epp");
    let detail = finding.expect("a dynamic_epp finding")["detail"].as_str().unwrap().to_owned();
    assert!(detail.contains("amd_dynamic_epp=disable"), "{detail}");
    // Off on the same machine: said too, and EPP is Gearshift's.
    let (_bus, plain) = started(PLAIN);
    assert!(stdout(&common::gearshift_at(plain.root.path(), &["status"])).contains("Dynamic EPP       off"));
}

/// Problem 3: the kernel's 24 per-CPU handlers are CPU controls, not
/// firmware: not listed as the firmware's, not repeated by `detect`, not
/// followed as a hotkey when they change.
#[test]
fn the_cpus_own_platform_profiles_are_not_the_firmwares() {
    let (bus, helper) = started(DYNAMIC);
    let root = helper.root.path();
    let text = stdout(&common::gearshift_at(root, &["status"]));
    assert!(!text.contains("amd-pstate-epp-cpu"), "{text}");
    assert!(text.contains("the firmware driver's asus-wmi, the firmware driver's amd-pmf"), "{text}");
    let json = common::status_json(root);
    assert_eq!(
        json["platform_profile"]["interfaces"],
        serde_json::json!(["legacy", "class:asus-wmi", "class:amd-pmf"])
    );
    assert_eq!(json["cpu_platform_profiles"]["cpus"].as_array().unwrap().len(), 24);
    let detect = stdout(&common::gearshift_at(root, &["detect"]));
    assert!(detect.matches("low-power").count() <= 3, "{detect}");
    // Someone sets one CPU's own profile: no firmware hotkey, no switch.
    cli(&bus, None, &["profile", "set", "balance_performance"]);
    std::fs::write(helper.root.path().join(cpu_profile(5)), "low-power").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(stdout(&ctl(&bus, &["get"])).trim(), "balanced");
    assert!(!helper.log_text().contains("switched the platform profile"), "{}", helper.log_text());
}

/// An EBUSY is reported with the cause the files show: dynamic EPP turned
/// on behind the helper's back is found and gone through; an EBUSY the
/// files do not explain is not blamed on the governor.
#[test]
fn an_ebusy_is_reported_with_its_real_cause() {
    let (bus, helper) = started(PLAIN);
    let policy5 = "sys/devices/system/cpu/cpufreq/policy5/energy_performance_preference";
    helper.kernel().unwrap().firmware(&format!("fail-writes {policy5} EBUSY"));
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("EBUSY") && err.contains("gave no reason the files show"), "{err}");
    assert!(!err.contains("performance governor holds"), "{err}");
    helper.kernel().unwrap().firmware("clear-faults");
    // Someone turns dynamic EPP on: the next switch goes through the CPUs'
    // own profiles instead of failing.
    std::fs::write(helper.root.path().join(DYNAMIC_EPP), "enabled").unwrap();
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert!(out.status.success(), "{}{}", stderr(&out), helper.log_text());
    assert_eq!(every(|cpu| helper.policy(cpu, EPP)), vec!["power"; 24]);
}

/// amd-pstate 7.1 shows "128" after someone wrote the number: that is
/// balance_performance, not a change behind Gearshift's back.
#[test]
fn a_raw_128_is_balance_performance_not_a_drift() {
    let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
    let _logind = Mock::start(&bus, "logind", "org.freedesktop.login1");
    let mut helper = Helper::prepare(PLAIN);
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    assert!(cli(&bus, None, &["profile", "set", "balance_performance"]).status.success());
    for cpu in CPUS {
        std::fs::write(helper.kernel().unwrap().policy(cpu, EPP), "128").unwrap();
    }
    assert_eq!(helper.policy(0, EPP), "128");
    bus.emit_resume();
    wait_for(|| helper.log_text().contains("after resume"), "the helper's log of the resume");
    let log = helper.log_text();
    assert!(!log.contains("changed outside Gearshift"), "{log}");
    let json = common::status_json(helper.root.path());
    assert_eq!(json["active_profile"], "balance_performance", "the settings still match Balanced");
    // `custom` is offered by the kernel, but is no value to offer.
    let offered = json["cpus"][0]["available_preferences"].to_string();
    assert!(!offered.contains("custom"), "{offered}");
}

/// Boost that refuses a write does not fail Power Saver: AMD's rule
/// (boost off) is best-effort, and the summary says what was left. Per
/// policy (6.11+, where the machine has no global switch) and globally
/// (which the kernel passes to every policy, and fails if one refuses).
#[test]
fn a_refused_boost_leaves_boost_and_the_switch_goes_on() {
    let bus = Bus::start();
    let mut helper = Helper::prepare(PLAIN);
    std::fs::remove_file(helper.root.path().join("sys/devices/system/cpu/cpufreq/boost")).unwrap();
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    let boost = |policy: u32| helper.read(&format!("sys/devices/system/cpu/cpufreq/policy{policy}/boost"));
    assert_eq!(boost(3).trim(), "1");
    helper.kernel().unwrap().firmware("fail-writes sys/devices/system/cpu/cpufreq/policy3/boost EINVAL");
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(every(|cpu| helper.policy(cpu, EPP)), vec!["power"; 24]);
    assert_eq!(boost(3).trim(), "1", "left as it was");
    assert_eq!(boost(4).trim(), "0", "the others are off");
    let said = stdout(&out);
    assert!(
        said.contains("The kernel refused these, which were left as they were: boost for CPU 3 (EINVAL)."),
        "{said}"
    );

    let (bus, helper) = started(PLAIN);
    helper.kernel().unwrap().firmware("fail-writes sys/devices/system/cpu/cpufreq/boost EINVAL");
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(every(|cpu| helper.policy(cpu, EPP)), vec!["power"; 24]);
    assert!(stdout(&out).contains("cpufreq/boost for CPU 0-23 (EINVAL)"), "{}", stdout(&out));
}

/// Problem 5 and the 6.14-6.19 platform profile: Intel's "SoC Power Slider"
/// keeps its name, each handler gets its own best choice, and the legacy
/// file's `custom` reads as "the handlers differ"; `max-power` is never
/// Performance's.
#[test]
fn the_soc_power_slider_keeps_its_name_and_gets_its_own_choice() {
    let (bus, helper) = started("panther-lake-asus");
    let text = stdout(&common::gearshift_at(helper.root.path(), &["status"]));
    assert!(text.contains("the firmware driver's SoC Power Slider"), "{text}");
    assert!(!text.contains("platform-profile-1"), "{text}");
    assert!(cli(&bus, None, &["profile", "set", "power"]).status.success());
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-0/profile").trim(), "quiet");
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-1/profile").trim(), "low-power");
    assert_eq!(helper.read("sys/firmware/acpi/platform_profile").trim(), "custom");
    let text = stdout(&common::gearshift_at(helper.root.path(), &["status"]));
    assert!(text.contains("Platform profile  the handlers differ"), "{text}");

    let (bus, helper) = started(PLAIN);
    helper
        .kernel()
        .unwrap()
        .firmware("load-platform-profile class alienware-wmi low-power,balanced,performance,max-power balanced");
    wait_for(|| helper.log_text().contains("alienware-wmi"), "the late handler");
    assert!(cli(&bus, None, &["profile", "set", "performance"]).status.success());
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-2/profile").trim(), "performance");
    // Asked for by name in a custom profile: max-power where a handler has
    // it, the others their performance.
    bus.save_custom("[[profile]]\nid = \"flat-out\"\nname = \"Flat out\"\nplatform_profile = \"max-power\"\n").unwrap();
    let out = cli(&bus, None, &["profile", "set", "flat-out"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-2/profile").trim(), "max-power");
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-0/profile").trim(), "performance");
    assert_eq!(helper.read("sys/class/platform-profile/platform-profile-1/profile").trim(), "performance");
}

/// A program named for the test: its process name (`comm`) is the file's.
fn named_process(bus: &Bus, name: &str, script: &str) -> (tempfile::TempDir, Child) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let child = bus.command(&path).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    (dir, child)
}

/// A daemon that serves the power panel's names, as far as the bus sees it:
/// a process (named as its file) that owns both names.
const PANEL_NAMES_OWNER: &str = r#"#!/usr/bin/python3
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
names = [dbus.service.BusName(n, bus) for n in ("org.freedesktop.UPower.PowerProfiles", "net.hadess.PowerProfiles")]
GLib.MainLoop().run()
"#;

/// Problem 4: whoever owns the power panel's names is asked of the bus and
/// named as itself: tlp-pd, tuned-ppd, system76-power and
/// power-profiles-daemon, each with its family's id and its own advice
/// (for tlp-pd TLP's, not power-profiles-daemon's).
#[test]
fn the_owner_of_the_panel_names_is_named_with_its_own_advice() {
    let cases = [
        ("tlp-pd", "tlp", "tlp-pd", "sudo systemctl disable --now tlp-pd.service"),
        ("tuned-ppd", "tuned", "tuned-ppd", "sudo systemctl disable --now tuned-ppd.service tuned.service"),
        ("system76-power", "system76-power", "system76-power", "com.system76.PowerDaemon.service"),
        // The kernel cuts process names to 15 characters: "power-profiles-".
        (
            "power-profiles-daemon",
            "power-profiles-daemon",
            "power-profiles-daemon",
            "sudo systemctl mask --now power-profiles-daemon.service",
        ),
    ];
    for (file, id, program, advice) in cases {
        let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
        let (_dir, mut owner) = named_process(&bus, file, PANEL_NAMES_OWNER);
        bus.wait_for_name("net.hadess.PowerProfiles");
        let mut helper = Helper::prepare("alder-lake-1260p");
        helper.on_kernel_emulator();
        helper.spawn(&bus);
        let (ids, programs) = conflicts(&bus);
        assert_eq!(ids, [id], "{file}");
        assert_eq!(programs, [program], "{file}");
        // The command line asks the bus too, and gives the program's advice.
        let text = stdout(&cli(&bus, None, &["status"]));
        let line = format!("{program} also manages power here. To resolve: ");
        assert!(text.contains(&line) && text.contains(advice), "{file}: {text}");
        if program != "power-profiles-daemon" {
            assert!(!text.contains("mask --now power-profiles-daemon"), "{file}: {text}");
        }
        let json: serde_json::Value = serde_json::from_str(&stdout(&cli(&bus, None, &["status", "--json"]))).unwrap();
        assert_eq!(json["conflicts"], serde_json::json!([id]), "{file}");
        assert!(json["conflict_programs"].as_array().unwrap().iter().any(|p| p == program), "{file}");
        let _ = owner.kill();
        let _ = owner.wait();
    }
}

/// tlp-pd found by its process and its units, as the snapshot of such a
/// machine shows them (no bus): both TLP programs, each with its advice.
#[test]
fn tlp_pd_by_process_and_unit_is_named_too() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("tlp-pd-laptop");
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    let (ids, mut programs) = conflicts(&bus);
    assert_eq!(ids, ["tlp"]);
    programs.sort();
    assert_eq!(programs, ["tlp", "tlp-pd"]);
}

/// The helper's `Conflicts` (ids) and `ConflictPrograms`.
fn conflicts(bus: &Bus) -> (Vec<String>, Vec<String>) {
    let (runtime, connection) = bus.connect();
    runtime.block_on(async {
        let proxy = gearshift::dbus::Helper1Proxy::new(&connection).await.unwrap();
        (proxy.conflicts().await.unwrap(), proxy.conflict_programs().await.unwrap())
    })
}
