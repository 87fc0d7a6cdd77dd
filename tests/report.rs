//! The hardware report and recommendation behind `gearshift detect` and the
//! first-run wizard, for every fixture.

mod common;

use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::profile::Resolver;
use gearshift::core::report::{HardwareReport, Level};
use gearshift::core::root::SysRoot;

fn report(name: &str) -> HardwareReport {
    let root = SysRoot::open(&common::fixture(name)).unwrap();
    let machine = Machine::read(&root);
    let table = ModelTable::builtin();
    HardwareReport::build(&Resolver::new(&machine, &table))
}

fn kernel_level(r: &HardwareReport) -> Level {
    r.findings.iter().find(|f| f.id == "kernel").unwrap().level
}

#[test]
fn each_machine_gets_its_recommendation() {
    // A kernel that does not know the model's values gets Info, not a
    // warning: writing those values is what Gearshift is for (issue 42: a
    // warning triangle there alarmed people about what Gearshift fixes).
    let cases: &[(&str, &str, Level)] = &[
        ("meteor-lake-155h", "Gearshift will write 64 where the kernel would use 128", Level::Info),
        ("alder-lake-1260p", "Gearshift will write 102 where the kernel would use 128", Level::Info),
        ("alder-lake-1260p-iphone", "Gearshift will write 102 where the kernel would use 128", Level::Info),
        ("emerald-rapids-64", "Gearshift will write 32 where the kernel would use 128", Level::Info),
        ("granite-rapids-2s-256", "Gearshift will write 32 where the kernel would use 128", Level::Info),
        ("arrow-lake-285k", "means EPP 64, the same as the kernel's own value", Level::Good),
        ("raptor-lake-13700h", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("raptor-lake-no-cppc", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("tiger-lake-passive", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("kaby-lake-offline", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("kaby-lake-2cpu", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("amd-7840hs-epp", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("amd-hx370-platform-class", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("amd-ai300-7.1", "means EPP 128, the same as the kernel's own value", Level::Info),
        // The kernel's dynamic EPP picks Balanced's value by the power source.
        (
            "amd-ai300-7.1-dynamic-epp",
            "the kernel's dynamic EPP picks the balanced EPP itself: 0 on AC, 128 on battery",
            Level::Info,
        ),
        ("panther-lake-asus", "means EPP 128, the same as the kernel's own value", Level::Info),
        ("tlp-pd-laptop", "Gearshift will write 102 where the kernel would use 128", Level::Info),
        ("ivy-bridge-epb", "offers no EPP here; profiles set the energy bias and the governor", Level::Info),
        ("amd-5900x-passive", "offers no EPP here; profiles set the governor", Level::Info),
        ("amd-2600-acpi", "offers no EPP here; profiles set the governor", Level::Info),
    ];
    for (name, phrase, level) in cases {
        let r = report(name);
        assert!(r.can_tune, "{name}");
        assert!(r.summary.english().contains(phrase), "{name}: {}", r.summary.english());
        assert_eq!(kernel_level(&r), *level, "{name}");
        // A battery suggestion only where the machine has a battery: a
        // desktop, a server or a VM is never on battery (issue 27).
        let battery = [
            "meteor-lake-155h",
            "amd-7840hs-epp",
            "amd-hx370-platform-class",
            "alder-lake-1260p-iphone",
            "amd-ai300-7.1",
            "panther-lake-asus",
        ];
        if *name == "amd-ai300-7.1-dynamic-epp" {
            // A laptop, but Balanced already follows the power source: the
            // same profile for both.
            assert_eq!((r.on_ac, r.on_battery), ("balance_performance", Some("balance_performance")), "{name}");
            assert!(r.summary.english().ends_with("Suggested: Balanced, all the time."), "{name}");
        } else if battery.contains(name) {
            assert_eq!((r.on_ac, r.on_battery), ("balance_performance", Some("balance_power")), "{name}");
            assert!(r.summary.english().ends_with("Suggested: Balanced on AC power, Efficient on battery."), "{name}");
        } else {
            assert_eq!((r.on_ac, r.on_battery), ("balance_performance", None), "{name}");
            assert!(r.summary.english().ends_with("Suggested: Balanced, all the time."), "{name}");
            assert!(!r.summary.english().contains("battery"), "{name}: {}", r.summary.english());
        }
    }
    // The real-* snapshots are covered by tests/real_machines.rs.
    let generated = common::fixture_names().into_iter().filter(|n| !n.starts_with("real-")).count();
    assert_eq!(generated, cases.len() + 1, "every fixture is covered");
}

#[test]
fn the_changes_table_compares_with_the_kernel() {
    let mtl = report("meteor-lake-155h");
    let pairs: Vec<(Option<u8>, Option<u8>)> = mtl.changes.iter().map(|c| (c.gearshift_epp, c.kernel_epp)).collect();
    assert_eq!(pairs, [(Some(16), Some(0)), (Some(64), Some(128)), (Some(179), Some(192)), (Some(255), Some(255))]);
    let arl = report("arrow-lake-285k");
    assert!(arl.changes.iter().all(|c| c.gearshift_epp == c.kernel_epp));
}

#[test]
fn a_vm_explains_what_is_not_possible() {
    let vm = report("vm-no-cpufreq");
    assert!(!vm.can_tune);
    assert!(vm.why_not.as_ref().unwrap().english().contains("Virtual machines usually leave it to the host"));
    assert_eq!(vm.summary.english(), "Nothing to tune on this machine.");
    let driver = vm.findings.iter().find(|f| f.id == "driver").unwrap();
    assert_eq!(driver.level, Level::Warning);
}

#[test]
fn hybrid_and_amd_details() {
    let mtl = report("meteor-lake-155h");
    let cores = mtl.findings.iter().find(|f| f.id == "cores").unwrap();
    assert!(cores.detail.english().contains("12 logical CPUs on performance cores and 10 on efficiency cores"));
    let amd = report("amd-7840hs-epp");
    let features = amd.findings.iter().find(|f| f.id == "features").unwrap();
    assert!(features.value.english().starts_with("CPPC: yes"), "{}", features.value.english());
    let offline = report("kaby-lake-offline");
    assert_eq!(offline.findings.iter().find(|f| f.id == "cores").unwrap().value.english(), "4 online, 4 offline");
}

#[test]
fn a_hybrid_cpu_without_cppc_v2_is_told_what_itmt_costs() {
    let finding = |name: &str, id: &str| report(name).findings.into_iter().find(|f| f.id == id);
    let itmt = finding("raptor-lake-no-cppc", "itmt").expect("the ITMT finding");
    assert_eq!(itmt.level, Level::Warning);
    assert!(itmt.detail.english().contains("E-cores"), "{}", itmt.detail.english());
    assert!(itmt.detail.english().contains("Linux 6.10"), "{}", itmt.detail.english());
    // The same CPU with ACPI CPPC and ITMT on, and a snapshot that never
    // read /proc/sys/kernel, are not told so.
    for name in ["raptor-lake-13700h", "meteor-lake-155h", "real-intel-i7-13620h-vmware-host"] {
        assert!(finding(name, "itmt").is_none(), "{name}");
    }
}

#[test]
fn passive_and_guided_drivers_are_advised_active_mode() {
    let finding = |name: &str| report(name).findings.into_iter().find(|f| f.id == "driver_mode");
    let amd = finding("amd-5900x-passive").expect("amd-pstate passive");
    assert_eq!(amd.level, Level::Warning);
    assert!(amd.detail.english().contains("14 percent more performance per watt"), "{}", amd.detail.english());
    let intel = finding("tiger-lake-passive").expect("intel_cpufreq");
    assert!(intel.detail.english().contains("gearshift mode set active"), "{}", intel.detail.english());
    for name in ["meteor-lake-155h", "amd-7840hs-epp", "amd-2600-acpi", "vm-no-cpufreq"] {
        assert!(finding(name).is_none(), "{name}");
    }
}

/// A CPU without HWP is not told that it picks its own frequencies with
/// HWP, next to "HWP: no" (the Ivy Bridge report).
#[test]
fn a_cpu_without_hwp_is_not_said_to_use_it() {
    let ivy = report("ivy-bridge-epb");
    let features = ivy.findings.iter().find(|f| f.id == "features").unwrap();
    assert!(features.value.english().starts_with("HWP: no"), "{}", features.value.english());
    let driver = ivy.findings.iter().find(|f| f.id == "driver").unwrap().detail.english();
    assert!(!driver.contains("(HWP)"), "{driver}");
    assert!(driver.contains("This CPU has no HWP") && driver.contains("energy bias"), "{driver}");
    let mtl = report("meteor-lake-155h");
    let driver = mtl.findings.iter().find(|f| f.id == "driver").unwrap().detail.english();
    assert!(driver.contains("The CPU picks its own frequencies (HWP)"), "{driver}");
}
