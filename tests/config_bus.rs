//! The administrator's configuration (docs/fleet.md) with the real helper
//! on a private bus over a snapshot: files under the snapshot's
//! etc/gearshift set the boot profile and the AC/battery policy, a later
//! file wins, `locked` refuses switching and tuning on every interface
//! with the file's name, SIGHUP and `ReloadConfig` read the files again,
//! a broken file is named in the log and set aside while the others apply,
//! and `gearshift config check` says the same without the helper.

mod common;

use std::path::Path;

use common::bus::{cli, wait_for, Bus, Helper};
use common::{stderr, stdout};

fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const MAIN: &str = "etc/gearshift/gearshift.toml";
const FLEET: &str = "etc/gearshift/conf.d/50-fleet.toml";

/// A helper on its first start (no saved state) with `files` in the
/// snapshot's etc/gearshift.
fn start(files: &[(&str, &str)]) -> (Bus, Helper) {
    let bus = Bus::start();
    let mut helper = Helper::prepare("meteor-lake-155h");
    for (rel, text) in files {
        put(helper.root.path(), rel, text);
    }
    helper.spawn(&bus);
    (bus, helper)
}

fn profile(bus: &Bus) -> String {
    stdout(&cli(bus, None, &["profile", "get"])).trim().to_owned()
}

#[test]
fn drop_ins_set_the_boot_profile_and_the_policy_and_a_later_file_wins() {
    let (bus, helper) = start(&[
        (MAIN, "profile = \"performance\"\n[auto]\nenabled = true\non_ac = \"performance\"\non_battery = \"balance_power\"\n"),
        (FLEET, "profile = \"balance_power\"\n[auto]\non_battery = \"power\"\n"),
    ]);
    // The later file's boot profile, applied at the first start.
    wait_for(|| profile(&bus) == "balance_power", "the boot profile from 50-fleet.toml");
    assert_eq!(helper.policy(0, "energy_performance_preference"), "179");
    let auto = stdout(&cli(&bus, None, &["auto", "status", "--json"]));
    let auto: serde_json::Value = serde_json::from_str(&auto).unwrap();
    assert_eq!((auto["enabled"].as_bool(), auto["on_ac"].as_str()), (Some(true), Some("performance")), "{auto}");
    assert_eq!(auto["on_battery"], "power", "{auto}");
    // The status says which file set what.
    let root = helper.root.path().to_str().unwrap().to_owned();
    let status: serde_json::Value =
        serde_json::from_slice(&cli(&bus, None, &["--root", &root, "status", "--json"]).stdout).unwrap();
    let config = &status["config"];
    assert_eq!(config["locked"], false, "{config}");
    assert!(config["settings"]["profile"].as_str().unwrap().ends_with(FLEET), "{config}");
    assert!(config["settings"]["auto.on_ac"].as_str().unwrap().ends_with(MAIN), "{config}");
    // A person's own choice wins over the boot profile, also after a reload.
    assert!(cli(&bus, None, &["profile", "set", "performance"]).status.success());
    let reload = bus.dbus_send(false, "ReloadConfig", &[]);
    assert!(reload.status.success(), "{}", stderr(&reload));
    helper.wait_handled("configuration reloaded", 1);
    assert_eq!(profile(&bus), "performance");
}

#[test]
fn locked_refuses_switching_and_tuning_everywhere_with_the_file_that_says_so() {
    let (bus, helper) = start(&[(FLEET, "profile = \"balance_power\"\nlocked = true\n")]);
    wait_for(|| profile(&bus) == "balance_power", "the locked boot profile");
    let before = helper.tree();
    let said_locked = |text: &str| text.contains("administrator") && text.contains(FLEET);
    let set = cli(&bus, None, &["profile", "set", "performance"]);
    assert_eq!(set.status.code(), Some(1));
    assert!(said_locked(&stderr(&set)), "{}", stderr(&set));
    // A password cannot lift a lock: the advice says who can, not to find
    // a polkit agent.
    assert!(
        stderr(&set).contains("only an administrator can") && !stderr(&set).contains("polkit agent"),
        "{}",
        stderr(&set)
    );
    let root = helper.root.path().to_str().unwrap().to_owned();
    let save = cli(&bus, None, &["--root", &root, "profile", "save", "Quiet", "--epp", "200"]);
    assert!(!save.status.success() && said_locked(&stderr(&save)), "{}", stderr(&save));
    let epp = cli(&bus, None, &["epp", "set", "200"]);
    assert!(!epp.status.success() && said_locked(&stderr(&epp)), "{}", stderr(&epp));
    // The desktop's power menu: the PowerProfiles API's ActiveProfile.
    let panel = bus.set_panel_property("ActiveProfile", "string:performance");
    assert!(!panel.status.success() && said_locked(&stderr(&panel)), "{}", stderr(&panel));
    // And its battery awareness, a setting of how profiles apply.
    let aware = bus.set_panel_property("BatteryAware", "boolean:false");
    assert!(!aware.status.success() && said_locked(&stderr(&aware)), "{}", stderr(&aware));
    assert_eq!(helper.tree(), before, "a refusal changed a file");
    // The lock is a property the window and the tray show.
    let lock = bus
        .command("dbus-send")
        .args(["--system", "--print-reply", "--dest=io.github.gearshift.Helper1", "/io/github/gearshift/Helper1"])
        .args(["org.freedesktop.DBus.Properties.Get", "string:io.github.gearshift.Helper1", "string:AdministratorLock"])
        .output()
        .unwrap();
    assert!(stdout(&lock).contains(FLEET), "{}", stdout(&lock));
    // Only root reloads the files.
    let nobody = bus.dbus_send(true, "ReloadConfig", &[]);
    assert!(!nobody.status.success() && stderr(&nobody).contains("only root"), "{}", stderr(&nobody));
    // SIGHUP reads the files again: unlocked, people may switch.
    put(helper.root.path(), FLEET, "profile = \"balance_power\"\nlocked = false\n");
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(helper.helper_pid() as i32, libc::SIGHUP) };
    helper.wait_handled("configuration reloaded", 1);
    let set = cli(&bus, None, &["profile", "set", "performance"]);
    assert!(set.status.success(), "{}", stderr(&set));
}

#[test]
fn a_broken_file_is_named_in_the_log_and_the_others_still_apply() {
    let (bus, helper) = start(&[
        (MAIN, "profile = \"power\"\n"),
        ("etc/gearshift/conf.d/10-typo.toml", "# a typo\nlockd = true\n"),
        ("etc/gearshift/conf.d/20-unknown.toml", "profile = \"turbo\"\n"),
    ]);
    wait_for(|| profile(&bus) == "power", "the boot profile of the good file");
    let log = helper.log_text();
    assert!(log.contains("10-typo.toml:2: unknown key “lockd”"), "{log}");
    assert!(log.contains("20-unknown.toml:1: no profile is called “turbo”"), "{log}");
    assert!(log.contains("this file is ignored; the others apply"), "{log}");
    // Nothing locked: the typo's lock is not taken.
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
}

#[test]
fn config_check_says_it_without_the_helper() {
    let root = common::copy_fixture("meteor-lake-155h");
    let check = |args: &[&str]| {
        let mut all = vec!["--root", root.path().to_str().unwrap(), "config", "check"];
        all.extend(args);
        common::gearshift(&all)
    };
    let nothing = check(&[]);
    assert_eq!(nothing.status.code(), Some(0), "{}", stderr(&nothing));
    assert!(stdout(&nothing).contains("no configuration files"), "{}", stdout(&nothing));
    put(root.path(), MAIN, "profile = \"balance_performance\"\n[[no]]\n");
    let bad = check(&[]);
    assert_eq!(bad.status.code(), Some(2), "{}", stdout(&bad));
    let lines: Vec<&str> = std::str::from_utf8(&bad.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].ends_with(
            "gearshift.toml:2: unknown key “no”: the keys here are profile, default_profile, locked, auto, metrics, rule"
        ),
        "{lines:?}"
    );
    put(root.path(), MAIN, "profile = \"balance_performance\"\n");
    assert_eq!(check(&[]).status.code(), Some(0));
    // A file about to be installed, checked where it would go.
    let candidate = root.path().join("candidate.toml");
    std::fs::write(&candidate, "[[profile]]\nid = \"render\"\nname = \"Render farm\"\nepp = 32\n").unwrap();
    let good = check(&[candidate.to_str().unwrap()]);
    assert_eq!(good.status.code(), Some(0), "{}", stdout(&good));
    std::fs::write(&candidate, "[[profile]]\nid = \"render\"\nname = \"Render farm\"\nepp = 320\n").unwrap();
    let refused = check(&[candidate.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2), "{}", stdout(&refused));
    assert!(stdout(&refused).contains("candidate.toml:1: profile “render”"), "{}", stdout(&refused));
    // --as: the file checked in the place of a broken one it replaces, so
    // that a playbook can fix what it wrote before.
    put(root.path(), FLEET, "profile = \"turbo\"\n");
    std::fs::write(&candidate, "profile = \"power\"\n").unwrap();
    assert_eq!(check(&[candidate.to_str().unwrap()]).status.code(), Some(2));
    let fixed = check(&[candidate.to_str().unwrap(), "--as", "50-fleet.toml"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", stdout(&fixed));
    assert!(stdout(&fixed).contains(FLEET), "{}", stdout(&fixed));
    let bad_name = check(&[candidate.to_str().unwrap(), "--as", "../gearshift.toml"]);
    assert_eq!(bad_name.status.code(), Some(2), "{}", stderr(&bad_name));
    assert!(stderr(&bad_name).contains("ends in .toml"), "{}", stderr(&bad_name));
}

/// The helper's refusals reach a German reader in German: the helper
/// sends each message whole beside its English words (docs/dbus-api.md,
/// "Errors"), and the command line fills in its own catalogue's sentence.
#[test]
fn the_helpers_refusals_read_in_the_readers_language() {
    let locales = common::compiled_catalogues();
    let german = |bus: &Bus, args: &[&str]| {
        let out = bus
            .command(env!("CARGO_BIN_EXE_gearshift"))
            .args(args)
            .env("GEARSHIFT_LOCALEDIR", locales.path())
            .env("LC_ALL", "de_DE.UTF-8")
            .env("LANGUAGE", "de")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} was refused");
        stderr(&out)
    };
    let (bus, helper) = start(&[]);
    let before = helper.tree();
    // Each is the helper's answer: the command line sends these unchecked.
    for (args, german_words) in [
        (&["epp", "set", "--cpus", "99", "100"][..], "CPU 99 gibt es nicht"),
        (&["mode", "set", "guided"][..], "Guided ist kein Modus von intel_pstate: er nimmt active, passive"),
        (&["governor", "set", "ondemand"][..], "bietet den Governor „ondemand“ nicht an"),
    ] {
        let said = german(&bus, args);
        assert!(said.contains(german_words), "{args:?}: {said}");
        assert!(common::english_in(&said).is_empty(), "{args:?}: {:?}", common::english_in(&said));
    }
    assert_eq!(helper.tree(), before, "a refusal changed a file");
    // The administrator's lock, with its file.
    let (bus, _helper) = start(&[(FLEET, "locked = true\n")]);
    let said = german(&bus, &["profile", "set", "performance"]);
    assert!(said.contains("Umschalten und Einstellen legt Ihr Administrator in") && said.contains(FLEET), "{said}");
    assert!(common::english_in(&said).is_empty(), "{:?}", common::english_in(&said));
    // Without a catalogue, the English words; and the error's first
    // argument, which busctl, dbus-send and the logs show, stays English.
    let english = cli(&bus, None, &["profile", "set", "performance"]);
    assert!(stderr(&english).contains("Switching and tuning are set by your administrator"), "{}", stderr(&english));
    let raw = bus.dbus_send(false, "SetProfile", &["string:performance"]);
    assert!(stderr(&raw).contains("switching and tuning are set by your administrator in"), "{}", stderr(&raw));
}
