//! AMD's own choices for power-profiles-daemon (0.22) and HP's `cool`, as
//! Gearshift follows them (docs/interfaces.md, "Profiles"; docs/dbus-api.md,
//! "The firmware's platform profile"): the helper on a private system bus
//! over the kernel-faithful sysfs (`tests/kernelfs/`), where amd-pstate-epp
//! refuses any EPP but `performance` under the performance governor (EBUSY)
//! and takes names only, so a helper that writes in the wrong order or a
//! number fails here as on a real machine.

mod common;

use common::bus::{cli, Bus, Helper};
use common::stderr;

const BOOST: &str = "sys/devices/system/cpu/cpufreq/boost";
const LEGACY: &str = "sys/firmware/acpi/platform_profile";

fn started(fixture: &str, prepare: impl FnOnce(&Helper)) -> (Bus, Helper) {
    let bus = Bus::start();
    let mut helper = Helper::prepare(fixture);
    prepare(&helper);
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    (bus, helper)
}

fn set(bus: &Bus, profile: &str) {
    let out = cli(bus, None, &["profile", "set", profile]);
    assert!(out.status.success(), "{profile}: {}", stderr(&out));
}

/// What every policy of the 7840HS (16, one CPU each) shows for `attr`.
fn every(helper: &Helper, attr: &str) -> Vec<String> {
    (0..16).map(|cpu| helper.policy(cpu, attr)).collect()
}

#[test]
fn amd_pstate_epp_gets_amds_governor_boost_and_lowest_frequency_per_profile() {
    let (bus, helper) = started("amd-7840hs-epp", |_| {});
    let boost = || helper.read(BOOST).trim().to_owned();
    // (profile, governor, EPP, scaling_min_freq, boost)
    let cases = [
        // The performance governor, where amd-pstate-epp holds EPP at performance.
        ("performance", "performance", "performance", "1630000", "1"),
        // Boost off, the hardware's lowest frequency allowed.
        ("power", "powersave", "power", "400000", "0"),
        // The lowest non-linear frequency (the driver's own default), boost back on.
        ("balance_performance", "powersave", "balance_performance", "1630000", "1"),
        ("balance_power", "powersave", "balance_power", "1630000", "1"),
    ];
    for (profile, governor, epp, min, on) in cases {
        set(&bus, profile);
        assert_eq!(every(&helper, "scaling_governor"), vec![governor; 16], "{profile}");
        assert_eq!(every(&helper, "energy_performance_preference"), vec![epp; 16], "{profile}");
        assert_eq!(every(&helper, "scaling_min_freq"), vec![min; 16], "{profile}");
        assert_eq!(boost(), on, "{profile}: boost");
    }
    assert!(!helper.log_text().contains("cannot write"), "{}", helper.log_text());
}

#[test]
fn amd_pstate_outside_active_mode_gets_no_epp() {
    let (bus, helper) = started("amd-5900x-passive", |_| {});
    for profile in ["power", "performance", "balance_performance"] {
        set(&bus, profile);
    }
    let epp = helper.root.path().join("sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference");
    assert!(!epp.exists(), "passive mode has no EPP file, and none was made");
    let log = helper.log_text();
    assert!(!log.contains("energy_performance_preference"), "{log}");
}

#[test]
fn hps_cool_counts_as_balanced_and_is_not_written_at_start() {
    let (bus, helper) = started("meteor-lake-155h", |helper| {
        let dir = helper.root.path().join("sys/firmware/acpi");
        std::fs::write(dir.join("platform_profile_choices"), "cool quiet balanced performance\n").unwrap();
        std::fs::write(dir.join(LEGACY.rsplit('/').next().unwrap()), "cool\n").unwrap();
    });
    // Balanced at the first start: the firmware's cool is a balanced
    // choice someone made (HP's hotkey), and stays.
    assert_eq!(helper.read(LEGACY).trim(), "cool");
    set(&bus, "performance");
    assert_eq!(helper.read(LEGACY).trim(), "performance");
    set(&bus, "balance_performance");
    assert_eq!(helper.read(LEGACY).trim(), "balanced", "a switch to Balanced asks for balanced itself");
}

/// `profile save --epp` takes a name or a number; where the kernel takes
/// names only (amd-pstate before 7.1) a number without a name is refused
/// with what this machine does take, and a name or its number is saved;
/// on 7.1 any number is (issue 42, item 3).
#[test]
fn profile_save_takes_an_epp_name_or_a_number_the_kernel_takes() {
    let (bus, helper) = started("amd-7840hs-epp", |_| {});
    // The command checks what the machine takes against the helper's root.
    let save = |bus: &Bus, helper: &Helper, args: &[&str]| {
        let root = helper.root.path().to_str().unwrap().to_owned();
        cli(bus, None, &[&["--root", root.as_str(), "profile", "save"], args].concat())
    };
    // Checked before the helper is asked, as input this machine cannot take.
    let out = save(&bus, &helper, &["Cool", "--epp", "220"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("performance, balance_performance, balance_power or power, or their numbers 0, 128, 191 or 255"),
        "{err}"
    );
    for (name, epp) in [("Cool", "power"), ("Calm", "191")] {
        let out = save(&bus, &helper, &[name, "--epp", epp]);
        assert!(out.status.success(), "{epp}: {}", stderr(&out));
    }
    let out = save(&bus, &helper, &["Odd", "--epp", "fast"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("Give a number from 0 to 255, or performance, balance_performance"),
        "{}",
        stderr(&out)
    );

    let (bus, helper) = started("amd-ai300-7.1", |_| {});
    let out = save(&bus, &helper, &["Cool", "--epp", "220"]);
    assert!(out.status.success(), "7.1 takes numbers: {}", stderr(&out));
}
