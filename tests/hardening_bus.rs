//! The helper under attack and under failure, on a private system bus with
//! the real dbus-daemon and polkitd: forged signals, unbounded and foreign
//! holds, stale validation, refusals that must change nothing, renamed
//! programs, a full disk, a lost bus, paths that lead out of the tree.
//! Each test failed before the fix it guards (docs/dbus-api.md lists the
//! rules).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::bus::{all_properties, binary_for_nobody, cli, shown_epp, wait_for, Bus, Helper, Mock, MOCK_POLICY};
use common::{stderr, stdout};
use gearshift::dbus::{Helper1Proxy, HelperError};
use zbus::zvariant::{OwnedValue, Value};

const POLICIES: &str = "sys/devices/system/cpu/cpufreq";
const PPD_NAME: &str = "net.hadess.PowerProfiles";
const PPD_PATH: &str = "/net/hadess/PowerProfiles";

fn mocked_bus() -> Bus {
    Bus::start_with(&[("mocks.conf", MOCK_POLICY)])
}

fn epp(helper: &Helper, cpus: std::ops::Range<u32>) -> Vec<String> {
    cpus.map(|c| helper.policy(c, "energy_performance_preference")).collect()
}

fn set_all(helper: &Helper, cpus: std::ops::Range<u32>, attr: &str, value: &str) {
    for cpu in cpus {
        std::fs::write(helper.root.path().join(format!("{POLICIES}/policy{cpu}/{attr}")), format!("{value}\n"))
            .unwrap();
    }
}

/// The helper's state directory, file by file.
fn state_files(helper: &Helper) -> BTreeMap<String, Vec<u8>> {
    let dir = helper.state.path().join("state");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        out.insert(entry.file_name().to_string_lossy().into_owned(), std::fs::read(entry.path()).unwrap_or_default());
    }
    out
}

/// Waits until the helper has handled everything sent before: a method
/// call goes through the same socket, after the signals.
fn round_trip(bus: &Bus) {
    let out = bus.dbus_send(false, "GetState", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

fn method_error<T, E: Into<HelperError>>(result: Result<T, E>) -> String {
    common::bus::error_name(result)
}

/// A proxy to the helper that asks it on every property read.
fn uncached<'a>(runtime: &tokio::runtime::Runtime, connection: &zbus::Connection) -> Helper1Proxy<'a> {
    runtime
        .block_on(Helper1Proxy::builder(connection).cache_properties(zbus::proxy::CacheProperties::No).build())
        .unwrap()
}

/// A zbus proxy for the old PowerProfiles name.
fn ppd_proxy<'a>(runtime: &tokio::runtime::Runtime, connection: &zbus::Connection) -> zbus::Proxy<'a> {
    runtime
        .block_on(
            zbus::proxy::Builder::new(connection)
                .destination(PPD_NAME)
                .unwrap()
                .path(PPD_PATH)
                .unwrap()
                .interface(PPD_NAME)
                .unwrap()
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build(),
        )
        .unwrap()
}

fn hold(
    runtime: &tokio::runtime::Runtime,
    proxy: &zbus::Proxy<'_>,
    profile: &str,
    reason: &str,
    app: &str,
) -> zbus::Result<u32> {
    runtime.block_on(proxy.call("HoldProfile", &(profile, reason, app)))
}

fn holds_now(runtime: &tokio::runtime::Runtime, proxy: &zbus::Proxy<'_>) -> usize {
    let holds: Vec<std::collections::HashMap<String, OwnedValue>> =
        runtime.block_on(proxy.get_property("ActiveProfileHolds")).unwrap();
    holds.len()
}

#[test]
fn forged_signals_are_dropped_cheaply_and_real_ones_still_count() {
    let bus = mocked_bus();
    let _logind = Mock::start(&bus, "logind", "org.freedesktop.login1");
    let _upower = Mock::start(&bus, "upower", "org.freedesktop.UPower");
    let helper = Helper::start(&bus, "granite-rapids-2s-256");
    // The first start applies Balanced: let it finish before the files are changed below.
    wait_for(|| helper.log_text().contains("at start"), "the first start's Balanced");
    let out = cli(&bus, None, &["auto", "set", "--on-ac", "balance_performance", "--on-battery", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    wait_for(|| epp(&helper, 0..256).iter().all(|v| v == "32"), "Granite Rapids' balanced value");
    // Firmware (or anyone) changed the files: only a real resume may make
    // the helper write them again.
    set_all(&helper, 0..256, "energy_performance_preference", "200");
    let destination = bus.owner_of("io.github.gearshift.Helper1");
    let forged = concat!(
        r#"{"path": "/org/freedesktop/login1", "interface": "org.freedesktop.login1.Manager", "member": "PrepareForSleep", "args": [["b", false]], "repeat": 300}"#,
        "\n",
        r#"{"path": "/org/freedesktop/UPower", "interface": "org.freedesktop.DBus.Properties", "member": "PropertiesChanged", "args": [["s", "org.freedesktop.UPower"], ["a{sv}-bool", {"OnBattery": true}], ["as", []]], "repeat": 50}"#,
        "\n"
    );
    let ticks_before = helper.cpu_ticks();
    bus.forge_as_nobody(&destination, forged);
    bus.forge_as_nobody("", forged);
    // The helper saw every forged signal sent to it (the broadcast ones the
    // bus daemon keeps from it: they match none of its rules) and dropped it.
    helper.wait_handled("signal not acted on: PrepareForSleep from :", 300);
    helper.wait_handled("signal not acted on: PropertiesChanged from :", 50);
    let used = helper.cpu_ticks() - ticks_before;
    assert_eq!(epp(&helper, 0..256), vec!["200"; 256], "a forged signal made the helper write: {}", helper.log_text());
    assert!(!helper.log_text().contains("after resume"), "{}", helper.log_text());
    // 700 forged signals cost comparisons, not 700 re-reads of 256 CPUs
    // (that took 18 s of CPU before): well under half a second.
    assert!(used < 50, "700 forged signals cost {used} ticks of helper CPU");

    // The real logind says the machine resumed: now the values return.
    bus.emit_resume();
    wait_for(|| epp(&helper, 0..256).iter().all(|v| v == "32"), "the values after a real resume");
    // And the real UPower switches to battery.
    bus.set_on_battery(true);
    wait_for(|| epp(&helper, 0..256).iter().all(|v| *v == shown_epp(255)), "the battery profile");
}

#[test]
fn a_forged_name_owner_changed_ends_no_hold() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name(PPD_NAME);
    let (runtime, holder) = bus.connect();
    let proxy = ppd_proxy(&runtime, &holder);
    hold(&runtime, &proxy, "performance", "game", "org.example.Game").unwrap();
    let holder_name = holder.unique_name().unwrap().to_string();
    let forged = format!(
        r#"{{"path": "/org/freedesktop/DBus", "interface": "org.freedesktop.DBus", "member": "NameOwnerChanged", "args": [["s", "{holder_name}"], ["s", "{holder_name}"], ["s", ""]]}}"#
    );
    bus.forge_as_nobody(&bus.owner_of("io.github.gearshift.Helper1"), &forged);
    bus.forge_as_nobody("", &forged);
    // A forged NameOwnerChanged never reaches the helper's code (its match
    // rule names the bus daemon itself as the sender); what proves the
    // helper read past the forgeries is the bus's real word, sent after
    // them, that a connection came and went.
    let (marker_rt, marker) = bus.connect();
    let marker_name = marker.unique_name().unwrap().to_string();
    drop(marker);
    drop(marker_rt);
    helper.wait_handled(&format!("signal not acted on: NameOwnerChanged from org.freedesktop.DBus ({marker_name})"), 2);
    let (check_rt, check) = bus.connect();
    let observer = ppd_proxy(&check_rt, &check);
    assert_eq!(holds_now(&check_rt, &observer), 1, "a forged NameOwnerChanged ended the hold");
    // The holder really leaves: the bus daemon says so, and the hold ends.
    drop(proxy);
    drop(holder);
    drop(runtime);
    wait_for(|| holds_now(&check_rt, &observer) == 0, "the hold to end with its holder");
}

#[test]
fn holds_are_bounded_and_the_helper_stays_on_the_bus() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name(PPD_NAME);
    let (runtime, first) = bus.connect();
    let proxy = ppd_proxy(&runtime, &first);
    let long = "x".repeat(257);
    let invalid = "org.freedesktop.DBus.Error.InvalidArgs";
    assert_eq!(method_error(hold(&runtime, &proxy, "performance", &long, "app")), invalid);
    assert_eq!(method_error(hold(&runtime, &proxy, "performance", "why", &long)), invalid);
    assert_eq!(method_error(hold(&runtime, &proxy, "performance", &"x".repeat(17 << 20), "app")), invalid);
    let exact = "y".repeat(256);
    for _ in 0..16 {
        hold(&runtime, &proxy, "performance", &exact, &exact).unwrap();
    }
    assert_eq!(method_error(hold(&runtime, &proxy, "performance", "one more", "app")), invalid);
    let mut others = Vec::new();
    for _ in 0..3 {
        let (rt, connection) = bus.connect();
        let other = ppd_proxy(&rt, &connection);
        for _ in 0..16 {
            hold(&rt, &other, "power-saver", "battery", "org.example").unwrap();
        }
        others.push((rt, connection, other));
    }
    let (rt, connection) = bus.connect();
    let fifth = ppd_proxy(&rt, &connection);
    let refused = hold(&rt, &fifth, "performance", "", "");
    assert_eq!(method_error(refused), invalid, "a 65th hold was accepted");
    assert_eq!(holds_now(&rt, &fifth), 64);
    for name in ["io.github.gearshift.Helper1", PPD_NAME, "org.freedesktop.UPower.PowerProfiles"] {
        assert!(bus.has_owner(name), "the helper lost {name}: {}", helper.log_text());
    }
    // The refusals named the limit.
    match hold(&runtime, &proxy, "performance", &long, "app") {
        Err(zbus::Error::MethodError(_, Some(text), _)) => assert!(text.contains("256"), "{text}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn losing_the_bus_ends_the_helper_with_an_error() {
    let mut bus = Bus::start();
    let mut helper = Helper::start(&bus, "kaby-lake-2cpu");
    bus.kill_daemon();
    let status = helper.wait_exit(Duration::from_secs(20));
    let status = status.unwrap_or_else(|| panic!("the helper lives on off the bus: {}", helper.log_text()));
    assert!(!status.success(), "it exited with success after losing the bus");
    assert!(helper.log_text().contains("lost the system bus"), "{}", helper.log_text());
}

#[test]
fn only_the_holder_or_an_authorized_caller_releases_a_hold() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name(PPD_NAME);
    let (runtime, root_client) = bus.connect();
    let proxy = ppd_proxy(&runtime, &root_client);
    let cookie = hold(&runtime, &proxy, "performance", "build", "org.example.Build").unwrap();
    // Intel's Meteor Lake value for performance.
    assert_eq!(epp(&helper, 0..22), vec!["16"; 22]);
    let before = helper.tree();
    let nobody = bus
        .command("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "dbus-send"])
        .args(["--system", "--print-reply", "--dest=net.hadess.PowerProfiles", PPD_PATH])
        .arg("net.hadess.PowerProfiles.ReleaseProfile")
        .arg(format!("uint32:{cookie}"))
        .output()
        .unwrap();
    assert!(!nobody.status.success());
    assert!(stderr(&nobody).contains("org.freedesktop.DBus.Error.AccessDenied"), "{}", stderr(&nobody));
    assert_eq!(holds_now(&runtime, &proxy), 1, "nobody ended root's hold");
    assert!(helper.tree() == before, "a refused release wrote");
    // Another root process is authorized by polkit.
    let root_other = bus
        .command("dbus-send")
        .args(["--system", "--print-reply", "--dest=net.hadess.PowerProfiles", PPD_PATH])
        .arg("net.hadess.PowerProfiles.ReleaseProfile")
        .arg(format!("uint32:{cookie}"))
        .output()
        .unwrap();
    assert!(root_other.status.success(), "{}", stderr(&root_other));
    assert_eq!(holds_now(&runtime, &proxy), 0);
    // And a holder may always end its own hold.
    let own = hold(&runtime, &proxy, "power-saver", "battery", "org.example").unwrap();
    runtime.block_on(proxy.call::<_, _, ()>("ReleaseProfile", &(own,))).unwrap();
    assert_eq!(holds_now(&runtime, &proxy), 0);
}

#[test]
fn validation_reads_what_the_files_hold_now() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    runtime.block_on(proxy.set_governor(&[], "performance")).unwrap();
    let before = helper.tree();
    let refused = runtime.block_on(proxy.set_epp(&[], 100));
    assert_eq!(method_error(refused), "io.github.gearshift.Error.Unsupported");
    assert!(helper.tree() == before, "EPP was written under the performance governor");
    // Another program changes one CPU's governor behind the helper's back.
    runtime.block_on(proxy.set_governor(&[], "powersave")).unwrap();
    set_all(&helper, 3..4, "scaling_governor", "performance");
    let before = helper.tree();
    let refused = runtime.block_on(proxy.set_epp(&[2, 3], 100));
    match refused {
        Err(err) if err.cause() == Some(gearshift::dbus::error::Cause::EppBusy) => match err.plain() {
            HelperError::Unsupported(text) => {
                assert!(text.contains("CPU 3") && text.contains("performance governor"), "{text}");
            }
            other => panic!("expected Unsupported, got {other:?}"),
        },
        other => panic!("expected a refusal with its cause, got {other:?}"),
    }
    assert!(helper.tree() == before);
    assert!(runtime.block_on(proxy.set_epp(&[2], 100)).is_ok());
    assert_eq!(helper.policy(2, "energy_performance_preference"), "100");
}

/// Every method, refused: files, saved state and every property stay
/// byte-identical.
#[test]
fn every_refusal_changes_nothing() {
    let bus = Bus::start();
    let (_dir, nobody) = binary_for_nobody();
    for fixture in ["vm-no-cpufreq", "kaby-lake-offline"] {
        let helper = Helper::start(&bus, fixture);
        bus.wait_for_name(PPD_NAME);
        let (runtime, connection) = bus.connect();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        let ppd = ppd_proxy(&runtime, &connection);
        if fixture == "kaby-lake-offline" {
            // Something chosen and saved, so that there is state to keep.
            runtime.block_on(proxy.set_profile("balance_power")).unwrap();
            runtime.block_on(proxy.set_auto_policy("balance_performance", "power")).unwrap();
        }
        std::thread::sleep(Duration::from_millis(100));
        let files = helper.tree();
        let saved = state_files(&helper);
        let properties = all_properties(&bus);
        let unsupported_here = fixture == "vm-no-cpufreq";
        type Call<'a> = Box<dyn Fn() -> String + 'a>;
        let mut cases: Vec<(&str, Call, &str)> = vec![
            (
                "SetProfile unknown",
                Box::new(|| method_error(runtime.block_on(proxy.set_profile("nope")))),
                "InvalidArgument",
            ),
            ("SetEpp 256", Box::new(|| method_error(runtime.block_on(proxy.set_epp(&[], 256)))), "InvalidArgument"),
            (
                "SetGovernor unknown",
                Box::new(|| method_error(runtime.block_on(proxy.set_governor(&[], "x")))),
                // Without cpufreq, no CPU could take any governor.
                if fixture == "vm-no-cpufreq" { "Unsupported" } else { "InvalidArgument" },
            ),
            (
                "SetAutoPolicy unknown",
                Box::new(|| method_error(runtime.block_on(proxy.set_auto_policy("nope", "power")))),
                "InvalidArgument",
            ),
            (
                "SaveCustomProfile malformed",
                Box::new(|| method_error(runtime.block_on(proxy.save_custom_profile(&common::bus::malformed_wire())))),
                "InvalidArgument",
            ),
            (
                "DeleteCustomProfile unknown",
                Box::new(|| method_error(runtime.block_on(proxy.delete_custom_profile("nope")))),
                "InvalidArgument",
            ),
            (
                "SetProfile kernel_default without measuring",
                Box::new(|| method_error(runtime.block_on(proxy.set_profile("kernel_default")))),
                "InvalidArgument",
            ),
            (
                "EndMeasurement unknown",
                Box::new(|| method_error(runtime.block_on(proxy.end_measurement(4711)))),
                "InvalidArgument",
            ),
            (
                "Helper1 HoldProfile balanced",
                Box::new(|| method_error(runtime.block_on(proxy.hold_profile("balanced", "", "")))),
                "InvalidArgument",
            ),
            (
                "Helper1 HoldForGameMode with too long a reason",
                Box::new(|| method_error(runtime.block_on(proxy.hold_for_game_mode(&"r".repeat(300))))),
                "InvalidArgument",
            ),
            (
                "Helper1 ReleaseProfile unknown",
                Box::new(|| method_error(runtime.block_on(proxy.release_profile(4711)))),
                "InvalidArgument",
            ),
            (
                "HoldProfile balanced",
                Box::new(|| method_error(hold(&runtime, &ppd, "balanced", "", ""))),
                "org.freedesktop.DBus.Error.InvalidArgs",
            ),
            (
                "ReleaseProfile unknown",
                Box::new(|| method_error(runtime.block_on(ppd.call::<_, _, ()>("ReleaseProfile", &(4711u32,))))),
                "org.freedesktop.DBus.Error.InvalidArgs",
            ),
            (
                "set ActiveProfile unknown",
                Box::new(|| {
                    method_error(
                        runtime.block_on(ppd.set_property("ActiveProfile", "turbo")).map_err(zbus::Error::from),
                    )
                }),
                "org.freedesktop.DBus.Error.InvalidArgs",
            ),
            (
                "set Profiles",
                Box::new(|| {
                    let empty: Vec<std::collections::HashMap<String, OwnedValue>> = Vec::new();
                    method_error(runtime.block_on(ppd.set_property("Profiles", empty)).map_err(zbus::Error::from))
                }),
                "org.freedesktop.DBus.Error.PropertyReadOnly",
            ),
        ];
        if unsupported_here {
            cases.push((
                "SetProfile here",
                Box::new(|| method_error(runtime.block_on(proxy.set_profile("power")))),
                "Unsupported",
            ));
            cases.push((
                "SetAutoPolicy here",
                Box::new(|| method_error(runtime.block_on(proxy.set_auto_policy("balance_performance", "power")))),
                "Unsupported",
            ));
            cases.push((
                "ReadEnergy without counters",
                Box::new(|| method_error(runtime.block_on(proxy.read_energy()))),
                "Unsupported",
            ));
            cases.push((
                "HoldProfile here",
                Box::new(|| method_error(hold(&runtime, &ppd, "performance", "", ""))),
                "org.freedesktop.DBus.Error.NotSupported",
            ));
        }
        for (what, call, expected) in &cases {
            let got = call();
            let expected = if expected.contains('.') {
                (*expected).to_owned()
            } else {
                format!("io.github.gearshift.Error.{expected}")
            };
            assert_eq!(got, expected, "{fixture}: {what}");
            std::thread::sleep(Duration::from_millis(20));
            assert!(helper.tree() == files, "{fixture}: {what} wrote a file");
            assert_eq!(state_files(&helper), saved, "{fixture}: {what} changed the saved state");
            assert_eq!(all_properties(&bus), properties, "{fixture}: {what} changed a property");
        }
        // Refused by polkit: the same.
        for args in [
            &["profile", "set", "power"][..],
            &["auto", "off"][..],
            &["auto", "set", "--on-ac", "power", "--on-battery", "power"][..],
        ] {
            let out = cli(&bus, Some(&nobody), args);
            assert_eq!(out.status.code(), Some(1), "{fixture} {args:?}: {}", stderr(&out));
            assert!(helper.tree() == files && state_files(&helper) == saved, "{fixture} {args:?}");
            assert_eq!(all_properties(&bus), properties, "{fixture}: {args:?}");
        }
        drop(helper);
        wait_for(|| !bus.has_owner("io.github.gearshift.Helper1"), "the helper to leave");
    }
}

#[test]
fn every_read_only_property_says_so() {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "kaby-lake-2cpu");
    bus.wait_for_name(PPD_NAME);
    let set = |dest: &str, path: &str, interface: &str, property: &str, variant: &str| {
        let out = bus
            .command("dbus-send")
            .args(["--system", "--print-reply"])
            .arg(format!("--dest={dest}"))
            .arg(path)
            .arg("org.freedesktop.DBus.Properties.Set")
            .arg(format!("string:{interface}"))
            .arg(format!("string:{property}"))
            .arg(variant)
            .output()
            .unwrap();
        stderr(&out)
    };
    let helper1 = ("io.github.gearshift.Helper1", "/io/github/gearshift/Helper1", "io.github.gearshift.Helper1");
    for (property, variant) in [("ActiveProfile", "variant:string:power"), ("Version", "variant:string:9")] {
        let err = set(helper1.0, helper1.1, helper1.2, property, variant);
        assert!(err.contains("org.freedesktop.DBus.Error.PropertyReadOnly"), "{property}: {err}");
    }
    for (dest, path) in
        [(PPD_NAME, PPD_PATH), ("org.freedesktop.UPower.PowerProfiles", "/org/freedesktop/UPower/PowerProfiles")]
    {
        for (property, variant) in [
            ("PerformanceDegraded", "variant:string:x"),
            ("PerformanceInhibited", "variant:string:x"),
            ("Version", "variant:string:9"),
        ] {
            let err = set(dest, path, dest, property, variant);
            assert!(err.contains("org.freedesktop.DBus.Error.PropertyReadOnly"), "{dest} {property}: {err}");
        }
        let err = set(dest, path, dest, "NoSuchThing", "variant:string:x");
        assert!(err.contains("org.freedesktop.DBus.Error.UnknownProperty"), "{err}");
    }
    // dbus-send cannot put an array in a variant: zbus can.
    let (runtime, connection) = bus.connect();
    let ppd = ppd_proxy(&runtime, &connection);
    let refused = runtime.block_on(ppd.set_property("Actions", vec!["x".to_owned()])).map_err(zbus::Error::from);
    assert_eq!(method_error(refused), "org.freedesktop.DBus.Error.PropertyReadOnly");
    // The writable one stays writable.
    let err = set(PPD_NAME, PPD_PATH, PPD_NAME, "ActiveProfile", "variant:string:power-saver");
    assert!(err.is_empty(), "{err}");
}

/// A fake process under the helper's root, as /proc shows one.
fn fake_process(root: &Path, pid: u32, comm: &str, uid: u32, exe: &Path) {
    let dir = root.join(format!("proc/{pid}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("comm"), format!("{comm}\n")).unwrap();
    std::fs::write(dir.join("status"), format!("Name:\t{comm}\nUid:\t{uid}\t{uid}\t{uid}\t{uid}\n")).unwrap();
    let _ = std::fs::remove_file(dir.join("exe"));
    std::os::unix::fs::symlink(exe, dir.join("exe")).unwrap();
}

#[test]
fn a_program_renamed_tlp_is_no_power_manager_and_active_profile_tells_the_truth() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    // An ordinary user's copy of sleep, named tlp.
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("tlp");
    std::fs::copy("/bin/sleep", &copy).unwrap();
    std::os::unix::fs::chown(&copy, Some(65534), Some(65534)).unwrap();
    fake_process(helper.root.path(), 4242, "tlp", 65534, &copy);
    let state = helper.state.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("state.toml"), "active_profile = \"power\"\n").unwrap();
    helper.spawn(&bus);
    let (runtime, connection) = bus.connect();
    let proxy = uncached(&runtime, &connection);
    assert_eq!(runtime.block_on(proxy.conflicts()).unwrap(), Vec::<String>::new());
    wait_for(|| epp(&helper, 0..22).iter().all(|v| *v == shown_epp(255)), "the saved profile applied at start");
    assert_eq!(runtime.block_on(proxy.active_profile()).unwrap(), "power");

    // The real daemon runs as root: the helper steps aside, and does not
    // claim a profile the files do not hold.
    helper.stop();
    std::os::unix::fs::chown(&copy, Some(0), Some(0)).unwrap();
    fake_process(helper.root.path(), 4242, "tlp", 0, &copy);
    set_all(&helper, 0..22, "energy_performance_preference", "0");
    helper.spawn(&bus);
    let proxy = uncached(&runtime, &connection);
    assert_eq!(runtime.block_on(proxy.conflicts()).unwrap(), ["tlp"]);
    round_trip(&bus);
    assert_eq!(epp(&helper, 0..22), vec![shown_epp(0); 22], "the helper fought tlp");
    assert_eq!(runtime.block_on(proxy.active_profile()).unwrap(), "", "ActiveProfile claims a profile the files lack");
    let ppd = ppd_proxy(&runtime, &connection);
    let _: String = runtime.block_on(ppd.get_property("ActiveProfile")).unwrap();
    // Where the files happen to hold the saved profile, it is reported.
    helper.stop();
    set_all(&helper, 0..22, "energy_performance_preference", "255");
    helper.spawn(&bus);
    let proxy = uncached(&runtime, &connection);
    wait_for(|| runtime.block_on(proxy.active_profile()).unwrap() == "power", "the profile the files hold");
}

#[test]
fn reading_conflicts_does_not_scan_proc_every_time() {
    let bus = Bus::start();
    let strace_log = tempfile::NamedTempFile::new().unwrap();
    let log = strace_log.path().to_str().unwrap().to_owned();
    let mut helper = Helper::prepare("kaby-lake-2cpu");
    for pid in 1000..1040 {
        fake_process(helper.root.path(), pid, "bash", 1000, Path::new("/bin/bash"));
    }
    helper.wrapper = ["strace", "-f", "-e", "trace=openat,open", "-o", log.as_str()].map(String::from).to_vec();
    helper.spawn(&bus);
    let opens = || std::fs::read_to_string(&log).unwrap_or_default().lines().filter(|l| l.contains("/comm\"")).count();
    let (runtime, connection) = bus.connect();
    let proxy = uncached(&runtime, &connection);
    assert!(runtime.block_on(proxy.conflicts()).unwrap().is_empty());
    // The start (and the first read) scanned: the count is live.
    wait_for(|| opens() >= 40, "strace to show the first scan of the 40 processes");
    let before = opens();
    for _ in 0..50 {
        runtime.block_on(proxy.conflicts()).unwrap();
    }
    let scanned = opens() - before;
    // At most one rescan (40 processes) for 50 reads, not 50 of them.
    assert!(scanned <= 40, "50 reads of Conflicts opened {scanned} comm files");
    drop(helper);
}

#[test]
fn a_full_disk_is_reported_and_the_save_retried() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    let state = helper.state.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"]).arg(&state).status().unwrap();
    assert!(mounted.success(), "mounting a small tmpfs (the tests run as root)");
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(state.clone());
    // Fill it.
    let filler = state.join("filler");
    let _ = std::fs::write(&filler, vec![0u8; 64 * 1024]);
    helper.spawn(&bus);
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(epp(&helper, 0..22), vec![shown_epp(255); 22]);
    let warning = stderr(&out);
    assert!(warning.contains("could not save") && warning.contains("No space left"), "{warning}");
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let summary = runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    assert!(summary.unsaved.contains("No space left"), "{summary:?}");
    assert!(summary.summary.contains("could not be saved"), "{summary:?}");
    // Space comes back: the retry saves the latest choice unasked.
    std::fs::remove_file(&filler).unwrap();
    wait_for(
        || std::fs::read_to_string(state.join("state.toml")).is_ok_and(|t| t.contains("balance_power")),
        "the retried save",
    );
    let summary = runtime.block_on(proxy.set_profile("performance")).unwrap();
    assert!(summary.unsaved.is_empty(), "{summary:?}");
    helper.stop();
}

#[test]
fn energy_is_limited_per_user_not_per_connection() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    // On plain files the counter is the test's; the kernel-faithful sysfs
    // serves its own, counting at its power model.
    if !common::bus::on_kernelfs() {
        std::fs::write(helper.root.path().join("sys/class/powercap/intel-rapl:0/energy_uj"), "1000").unwrap();
    }
    // (sent, answered, accepted) of each read.
    let mut reads = Vec::new();
    for _ in 0..8 {
        // A fresh connection for every read.
        let (runtime, connection) = bus.connect();
        let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
        let sent = Instant::now();
        let result = method_error(runtime.block_on(proxy.read_energy()));
        let accepted = result == "accepted";
        assert!(accepted || result == "io.github.gearshift.Error.RateLimited", "{result}");
        reads.push((sent, Instant::now(), accepted));
    }
    // No five accepted reads fall within one second, whatever the machine's
    // speed; on any ordinary machine the eight take well under a second, and
    // then some must have been refused.
    let accepted: Vec<_> = reads.iter().filter(|r| r.2).collect();
    for five in accepted.windows(5) {
        let span = five[4].1.duration_since(five[0].0);
        assert!(span >= Duration::from_secs(1), "5 reads by one user accepted within {span:?}");
    }
    if reads[7].1.duration_since(reads[0].0) < Duration::from_secs(1) {
        assert!(accepted.len() <= 4, "{} of 8 reads within a second accepted", accepted.len());
    }
}

#[test]
fn custom_profiles_in_use_cannot_vanish_and_names_are_plain_text() {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "meteor-lake-155h");
    let (runtime, connection) = bus.connect();
    let proxy = uncached(&runtime, &connection);
    let profile = |id: &str, name: &str| format!("[[profile]]\nid = \"{id}\"\nname = \"{name}\"\nepp = 90\n");
    let bidi = runtime.block_on(proxy.save_custom_profile(&common::bus::wire(&profile("evil", "\\u202Erewop"))));
    assert_eq!(method_error(bidi), "io.github.gearshift.Error.InvalidArgument");
    runtime.block_on(proxy.save_custom_profile(&common::bus::wire(&profile("office", "Office")))).unwrap();
    runtime.block_on(proxy.save_custom_profile(&common::bus::wire(&profile("train", "Train")))).unwrap();
    runtime.block_on(proxy.set_profile("office")).unwrap();
    assert_eq!(
        method_error(runtime.block_on(proxy.delete_custom_profile("office"))),
        "io.github.gearshift.Error.InvalidArgument"
    );
    runtime.block_on(proxy.set_profile("balance_performance")).unwrap();
    runtime.block_on(proxy.set_auto_policy("balance_performance", "train")).unwrap();
    assert_eq!(
        method_error(runtime.block_on(proxy.delete_custom_profile("train"))),
        "io.github.gearshift.Error.InvalidArgument"
    );
    runtime.block_on(proxy.delete_custom_profile("office")).unwrap();
    // With the policy off, its slot falls back to the default, said so in AutoPolicy.
    runtime.block_on(proxy.disable_auto_policy()).unwrap();
    runtime.block_on(proxy.delete_custom_profile("train")).unwrap();
    let gearshift::dbus::AutoPolicy { enabled, on_battery, .. } = runtime.block_on(proxy.auto_policy()).unwrap();
    assert!(!enabled);
    assert_eq!(on_battery, "balance_power");
}

#[test]
fn a_policy_directory_linked_out_of_the_tree_is_not_written() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    let outside = tempfile::tempdir().unwrap();
    let policy = helper.root.path().join(format!("{POLICIES}/policy7"));
    for entry in std::fs::read_dir(&policy).unwrap().flatten() {
        std::fs::copy(entry.path(), outside.path().join(entry.file_name())).unwrap();
    }
    std::fs::remove_dir_all(&policy).unwrap();
    std::os::unix::fs::symlink(outside.path(), &policy).unwrap();
    let outside_before = std::fs::read(outside.path().join("energy_performance_preference")).unwrap();
    helper.spawn(&bus);
    let before = helper.tree();
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stderr(&out).contains("EXDEV"), "{}", stderr(&out));
    assert_eq!(std::fs::read(outside.path().join("energy_performance_preference")).unwrap(), outside_before);
    assert_eq!(std::fs::read_to_string(outside.path().join("scaling_governor")).unwrap().trim(), "powersave");
    assert!(helper.tree() == before, "the other CPUs were not restored");
    let _ = Value::from(0u32);
}

#[test]
fn names_and_ids_that_pass_for_something_else_are_refused_and_nothing_is_stored() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let (runtime, connection) = bus.connect();
    let proxy = uncached(&runtime, &connection);
    let profile = |id: &str, name: &str| format!("[[profile]]\nid = \"{id}\"\nname = \"{name}\"\nepp = 90\n");
    runtime.block_on(proxy.save_custom_profile(&common::bus::wire(&profile("office", "Office")))).unwrap();
    let saved = state_files(&helper);
    let listed = runtime.block_on(proxy.list_custom_profiles()).unwrap();
    let zalgo = format!("Z{}", "\\u0301".repeat(63));
    // (id, name as TOML escapes, what the refusal must say)
    let cases = [
        ("work", "Work\\u200B", "U+200B"),
        ("work", "\\uFEFFWork", "U+FEFF"),
        ("power-x", "Po\\u00ADwer X", "U+00AD"),
        ("work-power-saver", "Work\\u2028Power Saver", "U+2028"),
        ("tagged", "Tag\\U000E0041", "U+E0041"),
        ("blank", "\\u3164\\u3164", "U+3164"),
        ("braille", "\\u2800\\u2800", "U+2800"),
        ("z", zalgo.as_str(), "combining marks"),
        ("power-saver", "Power Saver", "built-in profile"),
        ("custom-balanced", "BALANCED", "built-in profile"),
        ("рower", "Rower", "Cyrillic, Latin"),
        ("perfоrmance", "Perf", "Cyrillic, Latin"),
        ("oﬃce", "Oﬃce 2", "NFKC"),
        ("оffice-2", "Office 2", "Cyrillic, Latin"),
        ("office-3", "Оffice", "Cyrillic, Latin"),
        ("0ffice", "0ffice", "your profile"),
    ];
    for (id, name, says) in cases {
        match runtime.block_on(proxy.save_custom_profile(&common::bus::wire(&profile(id, name)))) {
            Err(HelperError::InvalidArgument(text)) => assert!(text.contains(says), "{id} {name:?}: {text}"),
            other => panic!("{id} {name:?} was not refused as it should be: {other:?}"),
        }
        assert_eq!(state_files(&helper), saved, "{id} {name:?}: something was stored");
        assert_eq!(runtime.block_on(proxy.list_custom_profiles()).unwrap(), listed, "{id} {name:?}");
    }
    // Names of one script (or Latin with Han) pass, and are kept in NFKC form.
    for (id, name) in [("büro", "Büro"), ("日本語-profile", "日本語 profile"), ("ρεύμα", "Ρεύμα"), ("wide", "Ｗｉｄｅ")]
    {
        runtime
            .block_on(proxy.save_custom_profile(&common::bus::wire(&profile(id, name))))
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    let listed = gearshift::dbus::profile::list_from_wire(&runtime.block_on(proxy.list_custom_profiles()).unwrap());
    assert!(listed.as_ref().unwrap().iter().any(|p| p.name == "Wide"), "{listed:?}");
}

#[test]
fn the_policy_says_when_it_was_not_saved_and_no_temporary_file_stays() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    let state = helper.state.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let mounted = Command::new("mount").args(["-t", "tmpfs", "-o", "size=16k", "tmpfs"]).arg(&state).status().unwrap();
    assert!(mounted.success(), "mounting a small tmpfs (the tests run as root)");
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(state.clone());
    helper.spawn(&bus);
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    let saved = std::fs::read(state.join("state.toml")).unwrap();
    // Fill the disk.
    let _ = std::fs::write(state.join("filler"), vec![0u8; 64 * 1024]);
    let leftovers = || -> Vec<String> {
        std::fs::read_dir(&state)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    };
    let on = runtime.block_on(proxy.set_auto_policy("balance_performance", "power")).unwrap();
    assert!(on.unsaved.contains("No space left"), "{on:?}");
    assert_eq!(std::fs::read(state.join("state.toml")).unwrap(), saved, "state.toml changed");
    assert_eq!(leftovers(), Vec::<String>::new(), "a failed save left its temporary file");
    let off = runtime.block_on(proxy.disable_auto_policy()).unwrap();
    assert!(off.unsaved.contains("No space left"), "{off:?}");
    let out = cli(&bus, None, &["auto", "set", "--on-ac", "performance", "--on-battery", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("could not save") || stderr(&out).contains("No space left"), "{}", stderr(&out));
    assert_eq!(std::fs::read(state.join("state.toml")).unwrap(), saved, "state.toml changed");
    assert_eq!(leftovers(), Vec::<String>::new());
    helper.stop();
}

#[test]
fn a_write_whose_undo_fails_too_leaves_no_profile_claimed() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    let (runtime, connection) = bus.connect();
    let proxy = uncached(&runtime, &connection);
    runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    let kernel = helper.kernel().expect("the emulator serves the root");
    let epp_file = |policy: u32| format!("{POLICIES}/policy{policy}/energy_performance_preference");
    // CPU 10's write fails; CPU 3's works, but putting it back does not.
    kernel.firmware(&format!("fail-writes {} EIO", epp_file(10)));
    kernel.firmware(&format!("fail-writes {} EIO 1", epp_file(3)));
    match runtime.block_on(proxy.set_profile("power")) {
        Err(HelperError::WriteFailed(text)) => {
            assert!(text.contains("CPU 10") && text.contains("EIO"), "{text}");
            assert!(text.contains("could not be") && text.contains("CPU 3"), "the undo's failure: {text}");
        }
        other => panic!("expected a failed write, got {other:?}"),
    }
    kernel.firmware("clear-faults");
    // CPU 3 holds Power Saver's value, the others Efficient's: no profile.
    assert_eq!(helper.policy(3, "energy_performance_preference"), "power");
    assert_eq!(helper.policy(4, "energy_performance_preference"), "179");
    assert_eq!(runtime.block_on(proxy.active_profile()).unwrap(), "", "ActiveProfile names a profile the files lack");
    // The next switch puts every CPU in order again.
    runtime.block_on(proxy.set_profile("balance_power")).unwrap();
    assert_eq!(epp(&helper, 0..22), vec!["179"; 22]);
    assert_eq!(runtime.block_on(proxy.active_profile()).unwrap(), "balance_power");
}
