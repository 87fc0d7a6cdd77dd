//! The measurement lease (`BeginMeasurement`, docs/dbus-api.md
//! "Measurements") under load and against everyone else, on a private bus
//! with the real dbus-daemon and polkitd: no timer stays behind a lease,
//! the helper's own platform profile write is no hotkey, a helper killed
//! while a lease lasts puts the choice back when it comes again, and what a
//! lease puts back is the latest choice of everyone else, whose changes
//! count as disturbances of the runs. Each test failed before its fix.

mod common;

use common::bus::{shown_epp, wait_for, Bus, Helper};
use gearshift::dbus::{Helper1Proxy, HelperError};

/// Meteor Lake-H: 22 CPUs, Intel's own values (Balanced 64, Efficient 179,
/// Performance 16), a ThinkPad's legacy platform profile.
const MTL: &str = "meteor-lake-155h";

fn epps(helper: &Helper) -> Vec<String> {
    (0..22).map(|c| helper.policy(c, "energy_performance_preference")).collect()
}

fn proxy<'a>(runtime: &tokio::runtime::Runtime, connection: &zbus::Connection) -> Helper1Proxy<'a> {
    runtime
        .block_on(Helper1Proxy::builder(connection).cache_properties(zbus::proxy::CacheProperties::No).build())
        .unwrap()
}

/// A client of its own on the bus: a connection, its runtime and proxy.
struct Client {
    runtime: tokio::runtime::Runtime,
    _connection: zbus::Connection,
    proxy: Helper1Proxy<'static>,
}

impl Client {
    fn new(bus: &Bus) -> Client {
        let (runtime, connection) = bus.connect();
        let proxy = proxy(&runtime, &connection);
        Client { runtime, _connection: connection, proxy }
    }

    fn run<T>(&self, f: impl std::future::Future<Output = T>) -> T {
        self.runtime.block_on(f)
    }
}

#[test]
fn five_thousand_leases_leave_no_timer_behind() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "kaby-lake-2cpu");
    let lab = Client::new(&bus);
    let pairs = |n: usize| {
        for _ in 0..n {
            let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
            lab.run(lab.proxy.end_measurement(cookie)).unwrap();
        }
    };
    // Warm up: the allocator's and the bus's first buffers.
    pairs(300);
    let before = helper.rss_kib();
    pairs(5000);
    let after = helper.rss_kib();
    eprintln!("RSS {before} kB before 5,000 lease pairs, {after} kB after");
    // Each lease used to leave a 4-hour timer behind: about 1 kB apiece.
    assert!(after < before + 1024, "5,000 lease pairs grew the helper from {before} kB to {after} kB");
}

#[test]
fn the_kernels_value_stays_beside_a_platform_profile() {
    // On the kernel-faithful sysfs, whose notifications (of the helper's
    // own writes too) come a moment later, as the kernel's do.
    let bus = Bus::start();
    let mut helper = Helper::prepare(MTL);
    helper.on_kernel_emulator();
    helper.spawn(&bus);
    let lab = Client::new(&bus);
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    for round in 1..=8 {
        // Power Saver writes low-power, the kernel's run balanced: the
        // kernel notifies both writes, which are the helper's own.
        let seen = helper.handled("firmware files changed");
        lab.run(lab.proxy.set_profile("power")).unwrap();
        lab.run(lab.proxy.set_profile("kernel_default")).unwrap();
        assert_eq!(helper.read("sys/firmware/acpi/platform_profile").trim(), "balanced");
        // The kernel notifies the writes by inotify: once the helper
        // handled them (or might have taken them for a hotkey), look.
        helper.wait_handled("firmware files changed", seen + 1);
        lab.run(lab.proxy.get_state()).unwrap();
        // The kernel (6.8 here) shows its generic 128 by name; Balanced's 64 as "64".
        assert_eq!(epps(&helper), vec!["balance_performance"; 22], "round {round}: {}", helper.log_text());
        assert_eq!(lab.run(lab.proxy.active_profile()).unwrap(), "", "round {round}");
    }
    assert!(!helper.log_text().contains("a hotkey?"), "{}", helper.log_text());
    assert_eq!(lab.run(lab.proxy.measurement_disturbances(cookie)).unwrap(), 0, "nobody else changed anything");
    lab.run(lab.proxy.end_measurement(cookie)).unwrap();
}

#[test]
fn a_helper_killed_during_a_measurement_puts_the_choice_back_when_it_comes_again() {
    let bus = Bus::start();
    let mut helper = Helper::start(&bus, MTL);
    let me = Client::new(&bus);
    me.run(me.proxy.set_profile("balance_power")).unwrap();
    assert_eq!(epps(&helper), vec!["179"; 22]);

    // The client is gone by the time the helper comes back.
    {
        let lab = Client::new(&bus);
        lab.run(lab.proxy.begin_measurement()).unwrap();
        lab.run(lab.proxy.set_profile("kernel_default")).unwrap();
        assert_eq!(epps(&helper), vec![shown_epp(128); 22]);
        helper.kill();
    }
    let kept = helper.state.path().join("state/measurement.toml").exists();
    helper.spawn(&bus);
    wait_for(|| epps(&helper) == vec!["179"; 22], "Efficient back after the restart");
    assert!(kept, "the lease was not kept");
    assert_eq!(me.run(me.proxy.active_profile()).unwrap(), "balance_power");
    assert!(!helper.state.path().join("state/measurement.toml").exists(), "the ended lease was kept");

    // The client is still there: it ends its lease after the restart.
    let lab = Client::new(&bus);
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    lab.run(lab.proxy.set_profile("performance")).unwrap();
    helper.kill();
    helper.spawn(&bus);
    assert_eq!(epps(&helper), vec!["16"; 22], "the lab's run stays while its client measures");
    assert_eq!(lab.run(lab.proxy.end_measurement(cookie)).unwrap(), "balance_power");
    assert_eq!(epps(&helper), vec!["179"; 22]);
    // A cookie from before the restart is not handed out again (cookies
    // are random, never 0: docs/security.md, "Limits").
    let next = lab.run(lab.proxy.begin_measurement()).unwrap();
    assert_ne!(next, cookie);
    assert_ne!(next, 0);
    lab.run(lab.proxy.end_measurement(next)).unwrap();
}

#[test]
fn a_lease_puts_back_the_latest_choice_of_everyone_else() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, MTL);
    let me = Client::new(&bus);
    me.run(me.proxy.set_profile("balance_power")).unwrap();

    // Someone else switches while the lab measures: their choice is what
    // comes back, and the lab hears of the disturbance.
    let lab = Client::new(&bus);
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    lab.run(lab.proxy.set_profile("power")).unwrap();
    me.run(me.proxy.set_profile("performance")).unwrap();
    lab.run(lab.proxy.set_profile("kernel_default")).unwrap();
    assert_eq!(lab.run(lab.proxy.end_measurement(cookie)).unwrap(), "performance");
    assert_eq!(epps(&helper), vec!["16"; 22]);
    assert_eq!(me.run(me.proxy.active_profile()).unwrap(), "performance");
    // Each such change is a disturbance the lab hears of; its own are not.
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    lab.run(lab.proxy.set_profile("power")).unwrap();
    assert_eq!(lab.run(lab.proxy.measurement_disturbances(cookie)).unwrap(), 0);
    me.run(me.proxy.set_profile("balance_power")).unwrap();
    assert_eq!(lab.run(lab.proxy.measurement_disturbances(cookie)).unwrap(), 1);
    lab.run(lab.proxy.set_profile("kernel_default")).unwrap();
    assert_eq!(lab.run(lab.proxy.measurement_disturbances(cookie)).unwrap(), 1, "the lab's own switch");
    // Only the lab may read its lease, and nobody learns which cookies are
    // live: another's and one never handed out get the same answer.
    let unknown = cookie.wrapping_add(1);
    match (me.run(me.proxy.measurement_disturbances(cookie)), me.run(me.proxy.measurement_disturbances(unknown))) {
        (Err(HelperError::InvalidArgument(theirs)), Err(HelperError::InvalidArgument(none))) => {
            assert_eq!(theirs.english(), format!("this caller has no measurement with the cookie {cookie}"));
            assert_eq!(none.english(), format!("this caller has no measurement with the cookie {unknown}"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(lab.run(lab.proxy.end_measurement(cookie)).unwrap(), "balance_power");

    // The AC/battery policy turned on meanwhile: its choice comes back.
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    lab.run(lab.proxy.set_profile("power")).unwrap();
    me.run(me.proxy.set_auto_policy("balance_performance", "power")).unwrap();
    assert_eq!(lab.run(lab.proxy.end_measurement(cookie)).unwrap(), "balance_performance");
    assert_eq!(epps(&helper), vec!["64"; 22]);
    me.run(me.proxy.disable_auto_policy()).unwrap();

    // A firmware hotkey meanwhile (Fn+H: the firmware writes the file and
    // the kernel notifies it) is a person's choice too.
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    lab.run(lab.proxy.set_profile("power")).unwrap();
    std::fs::write(helper.root.path().join("sys/firmware/acpi/platform_profile"), "performance\n").unwrap();
    wait_for(
        || lab.run(lab.proxy.measurement_disturbances(cookie)).unwrap() > 0,
        "the hotkey counted as a disturbance",
    );
    assert_eq!(lab.run(lab.proxy.end_measurement(cookie)).unwrap(), "performance");
    assert_eq!(epps(&helper), vec!["16"; 22]);

    // What a lease will put back cannot be deleted while it lasts.
    let office = "[[profile]]\nid = \"office\"\nname = \"Office\"\nepp = 90\n";
    me.run(me.proxy.save_custom_profile(&common::bus::wire(office))).unwrap();
    me.run(me.proxy.set_profile("office")).unwrap();
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    lab.run(lab.proxy.set_profile("power")).unwrap();
    let profiles = std::fs::read(helper.state.path().join("state/profiles.toml")).unwrap();
    match me.run(me.proxy.delete_custom_profile("office")) {
        Err(HelperError::InvalidArgument(text)) => assert!(text.contains("measurement"), "{text}"),
        other => panic!("the profile the lease puts back was deleted: {other:?}"),
    }
    assert_eq!(std::fs::read(helper.state.path().join("state/profiles.toml")).unwrap(), profiles);
    assert_eq!(lab.run(lab.proxy.end_measurement(cookie)).unwrap(), "office");
    assert_eq!(epps(&helper), vec!["90"; 22]);
    me.run(me.proxy.set_profile("balance_power")).unwrap();
    me.run(me.proxy.delete_custom_profile("office")).unwrap();

    // An application's hold outlives the lab's runs, and wins at the end.
    bus.wait_for_name("net.hadess.PowerProfiles");
    let panel = me
        .run(
            zbus::proxy::Builder::<zbus::Proxy>::new(&me._connection)
                .destination("net.hadess.PowerProfiles")
                .unwrap()
                .path("/net/hadess/PowerProfiles")
                .unwrap()
                .interface("net.hadess.PowerProfiles")
                .unwrap()
                .cache_properties(zbus::proxy::CacheProperties::No)
                .build(),
        )
        .unwrap();
    let hold: u32 = me.run(panel.call("HoldProfile", &("power-saver", "battery low", "org.example"))).unwrap();
    let cookie = lab.run(lab.proxy.begin_measurement()).unwrap();
    lab.run(lab.proxy.set_profile("performance")).unwrap();
    assert_eq!(epps(&helper), vec!["16"; 22], "the lab's run is applied");
    let holds: Vec<std::collections::HashMap<String, zbus::zvariant::OwnedValue>> =
        me.run(panel.get_property("ActiveProfileHolds")).unwrap();
    assert_eq!(holds.len(), 1, "the lab's switch ended a hold");
    assert_eq!(lab.run(lab.proxy.end_measurement(cookie)).unwrap(), "balance_power");
    assert_eq!(epps(&helper), vec![shown_epp(255); 22], "the hold's Power Saver after the lease");
    me.run(panel.call::<_, _, ()>("ReleaseProfile", &(hold,))).unwrap();
    assert_eq!(epps(&helper), vec!["179"; 22]);
}
