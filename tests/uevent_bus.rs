//! Kernel uevents: CPU hotplug and platform profile drivers that load late,
//! followed from the kernel's own messages only. The helper runs on a
//! private bus over the kernel-faithful sysfs (tests/kernelfs/), and the
//! uevents are real ones: the kernel of the machine running the tests sends
//! them when a test writes an action to one of its own CPUs' `uevent` files
//! (`/sys/devices/system/cpu/cpu1/uevent`, a synthetic uevent; nothing else
//! happens to that CPU). A message that user space sends on the uevent group
//! (root in the helper's network namespace may) is ignored: these tests
//! send such forgeries first, and they change nothing.
//!
//! Every uevent reaches every helper of the machine, so the tests of this
//! file take turns (no other test binary runs at the same time).
//!
//! The kernel here cannot announce a module or a platform profile class
//! device (it has no loadable modules): a late driver is announced by a CPU
//! uevent, after which the helper reads the whole machine again, as it does
//! after the driver's own uevent (unit tests: `watch::tests`).

mod common;

use std::sync::Mutex;

use common::bus::{wait_for, Bus, Helper, MOCK_POLICY};
use common::kernelfs::KernelFs;
use gearshift::dbus::Helper1Proxy;

/// One test at a time: the kernel's uevents reach every helper.
static TURN: Mutex<()> = Mutex::new(());

/// The CPU of this machine whose `uevent` file the tests write (and the
/// fixture CPU the uevent names): CPU 1, which every machine that runs the
/// tests has (CPU 0 often cannot go offline).
const CPU: u32 = 1;

/// Has this machine's kernel send `action` (`online`, `offline`, `add`) for
/// its CPU [`CPU`]: a uevent from the kernel itself, sender port 0.
fn kernel_uevent(action: &str) {
    let file = format!("/sys/devices/system/cpu/cpu{CPU}/uevent");
    std::fs::write(&file, action).unwrap_or_else(|e| panic!("{file}: {e} (the tests need root and a second CPU)"));
}

/// The helper (in a network namespace of its own, where the test can forge
/// uevents) on a copy of `fixture` served by the emulator.
struct Machine {
    bus: Bus,
    helper: Helper,
    kernel: Option<KernelFs>,
}

impl Machine {
    fn start(fixture: &str, release: Option<&str>) -> Machine {
        let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
        let mut helper = Helper::prepare(fixture);
        if let Some(release) = release {
            std::fs::write(helper.root.path().join("proc/sys/kernel/osrelease"), format!("{release}\n")).unwrap();
        }
        let kernel = KernelFs::serve_in_place(helper.root.path(), None);
        helper.in_own_network();
        helper.spawn(&bus);
        Machine { bus, helper, kernel: Some(kernel) }
    }

    fn kernel(&self) -> &KernelFs {
        self.kernel.as_ref().unwrap()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.kernel().path(rel)).unwrap().trim().to_owned()
    }

    fn epp(&self, policy: u32) -> String {
        self.read(&format!("sys/devices/system/cpu/cpufreq/policy{policy}/energy_performance_preference"))
    }

    /// Waits until the helper handled (or refused) `count` uevents in all,
    /// then makes a round trip to it.
    fn settle(&self, count: usize, proxy: &Helper1Proxy<'_>, runtime: &tokio::runtime::Runtime) {
        self.helper.wait_handled("uevent", count);
        runtime.block_on(proxy.get_state()).unwrap();
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        // The helper keeps files of the mount open: stop it first.
        self.helper.stop();
        self.kernel.take();
    }
}

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
fn a_cpu_that_comes_back_online_gets_the_profile_when_the_kernel_says_so() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let machine = Machine::start("meteor-lake-155h", None);
    let (runtime, connection) = machine.bus.connect();
    // Proxies and signal streams clean up in the runtime when dropped.
    let _in_runtime = runtime.enter();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let kernel = machine.kernel();
    kernel.firmware(&format!("offline {CPU}"));
    kernel_uevent("offline");
    // The helper re-reads the CPUs: a switch leaves the offline one alone
    // (the kernel would answer EBUSY).
    wait_for(
        || runtime.block_on(proxy.set_profile("power")).is_ok_and(|s| !s.cpus.contains(&CPU)),
        "a switch that skips the offline CPU",
    );
    kernel.firmware(&format!("online {CPU}"));
    // What the first start applied before the CPU went: Balanced, 64.
    assert_eq!(machine.epp(CPU), "64");
    // Root in the helper's namespace says the CPU came online: not the kernel.
    let seen = machine.helper.handled("uevent");
    machine.helper.send_uevent("online", &format!("/devices/system/cpu/cpu{CPU}"), "cpu");
    machine.helper.send_uevent("add", &format!("/devices/system/cpu/cpu{CPU}"), "cpu");
    machine.settle(seen + 2, &proxy, &runtime);
    assert_eq!(machine.helper.handled("uevent ignored: from user space"), 2);
    assert_eq!(machine.epp(CPU), "64", "a forged uevent was followed: {}", machine.helper.log_text());
    assert!(!machine.helper.log_text().contains("came online"), "{}", machine.helper.log_text());
    // The kernel says so.
    kernel_uevent("online");
    wait_for(|| machine.epp(CPU) == "power", "the CPU given the profile when it came online");
    wait_for(|| machine.helper.log_text().contains(&format!("CPU {CPU} came online")), "the log of the hotplug");
}

#[test]
fn a_platform_profile_driver_that_loads_late_is_found_on_either_interface() {
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    for (release, command, forged, profile_file) in [
        (
            "6.1.0-28-amd64",
            "load-platform-profile legacy low-power,balanced,performance performance",
            ("add", "/module/thinkpad_acpi", "module"),
            "sys/firmware/acpi/platform_profile",
        ),
        (
            "6.14.2-300.fc42.x86_64",
            "load-platform-profile class asus-wmi quiet,balanced,performance performance",
            ("add", "/devices/platform/asus-nb-wmi/platform-profile/platform-profile-0", "platform-profile"),
            "sys/class/platform-profile/platform-profile-0/profile",
        ),
    ] {
        let machine = Machine::start("vm-no-cpufreq", Some(release));
        let (runtime, connection) = machine.bus.connect();
        let _in_runtime = runtime.enter();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        // Nothing to drive yet.
        assert!(runtime.block_on(proxy.set_profile("power")).is_err(), "{release}: a VM without a driver");
        machine.kernel().firmware(command);
        // The driver's announcement, forged by root in the helper's namespace.
        let seen = machine.helper.handled("uevent");
        machine.helper.send_uevent(forged.0, forged.1, forged.2);
        machine.settle(seen + 1, &proxy, &runtime);
        assert_eq!(machine.helper.handled("uevent ignored: from user space"), 1, "{release}");
        assert_eq!(machine.read(profile_file), "performance", "{release}: a forged uevent was followed");
        // The kernel announces something: the helper reads the machine again
        // and finds the driver. The first start's choice, Balanced, reaches it.
        kernel_uevent("add");
        wait_for(|| machine.read(profile_file) == "balanced", &format!("{release}: Balanced on the late driver"));
        let summary = runtime.block_on(proxy.set_profile("power")).expect("a switch on the late driver");
        assert!(summary.changed >= 1, "{summary:?}");
        let low = if release.starts_with("6.14") { "quiet" } else { "low-power" };
        assert_eq!(machine.read(profile_file), low, "{release}");
        // And a hotkey on it afterwards is followed (its files are watched
        // since the re-read found them).
        machine.kernel().firmware("platform-profile performance");
        wait_for(
            || active_profile(&runtime, &proxy) == "performance",
            &format!("{release}: hotkey on the late driver"),
        );
    }
}
