//! The shipped unit lets the helper write what it must: every file any plan
//! writes on every fixture (`helper::writes::every_write`), resolved the
//! way a real machine's sysfs resolves its links (`sys/class/...` entries
//! lead into `sys/devices/...`, as the fixtures lay them out), lies under
//! one of the `ReadWritePaths=` of data/systemd/gearshift-helper.service.in,
//! read from the file itself. `ProtectKernelTunables=` makes the rest of
//! `/sys` read-only, and a write there fails with EROFS on a real machine.
//! The unit's sandbox itself is rebuilt and run in tests/sandbox.rs.

mod common;

use std::path::{Path, PathBuf};

use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::root::SysRoot;

const UNIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/systemd/gearshift-helper.service.in");

/// The unit's writable paths, as systemd reads them: space-separated, a
/// leading `-` (ignore when missing) or `+` taken off.
fn read_write_paths() -> Vec<String> {
    let text = std::fs::read_to_string(UNIT).unwrap();
    let paths: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("ReadWritePaths="))
        .flat_map(str::split_whitespace)
        .map(|p| p.trim_start_matches(['-', '+']).to_owned())
        .collect();
    assert!(text.lines().any(|l| l == "ProtectKernelTunables=yes"), "the unit no longer protects /sys");
    assert!(!paths.is_empty(), "the unit has no ReadWritePaths=");
    paths
}

/// Where `rel` leads on the machine under `root`: the links on the way
/// followed, as `/...`. A file that is not there resolves through its
/// directory (the kernel creates it there).
fn resolved(root: &Path, rel: &str) -> String {
    let path = root.join(rel);
    let real = path.canonicalize().unwrap_or_else(|_| {
        let dir = path.parent().unwrap().canonicalize().unwrap_or_else(|e| panic!("{rel}: {e}"));
        dir.join(path.file_name().unwrap())
    });
    let base = root.canonicalize().unwrap();
    let below: PathBuf = real.strip_prefix(&base).unwrap_or_else(|_| panic!("{rel} leads out of the tree")).into();
    format!("/{}", below.display())
}

#[test]
fn every_file_the_helper_writes_on_every_fixture_is_writable_under_the_unit() {
    let allowed = read_write_paths();
    let mut outside = Vec::new();
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for name in common::fixture_names() {
        let root = SysRoot::open(&common::fixture(&name)).unwrap();
        let machine = Machine::read(&root);
        let (table, _) = ModelTable::load(&root);
        for rel in gearshift::helper::writes::every_write(&root, &machine, &table) {
            let at = resolved(&common::fixture(&name), &rel);
            let kind = if at.contains("platform-profile") || at.contains("platform_profile") {
                "platform profile"
            } else if at.ends_with("/charge_type") {
                "charge type"
            } else if at.ends_with("/panel_power_savings") {
                "panel"
            } else if at.ends_with("/power_dpm_force_performance_level") {
                "gpu"
            } else {
                "cpu"
            };
            *seen.entry(kind).or_default() += 1;
            if !allowed.iter().any(|p| at == *p || at.starts_with(&format!("{p}/"))) {
                outside.push(format!("{name}: {rel} -> {at}"));
            }
        }
    }
    eprintln!("files checked, by kind: {seen:?}");
    assert!(outside.is_empty(), "written outside the unit's ReadWritePaths= {allowed:?}:\n{}", outside.join("\n"));
    // The fixtures have each kind, so that the check above saw them.
    for kind in ["cpu", "platform profile", "charge type", "panel", "gpu"] {
        assert!(seen.get(kind).is_some_and(|n| *n > 0), "no fixture writes a {kind} file: {seen:?}");
    }
}

#[test]
fn class_entries_resolve_into_the_devices_of_their_drivers() {
    // As the kernel registers them (platform_profile_register() with the
    // driver's device as parent), not under sys/devices/virtual.
    let root = common::fixture("amd-hx370-platform-class");
    assert_eq!(
        resolved(&root, "sys/class/platform-profile/platform-profile-0/profile"),
        "/sys/devices/platform/asus-nb-wmi/platform-profile/platform-profile-0/profile"
    );
    let phone = common::fixture("alder-lake-1260p-iphone");
    assert_eq!(
        resolved(&phone, "sys/class/power_supply/apple_mfi_fastcharge/charge_type"),
        "/sys/devices/pci0000:00/0000:00:14.0/usb1/1-2/power_supply/apple_mfi_fastcharge/charge_type"
    );
    // The amdgpu actions' files sit below the GPU's PCI device.
    let amd = common::fixture("amd-7840hs-epp");
    assert_eq!(
        resolved(&amd, "sys/class/drm/card1-eDP-1/amdgpu/panel_power_savings"),
        "/sys/devices/pci0000:00/0000:00:08.1/0000:c4:00.0/drm/card1/card1-eDP-1/amdgpu/panel_power_savings"
    );
    assert_eq!(
        resolved(&amd, "sys/class/drm/card1/device/power_dpm_force_performance_level"),
        "/sys/devices/pci0000:00/0000:00:08.1/0000:c4:00.0/power_dpm_force_performance_level"
    );
}
