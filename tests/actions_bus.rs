//! power-profiles-daemon 0.30's additions, as Gearshift serves them on
//! `org.freedesktop.UPower.PowerProfiles` (docs/dbus-api.md, "Battery
//! awareness", "Actions", "Moving over from power-profiles-daemon"): the
//! helper on a private system bus with the real dbus-daemon and polkitd,
//! python-dbusmock's UPower for the power source and the battery level,
//! and the kernel-faithful sysfs (`tests/kernelfs/`) for the files the
//! actions write, so that a value the kernel refuses stays refused.

mod common;

use std::collections::{BTreeMap, HashMap};

use common::bus::{error_name, wait_for, Bus, Helper, Mock, MOCK_POLICY};
use zbus::zvariant::{OwnedValue, Value};

const NAME: &str = "org.freedesktop.UPower.PowerProfiles";
const PATH: &str = "/org/freedesktop/UPower/PowerProfiles";
const PANEL: &str = "sys/class/drm/card1-eDP-1/amdgpu/panel_power_savings";
const GPU: &str = "sys/class/drm/card1/device/power_dpm_force_performance_level";
const PHONE: &str = "sys/class/power_supply/apple_mfi_fastcharge/charge_type";

/// A helper on `fixture`, served by the kernel emulator, with UPower and
/// logind mocked; `args` are helper options.
struct Machine {
    bus: Bus,
    helper: Helper,
    _mocks: Vec<Mock>,
}

impl Machine {
    fn start(fixture: &str, args: &[&str]) -> Machine {
        Machine::start_with(fixture, args, |_| {})
    }

    /// Like [`Machine::start`], after `prepare` has changed the helper's
    /// root (or state directory) before the start.
    fn start_with(fixture: &str, args: &[&str], prepare: impl FnOnce(&Helper)) -> Machine {
        let bus = Bus::start_with(&[("mocks.conf", MOCK_POLICY)]);
        let mocks = vec![
            Mock::start(&bus, "upower", "org.freedesktop.UPower"),
            Mock::start(&bus, "logind", "org.freedesktop.login1"),
        ];
        let mut helper = Helper::prepare(fixture);
        helper.args = args.iter().map(|a| (*a).to_owned()).collect();
        prepare(&helper);
        helper.on_kernel_emulator();
        helper.spawn(&bus);
        bus.wait_for_name(NAME);
        Machine { bus, helper, _mocks: mocks }
    }

    fn read(&self, rel: &str) -> String {
        self.helper.read(rel).trim().to_owned()
    }

    fn wait_shown(&self, rel: &str, want: &str, what: &str) {
        wait_for(|| self.read(rel) == want, &format!("{what} ({rel}: {})", self.read(rel)));
    }

    fn epp(&self) -> Vec<String> {
        (0..22).map(|p| self.helper.policy(p, "energy_performance_preference")).collect()
    }

    /// Runs `f` with a Properties proxy on the PowerProfiles object, on a
    /// fresh connection.
    fn with_properties<T>(&self, f: impl AsyncFnOnce(zbus::fdo::PropertiesProxy<'_>) -> T) -> T {
        let (runtime, connection) = self.bus.connect();
        runtime.block_on(async {
            let properties = zbus::fdo::PropertiesProxy::builder(&connection)
                .destination(NAME)
                .unwrap()
                .path(PATH)
                .unwrap()
                .build()
                .await
                .unwrap();
            f(properties).await
        })
    }

    fn property(&self, name: &str) -> OwnedValue {
        self.with_properties(async |p| {
            p.get(NAME.try_into().unwrap(), name).await.unwrap_or_else(|e| panic!("Get {name}: {e}"))
        })
    }

    fn set_property(&self, name: &str, value: Value<'_>) -> Result<(), zbus::fdo::Error> {
        self.with_properties(async |p| p.set(NAME.try_into().unwrap(), name, value).await)
    }

    fn set_profile(&self, profile: &str) {
        self.set_property("ActiveProfile", Value::from(profile)).unwrap_or_else(|e| panic!("{profile}: {e}"));
    }

    fn battery_aware(&self) -> bool {
        bool::try_from(self.property("BatteryAware")).unwrap()
    }

    /// `ActionsInfo` as name -> enabled, with each entry's keys checked.
    fn actions(&self) -> BTreeMap<String, bool> {
        let list: Vec<HashMap<String, OwnedValue>> = self.property("ActionsInfo").try_into().unwrap();
        list.iter()
            .map(|entry| {
                let mut keys: Vec<&str> = entry.keys().map(String::as_str).collect();
                keys.sort_unstable();
                assert_eq!(keys, ["Description", "Enabled", "Name"], "{entry:?}");
                let name = String::try_from(entry["Name"].try_clone().unwrap()).unwrap();
                (name, bool::try_from(&entry["Enabled"]).unwrap())
            })
            .collect()
    }

    fn set_action(&self, action: &str, enabled: bool) -> Result<(), zbus::Error> {
        let (runtime, connection) = self.bus.connect();
        runtime
            .block_on(connection.call_method(Some(NAME), PATH, Some(NAME), "SetActionEnabled", &(action, enabled)))
            .map(drop)
    }

    fn state_file(&self) -> Vec<u8> {
        std::fs::read(self.helper.state.path().join("state/state.toml")).unwrap_or_default()
    }
}

fn actions(pairs: &[(&str, bool)]) -> BTreeMap<String, bool> {
    pairs.iter().map(|(n, e)| ((*n).to_owned(), *e)).collect()
}

#[test]
fn balanced_on_battery_takes_the_models_balance_power_until_battery_awareness_is_off() {
    let mut machine = Machine::start("meteor-lake-155h", &[]);
    assert!(machine.battery_aware(), "on unless turned off, as in power-profiles-daemon");
    assert_eq!(machine.epp(), vec!["64"; 22], "Balanced on AC: Meteor Lake's own value");

    machine.bus.set_on_battery(true);
    // Meteor Lake's balance_power (179), not the generic 192 a name gives.
    wait_for(|| machine.epp().iter().all(|v| v == "179"), "Balanced on battery takes balance_power");
    assert_eq!(String::try_from(machine.property("ActiveProfile")).unwrap(), "balanced", "still Balanced");

    machine.set_property("BatteryAware", Value::from(false)).unwrap();
    assert_eq!(machine.epp(), vec!["64"; 22], "without battery awareness Balanced is Balanced on battery too");
    assert!(!machine.battery_aware());

    // Asking for what is already so is refused, as ppd refuses it, and
    // changes neither the files nor the saved state.
    wait_for(|| String::from_utf8_lossy(&machine.state_file()).contains("battery_aware = false"), "the state saved");
    let saved = machine.state_file();
    let refused = machine.set_property("BatteryAware", Value::from(false)).unwrap_err();
    assert!(refused.to_string().contains("already off"), "{refused}");
    assert_eq!(machine.state_file(), saved);
    assert_eq!(machine.epp(), vec!["64"; 22]);

    // Saved: a restart keeps it off.
    machine.helper.stop();
    machine.helper.spawn(&machine.bus);
    machine.bus.wait_for_name(NAME);
    assert!(!machine.battery_aware());
    assert_eq!(machine.epp(), vec!["64"; 22]);

    machine.set_property("BatteryAware", Value::from(true)).unwrap();
    assert_eq!(machine.epp(), vec!["179"; 22]);
    machine.bus.set_on_battery(false);
    wait_for(|| machine.epp().iter().all(|v| v == "64"), "back on AC, Balanced again");
}

#[test]
fn the_panel_saves_power_on_battery_the_more_the_emptier_it_is() {
    let machine = Machine::start("amd-7840hs-epp", &[]);
    assert_eq!(
        machine.actions(),
        actions(&[("amdgpu_dpm", false), ("amdgpu_panel_power", false), ("trickle_charge", true)]),
        "an AMD laptop has all three; the amdgpu ones are off until turned on"
    );
    machine.bus.set_battery_level(45.0);
    machine.bus.set_on_battery(true);
    machine.set_profile("power-saver");
    assert_eq!(machine.read(PANEL), "0", "off until turned on");

    machine.set_action("amdgpu_panel_power", true).unwrap();
    assert!(machine.actions()["amdgpu_panel_power"]);
    machine.wait_shown(PANEL, "1", "Power Saver below half");
    machine.bus.set_battery_level(25.0);
    machine.wait_shown(PANEL, "2", "Power Saver at 30 % and below");
    machine.bus.set_battery_level(15.0);
    machine.wait_shown(PANEL, "3", "Power Saver at 20 % and below");
    machine.set_profile("balanced");
    machine.wait_shown(PANEL, "1", "Balanced below 30 %");
    machine.set_profile("performance");
    machine.wait_shown(PANEL, "0", "Performance never");
    machine.set_profile("power-saver");
    machine.wait_shown(PANEL, "3", "Power Saver again");
    machine.bus.set_on_battery(false);
    machine.wait_shown(PANEL, "0", "on AC power, none");

    // A value the firmware would refuse is never asked: the log has no
    // refusal from the panel's file.
    assert!(!machine.helper.log_text().contains("cannot write"), "{}", machine.helper.log_text());
}

#[test]
fn without_battery_awareness_the_panel_does_not_follow_the_battery() {
    let machine = Machine::start("amd-7840hs-epp", &[]);
    machine.set_action("amdgpu_panel_power", true).unwrap();
    machine.bus.set_battery_level(15.0);
    machine.bus.set_on_battery(true);
    machine.set_profile("power-saver");
    machine.wait_shown(PANEL, "3", "Power Saver nearly empty");
    machine.set_property("BatteryAware", Value::from(false)).unwrap();
    machine.wait_shown(PANEL, "0", "nothing says 'on battery' without battery awareness");
}

#[test]
fn the_gpu_is_low_in_power_saver_and_a_level_set_by_hand_is_left_alone() {
    let machine = Machine::start("amd-7840hs-epp", &[]);
    machine.set_profile("power-saver");
    assert_eq!(machine.read(GPU), "auto", "off until turned on");
    machine.set_action("amdgpu_dpm", true).unwrap();
    machine.wait_shown(GPU, "low", "turned on in Power Saver");
    machine.set_profile("balanced");
    machine.wait_shown(GPU, "auto", "Balanced");

    // Someone tunes the GPU by hand: that stays.
    std::fs::write(machine.helper.root.path().join(GPU), "manual").unwrap();
    machine.set_profile("power-saver");
    machine.set_profile("performance");
    assert_eq!(machine.read(GPU), "manual");

    // Off again: nothing more is written.
    std::fs::write(machine.helper.root.path().join(GPU), "auto").unwrap();
    machine.set_action("amdgpu_dpm", false).unwrap();
    machine.set_profile("power-saver");
    assert_eq!(machine.read(GPU), "auto");
}

#[test]
fn a_charging_phone_trickles_in_power_saver_and_a_type_its_driver_refuses_fails_alone() {
    let machine = Machine::start("alder-lake-1260p-iphone", &[]);
    assert_eq!(machine.actions(), actions(&[("trickle_charge", true)]), "Intel: trickle charging only");
    machine.set_profile("power-saver");
    machine.wait_shown(PHONE, "Trickle", "Power Saver");
    machine.set_profile("performance");
    machine.wait_shown(PHONE, "Fast", "Performance");

    // Balanced asks for Standard, as ppd 0.30 does; apple-mfi-fastcharge
    // can do only Trickle and Fast and answers EINVAL. The switch itself
    // is done, and the refusal is in the log.
    machine.set_profile("balanced");
    assert_eq!(String::try_from(machine.property("ActiveProfile")).unwrap(), "balanced");
    wait_for(|| machine.helper.log_text().contains("cannot write Standard"), "the refusal logged");
    assert_eq!(machine.read(PHONE), "Fast");

    machine.set_action("trickle_charge", false).unwrap();
    machine.set_profile("power-saver");
    assert_eq!(machine.read(PHONE), "Fast", "turned off: the phone charges as it did");
}

#[test]
fn a_charge_type_someone_chose_is_left_alone() {
    let machine = Machine::start_with("alder-lake-1260p-iphone", &[], |helper| {
        let dir = helper.root.path().join("sys/class/power_supply/apple_mfi_fastcharge");
        std::fs::write(dir.join("charge_types"), "Trickle [Custom] Standard Fast\n").unwrap();
        std::fs::write(dir.join("charge_type"), "Custom\n").unwrap();
    });
    for profile in ["power-saver", "performance", "balanced"] {
        machine.set_profile(profile);
        assert_eq!(machine.read(PHONE), "Custom", "{profile}");
    }
}

#[test]
fn set_action_enabled_refuses_what_is_not_an_action_and_changes_nothing() {
    let machine = Machine::start("meteor-lake-155h", &[]);
    machine.set_action("trickle_charge", false).unwrap();
    // The state is saved in the background.
    wait_for(|| String::from_utf8_lossy(&machine.state_file()).contains("trickle_charge = false"), "the state saved");
    let saved = machine.state_file();
    let before = machine.actions();
    let long = "x".repeat(70_000);
    // Unknown, an AMD action on Intel, and a huge name.
    for name in ["nonsense", "amdgpu_panel_power", long.as_str()] {
        let refused = machine.set_action(name, true);
        assert_eq!(error_name(refused), "org.freedesktop.DBus.Error.InvalidArgs", "{}", &name[..name.len().min(20)]);
    }
    assert_eq!(machine.actions(), before);
    assert_eq!(machine.state_file(), saved, "the saved state is byte for byte what it was");
    // Saved: a restart keeps it off.
    let mut machine = machine;
    machine.helper.stop();
    machine.helper.spawn(&machine.bus);
    machine.bus.wait_for_name(NAME);
    assert_eq!(machine.actions(), actions(&[("trickle_charge", false)]));
}

#[test]
fn blocked_actions_and_a_disabled_upower_are_ppds_options() {
    let machine = Machine::start("amd-7840hs-epp", &["--block-action", "amdgpu_panel_power", "--disable-upower"]);
    let info = machine.actions();
    assert!(!info["amdgpu_panel_power"], "listed, not running");
    // Turning a blocked action on is saved, but it stays off while blocked.
    machine.set_action("amdgpu_panel_power", true).unwrap();
    assert!(!machine.actions()["amdgpu_panel_power"]);
    machine.bus.set_battery_level(10.0);
    machine.bus.set_on_battery(true);
    machine.set_profile("power-saver");
    assert_eq!(machine.read(PANEL), "0");
    // UPower is not listened to: Balanced on battery is Balanced.
    assert!(!machine.battery_aware());
    let refused = machine.set_property("BatteryAware", Value::from(true)).unwrap_err();
    assert!(refused.to_string().contains("--disable-upower"), "{refused}");
}

#[test]
fn the_first_start_takes_over_the_last_choice_made_with_power_profiles_daemon() {
    let machine = Machine::start_with("amd-7840hs-epp", &[], |helper| {
        let dir = helper.root.path().join("var/lib/power-profiles-daemon");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("state.ini"),
            "[State]\nCpuDriver=amd_pstate\nPlatformDriver=platform_profile\nProfile=power-saver\nbattery_aware=false\n\n\
             [Actions]\namdgpu_dpm=true\n",
        )
        .unwrap();
    });
    assert_eq!(String::try_from(machine.property("ActiveProfile")).unwrap(), "power-saver");
    assert!(!machine.battery_aware());
    assert!(machine.actions()["amdgpu_dpm"]);
    machine.wait_shown(GPU, "low", "the taken-over action runs");
    let log = machine.helper.log_text();
    assert!(
        log.contains("taking over power-profiles-daemon's last choices from /var/lib/power-profiles-daemon/state.ini"),
        "the log says where the choice came from:\n{log}"
    );
}

#[test]
fn a_later_start_keeps_gearshifts_own_state_over_ppds() {
    let mut machine = Machine::start("amd-7840hs-epp", &[]);
    machine.set_profile("performance");
    machine.helper.stop();
    let dir = machine.helper.root.path().join("var/lib/power-profiles-daemon");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("state.ini"), "[State]\nProfile=power-saver\n").unwrap();
    machine.helper.spawn(&machine.bus);
    machine.bus.wait_for_name(NAME);
    assert_eq!(String::try_from(machine.property("ActiveProfile")).unwrap(), "performance");
}
