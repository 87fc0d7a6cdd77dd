//! The per-user agent (`gearshift agent`) with the real helper on a
//! private bus and real processes: a person's rule for an executable holds
//! its profile within the budget when a process of that name starts and
//! lets go after it ends, while a process of another user changes
//! nothing; a rule for a desktop app id follows a new scope directory (a
//! fake cgroup tree under `--root`); the administrator's lock turns a
//! person's rules off and keeps the administrator's; a GameMode (dbusmock)
//! with a game running is a hold under which nothing GameMode writes is
//! set back, and the profile comes back when the count returns to 0; a
//! hold the helper refused is asked again when it returns, while a
//! person's own switch stands.

mod common;

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::agent::Agent;
use common::bus::{cli, wait_for, Bus, Helper};

fn holds(bus: &Bus) -> Vec<(String, String, String)> {
    common::bus::panel_holds(bus)
}

/// How long until `ready` holds, within `limit` (or panics).
fn time_until(what: &str, limit: Duration, ready: impl Fn() -> bool) -> Duration {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < limit, "{what} not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    start.elapsed()
}

/// A scratch directory others may enter, with `bin/render-job` (a copy of
/// sleep, so that its executable is called so) and the person's rules.
fn work(rules: &str) -> tempfile::TempDir {
    work_with(rules, "render-job")
}

/// The same, with the copy of sleep called `program`: tests that run at
/// once follow different names, since all run as the same user.
fn work_with(rules: &str, program: &str) -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(work.path().join("bin")).unwrap();
    std::fs::set_permissions(work.path().join("bin"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::copy("/bin/sleep", work.path().join("bin").join(program)).unwrap();
    std::fs::create_dir_all(work.path().join("config/gearshift")).unwrap();
    std::fs::write(work.path().join("config/gearshift/rules.toml"), rules).unwrap();
    work
}

fn profile(bus: &Bus) -> String {
    common::stdout(&cli(bus, None, &["profile", "get"])).trim().to_owned()
}

#[test]
fn a_rule_for_a_program_holds_while_a_process_of_this_person_runs_it() {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    let work = work("[[rule]]\nprogram = \"render-job\"\nprofile = \"performance\"\n");
    let agent = Agent::start(&bus, work.path(), None);
    let job = work.path().join("bin/render-job");
    // Another user's render-job: no hold.
    let mut theirs = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&job)
        .arg("2")
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(holds(&bus), [], "another user's process: {}", agent.said());
    theirs.wait().unwrap();
    // This person's: held at once (the exec opened the watched file).
    let mut mine = Command::new(&job).arg("3").spawn().unwrap();
    let held = time_until("the hold", Duration::from_secs(5), || !holds(&bus).is_empty());
    assert_eq!(
        holds(&bus),
        [("render-job".to_owned(), "performance".to_owned(), "rule: while render-job runs".to_owned())]
    );
    wait_for(|| profile(&bus) == "performance", "Performance while it runs");
    mine.wait().unwrap();
    let released = time_until("the release", Duration::from_secs(5), || holds(&bus).is_empty());
    wait_for(|| profile(&bus) == "balance_power", "the chosen profile back");
    eprintln!("held after {held:?}, let go {released:?} after the end");
    assert!(held < Duration::from_secs(1), "an exec is heard at once: {held:?}");
    // Two at once: one hold, until the last ends.
    let mut first = Command::new(&job).arg("1").spawn().unwrap();
    let mut second = Command::new(&job).arg("3").spawn().unwrap();
    wait_for(|| holds(&bus).len() == 1, "one hold for both");
    first.wait().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(holds(&bus).len(), 1, "the second still runs");
    second.wait().unwrap();
    time_until("the release after the last", Duration::from_secs(5), || holds(&bus).is_empty());
}

#[test]
fn a_refused_hold_is_asked_again_when_the_helper_returns_and_a_persons_switch_stands() {
    let bus = Bus::start();
    let mut helper = Helper::start(&bus, "meteor-lake-155h");
    let work = work_with("[[rule]]\nprogram = \"bake-job\"\nprofile = \"performance\"\n", "bake-job");
    let agent = Agent::start(&bus, work.path(), None);
    // An upgrade: the helper is away when the program starts, so the hold
    // is refused.
    helper.stop();
    let mut job = Command::new(work.path().join("bin/bake-job")).arg("60").spawn().unwrap();
    wait_for(|| agent.said().contains("no hold for bake-job"), "the refused hold");
    // The helper comes back: the agent asks again, with the program still
    // running (no new exec to hear).
    helper.spawn(&bus);
    time_until("the hold on the helper's return", Duration::from_secs(5), || !holds(&bus).is_empty());
    assert_eq!(holds(&bus)[0].0, "bake-job", "{}", agent.said());
    // The person switches by hand: the hold ends and stays ended, across
    // another restart too, while the same program runs.
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    time_until("the switch to end the hold", Duration::from_secs(5), || holds(&bus).is_empty());
    wait_for(|| agent.said().contains("ended elsewhere"), "the agent to hear the switch");
    helper.stop();
    helper.spawn(&bus);
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(holds(&bus), [], "a person's switch stands: {}", agent.said());
    assert_eq!(profile(&bus), "balance_power");
    // Once the program ran anew, its rule holds again.
    let _ = job.kill();
    job.wait().unwrap();
    let mut again = Command::new(work.path().join("bin/bake-job")).arg("2").spawn().unwrap();
    time_until("the hold for the new run", Duration::from_secs(5), || !holds(&bus).is_empty());
    again.wait().unwrap();
    time_until("the release", Duration::from_secs(5), || holds(&bus).is_empty());
}

#[test]
fn a_rule_for_an_app_follows_its_scope_and_the_lock_keeps_only_the_administrators() {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "meteor-lake-155h");
    let work = work("[[rule]]\napp_id = \"org.example.Render\"\nprofile = \"power-saver\"\n");
    // A root with the person's app.slice (uid 0: the tests run as root).
    let root = work.path().join("root");
    let slice = root.join("sys/fs/cgroup/user.slice/user-0.slice/user@0.service/app.slice");
    std::fs::create_dir_all(&slice).unwrap();
    std::fs::create_dir_all(root.join("proc")).unwrap();
    // A machine's CPU directory, so that the root reads as a snapshot.
    std::fs::create_dir_all(root.join("sys/devices/system/cpu")).unwrap();
    let agent = Agent::start(&bus, work.path(), Some(&root));
    let scope = slice.join("app-gnome-org.example.Render-4242.scope");
    std::fs::create_dir(&scope).unwrap();
    let held = time_until("the hold for the app", Duration::from_secs(1), || !holds(&bus).is_empty());
    assert_eq!(holds(&bus)[0].0, "org.example.Render");
    assert_eq!(holds(&bus)[0].1, "power-saver");
    std::fs::remove_dir(&scope).unwrap();
    time_until("the release", Duration::from_secs(5), || holds(&bus).is_empty());
    eprintln!("held after {held:?}");
    drop(agent);
    // The administrator's lock: the person's rule is off, the
    // administrator's own applies.
    let fleet = root.join("etc/gearshift/conf.d/50-fleet.toml");
    std::fs::create_dir_all(fleet.parent().unwrap()).unwrap();
    std::fs::write(&fleet, "locked = true\n\n[[rule]]\napp_id = \"org.example.Farm\"\nprofile = \"performance\"\n")
        .unwrap();
    let agent = Agent::start(&bus, work.path(), Some(&root));
    assert!(agent.said().contains("following 1 rules"), "{}", agent.said());
    // `gearshift holds` says so, with the files.
    let json = |command: &str| -> serde_json::Value {
        let out = bus
            .command(env!("CARGO_BIN_EXE_gearshift"))
            .arg("--root")
            .arg(&root)
            .args([command, "--json"])
            .env("XDG_CONFIG_HOME", work.path().join("config"))
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{command} --json: {e}"))
    };
    let listed = json("holds");
    assert_eq!(listed["rules"].as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(listed["rules"][0]["app_id"], "org.example.Farm", "{listed}");
    assert!(listed["locked_by"].as_str().is_some_and(|f| f.ends_with("50-fleet.toml")), "{listed}");
    // `gearshift status` lists the rules in effect, with their files.
    let status = json("status");
    assert_eq!(status["rules"].as_array().map(Vec::len), Some(1), "{status}");
    assert_eq!(status["rules"][0]["app_id"], "org.example.Farm", "{status}");
    assert_eq!(status["rules"][0]["profile"], "performance", "{status}");
    std::fs::create_dir(&scope).unwrap();
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(holds(&bus), [], "the person's rule is off under the lock");
    let farm = slice.join("app-org.example.Farm-77.scope");
    std::fs::create_dir(&farm).unwrap();
    time_until("the administrator's rule", Duration::from_secs(1), || !holds(&bus).is_empty());
    assert_eq!(holds(&bus)[0].0, "org.example.Farm");
}

/// Lets a dbusmock own GameMode's name on the private bus.
const GAME_MODE_POLICY: &str = r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy context="default">
    <allow own="com.feralinteractive.GameMode"/>
    <allow send_destination="com.feralinteractive.GameMode"/>
  </policy>
</busconfig>
"#;

/// Sets the mock GameMode's `ClientCount` (PropertiesChanged follows).
fn client_count(bus: &Bus, count: i32) {
    let (runtime, connection) = bus.connect();
    let mut changed: HashMap<&str, zbus::zvariant::Value<'_>> = HashMap::new();
    changed.insert("ClientCount", count.into());
    runtime
        .block_on(connection.call_method(
            Some("com.feralinteractive.GameMode"),
            "/com/feralinteractive/GameMode",
            Some("org.freedesktop.DBus.Mock"),
            "UpdateProperties",
            &("com.feralinteractive.GameMode", changed),
        ))
        .expect("the mock takes the count");
}

#[test]
fn a_game_under_gamemode_is_a_hold_that_leaves_gamemodes_governor_alone() {
    let bus = Bus::start_with(&[("gamemode.conf", GAME_MODE_POLICY)]);
    let helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    let mut mock = bus
        .command("/usr/bin/python3")
        .args(["-m", "dbusmock", "--system", "com.feralinteractive.GameMode", "/com/feralinteractive/GameMode"])
        .arg("com.feralinteractive.GameMode")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3-dbusmock");
    bus.wait_for_name("com.feralinteractive.GameMode");
    let (runtime, connection) = bus.connect();
    runtime
        .block_on(connection.call_method(
            Some("com.feralinteractive.GameMode"),
            "/com/feralinteractive/GameMode",
            Some("org.freedesktop.DBus.Mock"),
            "AddProperty",
            &("com.feralinteractive.GameMode", "ClientCount", zbus::zvariant::Value::from(0i32)),
        ))
        .unwrap();
    let work = work("");
    let agent = Agent::start(&bus, work.path(), None);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(holds(&bus), [], "no game: {}", agent.said());
    // A game starts: GameMode counts it, and (through its own helper) sets
    // the performance governor. The hold is GameMode's; nothing is written.
    client_count(&bus, 1);
    time_until("GameMode's hold", Duration::from_secs(1), || !holds(&bus).is_empty());
    assert_eq!(holds(&bus)[0].0, "com.feralinteractive.GameMode");
    assert_eq!(holds(&bus)[0].2, "GameMode: a game is running");
    let policies = 0..22u32;
    assert!(
        policies.clone().all(|p| helper.policy(p, "energy_performance_preference") == "179"),
        "written at the hold"
    );
    for p in policies.clone() {
        let file = format!("sys/devices/system/cpu/cpufreq/policy{p}/scaling_governor");
        std::fs::write(helper.root.path().join(file), "performance\n").unwrap();
    }
    // Something that applies the profile again (battery awareness turned
    // off) leaves GameMode's governor alone while the game runs.
    let aware = bus.set_panel_property("BatteryAware", "boolean:false");
    assert!(aware.status.success(), "{}", common::stderr(&aware));
    assert!(policies.clone().all(|p| helper.policy(p, "scaling_governor") == "performance"), "set back under GameMode");
    // The game ends: the chosen profile is written again, every file.
    client_count(&bus, 0);
    time_until("the release", Duration::from_secs(5), || holds(&bus).is_empty());
    wait_for(|| policies.clone().all(|p| helper.policy(p, "scaling_governor") == "powersave"), "the governor back");
    assert!(policies.clone().all(|p| helper.policy(p, "energy_performance_preference") == "179"));
    assert_eq!(profile(&bus), "balance_power");
    let _ = mock.kill();
    let _ = mock.wait();
}
