//! The desktop power panel's API, AC/battery switching, and re-applying
//! after resume and restart: the helper on a private system bus with the
//! real dbus-daemon and polkitd, python-dbusmock for UPower and logind, and
//! Debian's real powerprofilesctl.

mod common;

use std::process::{Child, Stdio};

use common::bus::{cli, shown_epp, wait_for, Bus, Helper, Mock, MOCK_POLICY};
use common::{stderr, stdout};

const CPUS: std::ops::Range<u32> = 0..22;

fn all_epp(helper: &Helper) -> Vec<String> {
    CPUS.map(|c| helper.policy(c, "energy_performance_preference")).collect()
}

fn wait_epp(helper: &Helper, want: &str, what: &str) {
    wait_for(|| all_epp(helper).iter().all(|v| v == want), what);
}

fn reset_epp(helper: &Helper, value: &str) {
    for cpu in CPUS {
        let path = helper
            .root
            .path()
            .join(format!("sys/devices/system/cpu/cpufreq/policy{cpu}/energy_performance_preference"));
        std::fs::write(path, format!("{value}\n")).unwrap();
    }
}

fn mocked_bus() -> Bus {
    Bus::start_with(&[("mocks.conf", MOCK_POLICY)])
}

#[test]
fn powerprofilesctl_drives_the_model_specific_profiles() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let ctl = |args: &[&str]| {
        bus.command("powerprofilesctl").args(args).output().expect("powerprofilesctl (package power-profiles-daemon)")
    };

    let list = ctl(&["list"]);
    assert!(list.status.success(), "{}", stderr(&list));
    let text = stdout(&list);
    // This ThinkPad has a platform profile too: both drive every profile
    // (0.12's powerprofilesctl shows only `Driver`).
    for name in ["performance:", "balanced:", "power-saver:", "Driver:     multiple"] {
        assert!(text.contains(name), "powerprofilesctl list lacks {name}:\n{text}");
    }

    assert!(ctl(&["set", "power-saver"]).status.success());
    assert_eq!(all_epp(&helper), vec![shown_epp(255); 22]);
    assert_eq!(stdout(&ctl(&["get"])).trim(), "power-saver");

    assert!(ctl(&["set", "balanced"]).status.success());
    // Intel's Meteor Lake value, where power-profiles-daemon writes 128.
    assert_eq!(all_epp(&helper), vec!["64"; 22]);
    assert_eq!(stdout(&ctl(&["get"])).trim(), "balanced");
    assert_eq!(stdout(&cli(&bus, None, &["profile", "get"])).trim(), "balance_performance");

    // The newer name answers too, with the same state.
    let upower_property = |method: &str, value: Option<&str>| {
        bus.command("dbus-send")
            .args([
                "--system",
                "--print-reply",
                "--dest=org.freedesktop.UPower.PowerProfiles",
                "/org/freedesktop/UPower/PowerProfiles",
            ])
            .arg(format!("org.freedesktop.DBus.Properties.{method}"))
            .args(["string:org.freedesktop.UPower.PowerProfiles", "string:ActiveProfile"])
            .args(value)
            .output()
            .unwrap()
    };
    let get = upower_property("Get", None);
    assert!(stdout(&get).contains("\"balanced\""), "{}{}", stdout(&get), stderr(&get));
    let set = upower_property("Set", Some("variant:string:performance"));
    assert!(set.status.success(), "{}", stderr(&set));
    assert_eq!(all_epp(&helper), vec!["16"; 22]);
    assert_eq!(stdout(&ctl(&["get"])).trim(), "performance");

    // A name the panel does not know is refused, and nothing changes.
    let before = helper.tree();
    assert!(!ctl(&["set", "turbo"]).status.success());
    assert!(helper.tree() == before);
}

#[test]
fn unplugging_switches_to_the_battery_profile_and_back() {
    let bus = mocked_bus();
    let _upower = Mock::start(&bus, "upower", "org.freedesktop.UPower");
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let out = cli(&bus, None, &["auto", "set", "--on-ac", "balance_performance", "--on-battery", "balance_power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    wait_epp(&helper, "64", "the AC profile");
    let status = stdout(&cli(&bus, None, &["auto", "status", "--json"]));
    assert!(status.contains("\"enabled\":true"), "{status}");

    bus.set_on_battery(true);
    wait_epp(&helper, "179", "the battery profile after unplugging");
    bus.set_on_battery(false);
    wait_epp(&helper, "64", "the AC profile after plugging in");

    // A manual switch holds until the next power-source change.
    assert!(cli(&bus, None, &["profile", "set", "performance"]).status.success());
    assert_eq!(all_epp(&helper), vec!["16"; 22]);
    bus.set_on_battery(true);
    wait_epp(&helper, "179", "the battery profile replacing the manual one");

    // Off: the power source no longer matters.
    assert!(cli(&bus, None, &["auto", "off"]).status.success());
    let seen = helper.handled("power source: on battery false");
    bus.set_on_battery(false);
    helper.wait_handled("power source: on battery false", seen + 1);
    assert_eq!(all_epp(&helper), vec!["179"; 22]);
}

#[test]
fn resume_writes_again_what_firmware_reset() {
    let bus = mocked_bus();
    let _logind = Mock::start(&bus, "logind", "org.freedesktop.login1");
    let helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    // Firmware reset EPP while suspended.
    reset_epp(&helper, "128");
    bus.emit_resume();
    wait_epp(&helper, "179", "every CPU back at the profile's value after resume");
    // The log line follows the writes: wait for it rather than race it.
    wait_for(|| helper.log_text().contains("after resume"), "the helper's log of the resume");
}

#[test]
fn a_restart_applies_the_saved_profile() {
    let bus = Bus::start();
    let mut helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    helper.stop();
    reset_epp(&helper, "balance_performance");
    helper.spawn(&bus);
    wait_epp(&helper, "179", "the saved profile re-applied at start");
    assert_eq!(stdout(&cli(&bus, None, &["profile", "get"])).trim(), "balance_power");
}

#[test]
fn another_power_daemon_keeps_its_names_and_is_reported() {
    let bus = mocked_bus();
    let _ppd = Mock::start(&bus, "power_profiles_daemon", "net.hadess.PowerProfiles");
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(gearshift::client::Helper1Proxy::new(&connection)).unwrap();
    let conflicts = runtime.block_on(proxy.conflicts()).unwrap();
    assert_eq!(conflicts, vec!["power-profiles-daemon".to_owned()]);
    // The mock still owns its name: the helper did not take it.
    let owner = bus
        .command("dbus-send")
        .args(["--system", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus"])
        .args(["org.freedesktop.DBus.GetConnectionUnixProcessID", "string:net.hadess.PowerProfiles"])
        .output()
        .unwrap();
    assert!(!stdout(&owner).contains(&helper.pid().to_string()));
    // Nor the newer name: two daemons behind the two names would fight.
    assert!(!bus.has_owner("org.freedesktop.UPower.PowerProfiles"));
    assert!(helper.log_text().contains("leaving the power panel's names alone"), "{}", helper.log_text());
    // The command line reports it too (it asks the bus who owns the names).
    let status: serde_json::Value = serde_json::from_slice(&cli(&bus, None, &["status", "--json"]).stdout).unwrap();
    assert_eq!(status["conflicts"], serde_json::json!(["power-profiles-daemon"]));
}

#[test]
fn our_own_helper_serving_the_panel_is_no_conflict() {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let status: serde_json::Value = serde_json::from_slice(&cli(&bus, None, &["status", "--json"]).stdout).unwrap();
    assert_eq!(status["conflicts"], serde_json::json!([]));
}

fn holder(bus: &Bus, profile: &str) -> Child {
    let script = format!(
        "import dbus, sys, time\n\
         bus = dbus.SystemBus()\n\
         ppd = bus.get_object('org.freedesktop.UPower.PowerProfiles', '/org/freedesktop/UPower/PowerProfiles')\n\
         cookie = ppd.HoldProfile('{profile}', 'testing', 'io.github.gearshift.Test', dbus_interface='org.freedesktop.UPower.PowerProfiles')\n\
         print(cookie, flush=True)\n\
         time.sleep(600)\n"
    );
    bus.command("/usr/bin/python3").args(["-c", &script]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap()
}

#[test]
fn a_performance_hold_wins_over_the_battery_switch_until_its_holder_leaves() {
    let bus = mocked_bus();
    let _upower = Mock::start(&bus, "upower", "org.freedesktop.UPower");
    let helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["auto", "set", "--on-ac", "balance_performance", "--on-battery", "power"])
        .status
        .success());
    wait_epp(&helper, "64", "the AC profile");

    let mut game = holder(&bus, "performance");
    wait_epp(&helper, "16", "the held performance profile");
    let holds = bus
        .command("dbus-send")
        .args(["--system", "--print-reply", "--dest=net.hadess.PowerProfiles", "/net/hadess/PowerProfiles"])
        .args(["org.freedesktop.DBus.Properties.Get", "string:net.hadess.PowerProfiles", "string:ActiveProfileHolds"])
        .output()
        .unwrap();
    assert!(stdout(&holds).contains("io.github.gearshift.Test"), "{}", stdout(&holds));

    // Unplugged: the policy would pick power-saver; the hold wins.
    let seen = helper.handled("power source: on battery true");
    bus.set_on_battery(true);
    helper.wait_handled("power source: on battery true", seen + 1);
    assert_eq!(all_epp(&helper), vec!["16"; 22]);

    // The holder leaves the bus: the policy's choice returns.
    let _ = game.kill();
    let _ = game.wait();
    wait_epp(&helper, &shown_epp(255), "the battery profile after the hold ended");
}

#[test]
fn the_panel_shows_every_profile_by_the_one_rule() {
    // docs/interfaces.md, "The desktop panel's names": Efficient is
    // balanced (it is what power-profiles-daemon's Balanced writes on
    // battery), a custom profile goes by its EPP among the model's values.
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let root = helper.root.path().to_str().unwrap().to_owned();
    let shown = || {
        let get = bus.command("powerprofilesctl").arg("get").output().expect("powerprofilesctl");
        assert!(get.status.success(), "{}", stderr(&get));
        stdout(&get).trim().to_owned()
    };
    for (profile, panel) in [
        ("performance", "performance"),
        ("balance_performance", "balanced"),
        ("balance_power", "balanced"),
        ("power", "power-saver"),
    ] {
        let set = cli(&bus, None, &["profile", "set", profile]);
        assert!(set.status.success(), "{}", stderr(&set));
        assert_eq!(shown(), panel, "{profile}");
    }
    // Meteor Lake's values are 16, 64, 179 and 255: 0 is below the midpoint
    // of 16 and 64, 128 between, 255 above that of 179 and 255.
    for (name, epp, panel) in
        [("Fast", 0u8, "performance"), ("Middle", 128, "balanced"), ("Frugal", 255, "power-saver")]
    {
        let epp_text = epp.to_string();
        let save = cli(&bus, None, &["--root", &root, "profile", "save", name, "--epp", &epp_text]);
        assert!(save.status.success(), "{}", stderr(&save));
        let set = cli(&bus, None, &["profile", "set", &name.to_lowercase()]);
        assert!(set.status.success(), "{}", stderr(&set));
        // On the kernel emulator the file prints the kernel's name for 0,
        // 128 and 255 (KernelFs's table), as the real kernel does.
        assert_eq!(all_epp(&helper), vec![shown_epp(epp); 22]);
        assert_eq!(shown(), panel, "a custom profile at EPP {epp}");
    }
}
