//! The helper's limits, on a private bus with the real dbus-daemon and
//! polkitd, uid 65534 as the attacker: no request may stop it, swell it or
//! slip past the administrator's lock (docs/security.md, "Limits"). Each
//! test failed before the change it guards: one call of 7 MB (or one to an
//! object path of nearly 32 MiB) made the bus daemon drop the helper, a
//! flood of unread answers took it to 1.7 GB, a FIFO in conf.d hung every
//! reload, a hold outlived the lock.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::bus::{script_for_others, wait_for, ActiveUserRule, Bus, Helper};
use common::stderr;
use gearshift::dbus::Helper1Proxy;
use serde_json::{json, Value};

const HADESS: &str = "net.hadess.PowerProfiles";
const HADESS_PATH: &str = "/net/hadess/PowerProfiles";
const UPOWER: &str = "org.freedesktop.UPower.PowerProfiles";
const UPOWER_PATH: &str = "/org/freedesktop/UPower/PowerProfiles";
const HELPER: &str = "io.github.gearshift.Helper1";
const HELPER_PATH: &str = "/io/github/gearshift/Helper1";
const PROPERTIES: &str = "org.freedesktop.DBus.Properties";

/// The flood's timings are the helper's, not the machine's: it runs with
/// no other test of this file beside it (the others take [`beside`]).
static TURNS: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn alone() -> std::sync::RwLockWriteGuard<'static, ()> {
    TURNS.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn beside() -> std::sync::RwLockReadGuard<'static, ()> {
    TURNS.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A call as tests/common/rawbus.py sends it.
fn call(destination: &str, path: &str, interface: &str, member: &str, args: Value) -> Value {
    json!({"destination": destination, "path": path, "interface": interface, "member": member, "args": args})
}

/// `spec` to an object path of "/" and `length` letters.
fn long_path(mut spec: Value, length: usize) -> Value {
    spec["path_repeat"] = json!(["A", length]);
    spec
}

/// Sends `spec` as uid 65534 and answers what came back.
fn ask_as_nobody(bus: &Bus, spec: &Value) -> Value {
    let (_dir, script) = script_for_others("rawbus.py");
    let out = bus
        .command("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3"])
        .arg(&script)
        .arg("ask")
        .arg(spec.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "rawbus.py ask: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A process killed when dropped (also when an assertion fails first).
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// uid 65534 starts sending `calls` calls of `spec` on each of
/// `connections` connections and never reads an answer. The flood has
/// sent everything when its output says "sent".
fn flood_unread(bus: &Bus, connections: u32, calls: u32, spec: &Value) -> (Running, tempfile::TempDir) {
    let (dir, script) = script_for_others("rawbus.py");
    let child = bus
        .command("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3"])
        .arg(&script)
        .arg("flood")
        .arg(connections.to_string())
        .arg(calls.to_string())
        .arg(spec.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    (Running(child), dir)
}

/// Root switches profiles once: how long it took.
fn root_switch(bus: &Bus, id: &str) -> Duration {
    let (runtime, connection) = bus.connect();
    let proxy = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let started = Instant::now();
    let result = runtime.block_on(async { tokio::time::timeout(Duration::from_secs(15), proxy.set_profile(id)).await });
    let took = started.elapsed();
    assert!(matches!(result, Ok(Ok(_))), "root's SetProfile {id} failed: {result:?}");
    took
}

/// The helper's proportional set size in KiB.
fn pss_kib(pid: u32) -> u64 {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap();
    rollup.lines().find_map(|l| l.strip_prefix("Pss:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap()
}

#[test]
fn no_call_of_any_size_stops_the_helper_and_each_answer_is_short() {
    let _turn = beside();
    let bus = Bus::start();
    let mut helper = Helper::start(&bus, "kaby-lake-2cpu");
    bus.wait_for_name(HADESS);
    let hold = |profile: Value, reason: Value, app: Value| {
        call(HADESS, HADESS_PATH, HADESS, "HoldProfile", json!([profile, reason, app]))
    };
    let set_active = |value: Value| {
        call(UPOWER, UPOWER_PATH, PROPERTIES, "Set", json!([["s", UPOWER], ["s", "ActiveProfile"], value]))
    };
    let cases = [
        // The audit's calls: a 7 MB and a 16.8 MB profile name, each
        // repeated two to five times larger by the answer before.
        (
            "HoldProfile, a 7 MB profile of \\x01",
            hold(json!(["repeat", "\u{1}", 7_000_000]), json!(["s", "r"]), json!(["s", "a"])),
        ),
        (
            "HoldProfile, 16.8 MB of quotes",
            hold(json!(["repeat", "\"", 16_800_000]), json!(["s", "r"]), json!(["s", "a"])),
        ),
        ("Set ActiveProfile to 7 MB", set_active(json!(["variant-repeat", "\u{1}", 7_000_000]))),
        (
            "Get a property named by 1 MB",
            call(HELPER, HELPER_PATH, PROPERTIES, "Get", json!([["s", HELPER], ["repeat", "A", 1_000_000]])),
        ),
        // Under the size a call is read at: the methods' own limits.
        (
            "Get a property named by 60 KB",
            call(HELPER, HELPER_PATH, PROPERTIES, "Get", json!([["s", HELPER], ["repeat", "A", 60_000]])),
        ),
        ("Set ActiveProfile to 6,000 quotes", set_active(json!(["variant-repeat", "\"", 6000]))),
        (
            "HoldProfile, a 60 KB application id",
            hold(json!(["s", "performance"]), json!(["s", "r"]), json!(["repeat", "\"", 60_000])),
        ),
        (
            "HoldProfile, a 5,000-byte profile",
            hold(json!(["repeat", "\u{1}", 5000]), json!(["s", "r"]), json!(["s", "a"])),
        ),
        ("SetProfile, a 60 KB id", call(HELPER, HELPER_PATH, HELPER, "SetProfile", json!([["repeat", "\"", 60_000]]))),
        (
            "SetGovernor, a 60 KB name",
            call(HELPER, HELPER_PATH, HELPER, "SetGovernor", json!([["au", [0]], ["repeat", "\"", 60_000]])),
        ),
        (
            "SetActionEnabled, a 60 KB action",
            call(UPOWER, UPOWER_PATH, UPOWER, "SetActionEnabled", json!([["repeat", "\"", 60_000], ["b", true]])),
        ),
        // zbus repeats an object path it does not know: one of nearly the
        // bus daemon's 32 MiB made an answer over it.
        ("an object path of nearly 32 MiB", long_path(call(":1.1", "/", "a.b", "Foo", json!([])), 33_554_340)),
        (
            "an object path of 300 bytes",
            long_path(call(HELPER, "/", HELPER, "SetProfile", json!([["s", "power"]])), 300),
        ),
    ];
    for (what, spec) in cases {
        let mut spec = spec;
        if spec["destination"] == ":1.1" {
            spec["destination"] = json!(bus.owner_of(HELPER));
        }
        let answer = ask_as_nobody(&bus, &spec);
        eprintln!("{what}: {answer}");
        // A header alone over the limit is dropped unanswered.
        if answer["type"] != "none" {
            assert_eq!(answer["type"], "error", "{what}: {answer}");
            assert!(answer["bytes"].as_u64().unwrap() < 1024, "{what}: an answer of {} bytes", answer["bytes"]);
            assert!(!answer["name"].as_str().unwrap().contains("zbus"), "{what}: {answer}");
        }
        assert!(helper.running(), "{what} stopped the helper: {}", helper.log_text());
        assert!(bus.has_owner(HADESS) && bus.has_owner(UPOWER), "{what}: the desktop's names were lost");
    }
    assert!(!helper.log_text().contains("lost the system bus"), "{}", helper.log_text());
    // Root's switch right after works, and quickly.
    let took = root_switch(&bus, "power");
    assert!(took < Duration::from_secs(1), "root's SetProfile took {took:?}");
}

#[test]
fn a_flood_of_unread_answers_leaves_the_helper_small_and_root_quick() {
    let _turn = alone();
    let bus = Bus::start();
    let helper = Helper::start(&bus, "kaby-lake-2cpu");
    bus.wait_for_name(HADESS);
    let pid = helper.helper_pid();
    let floods = [
        (
            "200 HoldProfile of 1 MB on each of 5 connections",
            200,
            call(
                HADESS,
                HADESS_PATH,
                HADESS,
                "HoldProfile",
                json!([["repeat", "A", 1_000_000], ["s", "r"], ["s", "a"]]),
            ),
        ),
        (
            "200 Get of a property named by 1 MB on each of 5 connections",
            200,
            call(HELPER, HELPER_PATH, PROPERTIES, "Get", json!([["s", HELPER], ["repeat", "A", 1_000_000]])),
        ),
        (
            "2,000 Get of a property named by 60 KB on each of 5 connections",
            2000,
            call(HELPER, HELPER_PATH, PROPERTIES, "Get", json!([["s", HELPER], ["repeat", "A", 60_000]])),
        ),
    ];
    for (what, calls, spec) in floods {
        let before = pss_kib(pid);
        let (mut flood, _dir) = flood_unread(&bus, 5, calls, &spec);
        // The helper's memory, every 20 ms while the flood runs and after.
        let largest = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(before));
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let sampler = {
            let (largest, done) = (largest.clone(), done.clone());
            std::thread::spawn(move || {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    largest.fetch_max(pss_kib(pid), std::sync::atomic::Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
        };
        let mut stdout = BufReader::new(flood.0.stdout.take().unwrap());
        let sent = std::thread::spawn(move || {
            let mut line = String::new();
            let _ = stdout.read_line(&mut line);
            Instant::now()
        });
        // Root switches from the flood's start until well after it sent
        // its last call.
        let started = Instant::now();
        let mut times = Vec::new();
        while times.len() < 25 && started.elapsed() < Duration::from_secs(20) {
            times.push((started.elapsed(), root_switch(&bus, ["power", "performance"][times.len() % 2])));
            std::thread::sleep(Duration::from_millis(100));
        }
        let sent_after = sent.join().unwrap().duration_since(started);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        sampler.join().unwrap();
        let largest = largest.load(std::sync::atomic::Ordering::Relaxed);
        let during: Vec<Duration> = times.iter().filter(|(at, _)| *at < sent_after).map(|(_, took)| *took).collect();
        eprintln!(
            "{what}: sent in {sent_after:?}; the helper's PSS {before} KiB before, at most {largest} KiB; root's SetProfile during the flood {during:?}, slowest of all {:?}",
            times.iter().map(|(_, took)| *took).max()
        );
        assert!(!during.is_empty(), "{what}: no switch while the flood ran");
        assert!(largest < 32 * 1024, "{what}: the helper grew to {largest} KiB");
        for (at, took) in &times {
            assert!(*took < Duration::from_secs(1), "{what}: root's SetProfile at {at:?} took {took:?}");
        }
    }
}

#[test]
fn one_connection_has_at_most_eight_requests_in_the_helper() {
    let _turn = beside();
    let bus = Bus::start();
    let helper = Helper::start(&bus, "kaby-lake-2cpu");
    // 40 calls at once on a connection the helper has not seen. The helper
    // is stopped while the bus daemon passes them on, so all 40 lie in its
    // socket before it reads any: each then waits for its caller's uid (one
    // question to the bus daemon for all, whose answer comes behind the 40
    // in the same socket), holding its place; the ninth and later are
    // turned away at once. No timing decides the count.
    let (_dir, script) = script_for_others("rawbus.py");
    let pid = helper.helper_pid() as i32;
    // SAFETY: signals to our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0);
    let mut child = bus
        .command("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3"])
        .arg(&script)
        .args(["burst", "40"])
        .arg(call(HELPER, HELPER_PATH, HELPER, "SetProfile", json!([["s", "power"]])).to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGCONT) }, 0);
    assert_eq!(first, "sent\n", "the calls were not all passed on");
    let mut rest = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut rest).unwrap();
    let mut out = child.wait_with_output().unwrap();
    out.stdout = rest;
    assert!(out.status.success(), "{}", stderr(&out));
    let counts: Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!("40 calls at once on one connection: {counts}");
    let counts = counts.as_object().unwrap();
    let busy = |k: &String| k.starts_with("io.github.gearshift.Error.Busy: this connection has 8 requests waiting");
    let count = |keep: &dyn Fn(&String) -> bool| -> u64 {
        counts.iter().filter(|(k, _)| keep(k)).map(|(_, v)| v.as_u64().unwrap()).sum()
    };
    assert_eq!(count(&busy), 32, "{counts:?}");
    // The eight let in went on to polkit (four at a time for one user),
    // which does not let uid 65534 switch.
    assert_eq!(count(&|k| !busy(k)), 8, "{counts:?}");
    assert!(counts.keys().all(|k| k.starts_with("io.github.gearshift.Error.")), "{counts:?}");
}

/// The administrator's main file under the helper's root.
fn put_config(root: &Path, rel: &str, text: &str) {
    let path = root.join("etc/gearshift").join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn hangup(helper: &Helper) {
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(helper.helper_pid() as i32, libc::SIGHUP) };
}

#[test]
fn a_lock_that_arrives_ends_the_holds_and_nobody_else_releases() {
    let _turn = beside();
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name(HADESS);
    let (runtime, holder) = bus.connect();
    let _inside = runtime.enter();
    let proxy = runtime.block_on(zbus::Proxy::new(&holder, HADESS, HADESS_PATH, HADESS)).unwrap();
    let mut released = runtime.block_on(proxy.receive_signal("ProfileReleased")).unwrap();
    let cookie: u32 =
        runtime.block_on(proxy.call("HoldProfile", &("performance", "render", "org.example.Render"))).unwrap();
    let epp = || (0..22).map(|c| helper.policy(c, "energy_performance_preference")).collect::<Vec<_>>();
    assert_eq!(epp(), vec!["16"; 22], "Meteor Lake's performance value");
    put_config(helper.root.path(), "gearshift.toml", "locked = true\n");
    hangup(&helper);
    helper.wait_handled("configuration reloaded", 1);
    // The hold ended with the lock: its holder heard so, and the chosen
    // profile (the first start's Balanced, 64 here) is back.
    let signal = runtime
        .block_on(async {
            tokio::time::timeout(Duration::from_secs(5), futures_util::StreamExt::next(&mut released)).await
        })
        .expect("ProfileReleased within 5 s")
        .expect("a signal");
    assert_eq!(signal.body().deserialize::<u32>().unwrap(), cookie);
    let holds: Vec<std::collections::HashMap<String, zbus::zvariant::OwnedValue>> =
        runtime.block_on(proxy.get_property("ActiveProfileHolds")).unwrap();
    assert!(holds.is_empty(), "{holds:?}");
    wait_for(|| epp() == vec!["64"; 22], "the chosen profile back");
    // Another connection (root's own, which polkit always allows) may not
    // end a hold while locked: answered with the lock, and nothing changes.
    let before = helper.tree();
    let other = bus
        .command("dbus-send")
        .args(["--system", "--print-reply", "--dest=net.hadess.PowerProfiles", HADESS_PATH])
        .arg("net.hadess.PowerProfiles.ReleaseProfile")
        .arg(format!("uint32:{cookie}"))
        .output()
        .unwrap();
    assert!(!other.status.success());
    let said = stderr(&other);
    assert!(said.contains("administrator") && said.contains("gearshift.toml"), "{said}");
    // Nor may anyone take a new hold.
    let again: zbus::Result<u32> =
        runtime.block_on(proxy.call("HoldProfile", &("performance", "render", "org.example.Render")));
    assert!(again.is_err_and(|e| e.to_string().contains("administrator")));
    assert!(helper.tree() == before, "a refusal under the lock changed a file");
}

/// A FIFO at `path`.
fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo with a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0, "{}", std::io::Error::last_os_error());
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
}

fn reload(bus: &Bus) -> (Duration, String) {
    let started = Instant::now();
    let out = bus.dbus_send(false, "ReloadConfig", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    (started.elapsed(), common::stdout(&out))
}

fn lock_of(bus: &Bus) -> String {
    let out = bus
        .command("dbus-send")
        .args(["--system", "--print-reply=literal", "--dest=io.github.gearshift.Helper1", HELPER_PATH])
        .args(["org.freedesktop.DBus.Properties.Get", "string:io.github.gearshift.Helper1", "string:AdministratorLock"])
        .output()
        .unwrap();
    common::stdout(&out).trim().trim_start_matches("variant").trim().to_owned()
}

#[test]
fn only_files_that_root_alone_may_change_are_read_and_a_fifo_hangs_nothing() {
    let _turn = beside();
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let root = helper.root.path();
    put_config(root, "gearshift.toml", "[[profile]]\nid = \"render\"\nname = \"Render\"\nepp = 32\n");
    put_config(root, "conf.d/10-good.toml", "[[profile]]\nid = \"quiet\"\nname = \"Quiet\"\nepp = 200\n");
    // Each of these would lock everyone out if it were read.
    mkfifo(&root.join("etc/gearshift/conf.d/20-fifo.toml"));
    put_config(root, "conf.d/30-nobody.toml", "locked = true\n");
    std::process::Command::new("chown")
        .arg("65534:65534")
        .arg(root.join("etc/gearshift/conf.d/30-nobody.toml"))
        .status()
        .unwrap();
    put_config(root, "conf.d/40-shared.toml", "locked = true\n");
    chmod(&root.join("etc/gearshift/conf.d/40-shared.toml"), 0o666);
    let (took, problems) = reload(&bus);
    eprintln!("reload with a FIFO, another user's file and a shared one took {took:?}: {problems}");
    assert!(took < Duration::from_secs(2), "the reload took {took:?}");
    assert!(problems.contains("20-fifo.toml: is not a regular file but a FIFO"), "{problems}");
    assert!(problems.contains("30-nobody.toml: belongs to uid 65534, not root"), "{problems}");
    assert!(problems.contains("40-shared.toml: may be written by others than its owner (mode 0666)"), "{problems}");
    assert_eq!(lock_of(&bus), "", "a file set aside locked the helper");
    let declared = bus
        .command("dbus-send")
        .args(["--system", "--print-reply=literal", "--dest=io.github.gearshift.Helper1", HELPER_PATH])
        .args(["org.freedesktop.DBus.Properties.Get", "string:io.github.gearshift.Helper1", "string:DeclaredProfiles"])
        .output()
        .unwrap();
    let declared = common::stdout(&declared);
    assert!(declared.contains("render") && declared.contains("quiet"), "the good files apply: {declared}");
    // The helper answers at once, and a switch replies (its save is not
    // stuck behind a reload).
    assert!(root_switch(&bus, "quiet") < Duration::from_secs(1));
    // A drop-in directory anyone may write: nothing in it is read.
    std::fs::remove_file(root.join("etc/gearshift/conf.d/20-fifo.toml")).unwrap();
    std::fs::remove_file(root.join("etc/gearshift/conf.d/30-nobody.toml")).unwrap();
    std::fs::remove_file(root.join("etc/gearshift/conf.d/40-shared.toml")).unwrap();
    chmod(&root.join("etc/gearshift/conf.d"), 0o777);
    let (_, problems) = reload(&bus);
    assert!(
        problems.contains("10-good.toml: is in") && problems.contains("which may be written by others"),
        "{problems}"
    );
    assert!(!problems.contains("gearshift.toml: is in"), "the main file still applies: {problems}");
    // SIGHUP too answers at once with a FIFO there.
    chmod(&root.join("etc/gearshift/conf.d"), 0o755);
    mkfifo(&root.join("etc/gearshift/conf.d/50-fifo.toml"));
    hangup(&helper);
    helper.wait_handled("configuration reloaded", 3);
    assert!(root_switch(&bus, "power") < Duration::from_secs(1));
}

#[test]
fn a_fifo_at_power_profiles_daemons_state_does_not_keep_the_helper_off_the_bus() {
    let _turn = beside();
    let bus = Bus::start();
    let mut helper = Helper::prepare("kaby-lake-2cpu");
    mkfifo(&helper.root.path().join("var/lib/power-profiles-daemon/state.ini"));
    // Helper::spawn waits up to 20 s for the name and the first apply.
    let started = Instant::now();
    helper.spawn(&bus);
    eprintln!("the helper started in {:?} with a FIFO at ppd's state.ini", started.elapsed());
    assert!(helper.log_text().contains("applying the Balanced profile"), "{}", helper.log_text());
}

#[test]
fn declared_names_follow_the_rules_of_saved_ones_and_saved_ones_do_not_pass_for_them() {
    let _turn = beside();
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let root = helper.root.path();
    put_config(
        root,
        "conf.d/10-names.toml",
        "[[profile]]\nid = \"cyrillic\"\nname = \"\u{420}ower Saver\"\nepp = 200\n",
    );
    put_config(root, "conf.d/20-names.toml", "[[profile]]\nid = \"hidden\"\nname = \"Po\u{200b}wer\"\nepp = 200\n");
    put_config(root, "conf.d/30-names.toml", "[[profile]]\nid = \"render\"\nname = \"Render\"\nepp = 32\n");
    let (_, problems) = reload(&bus);
    eprintln!("{problems}");
    assert!(problems.contains("10-names.toml") && problems.contains("cyrillic"), "{problems}");
    assert!(problems.contains("20-names.toml") && problems.contains("U+200B"), "{problems}");
    assert!(!problems.contains("30-names.toml"), "{problems}");
    // A person's profile may not take the declared one's name, nor one
    // that looks like it.
    for (id, name) in [("mine", "Render"), ("render2", "RENDER"), ("r3", "Ren-der"), ("render", "Something")] {
        let saved = bus.save_custom(&format!("[[profile]]\nid = \"{id}\"\nname = \"{name}\"\nepp = 100\n"));
        let err = saved.expect_err(name).to_string();
        assert!(err.contains("administrator"), "{name}: {err}");
    }
    assert!(bus.save_custom("[[profile]]\nid = \"mine\"\nname = \"Mine\"\nepp = 100\n").is_ok());
}

#[test]
fn cookies_tell_nothing_and_one_user_holds_at_most_sixteen() {
    let _turn = beside();
    let bus = Bus::start();
    let _rule = ActiveUserRule::install("limits");
    let _helper = Helper::start(&bus, "kaby-lake-2cpu");
    bus.wait_for_name(HADESS);
    wait_for(
        || {
            let out = bus
                .command("setpriv")
                .args(["--reuid=1", "--regid=1", "--clear-groups", "dbus-send", "--system", "--print-reply"])
                .args(["--dest=io.github.gearshift.Helper1", HELPER_PATH, "io.github.gearshift.Helper1.SetProfile"])
                .arg("string:balance_power")
                .output()
                .unwrap();
            out.status.success()
        },
        "polkitd to read the test's rule",
    );
    let (runtime, holder) = bus.connect();
    let _inside = runtime.enter();
    let proxy = runtime.block_on(zbus::Proxy::new(&holder, HADESS, HADESS_PATH, HADESS)).unwrap();
    let cookies: Vec<u32> = (0..4)
        .map(|_| runtime.block_on(proxy.call("HoldProfile", &("performance", "r", "org.example"))).unwrap())
        .collect();
    // Not a counter.
    assert!(cookies.windows(2).any(|w| w[1] != w[0].wrapping_add(1)), "{cookies:?}");
    // Someone else's live cookie and one nobody has are answered alike.
    let release =
        |cookie: u32| ask_as_nobody(&bus, &call(HADESS, HADESS_PATH, HADESS, "ReleaseProfile", json!([["u", cookie]])));
    let free = (1..).map(|n: u32| cookies[0].wrapping_add(n)).find(|c| *c != 0 && !cookies.contains(c)).unwrap();
    let (live, dead) = (release(cookies[0]), release(free));
    assert_eq!(live["name"], dead["name"], "{live} {dead}");
    assert_eq!(live["text"], dead["text"], "{live} {dead}");
    // uid 1 over four connections: 16 holds, not 20.
    let (_dir, script) = script_for_others("holds.py");
    let mut holds = bus
        .command("setpriv")
        .args(["--reuid=1", "--regid=1", "--clear-groups", "/usr/bin/python3"])
        .arg(&script)
        .args(["4", "5"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(holds.stdout.take().unwrap()).lines();
    let counts: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let _ = holds.kill();
    let _ = holds.wait();
    eprintln!("uid 1, four connections of five holds each: {counts}");
    assert_eq!(counts["ok"], 16, "{counts}");
    assert_eq!(counts["org.freedesktop.DBus.Error.InvalidArgs"], 4, "{counts}");
}

#[test]
fn declared_profiles_are_capped_and_an_answer_lists_a_few() {
    let _turn = beside();
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    let many: String =
        (0..70).map(|n| format!("[[profile]]\nid = \"p{n}\"\nname = \"Profile {n}\"\nepp = {}\n", 100 + n)).collect();
    put_config(helper.root.path(), "conf.d/10-many.toml", &many);
    let (_, problems) = reload(&bus);
    assert_eq!(problems.matches("64 profiles are declared already").count(), 6, "{problems}");
    let answer = ask_as_nobody(&bus, &call(HELPER, HELPER_PATH, HELPER, "SetProfile", json!([["s", "nope"]])));
    eprintln!("{answer}");
    assert!(answer["bytes"].as_u64().unwrap() < 1024, "{answer}");
    assert!(answer["text"].as_str().unwrap().contains("and 60 more"), "{answer}");
}
