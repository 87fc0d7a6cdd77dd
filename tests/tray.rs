//! The tray on a private session bus: it registers with a
//! StatusNotifierWatcher that appears late, its dbusmenu holds radio items
//! for the four profiles, the checked one follows the helper (real
//! dbus-daemon, polkitd and helper on a private system bus), a click
//! switches, the tooltip names the firmware's platform profile as the
//! helper sets it, and it stays small and quiet.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::bus::{cli, wait_for, Bus, Helper};
use common::display::SessionBus;
use common::procfs::{rss_kib, wakeups_over};
use common::tray::{checked, click, layout, radio_items, spawn_tray, tooltip, wait_for_item, Watcher};
use common::{stderr, stdout};

#[test]
fn the_tray_registers_late_shows_the_profiles_and_follows_the_helper() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_performance"]).status.success());
    let session = SessionBus::start();
    let config = tempfile::tempdir().unwrap();
    let mut tray = spawn_tray(&bus, helper.root.path(), &session.address, config.path());

    // No watcher yet: the tray keeps running, and says why nothing shows.
    std::thread::sleep(Duration::from_secs(1));
    assert!(tray.try_wait().unwrap().is_none(), "the tray exited without a watcher");
    let said = std::fs::read_to_string(config.path().join("tray-stderr.txt")).unwrap_or_default();
    assert!(said.contains("no panel here shows tray icons"), "{said}");
    assert!(said.contains("AppIndicator extension (gnome-shell-extension-appindicator)"), "{said}");

    // The watcher appears late: the tray registers with it.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let items: Arc<Mutex<Vec<String>>> = Arc::default();
    let conn = runtime.block_on(Watcher::serve(&session.address, items.clone())).expect("the mock watcher");
    let service = wait_for_item(&runtime, &items);

    // The menu: the four profiles as radio items, Balanced checked.
    let wait_checked = |want: &str| {
        wait_for(
            || checked(&layout(&runtime, &conn, &service)).as_deref() == Some(want),
            &format!("{want} checked in the tray"),
        )
    };
    wait_checked("Balanced");
    let menu = layout(&runtime, &conn, &service);
    // For people reading the test log: the menu as a host sees it.
    for item in &menu {
        eprintln!(
            "menu item {:>2}: {:<28} {:<9} {}",
            item.id,
            item.text("label").unwrap_or_else(|| item.text("type").unwrap_or_default()),
            item.text("toggle-type").unwrap_or_default(),
            item.number("toggle-state").map(|s| if s == 1 { "(checked)" } else { "" }).unwrap_or("")
        );
    }
    let labels: Vec<String> = radio_items(&menu).into_iter().map(|(l, _, _)| l).collect();
    assert_eq!(labels, ["Performance", "Balanced", "Efficient", "Power Saver", "The Kernel's Own Values"]);
    for label in ["Automatic (AC/battery)", "Open Gearshift", "Start at Login", "Quit"] {
        assert!(menu.iter().any(|i| i.text("label").is_some_and(|l| l.replace('_', "") == label)), "no {label} item");
    }

    // The tooltip names the firmware's platform profile (the demo laptop
    // has one; Balanced sets "balanced").
    let tip = tooltip(&runtime, &conn, &service);
    eprintln!("tooltip: {tip:?}");
    assert!(tip.contains("Platform profile: balanced"), "{tip}");
    assert!(!tip.contains("On a lap"), "{tip}");

    // A switch made elsewhere moves the check, and the firmware's profile
    // in the tooltip with it.
    let out = cli(&bus, None, &["profile", "set", "power"]);
    assert!(out.status.success(), "{}", stderr(&out));
    wait_checked("Power Saver");
    wait_for(
        || tooltip(&runtime, &conn, &service).contains("Platform profile: low-power"),
        "the firmware's low-power profile in the tooltip",
    );

    // Clicking a profile in the tray switches through the helper.
    let click = |id: i32| click(&runtime, &conn, &service, id);
    let efficient =
        radio_items(&layout(&runtime, &conn, &service)).into_iter().find(|(l, _, _)| l == "Efficient").unwrap().2;
    click(efficient);
    wait_for(|| helper.policy(0, "energy_performance_preference") == "179", "the tray's switch to Efficient");
    wait_checked("Efficient");
    // Handing the CPU back: the helper writes the kernel's own values.
    let kernel = radio_items(&layout(&runtime, &conn, &service))
        .into_iter()
        .find(|(l, _, _)| l == "The Kernel's Own Values")
        .unwrap()
        .2;
    click(kernel);
    wait_checked("The Kernel's Own Values");
    assert_eq!(stdout(&cli(&bus, None, &["profile", "get"])).trim(), "kernel");
    click(efficient);
    wait_checked("Efficient");

    // Battery awareness and trickle charging (Intel has no amdgpu
    // actions): a checkmark each, as the desktop's power API shows them;
    // clicking one changes it in the helper.
    let toggle = |label: &str| {
        let menu = layout(&runtime, &conn, &service);
        menu.iter().find(|i| i.text("label").as_deref() == Some(label)).map(|i| (i.id, i.number("toggle-state")))
    };
    wait_for(
        || {
            toggle("Save Power on Battery").is_some_and(|(_, s)| s == Some(1))
                && toggle("Charge Devices Gently").is_some()
        },
        "battery awareness and trickle charging in the menu",
    );
    assert!(toggle("Dim the Panel on Battery").is_none(), "an amdgpu action on an Intel machine");
    let (trickle, state) = toggle("Charge Devices Gently").unwrap();
    assert_eq!(state, Some(1));
    click(trickle);
    wait_for(
        || {
            std::fs::read_to_string(helper.state.path().join("state/state.toml"))
                .is_ok_and(|t| t.contains("trickle_charge = false"))
        },
        "the tray turned trickle charging off in the helper",
    );
    wait_for(|| toggle("Charge Devices Gently").is_some_and(|(_, s)| s == Some(0)), "the checkmark follows");

    // A custom profile saved after the tray started (from anywhere) joins
    // the menu; deleted, it leaves it.
    bus.save_custom("[[profile]]\nid = \"büro\"\nname = \"Büro\"\nepp = 90\n").expect("saved");
    let labels = || radio_items(&layout(&runtime, &conn, &service)).into_iter().map(|(l, _, _)| l).collect::<Vec<_>>();
    wait_for(|| labels().contains(&"Büro".to_owned()), "the new custom profile in the tray's menu");
    let deleted = bus.dbus_send(false, "DeleteCustomProfile", &["string:büro"]);
    assert!(deleted.status.success(), "{}", stderr(&deleted));
    wait_for(|| !labels().contains(&"Büro".to_owned()), "the deleted profile gone from the menu");
    assert_eq!(labels(), ["Performance", "Balanced", "Efficient", "Power Saver", "The Kernel's Own Values"]);

    // Start at Login follows the login item, whoever changed it (the
    // window's preferences): read again when the menu opens.
    let at_login = || {
        let menu = layout(&runtime, &conn, &service);
        let item = menu.iter().find(|i| i.text("label").is_some_and(|l| l.replace('_', "") == "Start at Login"));
        item.and_then(|i| i.number("toggle-state")).expect("the Start at Login item has a state")
    };
    assert_eq!(at_login(), 0, "no autostart entry anywhere: not at login");
    let entry = config.path().join("autostart/io.github.gearshift.Gearshift-tray.desktop");
    std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
    std::fs::write(&entry, "[Desktop Entry]\nType=Application\nName=Gearshift tray\nExec=gearshift --tray\n").unwrap();
    let about_to_show = || {
        runtime
            .block_on(conn.call_method(
                Some(service.as_str()),
                "/MenuBar",
                Some("com.canonical.dbusmenu"),
                "AboutToShow",
                &(0i32,),
            ))
            .expect("dbusmenu AboutToShow");
    };
    about_to_show();
    wait_for(|| at_login() == 1, "Start at Login checked once the menu opened");

    // Small, and quiet while nothing changes.
    let pid = tray.id();
    let rss = rss_kib(pid);
    assert!(rss <= 30 * 1024, "the tray holds {rss} KiB (budget 30 MiB)");
    std::thread::sleep(Duration::from_millis(500));
    let woke = wakeups_over(pid, 5);
    assert_eq!(woke, 0, "the tray woke {woke} times in 5 s with nothing happening");
    let _ = tray.kill();
    let _ = tray.wait();
}
