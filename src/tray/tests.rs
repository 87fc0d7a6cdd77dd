use super::*;
use ksni::MenuItem;
use std::path::PathBuf;

fn tray(platform: Option<&str>, on_lap: bool) -> GearshiftTray {
    GearshiftTray {
        actions: mpsc::unbounded_channel().0,
        profiles: vec![("balance_performance".into(), "Balanced".into())],
        menu_words: Vec::new(),
        session: Session {
            link: Link::Connected,
            active: InEffect::from_wire("balance_performance"),
            ..Session::default()
        },
        at_start: None,
        fixed: None,
        failed: None,
        codename: "Meteor Lake".into(),
        platform: platform.map(str::to_owned),
        on_lap,
        power: None,
        battery: true,
        autostart: false,
        icon_path: String::new(),
    }
}

#[test]
fn the_tooltip_names_the_firmware_profile_where_there_is_one() {
    use ksni::Tray;
    let tip = tray(Some("balanced"), false).tool_tip();
    assert_eq!(tip.title, "Gearshift: Balanced");
    assert_eq!(tip.description, "Meteor Lake\nPlatform profile: balanced");
    let lap = tray(Some("low-power"), true).tool_tip();
    assert_eq!(lap.description, "Meteor Lake\nPlatform profile: low-power\nOn a lap: the firmware limits performance");
    assert_eq!(tray(None, false).tool_tip().description, "Meteor Lake");
    // The administrator's lock: said, and the profiles are off.
    let mut locked = tray(None, false);
    locked.session.locked_by = Some("/etc/gearshift/gearshift.toml".into());
    assert!(locked
        .tool_tip()
        .description
        .ends_with("your administrator in /etc/gearshift/gearshift.toml (locked = true)."));
    let menu = locked.menu();
    assert!(matches!(&menu[0], MenuItem::RadioGroup(g) if g.options.iter().all(|o| !o.enabled)));
    assert!(matches!(&menu[1], MenuItem::Standard(i) if !i.enabled && i.label.contains("administrator")));
}

#[test]
fn the_firmware_is_read_from_the_snapshot() {
    let fixture = |name: &str| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let mtl = SysRoot::open(&fixture("meteor-lake-155h")).unwrap();
    assert_eq!(read_firmware(&mtl), (Some("balanced".to_owned()), false));
    let hx = SysRoot::open(&fixture("amd-hx370-platform-class")).unwrap();
    assert_eq!(read_firmware(&hx), (Some("balanced".to_owned()), false));
    let raptor = SysRoot::open(&fixture("raptor-lake-13700h")).unwrap();
    assert_eq!(read_firmware(&raptor), (None, false));
    // Power Saver on two handlers: each shows its own name for it.
    let mut saver = gearshift::core::machine::Machine::read(&hx).platform_profile.unwrap();
    saver.handlers[0].current = Some("quiet".into());
    saver.handlers[1].current = Some("low-power".into());
    saver.current = Some("custom".into());
    assert_eq!(platform_name(&saver), "quiet / low-power");
    saver.handlers[1].current = None;
    assert_eq!(platform_name(&saver), "custom");
}

#[test]
fn an_icon_per_profile() {
    assert_eq!(icon_for(Some("power")), "io.github.gearshift.Gearshift-power-saver-symbolic");
    assert_eq!(icon_for(Some("balance_performance")), "io.github.gearshift.Gearshift-balanced-symbolic");
    assert_eq!(icon_for(Some("quiet")), "io.github.gearshift.Gearshift-custom-symbolic");
    assert_eq!(icon_for(Some("")), "io.github.gearshift.Gearshift-symbolic");
    for id in ["performance", "balance_performance", "balance_power", "power", "x", ""] {
        let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("data/icons/hicolor/symbolic/apps")
            .join(format!("{}.svg", icon_for(Some(id))));
        assert!(file.exists(), "{} is not shipped", file.display());
    }
}

#[test]
fn a_machine_tuned_by_hand_shows_no_profile_whatever_was_active_at_start() {
    use ksni::Tray;
    let mut tray = tray(None, false);
    tray.at_start = Some("balance_performance".into());
    tray.session.active = InEffect::NotHeard;
    assert_eq!(tray.tool_tip().title, "Gearshift: Balanced", "before the helper says, what the files held");
    // The helper says "" (gearshift epp set): no profile, not the one at start.
    tray.session.active = InEffect::Nothing;
    assert_eq!(tray.tool_tip().title, "Gearshift");
}

#[test]
fn a_hold_is_said_with_its_holder_in_the_tooltip_and_the_menu() {
    use gearshift::client::session::Hold;
    use gearshift::core::active::ActiveReason;
    use ksni::Tray;
    let mut held = tray(None, false);
    held.profiles.push(("performance".into(), "Performance".into()));
    held.session.active = InEffect::from_wire("performance");
    held.session.reason = ActiveReason::Held;
    let hold = |app: &str, profile: &str, game_mode: bool| Hold {
        application_id: app.into(),
        profile: profile.into(),
        reason: "r".into(),
        game_mode,
    };
    held.session.holds = vec![hold("com.valvesoftware.Steam", "performance", false)];
    assert_eq!(held.tool_tip().title, "Gearshift: Performance, held by com.valvesoftware.Steam");
    let menu = held.menu();
    assert!(
        matches!(&menu[1], MenuItem::Standard(i) if !i.enabled && i.label == "Performance, held by com.valvesoftware.Steam")
    );
    // Power Saver wins: its holders are named.
    held.session.holds.push(hold("backup", "power", false));
    assert_eq!(held.session.held_by().as_deref(), Some("backup"));
    // GameMode writes no profile: said as GameMode's.
    held.session.holds = vec![hold("com.feralinteractive.GameMode", "performance", true)];
    held.session.active = InEffect::from_wire("");
    assert_eq!(held.tool_tip().title, "Gearshift: Held by GameMode");
    // Not held: nothing said.
    held.session.reason = ActiveReason::Chosen;
    assert!(held.session.held_by().is_none());
}
