//! The kernel-faithful sysfs itself: each rule it models, checked with plain
//! file operations the way the helper makes them (one write of the whole
//! value; the kernel's errno back).

mod common;

use std::fs;
use std::io::{ErrorKind, Read, Write};

use common::kernelfs::KernelFs;

/// Linux 6.11+ on Meteor Lake: the model's own table.
const MTL_611: &str =
    r#"{"epp_names": {"performance": 0, "balance_performance": 64, "balance_power": 179, "power": 255}}"#;

fn read(fs: &KernelFs, policy: u32, attr: &str) -> String {
    fs::read_to_string(fs.policy(policy, attr)).unwrap()
}

/// Writes `value` as one write, like the helper and `echo` do; the errno.
fn write(fs: &KernelFs, policy: u32, attr: &str, value: &str) -> Result<(), i32> {
    let mut file =
        fs::OpenOptions::new().write(true).open(fs.policy(policy, attr)).map_err(|e| e.raw_os_error().unwrap())?;
    file.write_all(value.as_bytes()).map_err(|e| e.raw_os_error().unwrap())
}

#[test]
fn epp_shows_the_name_for_a_named_value_and_the_number_otherwise() {
    let generic = KernelFs::mount("meteor-lake-155h", None);
    assert_eq!(read(&generic, 0, "energy_performance_preference"), "balance_performance\n");
    write(&generic, 0, "energy_performance_preference", "64\n").unwrap();
    assert_eq!(read(&generic, 0, "energy_performance_preference"), "64\n");
    write(&generic, 0, "energy_performance_preference", "128").unwrap();
    assert_eq!(read(&generic, 0, "energy_performance_preference"), "balance_performance\n");
    // On a kernel that knows the model, 64 is a name.
    let known = KernelFs::mount("meteor-lake-155h", Some(MTL_611));
    write(&known, 0, "energy_performance_preference", "64").unwrap();
    assert_eq!(read(&known, 0, "energy_performance_preference"), "balance_performance\n");
    write(&known, 0, "energy_performance_preference", " power \n").unwrap();
    assert_eq!(read(&known, 0, "energy_performance_preference"), "power\n");
}

#[test]
fn garbage_is_einval_and_changes_nothing() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    for bad in ["256", "-1", "balanced", "12abc", "\n", "\u{e9}"] {
        assert_eq!(write(&fs, 1, "energy_performance_preference", bad), Err(libc::EINVAL), "{bad:?}");
    }
    assert_eq!(read(&fs, 1, "energy_performance_preference"), "balance_performance\n");
    assert_eq!(write(&fs, 1, "scaling_governor", "schedutil"), Err(libc::EINVAL));
    assert_eq!(read(&fs, 1, "scaling_governor"), "powersave\n");
}

#[test]
fn the_performance_governor_holds_epp_at_zero_and_gives_it_back() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    write(&fs, 2, "energy_performance_preference", "100").unwrap();
    write(&fs, 2, "scaling_governor", "performance").unwrap();
    assert_eq!(read(&fs, 2, "energy_performance_preference"), "performance\n");
    assert_eq!(write(&fs, 2, "energy_performance_preference", "100"), Err(libc::EBUSY));
    assert_eq!(write(&fs, 2, "energy_performance_preference", "balance_power"), Err(libc::EBUSY));
    write(&fs, 2, "energy_performance_preference", "performance").unwrap();
    write(&fs, 2, "scaling_governor", "powersave").unwrap();
    assert_eq!(read(&fs, 2, "energy_performance_preference"), "100\n");
    // `default` is the value the policy booted with.
    write(&fs, 2, "energy_performance_preference", "default").unwrap();
    assert_eq!(read(&fs, 2, "energy_performance_preference"), "balance_performance\n");
}

#[test]
fn amd_pstate_epp_takes_names_only() {
    let fs = KernelFs::mount("amd-7840hs-epp", None);
    assert_eq!(write(&fs, 0, "energy_performance_preference", "64"), Err(libc::EINVAL));
    write(&fs, 0, "energy_performance_preference", "power").unwrap();
    assert_eq!(read(&fs, 0, "energy_performance_preference"), "power\n");
}

#[test]
fn an_offline_policy_is_busy() {
    let fs = KernelFs::mount("kaby-lake-offline", None);
    let offline: Vec<u32> = (0..8)
        .filter(|cpu| {
            fs::read_to_string(fs.path(&format!("sys/devices/system/cpu/cpu{cpu}/online")))
                .is_ok_and(|t| t.trim() == "0")
        })
        .collect();
    assert!(!offline.is_empty(), "the fixture has offline CPUs");
    let policy = offline[0];
    let mut buf = String::new();
    let err = fs::File::open(fs.policy(policy, "energy_performance_preference"))
        .unwrap()
        .read_to_string(&mut buf)
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EBUSY), "{err:?}");
    assert_eq!(write(&fs, policy, "energy_performance_preference", "power"), Err(libc::EBUSY));
    assert_eq!(write(&fs, policy, "scaling_governor", "powersave"), Err(libc::EBUSY));
    assert_ne!(err.kind(), ErrorKind::NotFound);
}

/// The helper on the emulator: profiles switch, raw tuning that the kernel
/// would refuse is refused before any write, and leaving the performance
/// governor gives the earlier EPP back.
#[test]
fn the_helper_switches_on_a_kernel_like_sysfs() {
    use common::bus::{Bus, Helper};
    use gearshift::dbus::{Helper1Proxy, HelperError};
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    let kernel = KernelFs::mount_at("meteor-lake-155h", None, helper.root.path());
    helper.spawn(&bus);
    {
        let (runtime, connection) = bus.connect();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        let summary = runtime.block_on(proxy.set_profile("power")).unwrap();
        assert_eq!(summary.changed, 22, "{summary:?}");
        for policy in 0..22 {
            assert_eq!(read(&kernel, policy, "energy_performance_preference"), "power\n");
        }
        // Meteor Lake's balanced is 64, a number this (6.8) kernel has no name for.
        runtime.block_on(proxy.set_profile("balance_performance")).unwrap();
        assert_eq!(read(&kernel, 3, "energy_performance_preference"), "64\n");
        let again = runtime.block_on(proxy.set_profile("balance_performance")).unwrap();
        assert_eq!(again.changed, 0, "the kernel's \"64\" was taken for what was written: {again:?}");
        runtime.block_on(proxy.set_governor(&[5], "performance")).unwrap();
        assert_eq!(read(&kernel, 5, "energy_performance_preference"), "performance\n");
        match runtime.block_on(proxy.set_epp(&[5], 100)) {
            Err(HelperError::Unsupported(text)) => assert!(text.contains("performance governor"), "{text}"),
            other => panic!("expected a refusal before the kernel's EBUSY, got {other:?}"),
        }
        runtime.block_on(proxy.set_governor(&[5], "powersave")).unwrap();
        assert_eq!(read(&kernel, 5, "energy_performance_preference"), "64\n");
    }
    helper.stop();
    drop(kernel);
}
