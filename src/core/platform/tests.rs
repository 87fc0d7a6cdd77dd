//! The platform profile's handlers as the kernel shows them.

use super::*;
use crate::core::root::SysRoot;
use std::fs;

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn read(dir: &std::path::Path) -> Option<PlatformProfile> {
    let root = SysRoot::open(dir).unwrap();
    let mut probe = Probe::new(&root);
    PlatformProfile::read(&mut probe)
}

#[test]
fn legacy_only() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), LEGACY_CHOICES, "cool balanced performance\n");
    write(dir.path(), LEGACY_PROFILE, "cool\n");
    let pp = read(dir.path()).unwrap();
    assert_eq!(pp.interfaces, ["legacy"]);
    assert_eq!(pp.choices, ["cool", "balanced", "performance"]);
    assert_eq!(pp.current.as_deref(), Some("cool"));
    assert_eq!(pp.handlers[0].id, HandlerId::Legacy);
    assert_eq!(choice_for(&pp.choices, Wanted::LowPower).as_deref(), Some("cool"));
}

#[test]
fn an_empty_driver_and_no_driver_are_none() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(read(dir.path()), None);
    write(dir.path(), LEGACY_CHOICES, "\n");
    write(dir.path(), LEGACY_PROFILE, "\n");
    assert_eq!(read(dir.path()), None);
    // Choices separated by newlines (as a test harness may write them).
    write(dir.path(), LEGACY_CHOICES, "low-power\nbalanced\nperformance\n");
    assert_eq!(read(dir.path()).unwrap().choices, ["low-power", "balanced", "performance"]);
}

#[test]
fn class_handlers_are_written_each_and_disagreement_is_custom() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), LEGACY_CHOICES, "balanced performance\n");
    write(dir.path(), LEGACY_PROFILE, "custom\n");
    write(dir.path(), &format!("{CLASS_DIR}/platform-profile-0/name"), "thinkpad-acpi\n");
    write(dir.path(), &format!("{CLASS_DIR}/platform-profile-0/choices"), "low-power balanced performance\n");
    write(dir.path(), &format!("{CLASS_DIR}/platform-profile-0/profile"), "balanced\n");
    write(dir.path(), &format!("{CLASS_DIR}/platform-profile-1/name"), "amd-pmf\n");
    write(dir.path(), &format!("{CLASS_DIR}/platform-profile-1/choices"), "quiet balanced performance\n");
    write(dir.path(), &format!("{CLASS_DIR}/platform-profile-1/profile"), "performance\n");
    let pp = read(dir.path()).unwrap();
    assert_eq!(pp.interfaces, ["legacy", "class:thinkpad-acpi", "class:amd-pmf"]);
    assert_eq!(pp.handlers.iter().map(|h| h.id).collect::<Vec<_>>(), [HandlerId::Class(0), HandlerId::Class(1)]);
    assert_eq!(pp.choices, ["balanced", "performance"]);
    assert_eq!(pp.current.as_deref(), Some("custom"));
    assert_eq!(choice_for(&pp.handlers[0].choices, Wanted::LowPower).as_deref(), Some("low-power"));
    assert_eq!(choice_for(&pp.handlers[1].choices, Wanted::LowPower).as_deref(), Some("quiet"));
}

/// amd-pstate's handlers of each CPU (7.1, dynamic EPP) are the CPUs':
/// not among the firmware's, and the legacy file is no handler beside
/// them (writing it would write every CPU's too).
#[test]
fn the_cpus_own_handlers_are_kept_apart() {
    let dir = tempfile::tempdir().unwrap();
    let handler = |n: u32, name: &str, choices: &str, profile: &str| {
        write(dir.path(), &format!("{CLASS_DIR}/platform-profile-{n}/name"), &format!("{name}\n"));
        write(dir.path(), &format!("{CLASS_DIR}/platform-profile-{n}/choices"), &format!("{choices}\n"));
        write(dir.path(), &format!("{CLASS_DIR}/platform-profile-{n}/profile"), &format!("{profile}\n"));
    };
    write(dir.path(), LEGACY_CHOICES, "low-power balanced performance\n");
    write(dir.path(), LEGACY_PROFILE, "balanced\n");
    handler(0, "amd-pstate-epp-cpu0", "low-power balanced performance", "balanced");
    handler(1, "amd-pstate-epp-cpu1", "low-power balanced performance", "low-power");
    let root = SysRoot::open(dir.path()).unwrap();
    let all = Handlers::read(&mut Probe::new(&root));
    assert_eq!(all.firmware, None, "the legacy file shows only the CPUs' handlers");
    assert_eq!(
        all.cpus.iter().map(|h| (h.cpu, h.id)).collect::<Vec<_>>(),
        [(0, HandlerId::Class(0)), (1, HandlerId::Class(1))]
    );
    assert_eq!(all.cpus[1].current.as_deref(), Some("low-power"));
    // A firmware handler beside them, with spaces in its name.
    handler(2, "SoC Power Slider", "low-power balanced performance max-power", "balanced");
    let all = Handlers::read(&mut Probe::new(&root));
    let firmware = all.firmware.clone().unwrap();
    assert_eq!(firmware.interfaces, ["legacy", "class:SoC Power Slider"]);
    assert_eq!(firmware.handlers.iter().map(|h| h.id).collect::<Vec<_>>(), [HandlerId::Class(2)]);
    assert_eq!(firmware.choices, ["low-power", "balanced", "performance", "max-power"]);
    // Max-power is never a built-in profile's choice.
    assert_eq!(choice_for(&firmware.choices, Wanted::Performance).as_deref(), Some("performance"));
    assert_eq!(Wanted::from_choice("max-power"), None);
    // Read again with the same devices: the CPUs' are kept as they were.
    handler(1, "amd-pstate-epp-cpu1", "low-power balanced performance", "performance");
    let again = Handlers::read_again(&mut Probe::new(&root), Some(&all));
    assert_eq!(again.cpus[1].current.as_deref(), Some("low-power"));
    // Other devices (dynamic EPP turned off, a driver in a freed number):
    // everything is read afresh.
    fs::remove_dir_all(dir.path().join(format!("{CLASS_DIR}/platform-profile-0"))).unwrap();
    handler(3, "thinkpad-acpi", "low-power balanced performance", "balanced");
    let fresh = Handlers::read_again(&mut Probe::new(&root), Some(&all));
    assert_eq!(fresh.cpus.iter().map(|h| h.cpu).collect::<Vec<_>>(), [1]);
    assert_eq!(fresh.cpus[0].current.as_deref(), Some("performance"));
    assert_eq!(fresh.firmware.unwrap().handlers.len(), 2);
    // A name with a control character is shown by its directory's name.
    handler(4, "evil\u{1b}[2Jname", "balanced performance", "balanced");
    let labels = Handlers::read(&mut Probe::new(&root)).firmware.unwrap().interfaces;
    assert!(labels.contains(&"class:platform-profile-4".to_owned()), "{labels:?}");
}

#[test]
fn unknown_words_are_not_choices() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), LEGACY_CHOICES, "balanced turbo-mode ../../etc performance\n");
    write(dir.path(), LEGACY_PROFILE, "turbo-mode\n");
    let pp = read(dir.path()).unwrap();
    assert_eq!(pp.choices, ["balanced", "performance"]);
    assert_eq!(pp.current, None);
}
