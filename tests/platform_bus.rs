//! The firmware's platform profile and power-profiles-daemon's semantics on
//! the desktop power panel's API: the helper on a private system bus with
//! the real dbus-daemon and polkitd, and Debian's real powerprofilesctl.
//! Each behaviour here is one that power-profiles-daemon's own integration
//! suite checks (docs/dbus-api.md, "power-profiles-daemon's own tests").

mod common;

use std::collections::HashMap;
use std::fs;

use common::bus::{wait_for, Bus, Helper};
use common::stderr;

const LEGACY: &str = "sys/firmware/acpi/platform_profile";
const LAPMODE: &str = "sys/devices/platform/thinkpad_acpi/dytc_lapmode";

fn ctl(bus: &Bus, args: &[&str]) -> std::process::Output {
    bus.command("powerprofilesctl").args(args).output().expect("powerprofilesctl (package power-profiles-daemon)")
}

/// A property of `net.hadess.PowerProfiles`, read afresh.
fn property(bus: &Bus, name: &str) -> zbus::zvariant::OwnedValue {
    let (runtime, connection) = bus.connect();
    runtime.block_on(async {
        let properties = zbus::fdo::PropertiesProxy::builder(&connection)
            .destination("net.hadess.PowerProfiles")
            .unwrap()
            .path("/net/hadess/PowerProfiles")
            .unwrap()
            .build()
            .await
            .unwrap();
        let interface = zbus::names::InterfaceName::try_from("net.hadess.PowerProfiles").unwrap();
        properties.get(interface, name).await.unwrap_or_else(|e| panic!("Get {name}: {e}"))
    })
}

fn text_property(bus: &Bus, name: &str) -> String {
    String::try_from(property(bus, name)).unwrap()
}

/// `Profiles` as (Profile, Driver, CpuDriver, PlatformDriver) rows.
fn profiles(bus: &Bus) -> Vec<[Option<String>; 4]> {
    let list: Vec<HashMap<String, zbus::zvariant::OwnedValue>> = property(bus, "Profiles").try_into().unwrap();
    list.iter()
        .map(|entry| {
            let get = |key: &str| entry.get(key).map(|v| String::try_from(v.try_clone().unwrap()).unwrap());
            [get("Profile"), get("Driver"), get("CpuDriver"), get("PlatformDriver")]
        })
        .collect()
}

fn row(profile: &str, driver: &str, cpu: Option<&str>, platform: Option<&str>) -> [Option<String>; 4] {
    [Some(profile.into()), Some(driver.into()), cpu.map(Into::into), platform.map(Into::into)]
}

#[test]
fn the_platform_profile_is_applied_with_the_cpu_and_follows_a_hotkey() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    // First start, nothing saved: Balanced, the model's EPP and the firmware's balanced.
    wait_for(|| helper.policy(0, "energy_performance_preference") == "64", "Balanced applied at start");
    assert_eq!(helper.read(LEGACY).trim(), "balanced");
    assert_eq!(text_property(&bus, "ActiveProfile"), "balanced");
    assert_eq!(
        profiles(&bus),
        [
            row("power-saver", "multiple", Some("intel_pstate"), Some("platform_profile")),
            row("balanced", "multiple", Some("intel_pstate"), Some("platform_profile")),
            row("performance", "multiple", Some("intel_pstate"), Some("platform_profile")),
        ]
    );

    let out = ctl(&bus, &["set", "power-saver"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(helper.read(LEGACY).trim(), "low-power");
    assert_eq!(helper.policy(21, "energy_performance_preference"), "255");

    // Fn+H: the firmware switches to performance; the helper follows with
    // the whole profile (EPP 16 on Meteor Lake) and saves the choice.
    fs::write(helper.root.path().join(LEGACY), "performance\n").unwrap();
    wait_for(|| text_property(&bus, "ActiveProfile") == "performance", "ActiveProfile follows the hotkey");
    wait_for(|| helper.policy(5, "energy_performance_preference") == "16", "the CPUs follow the hotkey");
    assert!(helper.log_text().contains("the firmware switched the platform profile to performance"));
    wait_for(
        || {
            fs::read_to_string(helper.state.path().join("state/state.toml"))
                .is_ok_and(|t| t.contains("\"performance\""))
        },
        "the hotkey's choice is saved",
    );
}

#[test]
fn every_class_handler_gets_its_own_low_power_name() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "amd-hx370-platform-class");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let handler = |n: u32| helper.read(&format!("sys/class/platform-profile/platform-profile-{n}/profile"));
    let out = ctl(&bus, &["set", "power-saver"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // asus-wmi offers quiet, amd-pmf low-power: each gets its own.
    assert_eq!(handler(0).trim(), "quiet");
    assert_eq!(handler(1).trim(), "low-power");
    assert_eq!(helper.policy(0, "energy_performance_preference"), "power");
    assert!(ctl(&bus, &["set", "performance"]).status.success());
    assert_eq!(
        (handler(0).trim().to_owned(), handler(1).trim().to_owned()),
        ("performance".into(), "performance".into())
    );
}

#[test]
fn a_lap_degrades_performance_and_leaving_it_ends_that() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    assert_eq!(text_property(&bus, "PerformanceDegraded"), "");
    fs::write(helper.root.path().join(LAPMODE), "1\n").unwrap();
    wait_for(|| text_property(&bus, "PerformanceDegraded") == "lap-detected", "lap-detected");
    assert!(helper.log_text().contains("dytc_lapmode is now on"));
    // The profile stays what it was.
    assert_eq!(text_property(&bus, "ActiveProfile"), "balanced");
    fs::write(helper.root.path().join(LAPMODE), "0\n").unwrap();
    wait_for(|| text_property(&bus, "PerformanceDegraded").is_empty(), "no longer degraded");
}

#[test]
fn turbo_switched_off_by_the_firmware_is_high_temperature() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    fs::write(helper.root.path().join("sys/devices/system/cpu/intel_pstate/no_turbo"), "1\n").unwrap();
    wait_for(|| text_property(&bus, "PerformanceDegraded") == "high-operating-temperature", "degraded");
}

#[test]
fn with_nothing_to_drive_the_panel_offers_two_placeholder_profiles() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "vm-no-cpufreq");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let before = helper.tree();
    assert_eq!(
        profiles(&bus),
        [
            row("power-saver", "placeholder", None, Some("placeholder")),
            row("balanced", "placeholder", None, Some("placeholder"))
        ]
    );
    assert_eq!(text_property(&bus, "ActiveProfile"), "balanced");
    let out = ctl(&bus, &["set", "power-saver"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(text_property(&bus, "ActiveProfile"), "power-saver");
    assert!(!ctl(&bus, &["set", "performance"]).status.success(), "nothing delivers performance here");
    assert_eq!(text_property(&bus, "ActiveProfile"), "power-saver");
    assert_eq!(helper.tree(), before, "the placeholder writes nothing");
}

#[test]
fn a_platform_profile_driver_that_loads_late_gets_the_chosen_profile() {
    let bus = Bus::start();
    let mut helper = Helper::prepare("vm-no-cpufreq");
    let acpi = helper.root.path().join("sys/firmware/acpi");
    fs::create_dir_all(&acpi).unwrap();
    // Registered, with nothing to offer yet.
    fs::write(acpi.join("platform_profile_choices"), "\n").unwrap();
    fs::write(acpi.join("platform_profile"), "\n").unwrap();
    fs::create_dir_all(helper.state.path().join("state")).unwrap();
    fs::write(helper.state.path().join("state/state.toml"), "active_profile = \"power\"\n").unwrap();
    helper.spawn(&bus);
    bus.wait_for_name("net.hadess.PowerProfiles");
    assert_eq!(profiles(&bus).len(), 2);
    // Not there yet: the saved choice waits, the panel shows balanced.
    assert_eq!(text_property(&bus, "ActiveProfile"), "balanced");
    // The driver shows its profile, then registers its choices.
    fs::write(acpi.join("platform_profile"), "performance\n").unwrap();
    fs::write(acpi.join("platform_profile_choices"), "low-power\nbalanced\nperformance\n").unwrap();
    wait_for(|| profiles(&bus).len() == 3, "the late driver's profiles");
    wait_for(|| text_property(&bus, "ActiveProfile") == "power-saver", "the saved choice, applied");
    assert_eq!(helper.read(LEGACY).trim(), "low-power");
    assert_eq!(
        profiles(&bus)[2],
        row("performance", "platform_profile", None, Some("platform_profile")),
        "only the firmware delivers performance here"
    );
}

/// Signals that arrive on `stream` within `wait`.
fn drain(
    runtime: &tokio::runtime::Runtime,
    stream: &mut zbus::MessageStream,
    wait: std::time::Duration,
) -> Vec<zbus::Message> {
    use futures_util::StreamExt;
    let mut out = Vec::new();
    runtime.block_on(async {
        while let Ok(Some(Ok(message))) = tokio::time::timeout(wait, stream.next()).await {
            out.push(message);
        }
    });
    out
}

fn signal_stream(
    runtime: &tokio::runtime::Runtime,
    connection: &zbus::Connection,
    interface: &'static str,
    member: &'static str,
) -> zbus::MessageStream {
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .path("/net/hadess/PowerProfiles")
        .unwrap()
        .interface(interface)
        .unwrap()
        .member(member)
        .unwrap()
        .build();
    runtime.block_on(zbus::MessageStream::for_match_rule(rule, connection, None)).unwrap()
}

fn call(
    runtime: &tokio::runtime::Runtime,
    connection: &zbus::Connection,
    method: &str,
    body: &(impl serde::Serialize + zbus::zvariant::DynamicType),
) -> zbus::Message {
    runtime
        .block_on(connection.call_method(
            Some("net.hadess.PowerProfiles"),
            "/net/hadess/PowerProfiles",
            Some("net.hadess.PowerProfiles"),
            method,
            body,
        ))
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

#[test]
fn profile_released_goes_to_the_holder_of_an_ended_hold_only_and_each_change_is_announced_once() {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "meteor-lake-155h");
    bus.wait_for_name("net.hadess.PowerProfiles");
    let (runtime, holder) = bus.connect();
    // Each connection lives on its own runtime, which must stay.
    let (bystanders_runtime, bystander) = bus.connect();
    let _in_runtime = runtime.enter();
    let mut holder_hears = signal_stream(&runtime, &holder, "net.hadess.PowerProfiles", "ProfileReleased");
    let mut bystander_hears =
        signal_stream(&bystanders_runtime, &bystander, "net.hadess.PowerProfiles", "ProfileReleased");
    let mut changes =
        signal_stream(&bystanders_runtime, &bystander, "org.freedesktop.DBus.Properties", "PropertiesChanged");
    let short = std::time::Duration::from_millis(500);

    // Released by its holder: the holder hears ProfileReleased too, as
    // power-profiles-daemon 0.30 sends it on every release; nobody else.
    let cookie: u32 = call(&runtime, &holder, "HoldProfile", &("performance", "test", "org.example.Test"))
        .body()
        .deserialize()
        .unwrap();
    call(&runtime, &holder, "ReleaseProfile", &(cookie,));
    let heard = drain(&runtime, &mut holder_hears, short);
    assert_eq!(heard.len(), 1, "ProfileReleased once after ReleaseProfile");
    assert_eq!(heard[0].body().deserialize::<u32>().unwrap(), cookie);
    assert!(drain(&bystanders_runtime, &mut bystander_hears, short).is_empty(), "ProfileReleased is not broadcast");
    drain(&bystanders_runtime, &mut changes, short);

    // Cancelled by a manual switch: its holder hears it, nobody else.
    let cookie: u32 = call(&runtime, &holder, "HoldProfile", &("performance", "test", "org.example.Test"))
        .body()
        .deserialize()
        .unwrap();
    drain(&bystanders_runtime, &mut changes, short);
    let out = ctl(&bus, &["set", "power-saver"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let heard = drain(&runtime, &mut holder_hears, short);
    assert_eq!(heard.len(), 1, "the holder hears its hold end once");
    assert_eq!(heard[0].body().deserialize::<u32>().unwrap(), cookie);
    assert!(drain(&bystanders_runtime, &mut bystander_hears, short).is_empty(), "ProfileReleased is not broadcast");

    // Each changed property once per interface, nothing unchanged.
    let announced: Vec<Vec<String>> = drain(&bystanders_runtime, &mut changes, short)
        .iter()
        .filter_map(|m| {
            let (interface, changed, _): (String, HashMap<String, zbus::zvariant::OwnedValue>, Vec<String>) =
                m.body().deserialize().ok()?;
            (interface == "net.hadess.PowerProfiles").then(|| {
                let mut names: Vec<String> = changed.into_keys().collect();
                names.sort();
                names
            })
        })
        .collect();
    let flat: Vec<&String> = announced.iter().flatten().collect();
    assert_eq!(flat.iter().filter(|n| n.as_str() == "ActiveProfile").count(), 1, "{announced:?}");
    assert_eq!(flat.iter().filter(|n| n.as_str() == "ActiveProfileHolds").count(), 1, "{announced:?}");
    // Switching to what is active already announces nothing.
    assert!(ctl(&bus, &["set", "power-saver"]).status.success());
    let again = drain(&bystanders_runtime, &mut changes, short);
    assert!(again.is_empty(), "{} PropertiesChanged for an unchanged profile", again.len());
}
