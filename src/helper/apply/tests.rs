//! The applier on a plain-file tree: ordering, skipping, turbo, path
//! safety, undo.

use super::files::open_walking;
use super::*;
use crate::core::machine::TurboControl;
use crate::core::parse::EppName;
use crate::core::plan::{CpuSetting, Preference};
use std::fs;

fn setting(cpu: u32, governor: &str, preference: Preference) -> CpuSetting {
    CpuSetting {
        cpu,
        policy: Some(cpu),
        governor: Some(governor.into()),
        preference: Some(preference),
        epp_value: None,
        min_khz: None,
        max_khz: None,
        companion_bias: None,
    }
}

fn tree(cpus: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for cpu in 0..cpus {
        let p = dir.path().join(paths::policy_dir(cpu));
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("scaling_governor"), "performance\n").unwrap();
        fs::write(p.join("energy_performance_preference"), "balance_performance\n").unwrap();
    }
    dir
}

fn read(dir: &tempfile::TempDir, cpu: u32, attr: &str) -> String {
    fs::read_to_string(dir.path().join(paths::policy_file(cpu, attr))).unwrap()
}

#[test]
fn governor_first_then_epp_and_equal_values_are_skipped() {
    let dir = tree(2);
    let applier = Applier::new(SysRoot::open(dir.path()).unwrap());
    let plan = Plan {
        profile: "x".into(),
        cpus: vec![
            setting(0, "powersave", Preference::EppNumber(64)),
            setting(1, "powersave", Preference::EppNumber(64)),
        ],
        turbo: None,
        dynamic_boost: None,
        platform: Vec::new(),
    };
    let names = |r: EppReading| match r {
        EppReading::Value(v) => Some(v),
        EppReading::Name(EppName::BalancePerformance) => Some(128),
        EppReading::Name(_) => None,
    };
    let report = applier.apply(&plan, &names, Rewrite::IfDifferent).unwrap();
    let order: Vec<&str> = report.changes.iter().map(|c| c.target.attr()).collect();
    assert_eq!(
        order,
        ["scaling_governor", "scaling_governor", "energy_performance_preference", "energy_performance_preference"]
    );
    // The value alone, as power-profiles-daemon writes it: no newline,
    // nothing left of the longer text before.
    assert_eq!(read(&dir, 1, "energy_performance_preference"), "64");
    assert_eq!(read(&dir, 0, "scaling_governor"), "powersave");
    // Again: nothing to write.
    let again = applier.apply(&plan, &names, Rewrite::IfDifferent).unwrap();
    assert!(again.changes.is_empty());
    assert_eq!(again.unchanged, 4);
    // A name that stands for the wanted number counts as holding it.
    fs::write(dir.path().join(paths::policy_file(0, "energy_performance_preference")), "balance_performance\n")
        .unwrap();
    let named = |r: EppReading| match r {
        EppReading::Name(EppName::BalancePerformance) => Some(64),
        EppReading::Value(v) => Some(v),
        EppReading::Name(_) => None,
    };
    assert!(applier.apply(&plan, &named, Rewrite::IfDifferent).unwrap().changes.is_empty());
}

#[test]
fn turbo_is_switched_by_the_machines_own_file() {
    use crate::core::plan::Turbo;
    let plan = |control| Plan {
        profile: "x".into(),
        cpus: vec![
            setting(0, "powersave", Preference::EppNumber(64)),
            setting(1, "powersave", Preference::EppNumber(64)),
        ],
        turbo: Some(Turbo { on: false, control, best_effort: false }),
        dynamic_boost: None,
        platform: Vec::new(),
    };
    let turbo_files = |control| -> Vec<String> {
        plan_files(&plan(control)).into_iter().filter(|f| f.contains("turbo") || f.ends_with("boost")).collect()
    };
    assert_eq!(turbo_files(TurboControl::IntelNoTurbo), ["sys/devices/system/cpu/intel_pstate/no_turbo"]);
    assert_eq!(turbo_files(TurboControl::GlobalBoost), ["sys/devices/system/cpu/cpufreq/boost"]);
    assert_eq!(
        turbo_files(TurboControl::PolicyBoost),
        ["sys/devices/system/cpu/cpufreq/policy0/boost", "sys/devices/system/cpu/cpufreq/policy1/boost"]
    );
    let off: Vec<String> = steps(&plan(TurboControl::GlobalBoost)).into_iter().map(|s| s.text).collect();
    assert_eq!(off[0], "0", "boost 0 is off; no_turbo is the inverted one");
    let steps = steps(&plan(TurboControl::IntelNoTurbo));
    assert_eq!(steps[0].text, "1");
}

#[test]
fn a_policy_directory_that_leads_out_of_the_tree_is_not_followed() {
    let dir = tree(2);
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("scaling_governor"), "performance\n").unwrap();
    fs::write(outside.path().join("energy_performance_preference"), "balance_performance\n").unwrap();
    let policy1 = dir.path().join(paths::policy_dir(1));
    fs::remove_dir_all(&policy1).unwrap();
    std::os::unix::fs::symlink(outside.path(), &policy1).unwrap();
    let applier = Applier::new(SysRoot::open(dir.path()).unwrap());
    let plan = Plan {
        profile: "x".into(),
        cpus: (0..2).map(|c| setting(c, "powersave", Preference::EppName(EppName::Power))).collect(),
        turbo: None,
        dynamic_boost: None,
        platform: Vec::new(),
    };
    let failure = applier.apply(&plan, &|_| None, Rewrite::IfDifferent).unwrap_err();
    assert_eq!(failure.failed.target, Target::Policy(1, "scaling_governor"));
    assert_eq!(failure.failed.errno, Some("EXDEV"));
    assert_eq!(fs::read_to_string(outside.path().join("scaling_governor")).unwrap(), "performance\n");
    assert_eq!(read(&dir, 0, "scaling_governor"), "performance\n", "policy 0 was not restored");
    // A link that stays inside the tree is fine (sysfs has them).
    fs::remove_file(&policy1).unwrap();
    fs::create_dir_all(dir.path().join("sys/devices/system/cpu/cpufreq/real1")).unwrap();
    for (attr, text) in [("scaling_governor", "performance\n"), ("energy_performance_preference", "power\n")] {
        fs::write(dir.path().join("sys/devices/system/cpu/cpufreq/real1").join(attr), text).unwrap();
    }
    std::os::unix::fs::symlink("real1", &policy1).unwrap();
    let report = applier.apply(&plan, &|_| None, Rewrite::IfDifferent).unwrap();
    assert_eq!(report.changes.len(), 3);
    assert!(applier.holds_plan(&plan, &|_| None));
}

#[test]
fn without_openat2_no_link_is_followed_and_dot_dot_is_refused() {
    let dir = tree(2);
    let cpu_dir = File::open(dir.path().join(paths::CPU_DIR)).unwrap();
    let file = open_walking(&cpu_dir, c"cpufreq/policy0/scaling_governor").unwrap();
    assert_eq!(read_value(&file).unwrap(), "performance");
    let errno = |rel: &std::ffi::CStr| open_walking(&cpu_dir, rel).unwrap_err().raw_os_error();
    assert_eq!(errno(c"cpufreq/../cpufreq/policy0/scaling_governor"), Some(libc::EXDEV));
    assert_eq!(errno(c"cpufreq/policy0/missing"), Some(libc::ENOENT));
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("scaling_governor"), "performance\n").unwrap();
    let policy1 = dir.path().join(paths::policy_dir(1));
    fs::remove_dir_all(&policy1).unwrap();
    std::os::unix::fs::symlink(outside.path(), &policy1).unwrap();
    // A linked directory: O_NOFOLLOW | O_DIRECTORY on the link itself.
    assert_eq!(errno(c"cpufreq/policy1/scaling_governor"), Some(libc::ENOTDIR));
    fs::remove_file(&policy1).unwrap();
    fs::create_dir(&policy1).unwrap();
    std::os::unix::fs::symlink(outside.path().join("scaling_governor"), policy1.join("scaling_governor")).unwrap();
    assert_eq!(errno(c"cpufreq/policy1/scaling_governor"), Some(libc::ELOOP));
}

#[test]
fn a_failed_write_undoes_the_others() {
    let dir = tree(3);
    let broken = dir.path().join(paths::policy_file(2, "energy_performance_preference"));
    fs::remove_file(&broken).unwrap();
    fs::create_dir(&broken).unwrap();
    let applier = Applier::new(SysRoot::open(dir.path()).unwrap());
    let plan = Plan {
        profile: "x".into(),
        cpus: (0..3).map(|c| setting(c, "powersave", Preference::EppName(EppName::Power))).collect(),
        turbo: None,
        dynamic_boost: None,
        platform: Vec::new(),
    };
    let failure = applier.apply(&plan, &|_| None, Rewrite::IfDifferent).unwrap_err();
    assert_eq!(failure.failed.target, Target::Policy(2, "energy_performance_preference"));
    assert_eq!(failure.failed.errno, Some("EISDIR"));
    assert_eq!(failure.restored, 5);
    assert!(failure.not_restored.is_empty());
    for cpu in 0..3 {
        assert_eq!(read(&dir, cpu, "scaling_governor"), "performance\n");
    }
    for cpu in 0..2 {
        assert_eq!(read(&dir, cpu, "energy_performance_preference"), "balance_performance\n");
    }
}

#[test]
fn a_rename_elsewhere_during_the_walk_does_not_fail_an_open() {
    // sysfs reaches devices through links like `../../devices/...`; with
    // RESOLVE_BENEATH the kernel answers EAGAIN when any rename on the
    // system races with such a `..` (openat2(2)), and a rename is what every
    // atomic save does. The open is tried again.
    let dir = tempfile::tempdir().unwrap();
    let device = dir.path().join("devices/card1/amdgpu");
    fs::create_dir_all(&device).unwrap();
    fs::write(device.join("panel_power_savings"), "0\n").unwrap();
    fs::create_dir_all(dir.path().join("class/drm")).unwrap();
    std::os::unix::fs::symlink("../../devices/card1", dir.path().join("class/drm/card1-eDP-1")).unwrap();
    let root = File::open(dir.path()).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let renamer = {
        let stop = stop.clone();
        let scratch = tempfile::tempdir().unwrap();
        std::thread::spawn(move || {
            let (a, b) = (scratch.path().join("a"), scratch.path().join("b"));
            fs::write(&a, "x").unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                fs::rename(&a, &b).unwrap();
                fs::rename(&b, &a).unwrap();
            }
        })
    };
    let failures: Vec<_> = (0..20_000)
        .filter_map(|_| super::files::open_beneath(&root, "class/drm/card1-eDP-1/amdgpu/panel_power_savings").err())
        .collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    renamer.join().unwrap();
    assert!(failures.is_empty(), "{} of 20,000 opens failed: {:?}", failures.len(), failures.first());
}

/// amd-pstate 7.1 shows "128" after someone wrote the number: a name's
/// step holds where the file shows its value.
#[test]
fn a_name_holds_where_the_file_shows_its_number() {
    let amd = |reading: EppReading| match reading {
        EppReading::Value(v) => Some(v),
        EppReading::Name(EppName::BalancePerformance) => Some(128),
        EppReading::Name(_) => None,
    };
    assert!(holds("128", "balance_performance", steps::Want::EppName, &amd));
    assert!(holds("balance_performance", "balance_performance", steps::Want::EppName, &amd));
    assert!(!holds("129", "balance_performance", steps::Want::EppName, &amd));
    assert!(!holds("garbage", "balance_performance", steps::Want::EppName, &amd));
}

/// Under dynamic EPP each CPU's own platform profile is written where its
/// EPP would be: after the governors, one file per CPU, beneath `sys/`.
#[test]
fn the_cpus_own_platform_profiles_come_after_the_governors() {
    use crate::core::platform::CpuChoice;
    let dir = tree(2);
    for cpu in 0..2 {
        let class = dir.path().join(format!("sys/devices/system/cpu/cpu{cpu}/platform-profile/platform-profile-{cpu}"));
        fs::create_dir_all(&class).unwrap();
        fs::write(class.join("profile"), "balanced\n").unwrap();
        fs::create_dir_all(dir.path().join("sys/class/platform-profile")).unwrap();
        std::os::unix::fs::symlink(
            format!("../../devices/system/cpu/cpu{cpu}/platform-profile/platform-profile-{cpu}"),
            dir.path().join(format!("sys/class/platform-profile/platform-profile-{cpu}")),
        )
        .unwrap();
    }
    let cpus: Vec<CpuSetting> = (0..2)
        .map(|cpu| {
            let handler = HandlerId::Class(cpu);
            setting(cpu, "powersave", Preference::CpuProfile { handler, choice: CpuChoice::LowPower })
        })
        .collect();
    let plan = Plan { profile: "power".into(), cpus, turbo: None, dynamic_boost: None, platform: Vec::new() };
    let files = plan_files(&plan);
    assert_eq!(
        files,
        [
            paths::policy_file(0, "scaling_governor"),
            paths::policy_file(1, "scaling_governor"),
            "sys/class/platform-profile/platform-profile-0/profile".to_owned(),
            "sys/class/platform-profile/platform-profile-1/profile".to_owned(),
        ]
    );
    let applier = Applier::new(SysRoot::open(dir.path()).unwrap());
    let report = applier.apply(&plan, &|_| None, Rewrite::IfDifferent).unwrap();
    assert_eq!(report.changes.len(), 4);
    let shown =
        fs::read_to_string(dir.path().join("sys/devices/system/cpu/cpu1/platform-profile/platform-profile-1/profile"));
    assert_eq!(shown.unwrap(), "low-power");
    assert_eq!(
        report.changes[3].target.describe(&[1]),
        "the platform profile of CPU 1 (sys/class/platform-profile/platform-profile-1/profile)"
    );
}
