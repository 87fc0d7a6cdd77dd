//! What real machines do behind the helper's back, and what the helper must
//! do about it: the helper on a private system bus, over the kernel-faithful
//! sysfs (`tests/kernelfs/`), with firmware simulated through the emulator's
//! control file (docs/testing.md, "The kernel-faithful sysfs").
//!
//! Each test fails on a helper that treats sysfs as plain files: one that
//! writes only what differs after resume, ignores power-source changes while
//! automatic switching is off, keeps using the files of policies a driver
//! mode change replaced, or writes EPP before the governor.

mod common;

use std::time::Duration;

use common::bus::{wait_for, Bus, Helper, Mock, MOCK_POLICY};
use common::kernelfs::KernelFs;
use futures_util::StreamExt;
use gearshift::dbus::{Helper1Proxy, HelperError, OutsideChange};

/// Meteor Lake-H: 22 CPUs, one policy each.
const CPUS: std::ops::Range<u32> = 0..22;

fn cpus() -> std::ops::Range<u32> {
    CPUS
}

/// Linux 6.11+ on Meteor Lake: the model's own names.
const MTL_611: &str =
    r#"{"epp_names": {"performance": 0, "balance_performance": 64, "balance_power": 179, "power": 255}}"#;

/// The helper on a fresh copy of `fixture`, served by the emulator.
struct Machine {
    bus: Bus,
    helper: Helper,
    kernel: Option<KernelFs>,
    _mocks: Vec<Mock>,
}

impl Machine {
    fn start(fixture: &str, table: Option<&str>, mocks: &[(&str, &str)]) -> Machine {
        let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
        let mocks = mocks.iter().map(|(template, name)| Mock::start(&bus, template, name)).collect();
        let mut helper = Helper::prepare(fixture);
        if table.is_some() {
            // The kernel that knows the model's names is 6.11 or later.
            std::fs::write(helper.root.path().join("proc/sys/kernel/osrelease"), "6.11.0-gearshift\n").unwrap();
        }
        let kernel = KernelFs::serve_in_place(helper.root.path(), table);
        helper.spawn(&bus);
        Machine { bus, helper, kernel: Some(kernel), _mocks: mocks }
    }

    fn kernel(&self) -> &KernelFs {
        self.kernel.as_ref().unwrap()
    }

    fn shown(&self, attr: &str) -> Vec<String> {
        cpus().map(|p| std::fs::read_to_string(self.kernel().policy(p, attr)).unwrap().trim().to_owned()).collect()
    }

    fn wait_shown(&self, attr: &str, want: &str, what: &str) {
        wait_for(|| self.shown(attr).iter().all(|v| v == want), what);
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        // The helper keeps files of the mount open: stop it first.
        self.helper.stop();
        self.kernel.take();
    }
}

/// The next `ChangedOutside` within 20 s.
fn next_outside(
    runtime: &tokio::runtime::Runtime,
    stream: &mut gearshift::dbus::proxy::ChangedOutsideStream,
) -> OutsideChange {
    runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(20), stream.next()).await })
        .expect("a ChangedOutside signal")
        .expect("the signal stream")
        .args()
        .unwrap()
        .change
}

#[test]
fn resume_writes_every_value_again_although_sysfs_still_shows_it() {
    let machine = Machine::start("meteor-lake-155h", None, &[("logind", "org.freedesktop.login1")]);
    let (runtime, connection) = machine.bus.connect();
    // Proxies and signal streams clean up in the runtime when dropped.
    let _in_runtime = runtime.enter();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let mut outside = runtime.block_on(proxy.receive_changed_outside()).unwrap();
    runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    let kernel = machine.kernel();
    assert!(cpus().all(|p| kernel.hardware_epp(p) == Some(179)));

    // Suspend to RAM: the hardware of every CPU but the boot CPU falls back
    // to 0x80, while sysfs keeps showing the value last written.
    kernel.firmware("resume");
    assert_eq!(kernel.hardware_epp(1), Some(128));
    assert_eq!(machine.shown("energy_performance_preference"), vec!["179"; 22]);
    machine.bus.emit_resume();
    wait_for(|| cpus().all(|p| kernel.hardware_epp(p) == Some(179)), "the hardware EPP written again after resume");
    wait_for(|| machine.helper.log_text().contains("after resume"), "the helper's log of the resume");
    assert!(!machine.helper.log_text().contains("changed outside"), "{}", machine.helper.log_text());

    // What the files visibly lost is reported, once set back.
    kernel.firmware("firmware-epp 200 2 3");
    kernel.firmware("resume");
    machine.bus.emit_resume();
    let change = next_outside(&runtime, &mut outside);
    assert_eq!(change.occasion, "resume");
    let found: Vec<(String, Vec<u32>, String, String)> = vec![
        ("energy_performance_preference".into(), vec![2], "200".into(), "179".into()),
        ("energy_performance_preference".into(), vec![3], "200".into(), "179".into()),
    ];
    assert_eq!(change.values, found);
    wait_for(|| cpus().all(|p| kernel.hardware_epp(p) == Some(179)), "every CPU back at 179");
    let log = machine.helper.log_text();
    assert!(log.contains("changed outside Gearshift (resume)"), "{log}");
}

#[test]
fn a_power_source_change_sets_back_what_firmware_changed_with_automatic_switching_off() {
    let machine = Machine::start("meteor-lake-155h", Some(MTL_611), &[("upower", "org.freedesktop.UPower")]);
    let (runtime, connection) = machine.bus.connect();
    // Proxies and signal streams clean up in the runtime when dropped.
    let _in_runtime = runtime.enter();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let mut outside = runtime.block_on(proxy.receive_changed_outside()).unwrap();
    runtime.block_on(proxy.set_profile("balance_performance")).unwrap();
    // A 6.11 kernel shows Meteor Lake's 64 by its name.
    machine.wait_shown("energy_performance_preference", "balance_performance", "the balanced profile");
    assert!(!runtime.block_on(proxy.auto_policy()).unwrap().enabled);

    // Plugged in: the firmware sets its own EPP (seen: 179 -> 115).
    machine.kernel().firmware("firmware-epp 115");
    machine.bus.set_on_battery(true);
    let change = next_outside(&runtime, &mut outside);
    assert_eq!(change.occasion, "battery");
    assert_eq!(change.values.len(), 22, "{change:?}");
    for (attr, _cpus, found, restored) in &change.values {
        // What drifted from the profile in effect (Balanced on AC power).
        assert_eq!((attr.as_str(), found.as_str(), restored.as_str()), ("energy_performance_preference", "115", "64"));
    }
    // Balanced on battery, with battery awareness on (the default): the
    // Efficient profile's 179, which the emulated kernel shows by its name.
    machine.wait_shown("energy_performance_preference", "balance_power", "the profile set back");
    assert_eq!(runtime.block_on(proxy.active_profile()).unwrap(), "balance_performance");
    let log = machine.helper.log_text();
    assert!(log.contains("changed outside Gearshift (battery)"), "{log}");

    // Nothing drifted: no news, nothing written.
    let seen = machine.helper.handled("power source: on battery false");
    machine.bus.set_on_battery(false);
    // Once the helper handled the change, any news of it went out before.
    machine.helper.wait_handled("power source: on battery false", seen + 1);
    let quiet = runtime.block_on(async { tokio::time::timeout(Duration::from_millis(500), outside.next()).await });
    assert!(quiet.is_err(), "a ChangedOutside without a change");
}

#[test]
fn a_driver_mode_round_trip_is_noticed_and_the_profile_restored() {
    let machine = Machine::start("meteor-lake-155h", None, &[("upower", "org.freedesktop.UPower")]);
    // The helper asks UPower for the power source once it runs; a busy
    // machine may answer only after the round trip below began, and the
    // helper would then act between its two halves. The test is about a
    // round trip nobody saw: it begins once the answer was taken.
    machine.helper.wait_handled("power source asked", 1);
    let (runtime, connection) = machine.bus.connect();
    // Proxies and signal streams clean up in the runtime when dropped.
    let _in_runtime = runtime.enter();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let mut outside = runtime.block_on(proxy.receive_changed_outside()).unwrap();
    runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    let kernel = machine.kernel();

    // Someone switches intel_pstate to passive and back: every policy is
    // created afresh, and the EPP written is lost.
    kernel.firmware("mode passive");
    kernel.firmware("mode active");
    assert_eq!(machine.shown("energy_performance_preference"), vec!["balance_performance"; 22]);
    // The kernel tells nobody; the helper notices at the next event.
    machine.bus.set_on_battery(true);
    let change = next_outside(&runtime, &mut outside);
    assert_eq!(change.occasion, "driver-mode");
    machine.wait_shown("energy_performance_preference", "179", "the profile after the round trip");

    // A request after a round trip works on the new policies (the files the
    // helper kept open answer ENODEV now).
    kernel.firmware("mode passive");
    kernel.firmware("mode active");
    let summary = runtime.block_on(proxy.set_profile("power")).expect("a switch after a mode round trip");
    assert_eq!(summary.cpus.len(), 22);
    machine.wait_shown("energy_performance_preference", "power", "the new profile");
    runtime.block_on(proxy.set_epp(&[4], 100)).expect("raw tuning after a mode round trip");
    assert_eq!(std::fs::read_to_string(kernel.policy(4, "energy_performance_preference")).unwrap(), "100\n");
}

#[test]
fn leaving_the_performance_governor_writes_the_governor_first() {
    let machine = Machine::start("meteor-lake-155h", None, &[]);
    let (runtime, connection) = machine.bus.connect();
    // Proxies and signal streams clean up in the runtime when dropped.
    let _in_runtime = runtime.enter();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    runtime.block_on(proxy.set_governor(&[], "performance")).unwrap();
    machine.wait_shown("energy_performance_preference", "performance", "EPP held at 0 by the governor");
    // EPP before the governor would answer EBUSY on every CPU.
    runtime.block_on(proxy.set_profile("balance_power")).expect("powersave first, then EPP");
    assert_eq!(machine.shown("scaling_governor"), vec!["powersave"; 22]);
    assert_eq!(machine.shown("energy_performance_preference"), vec!["179"; 22]);

    // A custom profile that asks the impossible is refused before a write.
    let before = (machine.shown("scaling_governor"), machine.shown("energy_performance_preference"));
    let toml = "[[profile]]\nid = \"locked\"\nname = \"Locked\"\nepp = 100\ngovernor = \"performance\"\n";
    match runtime.block_on(proxy.save_custom_profile(&common::bus::wire(toml))) {
        Err(HelperError::Unsupported(text)) => assert!(text.contains("performance governor"), "{text}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!((machine.shown("scaling_governor"), machine.shown("energy_performance_preference")), before);
}

#[test]
fn a_refusal_of_the_kernel_is_named_by_its_errno_and_undone() {
    let machine = Machine::start("meteor-lake-155h", None, &[]);
    let (runtime, connection) = machine.bus.connect();
    // Proxies and signal streams clean up in the runtime when dropped.
    let _in_runtime = runtime.enter();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    // CPU 7 goes offline with no event the helper hears: its policy answers
    // EBUSY, half way through a switch.
    machine.kernel().firmware("offline 7");
    let before: Vec<String> = cpus()
        .filter(|p| *p != 7)
        .map(|p| std::fs::read_to_string(machine.kernel().policy(p, "energy_performance_preference")).unwrap())
        .collect();
    match runtime.block_on(proxy.set_profile("power")) {
        // The write's EBUSY travels as a cause the client explains: the
        // governor's file of a CPU gone offline.
        Err(HelperError::Caused(gearshift::dbus::error::Cause::CpuOffline, failed)) => {
            let HelperError::WriteFailed(text) = *failed else { panic!("expected WriteFailed, got {failed:?}") };
            assert!(text.contains("CPU 7") && text.contains("(EBUSY)"), "{text}");
            assert!(text.contains("the 1 earlier change of this request was undone"), "{text}");
        }
        other => panic!("expected WriteFailed, got {other:?}"),
    }
    let after: Vec<String> = cpus()
        .filter(|p| *p != 7)
        .map(|p| std::fs::read_to_string(machine.kernel().policy(p, "energy_performance_preference")).unwrap())
        .collect();
    assert_eq!(after, before, "the other CPUs were given back what they had");
    assert_eq!(runtime.block_on(proxy.active_profile()).unwrap(), "balance_power");
}

/// Real machines, exactly as their owners showed them (tests/fixtures/real-*:
/// trailing spaces, one policy where the report showed one, no online
/// files): the helper switches each on the emulator, and the kernel shows
/// what it should.
#[test]
fn the_helper_switches_real_machines() {
    let machines = [
        ("real-intel-latitude-7390-clint", 8),
        ("real-intel-skx-i9-lab", 1),
        ("real-intel-kf-m2g5-passive", 1),
        ("real-amd-5950x-rene", 1),
        ("real-amd-ja4e-tlp764", 1),
    ];
    for (fixture, policies) in machines {
        let bus = Bus::start();
        let mut helper = Helper::prepare(fixture);
        let kernel = KernelFs::serve_in_place(helper.root.path(), None);
        helper.spawn(&bus);
        let shown = |policy: u32| {
            std::fs::read_to_string(kernel.policy(policy, "energy_performance_preference")).unwrap().trim().to_owned()
        };
        {
            let (runtime, connection) = bus.connect();
            let _in_runtime = runtime.enter();
            let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
            for (profile, want) in
                [("power", "power"), ("balance_power", "balance_power"), ("performance", "performance")]
            {
                let summary = runtime
                    .block_on(proxy.set_profile(profile))
                    .unwrap_or_else(|e| panic!("{fixture}: {profile}: {e:?}\n{}", helper.log_text()));
                assert_eq!(summary.cpus.len(), policies, "{fixture}: {summary:?}");
                for policy in 0..policies as u32 {
                    assert_eq!(shown(policy), want, "{fixture}: {profile} on policy {policy}");
                }
            }
        }
        helper.stop();
        drop(kernel);
    }
}

#[test]
fn switching_the_driver_mode_applies_the_profile_again_in_each_mode() {
    let machine = Machine::start("meteor-lake-155h", None, &[]);
    let (runtime, connection) = machine.bus.connect();
    // Proxies and signal streams clean up in the runtime when dropped.
    let _in_runtime = runtime.enter();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    let kernel = machine.kernel();
    let status =
        || std::fs::read_to_string(machine.helper.root.path().join("sys/devices/system/cpu/intel_pstate/status"));

    // Passive: intel_cpufreq, fresh policies; the model's EPP is written again.
    let summary = runtime.block_on(proxy.set_driver_mode("passive")).expect("active -> passive");
    assert!(summary.summary.contains("driver mode passive (was active)"), "{}", summary.summary);
    assert_eq!(status().unwrap(), "passive\n");
    assert_eq!(machine.shown("scaling_driver"), vec!["intel_cpufreq"; 22]);
    assert_eq!(machine.shown("energy_performance_preference"), vec!["179"; 22]);
    // And back: the kernel lost the EPP on the way; the helper sets it again.
    runtime.block_on(proxy.set_driver_mode("active")).expect("passive -> active");
    assert_eq!(machine.shown("scaling_driver"), vec!["intel_pstate"; 22]);
    assert_eq!(machine.shown("energy_performance_preference"), vec!["179"; 22]);
    assert_eq!(machine.shown("scaling_governor"), vec!["powersave"; 22]);

    // What intel_pstate does not take is refused before any write.
    let hardware = std::fs::read_to_string(kernel.path("kernelfs/hardware")).unwrap();
    match runtime.block_on(proxy.set_driver_mode("guided")) {
        Err(HelperError::InvalidArgument(text)) => assert!(text.contains("active, passive"), "{text}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(std::fs::read_to_string(kernel.path("kernelfs/hardware")).unwrap(), hardware);
    assert_eq!(status().unwrap(), "active\n");
    // The command line says the same, and shows the mode.
    let root = machine.helper.root.path().to_str().unwrap().to_owned();
    let out = common::bus::cli(&machine.bus, None, &["--root", &root, "mode"]);
    assert!(common::stdout(&out).contains("intel_pstate: active mode"), "{}", common::stdout(&out));
}

/// `ActiveProfile` of the helper's own interface, asked afresh (a proxy's
/// cached value waits for a signal).
fn active_profile(runtime: &tokio::runtime::Runtime, proxy: &Helper1Proxy<'_>) -> String {
    runtime
        .block_on(async {
            let fresh = Helper1Proxy::builder(proxy.inner().connection())
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build()
                .await?;
            fresh.active_profile().await
        })
        .unwrap()
}

#[test]
fn a_firmware_hotkey_switches_the_whole_profile_on_both_interfaces() {
    for (fixture, handlers) in [
        ("meteor-lake-155h", vec!["sys/firmware/acpi/platform_profile"]),
        (
            "amd-hx370-platform-class",
            vec![
                "sys/class/platform-profile/platform-profile-0/profile",
                "sys/class/platform-profile/platform-profile-1/profile",
            ],
        ),
    ] {
        let machine = Machine::start(fixture, None, &[]);
        let (runtime, connection) = machine.bus.connect();
        // Proxies and signal streams clean up in the runtime when dropped.
        let _in_runtime = runtime.enter();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        let kernel = machine.kernel();
        let shown = |rel: &str| std::fs::read_to_string(kernel.path(rel)).unwrap().trim().to_owned();
        runtime.block_on(proxy.set_profile("power")).unwrap();
        assert_eq!(shown(handlers[0]), if fixture.starts_with("amd") { "quiet" } else { "low-power" }, "{fixture}");
        // Fn+H: the firmware, not the helper, switches to performance.
        kernel.firmware("platform-profile performance");
        wait_for(|| active_profile(&runtime, &proxy) == "performance", &format!("{fixture}: the hotkey followed"));
        let performance = if fixture.starts_with("amd") { "performance" } else { "16" };
        machine.wait_shown("energy_performance_preference", performance, "the CPUs follow the firmware");
        for handler in &handlers {
            assert_eq!(shown(handler), "performance", "{fixture}: {handler}");
        }
        assert!(machine.helper.log_text().contains("the firmware switched the platform profile to performance"));
        // The helper's own write is notified too, and changes nothing more.
        let seen = machine.helper.handled("firmware files changed");
        runtime.block_on(proxy.set_profile("balance_power")).unwrap();
        machine.helper.wait_handled("firmware files changed", seen + 1);
        assert_eq!(active_profile(&runtime, &proxy), "balance_power", "{fixture}: its own write is no hotkey");
        assert_eq!(shown(handlers[0]), "balanced", "{fixture}");
    }
}
