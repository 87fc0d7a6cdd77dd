//! One user's flood of polkit-checked calls does not hold up anyone else:
//! 250 connections of uid 65534 send `SetProfile` calls without waiting,
//! each with its next call on its way before the last is answered
//! (tests/common/flood.py; 500 calls waiting at once, four times the bus
//! daemon's 128 pending replies per connection that the helper's polkit
//! calls count against), while root and an active user (uid 1, `daemon`,
//! whom a polkit rule allows what an active session's user may) switch
//! profiles. The real dbus-daemon and polkitd on a private bus
//! (docs/security.md, "Floods").

mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::bus::{wait_for, ActiveUserRule, Bus, Helper};
use gearshift::dbus::Helper1Proxy;

/// `SetProfile(id)` as uid 1, through dbus-send: how long it took, and
/// whether it worked (with what it said when not).
fn as_active_user(bus: &Bus, id: &str) -> (Duration, Result<(), String>) {
    let started = Instant::now();
    let out = bus
        .command("setpriv")
        .args(["--reuid=1", "--regid=1", "--clear-groups", "dbus-send", "--system", "--print-reply"])
        .args(["--dest=io.github.gearshift.Helper1", "/io/github/gearshift/Helper1"])
        .arg("io.github.gearshift.Helper1.SetProfile")
        .arg(format!("string:{id}"))
        .output()
        .unwrap();
    let took = started.elapsed();
    (took, if out.status.success() { Ok(()) } else { Err(common::stderr(&out)) })
}

#[test]
fn a_flood_by_one_user_holds_up_neither_root_nor_an_active_user() {
    let bus = Bus::start();
    let _rule = ActiveUserRule::install("flood");
    let mut helper = Helper::start(&bus, "kaby-lake-2cpu");
    wait_for(|| as_active_user(&bus, "balance_power").1.is_ok(), "polkitd to read the test's rule");

    let (_dir, flood) = common::bus::script_for_others("flood.py");
    let mut flooder = bus
        .command("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3"])
        .arg(&flood)
        .args(["250", "2", "10"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 with python3-dbus and python3-gi");
    let mut lines = BufReader::new(flooder.stdout.take().unwrap()).lines();
    // A failed assertion must not leave the flood running.
    struct Stop(std::process::Child);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut flooder = Stop(flooder);
    assert_eq!(lines.next().and_then(Result::ok).as_deref(), Some("flooding"), "the flood did not start");
    // Let the flood reach the helper in full.
    std::thread::sleep(Duration::from_secs(1));

    let (runtime, connection) = bus.connect();
    let root = runtime.block_on(Helper1Proxy::new(&connection)).unwrap();
    let mut root_times = Vec::new();
    let mut user_times = Vec::new();
    for id in ["balance_power", "performance", "balance_power", "performance", "balance_power"] {
        let started = Instant::now();
        let result = runtime.block_on(root.set_profile(id));
        let took = started.elapsed();
        assert!(result.is_ok(), "root's SetProfile {id} failed during the flood: {result:?}");
        root_times.push(took);
        let (took, result) = as_active_user(&bus, id);
        assert!(result.is_ok(), "the active user's SetProfile {id} failed during the flood: {result:?}");
        user_times.push(took);
        std::thread::sleep(Duration::from_millis(300));
    }
    eprintln!("during the flood: root's SetProfile took {root_times:?}; the active user's {user_times:?}");
    for took in root_times.iter().chain(&user_times) {
        assert!(*took < Duration::from_secs(1), "a SetProfile took {took:?} during the flood");
    }
    assert!(flooder.0.try_wait().unwrap().is_none(), "the flood ended before the measurements did");

    let counts = lines.next().and_then(Result::ok).expect("the flood's answers");
    assert!(flooder.0.wait().unwrap().success());
    eprintln!("the flood's answers: {counts}");
    let counts: serde_json::Value = serde_json::from_str(&counts).unwrap();
    let busy = counts["io.github.gearshift.Error.Busy"].as_u64().unwrap_or(0);
    let refused = counts["io.github.gearshift.Error.NotAuthorized"].as_u64().unwrap_or(0);
    // Most calls were turned away before polkit; those that reached it
    // were refused by it (uid 65534 may not switch without a password).
    assert!(busy > refused && refused > 0, "{counts}");
    // Nothing else: no switch for uid 65534, no answer lost or refused by
    // the bus daemon for going over its limits.
    let kinds: Vec<&String> = counts.as_object().unwrap().keys().collect();
    assert_eq!(kinds, ["io.github.gearshift.Error.Busy", "io.github.gearshift.Error.NotAuthorized"], "{counts}");
    assert!(helper.running(), "the helper did not survive the flood");
}
