//! "Use the kernel's own values" (docs/dbus-api.md, "The kernel's own values"): the helper on a
//! private system bus over the kernel-faithful sysfs (`tests/kernelfs/`) of
//! a Panther Lake laptop with two platform profile handlers, booted with
//! values of its own (an EPP, a frequency floor and quiet platform
//! profiles that are not Gearshift's Balanced). Handing back writes
//! `default` to EPP (the kernel restores its boot value), puts back what
//! the helper found at boot, stops following resume, power changes and the
//! firmware's hotkey, and a profile chosen again resumes management.

mod common;

use common::bus::{cli, Bus, Helper, Mock, MOCK_POLICY};
use common::{stderr, stdout};

const FIXTURE: &str = "panther-lake-asus";
const EPP: &str = "energy_performance_preference";
const ASUS: &str = "sys/class/platform-profile/platform-profile-0/profile";
const SOC: &str = "sys/class/platform-profile/platform-profile-1/profile";

fn put(helper: &Helper, rel: &str, text: &str) {
    std::fs::write(helper.root.path().join(rel), text).unwrap();
}

/// The helper on the emulator, over a machine booted with its own values,
/// with logind and UPower (on AC) beside it.
fn booted() -> (Bus, Helper, Vec<Mock>) {
    let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
    let mocks = vec![
        Mock::start(&bus, "upower", "org.freedesktop.UPower"),
        Mock::start(&bus, "logind", "org.freedesktop.login1"),
    ];
    let mut helper = Helper::prepare(FIXTURE);
    put(&helper, "sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference", "balance_power\n");
    put(&helper, "sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq", "1000000\n");
    put(&helper, ASUS, "quiet\n");
    put(&helper, SOC, "low-power\n");
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    (bus, helper, mocks)
}

fn read(helper: &Helper, rel: &str) -> String {
    helper.read(rel).trim().to_owned()
}

fn profile(bus: &Bus) -> String {
    stdout(&cli(bus, None, &["profile", "get"])).trim().to_owned()
}

#[test]
fn handing_back_restores_the_boot_values_and_stops_managing_until_a_profile_is_chosen() {
    let (bus, helper, _mocks) = booted();
    // At start the helper applied Balanced over the boot values.
    assert_eq!((read(&helper, ASUS), read(&helper, SOC)), ("balanced".into(), "balanced".into()));
    assert!(cli(&bus, None, &["profile", "set", "performance"]).status.success());
    assert_eq!(helper.policy(0, EPP), "performance");

    let out = cli(&bus, None, &["profile", "set", "kernel"]);
    assert!(out.status.success(), "{}{}", stderr(&out), helper.log_text());
    let said = stdout(&out);
    assert!(said.contains("The kernel's own values are back"), "{said}");
    assert!(said.contains("until you choose one again"), "{said}");
    // EPP: the kernel's own boot value, on the CPU booted with another too.
    assert_eq!(helper.policy(0, EPP), "balance_power");
    assert_eq!(helper.policy(2, EPP), "balance_performance");
    assert_eq!(helper.policy(0, "scaling_min_freq"), "1000000");
    assert_eq!(helper.policy(0, "scaling_governor"), "powersave");
    // The firmware's platform profiles as they were at boot.
    assert_eq!((read(&helper, ASUS), read(&helper, SOC)), ("quiet".into(), "low-power".into()));
    assert_eq!(profile(&bus), "kernel");
    let root = helper.root.path().to_str().unwrap().to_owned();
    let status: serde_json::Value =
        serde_json::from_slice(&cli(&bus, None, &["--root", &root, "status", "--json"]).stdout).unwrap();
    assert_eq!(status["active_profile"], "kernel", "{}", status["active_profile"]);
    let text = stdout(&cli(&bus, None, &["--root", &root, "status"]));
    assert!(
        text.contains("kernel (the kernel's own values: Gearshift applies no profile until you choose one)"),
        "{text}"
    );
    // The desktop's panel shows Balanced: it has no name for this.
    let ctl = bus.command("powerprofilesctl").arg("get").output().unwrap();
    assert_eq!(stdout(&ctl).trim(), "balanced");

    // Resume, a power source change and the firmware's hotkey: nothing is
    // written back, the hotkey's choice stays.
    let kernel = helper.kernel().expect("the emulator serves the root");
    kernel.firmware("firmware-epp 200 4");
    kernel.firmware("platform-profile performance");
    bus.emit_resume();
    helper.wait_handled("resumed", 1);
    bus.set_on_battery(true);
    helper.wait_handled("power source: on battery true", 1);
    assert_eq!(helper.policy(4, EPP), "200", "{}", helper.log_text());
    assert_eq!((read(&helper, ASUS), read(&helper, SOC)), ("performance".into(), "performance".into()));
    assert_eq!(profile(&bus), "kernel");

    // A profile chosen again: Gearshift manages the CPU again.
    assert!(cli(&bus, None, &["profile", "set", "power"]).status.success());
    assert_eq!(helper.policy(4, EPP), "power");
    assert_eq!((read(&helper, ASUS), read(&helper, SOC)), ("quiet".into(), "low-power".into()));
    assert_eq!(profile(&bus), "power");
    // And it follows the hotkey again.
    kernel.firmware("platform-profile performance");
    common::bus::wait_for(|| profile(&bus) == "performance", "the hotkey followed");
}

/// A restarted helper (every upgrade) keeps the record of this boot: it
/// does not take the values it wrote itself for the kernel's.
#[test]
fn a_restarted_helper_hands_back_the_boot_values_not_its_own() {
    let (bus, mut helper, _mocks) = booted();
    assert!(cli(&bus, None, &["profile", "set", "power"]).status.success());
    helper.stop();
    helper.spawn(&bus);
    let out = cli(&bus, None, &["profile", "set", "kernel"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(helper.policy(0, EPP), "balance_power");
    assert_eq!(helper.policy(0, "scaling_min_freq"), "1000000");
    assert_eq!((read(&helper, ASUS), read(&helper, SOC)), ("quiet".into(), "low-power".into()));
    // And across that restart, the hand-back stays: nothing re-applied.
    helper.stop();
    helper.spawn(&bus);
    assert_eq!(profile(&bus), "kernel");
    assert_eq!(read(&helper, ASUS), "quiet", "{}", helper.log_text());
}
