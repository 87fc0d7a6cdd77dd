//! The helper on a private system bus with the real dbus-daemon and polkitd.

mod common;

use std::time::Duration;

use common::bus::{binary_for_nobody, cli, shown_epp, Bus, Helper};
use common::{stderr, stdout};
use gearshift::dbus::{ApplySummary, Helper1Proxy, HelperError};

const CPU: &str = "sys/devices/system/cpu";

fn epp_files(helper: &Helper, cpus: std::ops::Range<u32>) -> Vec<String> {
    cpus.map(|c| helper.policy(c, "energy_performance_preference")).collect()
}

#[test]
fn root_may_switch_and_the_cli_reports_it() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let out = cli(&bus, None, &["profile", "set", "balance_power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out)
            .contains("on 22 CPUs. 22 of its 67 kernel files were written; the others already held their values."),
        "{}",
        stdout(&out)
    );
    // Intel's Meteor Lake value, as a number, on every online CPU.
    assert_eq!(epp_files(&helper, 0..22), vec!["179"; 22]);
    for cpu in 0..22 {
        assert_eq!(helper.policy(cpu, "scaling_governor"), "powersave");
    }
    let get = cli(&bus, None, &["profile", "get"]);
    assert_eq!(stdout(&get).trim(), "balance_power");
    // The state survives: it is saved in the state directory (in the
    // background, so that the reply does not wait for fsync).
    let path = helper.state.path().join("state/state.toml");
    common::bus::wait_for(
        || std::fs::read_to_string(&path).is_ok_and(|t| t.contains("active_profile = \"balance_power\"")),
        "the saved state",
    );
}

#[test]
fn nobody_is_refused_through_the_cli_and_raw_dbus_and_nothing_changes() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let before = helper.tree();
    let (_dir, bin) = binary_for_nobody();

    let out = cli(&bus, Some(&bin), &["profile", "set", "power"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("not allowed"), "{}", stderr(&out));

    let out = cli(&bus, Some(&bin), &["epp", "set", "10"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not allowed"), "{}", stderr(&out));

    let raw = bus.dbus_send(true, "SetProfile", &["string:power"]);
    assert!(!raw.status.success());
    assert!(stderr(&raw).contains("io.github.gearshift.Error.NotAuthorized"), "{}", stderr(&raw));
    let raw = bus.dbus_send(true, "SetGovernor", &["array:uint32:", "string:performance"]);
    assert!(stderr(&raw).contains("io.github.gearshift.Error.NotAuthorized"), "{}", stderr(&raw));

    assert!(helper.tree() == before, "a refused request wrote something");
    // Root, by contrast, may.
    let raw = bus.dbus_send(false, "SetProfile", &["string:power"]);
    assert!(raw.status.success(), "{}", stderr(&raw));
    assert_eq!(helper.policy(3, "energy_performance_preference"), shown_epp(255));
}

/// Each malformed request: refused with the right error, nothing written,
/// the helper still serving.
#[test]
fn malformed_requests_are_refused_whole() {
    let bus = Bus::start();
    let mut helper = Helper::start(&bus, "kaby-lake-offline");
    let before = helper.tree();
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let long_id = "x".repeat(100_000);
    let long_list: Vec<u32> = (0..100_000).collect();
    let error_of = |result: Result<(), HelperError>| -> String { common::bus::error_name(result) };
    type Call<'a> = Box<dyn Fn() -> Result<(), HelperError> + 'a>;
    let ok = |r: Result<ApplySummary, HelperError>| r.map(|_| ());
    let cases: Vec<(&str, Call, &str)> = vec![
        ("empty profile id", Box::new(|| ok(runtime.block_on(proxy.set_profile("")))), "InvalidArgument"),
        ("path-like id", Box::new(|| ok(runtime.block_on(proxy.set_profile("../../etc/passwd")))), "InvalidArgument"),
        (
            "absolute path id",
            Box::new(|| ok(runtime.block_on(proxy.set_profile("/sys/devices/system/cpu/cpu0/online")))),
            "InvalidArgument",
        ),
        (
            "id with a newline",
            Box::new(|| ok(runtime.block_on(proxy.set_profile("power\nperformance")))),
            "InvalidArgument",
        ),
        ("id of 100000 bytes", Box::new(|| ok(runtime.block_on(proxy.set_profile(&long_id)))), "InvalidArgument"),
        (
            "id in the wrong case",
            Box::new(|| ok(runtime.block_on(proxy.set_profile("Performance")))),
            "InvalidArgument",
        ),
        ("EPP 256", Box::new(|| ok(runtime.block_on(proxy.set_epp(&[], 256)))), "InvalidArgument"),
        ("EPP 2^32-1", Box::new(|| ok(runtime.block_on(proxy.set_epp(&[0], u32::MAX)))), "InvalidArgument"),
        ("CPU that does not exist", Box::new(|| ok(runtime.block_on(proxy.set_epp(&[99], 100)))), "InvalidArgument"),
        ("CPU number 2^32-1", Box::new(|| ok(runtime.block_on(proxy.set_epp(&[u32::MAX], 100)))), "InvalidArgument"),
        ("offline CPU", Box::new(|| ok(runtime.block_on(proxy.set_epp(&[0, 4], 100)))), "InvalidArgument"),
        ("a CPU twice", Box::new(|| ok(runtime.block_on(proxy.set_epp(&[1, 1], 100)))), "InvalidArgument"),
        ("a list of 100000 CPUs", Box::new(|| ok(runtime.block_on(proxy.set_epp(&long_list, 100)))), "InvalidArgument"),
        (
            "governor not offered",
            Box::new(|| ok(runtime.block_on(proxy.set_governor(&[], "schedutil")))),
            "InvalidArgument",
        ),
        ("empty governor", Box::new(|| ok(runtime.block_on(proxy.set_governor(&[], "")))), "InvalidArgument"),
        (
            "governor with a newline",
            Box::new(|| ok(runtime.block_on(proxy.set_governor(&[], "powersave\n")))),
            "InvalidArgument",
        ),
        (
            "path-like governor",
            Box::new(|| ok(runtime.block_on(proxy.set_governor(&[0], "../../../etc/shadow")))),
            "InvalidArgument",
        ),
        (
            "governor on an offline CPU",
            Box::new(|| ok(runtime.block_on(proxy.set_governor(&[5], "powersave")))),
            "InvalidArgument",
        ),
        (
            "custom profile that is not TOML",
            Box::new(|| runtime.block_on(proxy.save_custom_profile(&common::bus::malformed_wire()))),
            "InvalidArgument",
        ),
        (
            "custom profile with a path-like id",
            Box::new(|| {
                runtime.block_on(
                    proxy.save_custom_profile(&common::bus::wire(
                        "[[profile]]\nid = \"../x\"\nname = \"x\"\nepp = 10\n",
                    )),
                )
            }),
            "InvalidArgument",
        ),
        (
            "custom profile with E-core EPP on a CPU without E-cores",
            Box::new(|| {
                runtime.block_on(proxy.save_custom_profile(&common::bus::wire(
                    "[[profile]]\nid = \"x\"\nname = \"x\"\nepp_efficiency_cores = 10\n",
                )))
            }),
            "Unsupported",
        ),
        (
            "deleting a profile that does not exist",
            Box::new(|| runtime.block_on(proxy.delete_custom_profile("nope"))),
            "InvalidArgument",
        ),
    ];
    assert!(cases.len() >= 15);
    for (what, call, expected) in &cases {
        let got = error_of(call());
        assert_eq!(got, format!("io.github.gearshift.Error.{expected}"), "{what}");
        assert!(helper.tree() == before, "{what}: something was written");
        assert_eq!(
            runtime.block_on(proxy.version()).unwrap(),
            env!("CARGO_PKG_VERSION"),
            "{what}: the helper stopped serving"
        );
    }
    // The client's advice follows a cause sent beside the message, not its
    // words: an offline CPU arrives typed.
    let offline = runtime.block_on(proxy.set_epp(&[0, 4], 100)).unwrap_err();
    assert_eq!(offline.cause(), Some(gearshift::dbus::error::Cause::CpuOffline), "{offline:?}");
    assert_eq!(runtime.block_on(proxy.set_epp(&[99], 100)).unwrap_err().cause(), None);
    assert!(helper.running(), "{}", helper.log_text());
}

#[test]
fn model_specific_values_land_and_offline_cpus_are_untouched() {
    let bus = Bus::start();
    {
        let helper = Helper::start(&bus, "emerald-rapids-64");
        assert!(cli(&bus, None, &["profile", "set", "power"]).status.success());
        let out = cli(&bus, None, &["profile", "set", "balance_performance"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(epp_files(&helper, 0..64), vec!["32"; 64]);
    }
    {
        let helper = Helper::start(&bus, "amd-7840hs-epp");
        let out = cli(&bus, None, &["profile", "set", "balance_power"]);
        assert!(out.status.success(), "{}", stderr(&out));
        // amd-pstate takes names, not numbers.
        assert_eq!(epp_files(&helper, 0..16), vec!["balance_power"; 16]);
    }
    {
        let helper = Helper::start(&bus, "kaby-lake-offline");
        let offline_before: Vec<String> = (4..8).map(|c| helper.policy(c, "energy_performance_preference")).collect();
        let out = cli(&bus, None, &["profile", "set", "power"]);
        assert!(out.status.success(), "{}", stderr(&out));
        // Kaby Lake has no model-specific values: the name is written, as
        // power-profiles-daemon writes it, and the kernel's table applies.
        assert_eq!(epp_files(&helper, 0..4), vec!["power"; 4]);
        let offline_after: Vec<String> = (4..8).map(|c| helper.policy(c, "energy_performance_preference")).collect();
        assert_eq!(offline_after, offline_before);
        assert_eq!(offline_after[0], "<inactive policy: EBUSY>");
    }
    {
        // Pre-HWP Intel: the energy bias instead of EPP.
        let helper = Helper::start(&bus, "ivy-bridge-epb");
        assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
        for cpu in 0..8 {
            assert_eq!(helper.read(&format!("{CPU}/cpu{cpu}/power/energy_perf_bias")).trim(), "8");
        }
    }
}

#[test]
fn a_failed_write_is_rolled_back_everywhere() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    // The eighth policy's EPP cannot be written: on plain files, a directory
    // stands in its place; on the kernel, its CPU went offline unannounced
    // and the kernel answers EBUSY.
    let (failed_attr, errno) = match helper.kernel() {
        Some(kernel) => {
            kernel.firmware("offline 7");
            ("scaling_governor for CPU 7", "EBUSY")
        }
        None => {
            let broken = helper.root.path().join(format!("{CPU}/cpufreq/policy7/energy_performance_preference"));
            std::fs::remove_file(&broken).unwrap();
            std::fs::create_dir(&broken).unwrap();
            ("energy_performance_preference for CPU 7", "EISDIR")
        }
    };
    let before = helper.tree();
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("could not be written"), "{err}");
    assert!(err.contains(failed_attr), "{err}");
    assert!(err.contains(errno), "{err}");
    assert!(err.contains("undone"), "{err}");
    assert!(helper.tree() == before, "other CPUs were not restored");
    // They hold what the first start applied: Balanced, Meteor Lake's 64.
    for cpu in (0..22).filter(|c| *c != 7) {
        assert_eq!(helper.policy(cpu, "energy_performance_preference"), shown_epp(64));
    }
}

#[test]
fn writing_what_a_file_holds_is_skipped() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "arrow-lake-285k");
    // Linux 6.12 shows "balance_performance" for Arrow Lake's 64 already.
    let before = helper.tree();
    let out = cli(&bus, None, &["profile", "set", "balance_performance"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("already had these values, so nothing was written"), "{}", stdout(&out));
    assert!(helper.tree() == before);
}

#[test]
fn two_clients_alternating_leave_a_consistent_state_and_no_growth() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let run = |profiles: [&'static str; 2], count: usize| {
        let (runtime, connection) = bus.connect();
        std::thread::spawn(move || {
            let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
            for i in 0..count {
                runtime.block_on(proxy.set_profile(profiles[i % 2])).expect("switch");
            }
        })
    };
    // Warm up, then measure.
    run(["power", "performance"], 20).join().unwrap();
    let rss_warm = helper.rss_kib();
    let a = run(["power", "balance_power"], 200);
    let b = run(["performance", "balance_performance"], 200);
    a.join().unwrap();
    b.join().unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let rss_end = helper.rss_kib();
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let active = runtime.block_on(proxy.active_profile()).unwrap();
    let want = match active.as_str() {
        "balance_power" => ("179", "powersave"),
        "balance_performance" => ("64", "powersave"),
        other => panic!("the last switches were balance_power and balance_performance, not {other}"),
    };
    for cpu in 0..22 {
        assert_eq!(
            (
                helper.policy(cpu, "energy_performance_preference").as_str(),
                helper.policy(cpu, "scaling_governor").as_str()
            ),
            want,
            "cpu {cpu}"
        );
    }
    assert!(rss_end <= rss_warm + 256, "the helper grew from {rss_warm} KiB to {rss_end} KiB over 400 switches");
}

#[test]
fn custom_profiles_are_saved_validated_and_applied() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let profile =
        "[[profile]]\nid = \"quiet\"\nname = \"Quiet\"\nepp_performance_cores = 96\nepp_efficiency_cores = 200\n";
    runtime.block_on(proxy.save_custom_profile(&common::bus::wire(profile))).unwrap();
    let listed = gearshift::dbus::profile::list_from_wire(&runtime.block_on(proxy.list_custom_profiles()).unwrap());
    assert!(listed.unwrap().iter().any(|p| p.id == "quiet"));
    let summary = runtime.block_on(proxy.set_profile("quiet")).unwrap();
    assert_eq!(summary.cpus.len(), 22);
    assert_eq!(epp_files(&helper, 0..12), vec!["96"; 12]);
    assert_eq!(epp_files(&helper, 12..22), vec!["200"; 10]);
    let saved = std::fs::read_to_string(helper.state.path().join("state/profiles.toml")).unwrap();
    assert!(saved.contains("quiet"));
    // The active profile cannot be deleted: switch away first.
    assert!(
        matches!(runtime.block_on(proxy.delete_custom_profile("quiet")), Err(e) if !matches!(e, HelperError::ZBus(_)))
    );
    runtime.block_on(proxy.set_profile("balance_performance")).unwrap();
    runtime.block_on(proxy.delete_custom_profile("quiet")).unwrap();
    assert!(matches!(runtime.block_on(proxy.set_profile("quiet")), Err(e) if !matches!(e, HelperError::ZBus(_))));
}

#[test]
fn a_corrupt_state_file_is_kept_aside() {
    let bus = Bus::start();
    let mut helper = Helper::start(&bus, "kaby-lake-2cpu");
    helper.stop();
    let state = helper.state.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("state.toml"), "active_profile = [[[").unwrap();
    helper.spawn(&bus);
    // Kept under a timestamped name, so that a later one cannot overwrite it.
    let kept: Vec<String> = std::fs::read_dir(&state)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("state.toml.bad-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read_to_string(state.join(&kept[0])).unwrap(), "active_profile = [[[");
    assert!(helper.log_text().contains("corrupt"), "{}", helper.log_text());
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn energy_needs_read_power_and_is_rate_limited() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    // On plain files the counters are what the test writes (psys has none,
    // as in a snapshot); the kernel-faithful sysfs serves every zone's,
    // counting at its power model.
    let kernel = common::bus::on_kernelfs();
    if !kernel {
        for (zone, value) in [("intel-rapl:0", "1000"), ("intel-rapl:0:0", "500")] {
            std::fs::write(helper.root.path().join(format!("sys/class/powercap/{zone}/energy_uj")), value).unwrap();
        }
    }
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let (_, readings) = runtime.block_on(proxy.read_energy()).unwrap();
    let names: Vec<&str> = readings.iter().map(|r| r.name.as_str()).collect();
    if kernel {
        assert_eq!(names, ["package-0", "core", "psys"], "the uncore is not read");
    } else {
        assert_eq!(names, ["package-0", "core"]);
        assert_eq!(readings[0].energy_uj, 1000);
    }
    assert_eq!(readings[0].max_energy_range_uj, 262_143_328_850);
    let mut limited = false;
    for _ in 0..6 {
        if let Err(err) = runtime.block_on(proxy.read_energy()) {
            assert!(matches!(err, HelperError::RateLimited(_)), "{err:?}");
            limited = true;
        }
    }
    assert!(limited, "seven readings within a second were all answered");
    // Without an active session, read-power is "no".
    let raw = bus.dbus_send(true, "ReadEnergy", &[]);
    assert!(stderr(&raw).contains("io.github.gearshift.Error.NotAuthorized"), "{}", stderr(&raw));
}

/// Under systemd (JOURNAL_STREAM set) each log line carries its syslog
/// priority, which journald turns into the entry's level; in a terminal the
/// lines are plain.
#[test]
fn log_lines_carry_their_priority_for_the_journal() {
    let run = |journal: bool| {
        let mut command = std::process::Command::new(common::bus::helper_program());
        command.args(["--root", "/nonexistent-gearshift-root"]);
        if journal {
            command.env("JOURNAL_STREAM", "8:1234");
        } else {
            command.env_remove("JOURNAL_STREAM");
        }
        let out = command.output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        stderr(&out)
    };
    let journal = run(true);
    assert!(journal.starts_with("<3>gearshift-helper: "), "{journal}");
    assert!(journal.contains("nonexistent-gearshift-root"), "{journal}");
    let plain = run(false);
    assert!(plain.starts_with("gearshift-helper: "), "{plain}");
}

/// `--root` and `--demo` show a snapshot: a change would go to this
/// computer's helper, so it is refused before anything is sent (exit 2),
/// unless the helper itself serves that same directory (its `Root`
/// property, the tests' setup), whatever path spells it.
#[test]
fn a_snapshot_is_changed_only_where_the_helper_serves_it() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let before = helper.tree();
    let other = common::fixture("kaby-lake-2cpu");
    let other = other.to_str().unwrap();
    let writes: [&[&str]; 6] = [
        &["profile", "set", "power"],
        &["epp", "set", "10"],
        &["governor", "set", "performance"],
        &["auto", "set", "--on-ac", "power", "--on-battery", "power"],
        &["auto", "off"],
        &["mode", "set", "passive"],
    ];
    for args in writes {
        for prefix in [&["--root", other][..], &["--demo"]] {
            let all: Vec<&str> = prefix.iter().chain(args).copied().collect();
            let out = cli(&bus, None, &all);
            assert_eq!(out.status.code(), Some(2), "{all:?}: {}", stderr(&out));
            let err = stderr(&out);
            assert!(err.contains("is a snapshot") && err.contains("nothing was changed"), "{all:?}: {err}");
            assert!(err.contains("without them"), "{all:?}: {err}");
        }
        let out =
            bus.command(env!("CARGO_BIN_EXE_gearshift")).args(args).env("GEARSHIFT_ROOT", other).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "GEARSHIFT_ROOT {args:?}: {}", stderr(&out));
    }
    assert_eq!(helper.tree(), before, "a refused change wrote something");

    // No bus at all: still refused as a snapshot, not as a missing helper.
    let out = bus
        .command(env!("CARGO_BIN_EXE_gearshift"))
        .args(["--root", other, "profile", "set", "power"])
        .env("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/gearshift-bus")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("is a snapshot"), "{}", stderr(&out));

    // The directory the helper serves, spelt through a symlink: allowed.
    let link_dir = tempfile::tempdir().unwrap();
    let link = link_dir.path().join("machine");
    std::os::unix::fs::symlink(helper.root.path(), &link).unwrap();
    let out = cli(&bus, None, &["--root", link.to_str().unwrap(), "profile", "set", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(epp_files(&helper, 0..22), vec![shown_epp(255); 22]);
}

/// `profile set` takes a profile's name in any case as well as its id; a
/// word that names none is refused before anything is sent, listing them.
#[test]
fn profiles_are_set_by_name_too() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let out = cli(&bus, None, &["profile", "set", "efficient"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Switched to Efficient (balance_power) on 22 CPUs."), "{}", stdout(&out));
    assert_eq!(epp_files(&helper, 0..22), vec!["179"; 22]);
    let out = cli(&bus, None, &["profile", "set", "POWER SAVER"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(epp_files(&helper, 0..22), vec![shown_epp(255); 22]);
    let before = helper.tree();
    let out = cli(&bus, None, &["profile", "set", "Turbo"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("No profile is called Turbo."), "{}", stderr(&out));
    assert!(stderr(&out).contains("balance_power (Efficient)"), "{}", stderr(&out));
    assert_eq!(helper.tree(), before);
}

/// `gearshift profile save` and `profile delete`, through the helper, as
/// the window makes custom profiles: bad values are refused with exit 2
/// before the helper is asked, replacing needs `--yes` away from a
/// terminal, and the active profile is not deleted.
#[test]
fn custom_profiles_are_saved_and_deleted_from_the_command_line() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let root = helper.root.path().to_str().unwrap().to_owned();
    let gs = |args: &[&str]| {
        let mut all = vec!["--root", root.as_str()];
        all.extend_from_slice(args);
        cli(&bus, None, &all)
    };
    let saved = || {
        let (runtime, connection) = bus.connect();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        let list = runtime.block_on(proxy.list_custom_profiles()).unwrap();
        gearshift::dbus::profile::list_from_wire(&list).unwrap()
    };

    // (arguments, what the refusal says); the helper keeps nothing.
    let refusals: [(&[&str], &str); 6] = [
        (&["profile", "save", "Quiet", "--epp", "256"], "256"),
        (&["profile", "save", "Quiet", "--energy-bias", "16"], "16"),
        (&["profile", "save", "Quiet"], "--epp"),
        (&["profile", "save", "Quiet", "--governor", "ondemand"], "--governor"),
        (&["profile", "save", "Quiet", "--platform-profile", "quiet"], "--platform-profile"),
        (&["profile", "save", "Balanced", "--epp", "100"], "NAME"),
    ];
    for (args, says) in refusals {
        let out = gs(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert!(saved().is_empty(), "a refused profile was saved");

    // Meteor Lake is hybrid: P-cores take --epp, E-cores --e-core-epp.
    let out =
        gs(&["profile", "save", "Büro", "--epp", "100", "--e-core-epp", "200", "--platform-profile", "low-power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Saved \u{201c}Büro\u{201d} (büro).");
    let list = gs(&["profile", "list", "--json"]);
    assert!(list.status.success(), "{}", stderr(&list));
    let profiles: serde_json::Value = serde_json::from_str(&stdout(&list)).unwrap();
    let buero = profiles.as_array().unwrap().iter().find(|p| p["id"] == "büro").expect("büro in profile list --json");
    assert_eq!(buero["name"], "Büro");
    assert_eq!(buero["builtin"], false);
    assert_eq!(buero["epp_values"], serde_json::json!([100, 200]), "{buero}");
    assert_eq!(buero["platform_profile"], "low-power");

    // The same name again: away from a terminal only with --yes.
    let out = gs(&["profile", "save", "büro", "--epp", "90"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert_eq!(saved()[0].epp_efficiency_cores, Some(gearshift::core::custom::EppSetting::Value(200)));
    let out = gs(&["profile", "save", "büro", "--epp", "90", "--yes"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Replaced \u{201c}Büro\u{201d} (büro).");
    assert_eq!(saved().len(), 1);
    assert_eq!(saved()[0].epp, Some(gearshift::core::custom::EppSetting::Value(90)));

    // The active profile is not deleted: the message names it and says what to do.
    assert!(gs(&["profile", "set", "Büro"]).status.success());
    let out = gs(&["profile", "delete", "Büro"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("\u{201c}Büro\u{201d} is the active profile"), "{}", stderr(&out));
    assert!(stderr(&out).contains("gearshift profile set balanced"), "{}", stderr(&out));
    for (word, says) in [("balanced", "built-in"), ("nothing", "No custom profile is called nothing")] {
        let out = gs(&["profile", "delete", word]);
        assert_eq!(out.status.code(), Some(2), "{word}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{word}: {}", stderr(&out));
    }
    assert!(gs(&["profile", "set", "balanced"]).status.success());
    let out = gs(&["profile", "delete", "büro"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "Deleted \u{201c}Büro\u{201d} (büro).");
    assert!(saved().is_empty());
}
