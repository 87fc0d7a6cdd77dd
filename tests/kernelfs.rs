//! The kernel-faithful sysfs itself: each rule it models, checked with plain
//! file operations the way the helper makes them (one write of the whole
//! value; the kernel's errno back). docs/testing.md lists the rules.

mod common;

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::kernelfs::{KernelFs, Watch};

/// Linux 6.11+ on Meteor Lake: the model's own table.
const MTL_611: &str =
    r#"{"epp_names": {"performance": 0, "balance_performance": 64, "balance_power": 179, "power": 255}}"#;
const INTEL_PSTATE: &str = "sys/devices/system/cpu/intel_pstate";
const AMD_PSTATE: &str = "sys/devices/system/cpu/amd_pstate";
const PASSIVE_GOVERNORS: &str = "conservative ondemand userspace powersave performance schedutil \n";
const LEGACY: &str = "sys/firmware/acpi/platform_profile";
const LEGACY_CHOICES: &str = "sys/firmware/acpi/platform_profile_choices";
/// thinkpad_acpi's lap sensor, by the path the helper reads and watches.
const LAPMODE: &str = "sys/bus/platform/devices/thinkpad_acpi/dytc_lapmode";
/// How long a notification may take to arrive, and how long one that should
/// not come is given.
const NOTIFIED: Duration = Duration::from_secs(5);
const GRACE: Duration = Duration::from_millis(250);

fn errno(e: std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or_else(|| panic!("no errno: {e:?}"))
}

/// A file below the root: its text, or the errno.
fn get(fs: &KernelFs, rel: &str) -> Result<String, i32> {
    fs::read_to_string(fs.path(rel)).map_err(errno)
}

/// Writes `value` to a file below the root as one write, like the helper and
/// `echo` do; the errno.
fn put(fs: &KernelFs, rel: &str, value: &str) -> Result<(), i32> {
    let mut file = fs::OpenOptions::new().write(true).open(fs.path(rel)).map_err(errno)?;
    file.write_all(value.as_bytes()).map_err(errno)
}

fn attr(policy: u32, attr: &str) -> String {
    format!("sys/devices/system/cpu/cpufreq/policy{policy}/{attr}")
}

fn read(fs: &KernelFs, policy: u32, name: &str) -> String {
    get(fs, &attr(policy, name)).unwrap()
}

fn write(fs: &KernelFs, policy: u32, name: &str, value: &str) -> Result<(), i32> {
    put(fs, &attr(policy, name), value)
}

/// What a directory lists.
fn names(fs: &KernelFs, rel: &str) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(fs.path(rel)).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

fn number(text: &str) -> u64 {
    text.trim().parse().unwrap()
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
    // A number is the whole write (kstrtouint): no blanks before it.
    for bad in ["256", "-1", "balanced", "12abc", "\n", "\u{e9}", " 64"] {
        assert_eq!(write(&fs, 1, "energy_performance_preference", bad), Err(libc::EINVAL), "{bad:?}");
    }
    assert_eq!(write(&fs, 1, "energy_performance_preference", "99999999999"), Err(libc::ERANGE));
    assert_eq!(read(&fs, 1, "energy_performance_preference"), "balance_performance\n");
    assert_eq!(write(&fs, 1, "scaling_governor", "schedutil"), Err(libc::EINVAL));
    assert_eq!(read(&fs, 1, "scaling_governor"), "powersave\n");
    // Governor names are compared without case, as cpufreq does.
    write(&fs, 1, "scaling_governor", "PowerSave\n").unwrap();
    assert_eq!(read(&fs, 1, "scaling_governor"), "powersave\n");
}

#[test]
fn the_performance_governor_holds_epp_at_zero_and_gives_it_back() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    write(&fs, 2, "energy_performance_preference", "100").unwrap();
    write(&fs, 2, "scaling_governor", "performance").unwrap();
    assert_eq!(read(&fs, 2, "energy_performance_preference"), "performance\n");
    assert_eq!(fs.hardware_epp(2), Some(0));
    assert_eq!(write(&fs, 2, "energy_performance_preference", "100"), Err(libc::EBUSY));
    assert_eq!(write(&fs, 2, "energy_performance_preference", "balance_power"), Err(libc::EBUSY));
    write(&fs, 2, "energy_performance_preference", "performance").unwrap();
    write(&fs, 2, "scaling_governor", "powersave").unwrap();
    assert_eq!(read(&fs, 2, "energy_performance_preference"), "100\n");
    assert_eq!(fs.hardware_epp(2), Some(100));
    // `default` is the value the policy booted with.
    write(&fs, 2, "energy_performance_preference", "default").unwrap();
    assert_eq!(read(&fs, 2, "energy_performance_preference"), "balance_performance\n");
}

#[test]
fn amd_pstate_epp_takes_names_only() {
    let fs = KernelFs::mount("amd-7840hs-epp", None);
    assert_eq!(write(&fs, 0, "energy_performance_preference", "64"), Err(libc::EINVAL));
    write(&fs, 0, "energy_performance_preference", "balance_power").unwrap();
    assert_eq!(read(&fs, 0, "energy_performance_preference"), "balance_power\n");
    assert_eq!(fs.hardware_epp(0), Some(191), "amd-pstate's own value");
    // Firmware may set a value without a name: amd-pstate cannot show it.
    fs.firmware("firmware-epp 115 1");
    assert_eq!(get(&fs, &attr(1, "energy_performance_preference")), Err(libc::EINVAL));
    assert_eq!(fs.hardware_epp(1), Some(115));
}

#[test]
fn an_offline_policy_is_busy() {
    let fs = KernelFs::mount("kaby-lake-offline", None);
    let offline: Vec<u32> = (0..8)
        .filter(|cpu| get(&fs, &format!("sys/devices/system/cpu/cpu{cpu}/online")).is_ok_and(|t| t == "0\n"))
        .collect();
    assert_eq!(offline, [4, 5, 6, 7], "the fixture's offline CPUs");
    let policy = offline[0];
    let mut buf = String::new();
    let err = fs::File::open(fs.policy(policy, "energy_performance_preference"))
        .unwrap()
        .read_to_string(&mut buf)
        .unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EBUSY), "{err:?}");
    assert_ne!(err.kind(), ErrorKind::NotFound);
    assert_eq!(write(&fs, policy, "energy_performance_preference", "power"), Err(libc::EBUSY));
    assert_eq!(write(&fs, policy, "scaling_governor", "powersave"), Err(libc::EBUSY));
    // Every file of the policy, the ones passed through too.
    assert_eq!(get(&fs, &attr(policy, "scaling_cur_freq")), Err(libc::EBUSY));
    assert_eq!(get(&fs, &attr(policy, "scaling_driver")), Err(libc::EBUSY));
    // An offline CPU has no energy bias attribute; the masks say who is where.
    assert_eq!(get(&fs, "sys/devices/system/cpu/online").unwrap(), "0-3\n");
    assert_eq!(get(&fs, "sys/devices/system/cpu/offline").unwrap(), "4-7\n");
}

#[test]
fn serves_a_directory_in_place_and_leaves_it_as_it_was() {
    let dir = common::copy_fixture("meteor-lake-155h");
    let file = dir.path().join(attr(0, "energy_performance_preference"));
    {
        let fs = KernelFs::serve_in_place(dir.path(), Some(MTL_611));
        assert_eq!(fs.root(), dir.path().canonicalize().unwrap());
        assert_eq!(names(&fs, ""), ["kernelfs", "proc", "sys"]);
        assert_eq!(fs.backing.path(), fs.root());
        write(&fs, 0, "energy_performance_preference", "64").unwrap();
        assert_eq!(fs::read_to_string(&file).unwrap(), "balance_performance\n", "the table came through");
        write(&fs, 0, "energy_performance_preference", "power").unwrap();
        assert_eq!(write(&fs, 0, "energy_performance_preference", "12abc"), Err(libc::EINVAL));
        assert_eq!(fs::read_to_string(&file).unwrap(), "power\n");
        // Files the emulator does not model are the directory's own.
        fs::write(dir.path().join("sys/devices/system/cpu/intel_pstate/max_perf_pct"), "80\n").unwrap();
        fs.firmware("resume");
    }
    // Unmounted: the directory holds what it held, and nothing more.
    assert_eq!(fs::read_to_string(&file).unwrap(), "balance_performance\n");
    let mut top: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    top.sort();
    assert_eq!(top, ["proc", "sys"]);
    let max = fs::read_to_string(dir.path().join("sys/devices/system/cpu/intel_pstate/max_perf_pct")).unwrap();
    assert_eq!(max, "80\n");
}

/// Reads every file below `dir` (links not followed): path and size or errno.
fn walk(dir: &Path, out: &mut Vec<(PathBuf, Result<usize, i32>)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            walk(&path, out);
        } else if meta.is_file() {
            let read = fs::read(&path).map(|b| b.len()).map_err(errno);
            out.push((path, read));
        }
    }
}

#[test]
fn a_tree_walk_reads_every_file() {
    let dir = common::copy_fixture("kaby-lake-offline");
    let fs = KernelFs::serve_in_place(dir.path(), None);
    let mut files = Vec::new();
    walk(fs.root(), &mut files);
    assert!(files.len() > 100, "{}", files.len());
    for (path, read) in &files {
        let rel = path.strip_prefix(fs.root()).unwrap().to_string_lossy().into_owned();
        let offline_policy = (4..8).any(|p| rel.starts_with(&format!("sys/devices/system/cpu/cpufreq/policy{p}/")));
        if offline_policy {
            assert_eq!(*read, Err(libc::EBUSY), "{rel}");
        } else {
            assert!(read.is_ok(), "{rel}: {read:?}");
        }
    }
    // A walk after a mode switch sees only what exists in that mode.
    let amd = KernelFs::mount("amd-7840hs-epp", None);
    put(&amd, &format!("{AMD_PSTATE}/status"), "passive").unwrap();
    let mut files = Vec::new();
    walk(amd.root(), &mut files);
    assert!(files.iter().all(|(_, read)| read.is_ok()), "{files:?}");
    assert!(!files.iter().any(|(p, _)| p.to_string_lossy().contains("energy_performance")));
    assert_eq!(read(&fs, 0, "energy_performance_preference"), "balance_performance\n", "still serving");
}

#[test]
fn lists_end_as_the_kernel_prints_them() {
    let active = KernelFs::mount("meteor-lake-155h", None);
    assert_eq!(
        read(&active, 0, "energy_performance_available_preferences"),
        "default performance balance_performance balance_power power \n"
    );
    // Drivers without governors print their two policies without a trailing space.
    assert_eq!(read(&active, 0, "scaling_available_governors"), "performance powersave\n");
    let passive = KernelFs::mount("tiger-lake-passive", None);
    assert_eq!(read(&passive, 0, "scaling_available_governors"), PASSIVE_GOVERNORS);
    // The fixture's file has no trailing space; the kernel prints one.
    let acpi = KernelFs::mount("amd-2600-acpi", None);
    assert!(!fs::read_to_string(common::fixture("amd-2600-acpi").join(attr(0, "scaling_available_governors")))
        .unwrap()
        .ends_with(" \n"));
    assert_eq!(read(&acpi, 0, "scaling_available_governors"), PASSIVE_GOVERNORS);
    write(&acpi, 0, "scaling_governor", "ondemand").unwrap();
    assert_eq!(read(&acpi, 0, "scaling_governor"), "ondemand\n");
}

#[test]
fn read_only_attributes_refuse_writers() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    for name in ["scaling_driver", "scaling_available_governors", "cpuinfo_max_freq"] {
        assert_eq!(write(&fs, 0, name, "x"), Err(libc::EACCES), "{name}");
    }
    assert_eq!(put(&fs, "kernelfs/hardware", "{}"), Err(libc::EACCES));
    assert_eq!(read(&fs, 0, "scaling_driver"), "intel_pstate\n");
}

#[test]
fn no_turbo_moves_cpuinfo_max_freq_since_6_11() {
    // Arrow Lake on 6.12: turbo 5.7 GHz, base 3.7 GHz.
    let fs = KernelFs::mount("arrow-lake-285k", None);
    let turbo = || put(&fs, &format!("{INTEL_PSTATE}/no_turbo"), "0");
    assert_eq!(read(&fs, 0, "cpuinfo_max_freq"), "5700000\n");
    write(&fs, 0, "scaling_max_freq", "5000000").unwrap();
    put(&fs, &format!("{INTEL_PSTATE}/no_turbo"), "1\n").unwrap();
    assert_eq!(get(&fs, &format!("{INTEL_PSTATE}/no_turbo")).unwrap(), "1\n");
    assert_eq!(read(&fs, 0, "cpuinfo_max_freq"), "3700000\n");
    assert_eq!(read(&fs, 0, "scaling_max_freq"), "3700000\n");
    assert_eq!(read(&fs, 5, "scaling_max_freq"), "3700000\n");
    // A request above the limit is kept, and shown once turbo is back.
    write(&fs, 1, "scaling_max_freq", "5500000").unwrap();
    assert_eq!(read(&fs, 1, "scaling_max_freq"), "3700000\n");
    turbo().unwrap();
    assert_eq!(read(&fs, 0, "cpuinfo_max_freq"), "5700000\n");
    assert_eq!(read(&fs, 0, "scaling_max_freq"), "5000000\n");
    assert_eq!(read(&fs, 1, "scaling_max_freq"), "5500000\n");
    assert_eq!(read(&fs, 5, "scaling_max_freq"), "5700000\n");
    // Parsed like sscanf("%u") and clamped to 0/1.
    for bad in ["yes", "-1", "\n", "on"] {
        assert_eq!(put(&fs, &format!("{INTEL_PSTATE}/no_turbo"), bad), Err(libc::EINVAL), "{bad:?}");
    }
    put(&fs, &format!("{INTEL_PSTATE}/no_turbo"), "2").unwrap();
    assert_eq!(get(&fs, &format!("{INTEL_PSTATE}/no_turbo")).unwrap(), "1\n");
}

#[test]
fn no_turbo_before_6_11_caps_only_the_policy() {
    // Meteor Lake on 6.8: cpuinfo_max_freq stays at the turbo maximum.
    let fs = KernelFs::mount("meteor-lake-155h", None);
    put(&fs, &format!("{INTEL_PSTATE}/no_turbo"), "1").unwrap();
    assert_eq!(read(&fs, 0, "cpuinfo_max_freq"), "4800000\n");
    assert_eq!(read(&fs, 0, "scaling_max_freq"), "1400000\n", "the base frequency");
    put(&fs, &format!("{INTEL_PSTATE}/no_turbo"), "0").unwrap();
    assert_eq!(read(&fs, 0, "scaling_max_freq"), "4800000\n");
}

#[test]
fn frequency_limits_are_clamped_into_the_hardware_range() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    let (low, high) = (number(&read(&fs, 3, "cpuinfo_min_freq")), number(&read(&fs, 3, "cpuinfo_max_freq")));
    for bad in ["abc", "-5", "\n", "x100"] {
        assert_eq!(write(&fs, 3, "scaling_max_freq", bad), Err(libc::EINVAL), "{bad:?}");
        assert_eq!(write(&fs, 3, "scaling_min_freq", bad), Err(libc::EINVAL), "{bad:?}");
    }
    write(&fs, 3, "scaling_max_freq", "1").unwrap();
    assert_eq!(number(&read(&fs, 3, "scaling_max_freq")), low);
    write(&fs, 3, "scaling_max_freq", "99999999\n").unwrap();
    assert_eq!(number(&read(&fs, 3, "scaling_max_freq")), high);
    write(&fs, 3, "scaling_max_freq", "2000000").unwrap();
    // The minimum never goes above the maximum.
    write(&fs, 3, "scaling_min_freq", "3000000").unwrap();
    assert_eq!(read(&fs, 3, "scaling_min_freq"), "2000000\n");
    write(&fs, 3, "scaling_max_freq", "4000000").unwrap();
    assert_eq!(read(&fs, 3, "scaling_min_freq"), "3000000\n", "the request is kept");
    write(&fs, 3, "scaling_min_freq", "0").unwrap();
    assert_eq!(number(&read(&fs, 3, "scaling_min_freq")), low);
}

#[test]
fn hwp_dynamic_boost_exists_only_in_active_mode_with_hwp() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    let boost = format!("{INTEL_PSTATE}/hwp_dynamic_boost");
    assert!(names(&fs, INTEL_PSTATE).contains(&"hwp_dynamic_boost".to_owned()));
    put(&fs, &boost, "1").unwrap();
    assert_eq!(get(&fs, &boost).unwrap(), "1\n");
    assert_eq!(put(&fs, &boost, "yes"), Err(libc::EINVAL));
    put(&fs, &format!("{INTEL_PSTATE}/status"), "passive").unwrap();
    assert_eq!(get(&fs, &boost), Err(libc::ENOENT));
    assert_eq!(put(&fs, &boost, "0"), Err(libc::ENOENT));
    assert!(!names(&fs, INTEL_PSTATE).contains(&"hwp_dynamic_boost".to_owned()));
    put(&fs, &format!("{INTEL_PSTATE}/status"), "active").unwrap();
    assert_eq!(get(&fs, &boost).unwrap(), "1\n", "the setting outlives the file");
    // Not in a fixture booted passive until it goes active; never without HWP.
    let passive = KernelFs::mount("tiger-lake-passive", None);
    assert_eq!(get(&passive, &boost), Err(libc::ENOENT));
    put(&passive, &format!("{INTEL_PSTATE}/status"), "active").unwrap();
    assert_eq!(get(&passive, &boost).unwrap(), "0\n");
    let ivy = KernelFs::mount("ivy-bridge-epb", None);
    assert_eq!(get(&ivy, &boost), Err(libc::ENOENT));
}

#[test]
fn the_energy_bias_takes_numbers_and_names() {
    let fs = KernelFs::mount("ivy-bridge-epb", None);
    let epb = "sys/devices/system/cpu/cpu2/power/energy_perf_bias";
    assert_eq!(get(&fs, epb).unwrap(), "6\n");
    for (value, shown) in
        [("balance-power\n", "8\n"), ("performance", "0\n"), ("15", "15\n"), ("0x4", "4\n"), ("normal", "6\n")]
    {
        put(&fs, epb, value).unwrap();
        assert_eq!(get(&fs, epb).unwrap(), shown, "{value:?}");
    }
    for bad in ["16", "-1", "Normal", "performance ", "balance_power", "4x", "\n"] {
        assert_eq!(put(&fs, epb, bad), Err(libc::EINVAL), "{bad:?}");
    }
    assert_eq!(get(&fs, epb).unwrap(), "6\n");
    assert_eq!(fs.hardware()["epb"]["2"], 6);
}

#[test]
fn intel_mode_switches_recreate_the_policies_and_lose_the_epp() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    let status = format!("{INTEL_PSTATE}/status");
    write(&fs, 3, "energy_performance_preference", "100").unwrap();
    write(&fs, 4, "scaling_max_freq", "2000000").unwrap();
    put(&fs, &format!("{INTEL_PSTATE}/no_turbo"), "1").unwrap();
    put(&fs, &status, "passive\n").unwrap();
    assert_eq!(get(&fs, &format!("{INTEL_PSTATE}/no_turbo")).unwrap(), "0\n", "the driver's globals are cleared");
    assert_eq!(get(&fs, &status).unwrap(), "passive\n");
    assert_eq!(read(&fs, 3, "scaling_driver"), "intel_cpufreq\n");
    assert_eq!(read(&fs, 3, "scaling_available_governors"), PASSIVE_GOVERNORS);
    assert_eq!(read(&fs, 3, "scaling_governor"), "schedutil\n");
    assert_eq!(read(&fs, 3, "energy_performance_preference"), "100\n", "passive keeps the driver's EPP");
    assert_eq!(read(&fs, 4, "scaling_max_freq"), "4800000\n", "a new policy has no request");
    // Writing the current mode changes nothing; HWP cannot be switched off.
    write(&fs, 3, "scaling_governor", "ondemand").unwrap();
    put(&fs, &status, "passive").unwrap();
    assert_eq!(read(&fs, 3, "scaling_governor"), "ondemand\n");
    assert_eq!(put(&fs, &status, "off"), Err(libc::EBUSY));
    for bad in ["Passive", " active", "active \n", "on", "\n"] {
        assert_eq!(put(&fs, &status, bad), Err(libc::EINVAL), "{bad:?}");
    }
    put(&fs, &status, "active").unwrap();
    assert_eq!(read(&fs, 3, "scaling_driver"), "intel_pstate\n");
    assert_eq!(read(&fs, 3, "scaling_available_governors"), "performance powersave\n");
    assert_eq!(read(&fs, 3, "scaling_governor"), "powersave\n");
    assert_eq!(read(&fs, 3, "energy_performance_preference"), "balance_performance\n", "lost: the boot value");
    assert_eq!(fs.hardware_epp(3), Some(128));
}

/// A policy file opened before a mode switch belongs to a policy that is
/// gone: it answers ENODEV, although a file of that name exists again.
#[test]
fn a_file_kept_open_across_a_mode_switch_answers_enodev() {
    use std::os::unix::fs::FileExt;
    let fs = KernelFs::mount("meteor-lake-155h", None);
    let kept = fs::OpenOptions::new().read(true).write(true).open(fs.policy(2, "scaling_governor")).unwrap();
    let mut buf = [0u8; 64];
    assert_eq!(kept.read_at(&mut buf, 0).unwrap(), "powersave\n".len());
    put(&fs, &format!("{INTEL_PSTATE}/status"), "passive").unwrap();
    put(&fs, &format!("{INTEL_PSTATE}/status"), "active").unwrap();
    assert_eq!(kept.read_at(&mut buf, 0).unwrap_err().raw_os_error(), Some(libc::ENODEV));
    assert_eq!(kept.write_at(b"powersave", 0).unwrap_err().raw_os_error(), Some(libc::ENODEV));
    // A fresh open reaches the new policy.
    assert_eq!(read(&fs, 2, "scaling_governor"), "powersave\n");
}

#[test]
fn intel_off_removes_the_policies_without_hwp() {
    let fs = KernelFs::mount("ivy-bridge-epb", None);
    let status = format!("{INTEL_PSTATE}/status");
    put(&fs, &status, "off").unwrap();
    assert_eq!(get(&fs, &status).unwrap(), "off\n");
    assert!(names(&fs, "sys/devices/system/cpu/cpufreq").iter().all(|n| !n.starts_with("policy")));
    assert_eq!(get(&fs, &attr(0, "scaling_governor")), Err(libc::ENOENT));
    assert!(!names(&fs, "sys/devices/system/cpu/cpu0").contains(&"cpufreq".to_owned()));
    assert_eq!(get(&fs, &format!("{INTEL_PSTATE}/no_turbo")), Err(libc::EAGAIN));
    assert_eq!(put(&fs, &status, "off"), Err(libc::EINVAL), "already off");
    put(&fs, &status, "active").unwrap();
    assert_eq!(read(&fs, 0, "scaling_driver"), "intel_pstate\n");
    assert_eq!(get(&fs, &format!("{INTEL_PSTATE}/no_turbo")).unwrap(), "0\n");
    assert_eq!(get(&fs, &attr(0, "energy_performance_preference")), Err(libc::ENOENT), "no HWP, no EPP");
}

#[test]
fn amd_mode_switches_take_the_epp_files_away_and_back() {
    let fs = KernelFs::mount("amd-7840hs-epp", None);
    let status = format!("{AMD_PSTATE}/status");
    write(&fs, 2, "energy_performance_preference", "power").unwrap();
    put(&fs, &status, "passive").unwrap();
    assert_eq!(read(&fs, 2, "scaling_driver"), "amd-pstate\n");
    assert_eq!(read(&fs, 2, "scaling_available_governors"), PASSIVE_GOVERNORS);
    assert_eq!(read(&fs, 2, "scaling_governor"), "schedutil\n");
    assert_eq!(get(&fs, &attr(2, "energy_performance_preference")), Err(libc::ENOENT));
    assert_eq!(write(&fs, 2, "energy_performance_preference", "power"), Err(libc::ENOENT));
    assert!(!names(&fs, &attr(2, "")).iter().any(|n| n.starts_with("energy_performance")));
    assert_eq!(fs.hardware_epp(2), None);
    // passive <-> guided keeps the driver: nothing is recreated.
    write(&fs, 2, "scaling_governor", "ondemand").unwrap();
    put(&fs, &status, "guided\n").unwrap();
    assert_eq!(get(&fs, &status).unwrap(), "guided\n");
    assert_eq!(read(&fs, 2, "scaling_driver"), "amd-pstate\n");
    assert_eq!(read(&fs, 2, "scaling_governor"), "ondemand\n");
    assert_eq!(put(&fs, &status, "turbo"), Err(libc::EINVAL));
    put(&fs, &status, "active").unwrap();
    assert_eq!(read(&fs, 2, "scaling_driver"), "amd-pstate-epp\n");
    assert_eq!(read(&fs, 2, "scaling_governor"), "powersave\n");
    assert_eq!(read(&fs, 2, "energy_performance_preference"), "balance_performance\n", "the boot value");
    put(&fs, &status, "active").unwrap();
    // A fixture booted passive gets the files when the driver goes active.
    let passive = KernelFs::mount("amd-5900x-passive", None);
    assert_eq!(get(&passive, &attr(0, "energy_performance_preference")), Err(libc::ENOENT));
    passive.firmware("mode active");
    assert_eq!(get(&passive, &format!("{AMD_PSTATE}/status")).unwrap(), "active\n");
    assert_eq!(read(&passive, 0, "energy_performance_preference"), "balance_performance\n");
    assert_eq!(read(&passive, 0, "scaling_available_governors"), "performance powersave\n");
    write(&passive, 0, "energy_performance_preference", "power").unwrap();
    assert_eq!(passive.hardware_epp(0), Some(255));
}

/// A fixture copy with a legacy-only platform profile (before 6.14).
fn legacy_profile(root: &Path) {
    let acpi = root.join("sys/firmware/acpi");
    fs::create_dir_all(&acpi).unwrap();
    fs::write(acpi.join("platform_profile"), "balanced\n").unwrap();
    fs::write(acpi.join("platform_profile_choices"), "performance low-power balanced\n").unwrap();
}

#[test]
fn the_legacy_platform_profile() {
    let fs = KernelFs::mount_with("meteor-lake-155h", None, legacy_profile);
    let profile = "sys/firmware/acpi/platform_profile";
    assert_eq!(get(&fs, &format!("{profile}_choices")).unwrap(), "low-power balanced performance\n");
    put(&fs, profile, "performance\n").unwrap();
    assert_eq!(get(&fs, profile).unwrap(), "performance\n");
    // A known name the platform does not offer, and an unknown word.
    assert_eq!(put(&fs, profile, "quiet"), Err(libc::EOPNOTSUPP));
    assert_eq!(put(&fs, profile, "custom"), Err(libc::EOPNOTSUPP));
    for bad in ["turbo", " balanced", "balanced \n", "Balanced"] {
        assert_eq!(put(&fs, profile, bad), Err(libc::EINVAL), "{bad:?}");
    }
    assert_eq!(get(&fs, profile).unwrap(), "performance\n");
    fs.firmware("platform-profile low-power");
    assert_eq!(get(&fs, profile).unwrap(), "low-power\n");
    assert_eq!(put(&fs, &format!("{profile}_choices"), "quiet"), Err(libc::EACCES));
}

/// Two platform profile handlers (6.14+), class entries linking to devices.
fn two_handlers(root: &Path) {
    legacy_profile(root);
    for (n, name, parent, choices) in [
        (0, "thinkpad", "thinkpad_acpi", "low-power balanced performance"),
        (1, "amd-pmf", "AMDI0102:00", "quiet balanced performance low-power"),
    ] {
        let below = format!("devices/platform/{parent}/platform-profile/platform-profile-{n}");
        let device = root.join(format!("sys/{below}"));
        fs::create_dir_all(&device).unwrap();
        fs::write(device.join("name"), format!("{name}\n")).unwrap();
        fs::write(device.join("choices"), format!("{choices}\n")).unwrap();
        fs::write(device.join("profile"), "balanced\n").unwrap();
        let class = root.join("sys/class/platform-profile");
        fs::create_dir_all(&class).unwrap();
        std::os::unix::fs::symlink(format!("../../{below}"), class.join(format!("platform-profile-{n}"))).unwrap();
    }
}

#[test]
fn platform_profile_handlers_and_the_legacy_file() {
    let fs = KernelFs::mount_with("meteor-lake-155h", None, two_handlers);
    let legacy = "sys/firmware/acpi/platform_profile";
    let class = |n: u32, file: &str| format!("sys/class/platform-profile/platform-profile-{n}/{file}");
    let device = |n: u32| {
        let parent = ["thinkpad_acpi", "AMDI0102:00"][n as usize];
        format!("sys/devices/platform/{parent}/platform-profile/platform-profile-{n}/profile")
    };
    assert_eq!(get(&fs, &format!("{legacy}_choices")).unwrap(), "low-power balanced performance\n", "all offer");
    assert_eq!(get(&fs, &class(1, "choices")).unwrap(), "low-power quiet balanced performance\n");
    assert_eq!(get(&fs, &class(1, "name")).unwrap(), "amd-pmf\n");
    // The legacy file writes every handler.
    put(&fs, legacy, "performance").unwrap();
    assert_eq!(get(&fs, &class(0, "profile")).unwrap(), "performance\n");
    assert_eq!(get(&fs, &device(1)).unwrap(), "performance\n");
    assert_eq!(put(&fs, legacy, "quiet"), Err(libc::EOPNOTSUPP), "one handler lacks it");
    assert_eq!(put(&fs, legacy, "custom"), Err(libc::EINVAL));
    // One handler alone: the legacy file shows that they disagree.
    put(&fs, &class(1, "profile"), "quiet\n").unwrap();
    assert_eq!(get(&fs, &device(1)).unwrap(), "quiet\n");
    assert_eq!(get(&fs, legacy).unwrap(), "custom\n");
    assert_eq!(put(&fs, &class(0, "profile"), "quiet"), Err(libc::EOPNOTSUPP));
    assert_eq!(put(&fs, &class(0, "profile"), "custom"), Err(libc::EOPNOTSUPP));
    assert_eq!(put(&fs, &class(0, "profile"), "turbo"), Err(libc::EINVAL));
    fs.firmware("platform-profile balanced platform-profile-1");
    assert_eq!(get(&fs, legacy).unwrap(), "custom\n");
    fs.firmware("platform-profile balanced");
    assert_eq!(get(&fs, legacy).unwrap(), "balanced\n");
}

#[test]
fn resume_resets_the_hardware_epp_but_not_the_text() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    for policy in [0, 3, 5] {
        write(&fs, policy, "energy_performance_preference", "100").unwrap();
    }
    fs.firmware("resume");
    assert_eq!(read(&fs, 3, "energy_performance_preference"), "100\n");
    assert_eq!(fs.hardware_epp(3), Some(0x80));
    assert_eq!(fs.hardware_epp(0), Some(100), "the boot CPU keeps it");
    assert_eq!(fs.hardware()["policies"]["3"]["governor"], "powersave");
    // Any valid write sets the register again, the same value too.
    write(&fs, 3, "energy_performance_preference", "100").unwrap();
    assert_eq!(fs.hardware_epp(3), Some(100));
    // So does a policy change: the driver writes the whole request again.
    fs.firmware("resume");
    write(&fs, 5, "scaling_governor", "powersave").unwrap();
    assert_eq!(fs.hardware_epp(5), Some(100));
    assert_eq!(fs.hardware_epp(3), Some(0x80));
    write(&fs, 3, "scaling_max_freq", "3000000").unwrap();
    assert_eq!(fs.hardware_epp(3), Some(100));
}

#[test]
fn passive_mode_keeps_a_cached_value_and_ignores_the_governor() {
    let fs = KernelFs::mount("tiger-lake-passive", None);
    write(&fs, 1, "scaling_governor", "performance").unwrap();
    write(&fs, 1, "energy_performance_preference", "100").unwrap();
    assert_eq!(read(&fs, 1, "energy_performance_preference"), "100\n", "no EBUSY in passive mode");
    fs.firmware("resume");
    // intel_cpufreq skips a write of the value it has cached.
    write(&fs, 1, "energy_performance_preference", "100").unwrap();
    assert_eq!(fs.hardware_epp(1), Some(0x80));
    write(&fs, 1, "energy_performance_preference", "101").unwrap();
    assert_eq!(fs.hardware_epp(1), Some(101));
}

#[test]
fn firmware_sets_the_epp_on_every_active_policy_or_the_named_ones() {
    let fs = KernelFs::mount("kaby-lake-offline", None);
    fs.firmware("firmware-epp 115");
    for policy in 0..4 {
        assert_eq!(read(&fs, policy, "energy_performance_preference"), "115\n");
        assert_eq!(fs.hardware_epp(policy), Some(115));
    }
    assert_eq!(fs.hardware_epp(5), Some(0xff), "an offline CPU's request");
    fs.firmware("firmware-epp power 2 3\n");
    assert_eq!(read(&fs, 1, "energy_performance_preference"), "115\n");
    assert_eq!(read(&fs, 3, "energy_performance_preference"), "power\n");
}

#[test]
fn hotplug_from_the_control_file_and_the_online_file() {
    let fs = KernelFs::mount("kaby-lake-offline", None);
    write(&fs, 1, "energy_performance_preference", "100").unwrap();
    fs.firmware("offline 1");
    assert_eq!(get(&fs, "sys/devices/system/cpu/cpu1/online").unwrap(), "0\n");
    assert_eq!(get(&fs, "sys/devices/system/cpu/online").unwrap(), "0,2-3\n");
    assert_eq!(get(&fs, "sys/devices/system/cpu/offline").unwrap(), "1,4-7\n");
    assert_eq!(write(&fs, 1, "energy_performance_preference", "power"), Err(libc::EBUSY));
    assert_eq!(fs.hardware_epp(1), Some(0xff));
    fs.firmware("online 1");
    assert_eq!(read(&fs, 1, "energy_performance_preference"), "100\n", "online keeps the EPP");
    assert_eq!(fs.hardware_epp(1), Some(100));
    // The online file does the same.
    put(&fs, "sys/devices/system/cpu/cpu5/online", "1\n").unwrap();
    assert_eq!(read(&fs, 5, "scaling_governor"), "powersave\n");
    assert_eq!(get(&fs, "sys/devices/system/cpu/offline").unwrap(), "4,6-7\n");
    assert_eq!(put(&fs, "sys/devices/system/cpu/cpu5/online", "maybe"), Err(libc::EINVAL));
}

#[test]
fn the_control_file_refuses_what_it_does_not_know() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    assert_eq!(names(&fs, "kernelfs"), ["control", "hardware"]);
    for bad in [
        "bogus",
        "\n",
        "resume now",
        "firmware-epp 300",
        "firmware-epp eco",
        "firmware-epp 5 99",
        "offline 0",
        "offline x",
        "mode sideways",
        "platform-profile quiet",
        "resume\nresume",
    ] {
        assert_eq!(put(&fs, "kernelfs/control", bad), Err(libc::EINVAL), "{bad:?}");
    }
    assert_eq!(put(&fs, "kernelfs/control", "mode off"), Err(libc::EBUSY), "the driver's own answer");
    assert_eq!(get(&fs, "kernelfs/control").unwrap(), "");
    fs.firmware("mode passive");
    assert_eq!(get(&fs, &format!("{INTEL_PSTATE}/status")).unwrap(), "passive\n");
    assert_eq!(read(&fs, 0, "scaling_driver"), "intel_cpufreq\n");
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
        // 22 EPP files, the energy bias beside each (power-profiles-daemon's
        // companion: 15 for power) and the ThinkPad's platform profile.
        assert_eq!(summary.changed, 45, "{summary:?}");
        assert_eq!(kernel.hardware()["epb"]["3"], 15);
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
            Err(err) if err.cause() == Some(gearshift::dbus::error::Cause::EppBusy) => match err.plain() {
                HelperError::Unsupported(text) => assert!(text.contains("performance governor"), "{text}"),
                other => panic!("expected Unsupported, got {other:?}"),
            },
            other => panic!("expected a refusal before the kernel's EBUSY, with its cause, got {other:?}"),
        }
        runtime.block_on(proxy.set_governor(&[5], "powersave")).unwrap();
        assert_eq!(read(&kernel, 5, "energy_performance_preference"), "64\n");
    }
    helper.stop();
    drop(kernel);
}

/// A class device's file, by its class path (a link) or its device path.
fn class(n: u32, file: &str) -> String {
    format!("sys/class/platform-profile/platform-profile-{n}/{file}")
}

/// A class device's file by its device path: below the device of its
/// driver (`parent`, under `sys/devices/platform`), as the kernel registers it.
fn device(parent: &str, n: u32, file: &str) -> String {
    format!("sys/devices/platform/{parent}/platform-profile/platform-profile-{n}/{file}")
}

/// The HX 370 fixture's handlers' devices: asus-wmi's and amd-pmf's.
const ASUS: &str = "asus-nb-wmi";
const PMF: &str = "AMDI0105:00";

/// The labels of what a watch saw, once each, sorted.
fn once_each(mut events: Vec<String>) -> Vec<String> {
    events.sort();
    events.dedup();
    events
}

/// Labels, sorted (what [`once_each`] gives).
fn set(labels: &[&str]) -> Vec<String> {
    once_each(labels.iter().map(|l| (*l).to_owned()).collect())
}

#[test]
fn a_hotkey_notifies_the_legacy_platform_profile() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    let mut watch = Watch::new(&fs, &[LEGACY, LEGACY_CHOICES]);
    fs.firmware("platform-profile performance");
    assert_eq!(watch.events(&[LEGACY], NOTIFIED, GRACE), [LEGACY]);
    assert_eq!(get(&fs, LEGACY).unwrap(), "performance\n");
    // platform_profile_notify() notifies whether or not the name changed.
    fs.firmware("platform-profile performance");
    assert_eq!(watch.events(&[LEGACY], NOTIFIED, GRACE), [LEGACY]);
    // A store (before 6.14 nothing else is notified); a refused one is no event.
    put(&fs, LEGACY, "low-power").unwrap();
    assert_eq!(watch.events(&[LEGACY], NOTIFIED, GRACE), [LEGACY]);
    assert_eq!(put(&fs, LEGACY, "quiet"), Err(libc::EOPNOTSUPP));
    assert_eq!(watch.events(&[], GRACE, GRACE), Vec::<String>::new());
    assert_eq!(get(&fs, LEGACY).unwrap(), "low-power\n");
}

#[test]
fn hotkeys_and_stores_notify_the_class_devices_and_the_legacy_file() {
    let fs = KernelFs::mount("amd-hx370-platform-class", None);
    // Class device 0 by its class path (inotify follows the link), 1 by its device path.
    let (asus, pmf) = (class(0, "profile"), device(PMF, 1, "profile"));
    let mut watch = Watch::new(&fs, &[LEGACY, &asus, &pmf, &class(1, "profile")]);
    // A hotkey of one driver: its class device and the legacy file.
    fs.firmware("platform-profile quiet asus-wmi");
    assert_eq!(once_each(watch.events(&[LEGACY, &asus], NOTIFIED, GRACE)), set(&[LEGACY, &asus]));
    assert_eq!(get(&fs, LEGACY).unwrap(), "custom\n");
    fs.firmware("platform-profile performance platform-profile-1");
    assert_eq!(once_each(watch.events(&[LEGACY, &pmf], NOTIFIED, GRACE)), set(&[LEGACY, &pmf]));
    // platform_profile_cycle(), a hotkey of every driver: all of them.
    fs.firmware("platform-profile balanced");
    assert_eq!(once_each(watch.events(&[LEGACY, &asus, &pmf], NOTIFIED, GRACE)), set(&[LEGACY, &asus, &pmf]));
    // A store to a class device notifies the legacy file (the write is its own event).
    put(&fs, &pmf, "low-power").unwrap();
    assert_eq!(once_each(watch.events(&[LEGACY, &pmf], NOTIFIED, GRACE)), set(&[LEGACY, &pmf]));
    // A store to the legacy file notifies every class device.
    put(&fs, LEGACY, "performance\n").unwrap();
    assert_eq!(once_each(watch.events(&[LEGACY, &asus, &pmf], NOTIFIED, GRACE)), set(&[LEGACY, &asus, &pmf]));
    assert_eq!(get(&fs, &device(ASUS, 0, "profile")).unwrap(), "performance\n");
    assert_eq!(get(&fs, &class(1, "profile")).unwrap(), "performance\n");
    // Refused commands and stores notify nothing.
    assert_eq!(put(&fs, "kernelfs/control", "platform-profile low-power asus-wmi"), Err(libc::EINVAL));
    assert_eq!(put(&fs, "kernelfs/control", "platform-profile quiet nobody"), Err(libc::EINVAL));
    // amd-pmf takes `quiet` as a hidden choice (6.14): not asus-wmi's
    // missing low-power, which the legacy file refuses.
    assert_eq!(put(&fs, LEGACY, "low-power"), Err(libc::EOPNOTSUPP));
    assert_eq!(watch.events(&[], GRACE, GRACE), Vec::<String>::new());
}

/// The emulator's own writes (the notifications) change nothing: not the
/// state, not the tree; anyone else's `\n` is still refused.
#[test]
fn notifications_change_nothing() {
    let fs = KernelFs::mount("amd-hx370-platform-class", None);
    let mut watch = Watch::new(&fs, &[LEGACY, &class(0, "profile"), &class(1, "profile")]);
    fs.firmware("platform-profile quiet platform-profile-0");
    // Had the `\n` been stored it would be EINVAL, and a failed write is no IN_MODIFY.
    assert_eq!(watch.events(&[LEGACY, &class(0, "profile")], NOTIFIED, GRACE).len(), 2);
    assert_eq!(get(&fs, &class(0, "profile")).unwrap(), "quiet\n");
    assert_eq!(get(&fs, &class(1, "profile")).unwrap(), "balanced\n");
    assert_eq!(get(&fs, LEGACY).unwrap(), "custom\n");
    // amd-pmf's hidden `quiet` counts for the legacy file (6.14).
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "quiet balanced performance\n");
    for rel in [LEGACY.to_owned(), device(ASUS, 0, "profile")] {
        assert_eq!(put(&fs, &rel, "\n"), Err(libc::EINVAL), "{rel}");
    }
    let backing = |rel: &str| fs::read_to_string(fs.backing.path().join(rel)).unwrap();
    assert_eq!(backing(LEGACY), "balanced\n", "the tree is never written");
    assert_eq!(backing(&device(ASUS, 0, "profile")), "balanced\n");
    // The lap sensor's file is read-only: the notification opens it anyway, no one else can.
    let thinkpad = KernelFs::mount("meteor-lake-155h", None);
    let mut lap = Watch::new(&thinkpad, &[LAPMODE]);
    thinkpad.firmware("lap-mode 1");
    assert_eq!(lap.events(&[LAPMODE], NOTIFIED, GRACE), [LAPMODE]);
    assert_eq!(get(&thinkpad, LAPMODE).unwrap(), "1\n");
    assert_eq!(put(&thinkpad, LAPMODE, "\n"), Err(libc::EACCES));
}

#[test]
fn the_lap_sensor_is_read_only_and_notified_when_it_changes() {
    let fs = KernelFs::mount("meteor-lake-155h", None);
    let on_device = "sys/devices/platform/thinkpad_acpi/dytc_lapmode";
    assert_eq!(get(&fs, LAPMODE).unwrap(), "0\n");
    // A 0444 attribute: sysfs refuses to open it for writing, root too.
    for value in ["1", "0\n"] {
        assert_eq!(put(&fs, LAPMODE, value), Err(libc::EACCES));
    }
    // A watch on the device's directory reports its files too (the bus path is a link to it).
    let mut watch = Watch::new(&fs, &[LAPMODE, "sys/bus/platform/devices/thinkpad_acpi"]);
    fs.firmware("lap-mode 1");
    assert_eq!(once_each(watch.events(&[LAPMODE, "sys/bus/platform/devices/thinkpad_acpi"], NOTIFIED, GRACE)).len(), 2);
    assert_eq!(get(&fs, on_device).unwrap(), "1\n");
    // lapsensor_refresh() notifies a change only.
    fs.firmware("lap-mode 1\n");
    assert_eq!(watch.events(&[], GRACE, GRACE), Vec::<String>::new());
    fs.firmware("lap-mode 0");
    assert!(watch.events(&[LAPMODE], NOTIFIED, GRACE).contains(&LAPMODE.to_owned()));
    assert_eq!(get(&fs, LAPMODE).unwrap(), "0\n");
    for bad in ["lap-mode", "lap-mode 2", "lap-mode on", "lap-mode 1 1"] {
        assert_eq!(put(&fs, "kernelfs/control", bad), Err(libc::EINVAL), "{bad:?}");
    }
    // Only where the tree has the sensor.
    let other = KernelFs::mount("amd-hx370-platform-class", None);
    assert_eq!(put(&other, "kernelfs/control", "lap-mode 1"), Err(libc::EINVAL));
    assert_eq!(get(&other, "sys/devices/platform/thinkpad_acpi/dytc_lapmode"), Err(libc::ENOENT));
}

/// Before 6.14 a driver that loads late creates the legacy files; there is
/// one handler at most.
#[test]
fn a_legacy_platform_profile_driver_loads_late() {
    let fs = KernelFs::mount("vm-no-cpufreq", None);
    assert_eq!(get(&fs, LEGACY), Err(libc::ENOENT));
    assert!(!names(&fs, "sys").contains(&"firmware".to_owned()));
    for bad in [
        "load-platform-profile legacy turbo,balanced balanced",
        "load-platform-profile legacy quiet,balanced performance",
        "load-platform-profile legacy balanced",
        "load-platform-profile class thinkpad_acpi balanced balanced",
        "load-platform-profile other balanced balanced",
        "unload-platform-profile legacy",
    ] {
        assert_eq!(put(&fs, "kernelfs/control", bad), Err(libc::EINVAL), "{bad:?}");
    }
    fs.firmware("load-platform-profile legacy performance,low-power,balanced balanced");
    assert_eq!(names(&fs, "sys/firmware/acpi"), ["platform_profile", "platform_profile_choices"]);
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "low-power balanced performance\n", "the kernel's order");
    assert_eq!(get(&fs, LEGACY).unwrap(), "balanced\n");
    assert_eq!(put(&fs, "kernelfs/control", "load-platform-profile legacy balanced balanced"), Err(libc::EEXIST));
    // The files are the kernel's: they take names, refuse others, and notify.
    put(&fs, LEGACY, "performance").unwrap();
    assert_eq!(put(&fs, LEGACY, "quiet"), Err(libc::EOPNOTSUPP));
    assert_eq!(put(&fs, LEGACY_CHOICES, "quiet"), Err(libc::EACCES));
    let mut watch = Watch::new(&fs, &[LEGACY]);
    fs.firmware("platform-profile low-power");
    assert_eq!(watch.events(&[LEGACY], NOTIFIED, GRACE), [LEGACY]);
    // The kernel made the directory: nothing can be created in it.
    assert_eq!(fs::write(fs.path("sys/firmware/acpi/other"), "x").unwrap_err().raw_os_error(), Some(libc::EACCES));
    drop(watch);
    // The driver goes, and its files with it.
    fs.firmware("unload-platform-profile legacy");
    assert_eq!(get(&fs, LEGACY), Err(libc::ENOENT));
    assert_eq!(names(&fs, "sys/firmware/acpi"), Vec::<String>::new());
    fs.firmware("load-platform-profile legacy quiet,balanced quiet");
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "quiet balanced\n");
}

/// A 6.14 kernel: the VM of `vm-no-cpufreq` with class devices.
fn kernel_6_14(root: &Path) {
    fs::write(root.join("proc/sys/kernel/osrelease"), "6.14.0-15-generic\n").unwrap();
}

/// Since 6.14 a driver that loads late registers a class device; the legacy
/// files show what all handlers offer, from the first one on.
#[test]
fn class_platform_profile_drivers_load_late() {
    let fs = KernelFs::mount_with("vm-no-cpufreq", None, kernel_6_14);
    assert_eq!(get(&fs, LEGACY), Err(libc::ENOENT));
    assert_eq!(put(&fs, "kernelfs/control", "load-platform-profile legacy balanced balanced"), Err(libc::EINVAL));
    fs.firmware("load-platform-profile class thinkpad_acpi performance,balanced,low-power balanced");
    // The class device, the class's link to it, then the legacy files.
    assert_eq!(names(&fs, "sys/class/platform-profile"), ["platform-profile-0"]);
    let link = fs::read_link(fs.path("sys/class/platform-profile/platform-profile-0")).unwrap();
    // Below the driver's device, as platform_profile_register() puts it.
    assert_eq!(link, Path::new("../../devices/platform/thinkpad_acpi/platform-profile/platform-profile-0"));
    assert_eq!(
        names(&fs, "sys/devices/platform/thinkpad_acpi/platform-profile/platform-profile-0"),
        ["choices", "name", "profile"]
    );
    assert_eq!(get(&fs, &class(0, "name")).unwrap(), "thinkpad_acpi\n");
    assert_eq!(get(&fs, &class(0, "choices")).unwrap(), "low-power balanced performance\n");
    assert_eq!(get(&fs, &device("thinkpad_acpi", 0, "profile")).unwrap(), "balanced\n");
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "low-power balanced performance\n");
    assert_eq!(get(&fs, LEGACY).unwrap(), "balanced\n");
    assert_eq!(put(&fs, &class(0, "name"), "other"), Err(libc::EACCES));
    assert_eq!(
        fs::remove_file(fs.path(&device("thinkpad_acpi", 0, "name"))).unwrap_err().raw_os_error(),
        Some(libc::EPERM)
    );
    // A second driver: the lowest free minor; the legacy file (there now) is notified.
    let mut watch = Watch::new(&fs, &[LEGACY, &class(0, "profile")]);
    fs.firmware("load-platform-profile class amd-pmf quiet,balanced,performance performance");
    assert_eq!(watch.events(&[LEGACY], NOTIFIED, GRACE), [LEGACY]);
    assert_eq!(names(&fs, "sys/class/platform-profile"), ["platform-profile-0", "platform-profile-1"]);
    assert_eq!(get(&fs, &class(1, "name")).unwrap(), "amd-pmf\n");
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "balanced performance\n");
    assert_eq!(get(&fs, LEGACY).unwrap(), "custom\n");
    put(&fs, LEGACY, "balanced").unwrap();
    assert_eq!(get(&fs, &class(1, "profile")).unwrap(), "balanced\n");
    assert_eq!(
        once_each(watch.events(&[LEGACY, &class(0, "profile")], NOTIFIED, GRACE)),
        set(&[LEGACY, &class(0, "profile")])
    );
    let mut pmf = Watch::new(&fs, &[&class(1, "profile")]);
    fs.firmware("platform-profile quiet amd-pmf");
    assert_eq!(pmf.events(&[&class(1, "profile")], NOTIFIED, GRACE), [class(1, "profile")]);
    assert_eq!(watch.events(&[LEGACY], NOTIFIED, GRACE), [LEGACY]);
    // The first goes: its minor is free again; the legacy file shows the other's choices.
    fs.firmware("unload-platform-profile platform-profile-0");
    assert_eq!(watch.events(&[LEGACY], NOTIFIED, GRACE), [LEGACY]);
    assert_eq!(names(&fs, "sys/class/platform-profile"), ["platform-profile-1"]);
    assert_eq!(get(&fs, &device("thinkpad_acpi", 0, "profile")), Err(libc::ENOENT));
    // Alone, amd-pmf's legacy choices include its hidden ones (6.14).
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "quiet balanced balanced-performance performance\n");
    assert_eq!(get(&fs, LEGACY).unwrap(), "quiet\n");
    fs.firmware("load-platform-profile class ideapad_laptop low-power,quiet,balanced,performance quiet");
    assert_eq!(get(&fs, &class(0, "name")).unwrap(), "ideapad_laptop\n");
    // The last one takes the legacy files away.
    fs.firmware("unload-platform-profile amd-pmf");
    fs.firmware("unload-platform-profile platform-profile-0");
    assert_eq!(names(&fs, "sys/class/platform-profile"), Vec::<String>::new());
    assert_eq!(get(&fs, LEGACY), Err(libc::ENOENT));
    assert_eq!(get(&fs, LEGACY_CHOICES), Err(libc::ENOENT));
    assert_eq!(put(&fs, "kernelfs/control", "unload-platform-profile amd-pmf"), Err(libc::EINVAL));
}

/// A driver that loads after the fixture's two, and one of the fixture's
/// that goes and comes back.
#[test]
fn a_third_handler_and_a_fixture_handler_that_goes() {
    let fs = KernelFs::mount("amd-hx370-platform-class", None);
    assert_eq!(get(&fs, &class(0, "name")).unwrap(), "asus-wmi\n");
    assert_eq!(put(&fs, &class(0, "name"), "x"), Err(libc::EACCES), "modelled: read-only");
    fs.firmware("load-platform-profile class thinkpad_acpi low-power,balanced low-power");
    assert_eq!(
        names(&fs, "sys/class/platform-profile"),
        ["platform-profile-0", "platform-profile-1", "platform-profile-2"]
    );
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "balanced\n");
    assert_eq!(get(&fs, LEGACY).unwrap(), "custom\n");
    fs.firmware("unload-platform-profile asus-wmi");
    assert_eq!(names(&fs, "sys/class/platform-profile"), ["platform-profile-1", "platform-profile-2"]);
    assert_eq!(names(&fs, &format!("sys/devices/platform/{ASUS}/platform-profile")), Vec::<String>::new());
    assert_eq!(names(&fs, &format!("sys/devices/platform/{PMF}/platform-profile")), ["platform-profile-1"]);
    assert_eq!(names(&fs, "sys/devices/platform/thinkpad_acpi/platform-profile"), ["platform-profile-2"]);
    assert_eq!(get(&fs, &device(ASUS, 0, "choices")), Err(libc::ENOENT));
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "low-power balanced\n");
    fs.firmware("load-platform-profile class asus-wmi quiet,performance quiet");
    assert_eq!(get(&fs, &class(0, "choices")).unwrap(), "quiet performance\n");
    assert_eq!(get(&fs, &class(0, "profile")).unwrap(), "quiet\n");
    assert_eq!(
        fs::read_to_string(fs.backing.path().join(device(ASUS, 0, "choices"))).unwrap(),
        "quiet balanced performance\n"
    );
}

/// The RAPL counters count at the power model's rate for the EPP the
/// hardware holds (kernelfs.py: 0.25 W per CPU plus up to 1 W more the
/// faster its EPP), psys above the package, the cores below it.
#[test]
fn energy_counters_follow_the_epp() {
    let fs = KernelFs::mount("meteor-lake-155h", Some(MTL_611));
    let package = "sys/class/powercap/intel-rapl:0/energy_uj";
    let read = |rel: &str| get(&fs, rel).unwrap().trim().parse::<u64>().unwrap();
    let rate = |epp: &str| {
        for policy in 0..22 {
            write(&fs, policy, "energy_performance_preference", epp).unwrap();
        }
        let (e0, t0) = (read(package), std::time::Instant::now());
        std::thread::sleep(std::time::Duration::from_millis(400));
        let (e1, t1) = (read(package), std::time::Instant::now());
        e1.wrapping_sub(e0) as f64 / 1e6 / (t1 - t0).as_secs_f64()
    };
    let fast = rate("0");
    let slow = rate("255");
    // 22 CPUs: 27.5 W at EPP 0, 5.5 W at EPP 255.
    assert!((fast - 27.5).abs() < 2.0, "{fast} W at EPP 0");
    assert!((slow - 5.5).abs() < 0.5, "{slow} W at EPP 255");
    // The snapshot has no energy_uj (root-only on a real machine): the
    // counters start at 0, the cores below the package, psys above it.
    let core = read("sys/class/powercap/intel-rapl:0:0/energy_uj");
    let pkg = read(package);
    let psys = read("sys/class/powercap/intel-rapl:1/energy_uj");
    assert!(0 < core && core < pkg && pkg < psys, "{core} {pkg} {psys}");
    assert!(names(&fs, "sys/class/powercap/intel-rapl:0").contains(&"energy_uj".to_owned()));
}

/// A counter wraps at its max_energy_range_uj, as RAPL's do.
#[test]
fn energy_counters_wrap_at_their_range() {
    let fs = KernelFs::mount_with("meteor-lake-155h", Some(MTL_611), |root| {
        let zone = root.join("sys/class/powercap/intel-rapl:0");
        fs::write(zone.join("max_energy_range_uj"), "3000000\n").unwrap();
        fs::write(zone.join("energy_uj"), "2990000\n").unwrap();
    });
    let package = "sys/class/powercap/intel-rapl:0/energy_uj";
    let read = || get(&fs, package).unwrap().trim().parse::<u64>().unwrap();
    let mut seen = vec![read()];
    for _ in 0..8 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        seen.push(read());
    }
    assert!(seen.iter().all(|v| *v <= 3_000_000), "{seen:?}");
    assert!(seen.windows(2).any(|w| w[1] < w[0]), "never wrapped: {seen:?}");
}

#[test]
fn a_charge_type_takes_the_kernels_names_that_its_driver_can_do() {
    let fs = KernelFs::mount("alder-lake-1260p-iphone", None);
    let phone = "sys/class/power_supply/apple_mfi_fastcharge/charge_type";
    assert_eq!(get(&fs, phone).unwrap(), "Fast\n");
    assert_eq!(put(&fs, phone, "Trickle"), Ok(()));
    assert_eq!(get(&fs, phone).unwrap(), "Trickle\n");
    // A name of the kernel's that apple-mfi-fastcharge cannot do, a name in
    // the wrong case, and no name: EINVAL, nothing changed.
    for wrong in ["Standard", "fast", "Fastest", "\n"] {
        assert_eq!(put(&fs, phone, wrong), Err(libc::EINVAL), "{wrong:?}");
    }
    assert_eq!(put(&fs, phone, "Fast\n"), Ok(()), "one trailing newline is allowed");
    assert_eq!(get(&fs, phone).unwrap(), "Fast\n");
}

#[test]
fn charge_types_brackets_the_current_type_and_takes_only_what_it_lists() {
    let fs = KernelFs::mount_with("alder-lake-1260p-iphone", None, |root| {
        let dir = root.join("sys/class/power_supply/apple_mfi_fastcharge/");
        fs::write(dir.join("charge_types"), "Standard [Fast] Custom\n").unwrap();
    });
    let dir = "sys/class/power_supply/apple_mfi_fastcharge";
    assert_eq!(put(&fs, &format!("{dir}/charge_type"), "Custom"), Ok(()));
    assert_eq!(get(&fs, &format!("{dir}/charge_types")).unwrap(), "Standard Fast [Custom]\n");
    assert_eq!(put(&fs, &format!("{dir}/charge_types"), "Trickle"), Err(libc::EINVAL));
    assert_eq!(put(&fs, &format!("{dir}/charge_types"), "Standard"), Ok(()));
    assert_eq!(get(&fs, &format!("{dir}/charge_type")).unwrap(), "Standard\n");
}

#[test]
fn the_panels_power_savings_take_0_to_4() {
    let fs = KernelFs::mount("amd-7840hs-epp", None);
    let panel = "sys/class/drm/card1-eDP-1/amdgpu/panel_power_savings";
    assert_eq!(get(&fs, panel).unwrap(), "0\n");
    assert_eq!(put(&fs, panel, "3"), Ok(()));
    assert_eq!(put(&fs, panel, "0x2\n"), Ok(()), "kstrtol() with base 0");
    assert_eq!(get(&fs, panel).unwrap(), "2\n");
    for wrong in ["5", "-1", "two", "1 "] {
        assert_eq!(put(&fs, panel, wrong), Err(libc::EINVAL), "{wrong:?}");
    }
    assert_eq!(get(&fs, panel).unwrap(), "2\n");
    // Only eDP connectors have the amdgpu group.
    assert_eq!(get(&fs, "sys/class/drm/card1-DP-1/amdgpu/panel_power_savings"), Err(libc::ENOENT));
}

#[test]
fn the_gpus_level_is_matched_by_its_first_letters() {
    let fs = KernelFs::mount("amd-7840hs-epp", None);
    let level = "sys/class/drm/card1/device/power_dpm_force_performance_level";
    assert_eq!(get(&fs, level).unwrap(), "auto\n");
    assert_eq!(put(&fs, level, "low"), Ok(()));
    assert_eq!(get(&fs, level).unwrap(), "low\n");
    // strncmp() with the word's length: what follows a known word is ignored.
    assert_eq!(put(&fs, level, "manualx"), Ok(()));
    assert_eq!(get(&fs, level).unwrap(), "manual\n");
    assert_eq!(put(&fs, level, "lo"), Err(libc::EINVAL));
    assert_eq!(put(&fs, level, "Auto"), Err(libc::EINVAL));
    assert_eq!(get(&fs, level).unwrap(), "manual\n");
}

/// Linux 7.1's amd-pstate: a number written reads back as the number (even
/// 128), `custom` is offered but not taken; with dynamic EPP every EPP
/// write is EBUSY, each CPU has a platform profile of its own that sets
/// its EPP, and the balanced value follows the charger.
#[test]
fn amd_pstate_7_1_raw_and_dynamic_epp() {
    let fs = KernelFs::mount("amd-ai300-7.1", None);
    let epp = "energy_performance_preference";
    assert!(read(&fs, 0, "energy_performance_available_preferences").trim_end().ends_with(" custom"));
    write(&fs, 0, epp, "128").unwrap();
    assert_eq!(read(&fs, 0, epp), "128\n", "a number reads back as the number");
    write(&fs, 0, epp, "0x40").unwrap();
    assert_eq!(read(&fs, 0, epp), "64\n");
    write(&fs, 0, epp, "balance_performance").unwrap();
    assert_eq!(read(&fs, 0, epp), "balance_performance\n");
    for bad in ["custom", "256", "-1"] {
        assert_eq!(write(&fs, 0, epp, bad), Err(libc::EINVAL), "{bad}");
    }
    assert_eq!(get(&fs, &format!("{AMD_PSTATE}/dynamic_epp")).unwrap(), "disabled\n");

    let dynamic = KernelFs::mount("amd-ai300-7.1-dynamic-epp", None);
    assert_eq!(get(&dynamic, &format!("{AMD_PSTATE}/dynamic_epp")).unwrap(), "enabled\n");
    for value in ["128", "balance_performance", "power"] {
        assert_eq!(write(&dynamic, 3, epp, value), Err(libc::EBUSY), "{value}");
    }
    // 24 CPU handlers below the CPUs, then the firmware's two.
    assert_eq!(names(&dynamic, "sys/class/platform-profile").len(), 26);
    assert_eq!(get(&dynamic, &class(3, "name")).unwrap(), "amd-pstate-epp-cpu3\n");
    assert_eq!(
        get(&dynamic, "sys/devices/system/cpu/cpu3/platform-profile/platform-profile-3/choices").unwrap(),
        "low-power balanced performance\n"
    );
    // On battery the balanced value is 128; the CPU's own profile sets 255 and 0.
    assert_eq!(read(&dynamic, 3, epp), "balance_performance\n");
    put(&dynamic, &class(3, "profile"), "low-power").unwrap();
    assert_eq!(read(&dynamic, 3, epp), "power\n");
    put(&dynamic, &class(4, "profile"), "performance").unwrap();
    assert_eq!(read(&dynamic, 4, epp), "performance\n");
    assert!(get(&dynamic, "kernelfs/hardware").unwrap().contains("\"dynamic_epp\": true"));
    // The charger: balanced CPUs get 0, the others keep theirs.
    dynamic.firmware("ac 1");
    assert_eq!(read(&dynamic, 5, epp), "performance\n");
    assert_eq!(read(&dynamic, 3, epp), "power\n");
    // Turned off, the CPUs' handlers go and EPP is writable again.
    put(&dynamic, &format!("{AMD_PSTATE}/dynamic_epp"), "disabled").unwrap();
    assert_eq!(names(&dynamic, "sys/class/platform-profile").len(), 2);
    write(&dynamic, 3, epp, "200").unwrap();
    assert_eq!(read(&dynamic, 3, epp), "200\n");
}

/// The platform profile core as 6.14-6.19 have it: a handler's name may
/// have spaces; the legacy file offers what every handler takes (hidden
/// choices included) and refuses the rest; `max-power` is a name only
/// from 6.19 on.
#[test]
fn the_soc_power_slider_beside_a_vendor_handler() {
    let fs = KernelFs::mount("panther-lake-asus", None);
    assert_eq!(get(&fs, &class(1, "name")).unwrap(), "SoC Power Slider\n");
    assert_eq!(get(&fs, LEGACY_CHOICES).unwrap(), "balanced performance\n");
    assert_eq!(put(&fs, LEGACY, "low-power"), Err(libc::EOPNOTSUPP));
    assert_eq!(put(&fs, LEGACY, "quiet"), Err(libc::EOPNOTSUPP));
    // Each handler takes its own best choice.
    put(&fs, &class(0, "profile"), "quiet").unwrap();
    put(&fs, &class(1, "profile"), "low-power").unwrap();
    assert_eq!(get(&fs, LEGACY).unwrap(), "custom\n");
    // 6.18 knows no max-power.
    assert_eq!(put(&fs, &class(1, "profile"), "max-power"), Err(libc::EINVAL));
    assert!(
        put(&fs, "kernelfs/control", "load-platform-profile class alienware-wmi balanced,max-power balanced").is_err()
    );
    // 7.1 does: a handler that offers it takes it; the legacy file offers it
    // only where every handler does.
    let newer = KernelFs::mount("amd-ai300-7.1", None);
    newer.firmware("load-platform-profile class alienware-wmi low-power,balanced,performance,max-power balanced");
    assert_eq!(get(&newer, &class(2, "choices")).unwrap(), "low-power balanced performance max-power\n");
    put(&newer, &class(2, "profile"), "max-power").unwrap();
    assert_eq!(get(&newer, &class(2, "profile")).unwrap(), "max-power\n");
    assert_eq!(put(&newer, LEGACY, "max-power"), Err(libc::EOPNOTSUPP));
}
