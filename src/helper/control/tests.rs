use super::*;

#[test]
fn power_saver_holds_win_and_the_base_returns() {
    let mut c = Control::default();
    assert_eq!(c.effective(Some("balance_performance")).as_deref(), Some("balance_performance"));
    let perf = c.hold(BuiltinProfile::Performance, ("game", "org.example.Game"), &Holder::new(":1.7", 1000), "test");
    assert_eq!(c.effective(Some("balance_power")).as_deref(), Some("performance"));
    let saver = c.hold(BuiltinProfile::Power, ("low battery", "org.gnome.Shell"), &Holder::new(":1.8", 1000), "test");
    assert_eq!(c.effective(Some("balance_power")).as_deref(), Some("power"));
    assert_eq!(c.release(saver).map(|h| h.cookie), Some(saver));
    assert_eq!(c.effective(None).as_deref(), Some("performance"));
    assert_eq!(c.release_holder(":1.7"), vec![perf]);
    assert_eq!(c.effective(Some("balance_power")).as_deref(), Some("balance_power"));
    assert!(c.release(perf).is_none());
}

#[test]
fn cookies_are_unique_and_a_manual_switch_ends_all_holds() {
    let mut c = Control::default();
    let a = c.hold(BuiltinProfile::Performance, ("", ""), &Holder::new(":1.1", 1000), "test");
    let b = c.hold(BuiltinProfile::Performance, ("", ""), &Holder::new(":1.2", 1000), "test");
    assert_ne!(a, b);
    assert_ne!(a, 0);
    assert_eq!(c.release_all().iter().map(|h| h.cookie).collect::<Vec<_>>(), vec![a, b]);
    assert!(c.holds.is_empty());
}

#[test]
fn holds_are_bounded_in_size_and_number() {
    let mut c = Control::default();
    let long = "x".repeat(MAX_HOLD_TEXT + 1);
    let holder = Holder::new(":1.1", 1000);
    assert!(c.refuse_hold(&long, "app", &holder).is_some_and(|why| why.english().contains("reason")));
    assert!(c.refuse_hold("why", &long, &holder).is_some_and(|why| why.english().contains("application id")));
    assert!(c.refuse_hold(&"x".repeat(MAX_HOLD_TEXT), "app", &holder).is_none());
    for _ in 0..MAX_HOLDS_PER_CALLER {
        assert!(c.refuse_hold("", "", &holder).is_none());
        c.hold(BuiltinProfile::Performance, ("", ""), &holder, "test");
    }
    assert!(c.refuse_hold("", "", &holder).is_some_and(|why| why.english().contains("this caller")));
    // The same user's other connection: the user holds 16 already.
    assert!(c.refuse_hold("", "", &Holder::new(":1.2", 1000)).is_some_and(|why| why.english().contains("this user")));
    for caller in 2..=4 {
        let other = Holder::new(&format!(":1.{caller}"), 1000 + caller);
        for _ in 0..MAX_HOLDS_PER_CALLER {
            c.hold(BuiltinProfile::Performance, ("", ""), &other, "test");
        }
    }
    assert_eq!(c.holds.len(), MAX_HOLDS);
    assert!(c.refuse_hold("", "", &Holder::new(":1.9", 2000)).is_some_and(|why| why.english().contains("64")));
    // Root's connections are counted one by one, not together.
    let mut c = Control::default();
    for n in 0..2 {
        let root = Holder::new(&format!(":2.{n}"), 0);
        for _ in 0..MAX_HOLDS_PER_CALLER {
            assert!(c.refuse_hold("", "", &root).is_none());
            c.hold(BuiltinProfile::Performance, ("", ""), &root, "test");
        }
    }
}

#[test]
fn one_measurement_at_a_time_ended_by_its_own_client() {
    let mut c = Control::default();
    let cookie = c.begin_lease(":1.5", Some("balance_power".into()), 100).expect("first lease");
    assert!(c.begin_lease(":1.6", None, 101).is_err_and(|why| why.english().contains(":1.5")));
    // Another client's cookie is answered as one no measurement has:
    // the words do not tell which cookies exist, nor whose they are.
    let foreign = c.end_lease(cookie, ":1.6").unwrap_err().english();
    assert_eq!(
        foreign,
        c.end_lease(cookie.wrapping_add(1).max(1), ":1.6")
            .unwrap_err()
            .english()
            .replace(&(cookie.wrapping_add(1).max(1)).to_string(), &cookie.to_string())
    );
    assert!(!foreign.contains(":1.5"), "{foreign}");
    assert!(c.own_lease(cookie, ":1.6").is_err_and(|why| why.english().contains("no measurement")));
    assert!(c.lease_holder_gone(":1.6").is_none());
    // A manual switch (release_all) ends holds, not the lease.
    c.release_all();
    c.disturb();
    assert_eq!(c.own_lease(cookie, ":1.5").map(|l| l.disturbances), Ok(1));
    let lease = c.end_lease(cookie, ":1.5").expect("its own client ends it");
    assert_eq!((lease.current.as_deref(), lease.began), (Some("balance_power"), 100));
    assert!(c.lease.is_none());
    c.disturb(); // without a lease, nothing to count
    let again = c.begin_lease(":1.6", None, 200).expect("a new lease after the end");
    assert_ne!(again, cookie);
    assert_eq!(c.own_lease(again, ":1.6").map(|l| l.disturbances), Ok(0));
    assert!(c.expire_lease(again + 1).is_none(), "another cookie's time is not up");
    assert_eq!(c.lease_holder_gone(":1.6").map(|l| l.cookie), Some(again));
    assert!(c.lease.is_none());
    let late = c.begin_lease(":1.7", None, 300).expect("a third lease");
    assert_eq!(c.expire_lease(late).map(|l| l.holder), Some(":1.7".to_owned()));
    assert!(c.expire_lease(late).is_none(), "ended once");
}

#[test]
fn a_lease_taken_up_after_a_restart_keeps_its_cookie() {
    let mut c = Control::default();
    c.resume_lease(41, ":1.9", 1000);
    assert_eq!(c.own_lease(41, ":1.9").map(|l| l.began), Ok(1000));
    assert!(c.begin_lease(":1.10", None, 1001).is_err(), "still one at a time");
    // Cookies given meanwhile are never the live lease's.
    for _ in 0..1000 {
        let hold = c.hold(BuiltinProfile::Power, ("", ""), &Holder::new(":1.11", 1000), "test");
        assert_ne!(hold, 41);
        c.release(hold);
    }
    c.end_lease(41, ":1.9").unwrap();
}

#[test]
fn cookies_are_random_and_unique_among_live_ones() {
    let mut c = Control::default();
    let holders: Vec<Holder> = (0..4).map(|n| Holder::new(&format!(":1.{n}"), n)).collect();
    let cookies: Vec<u32> =
        (0..MAX_HOLDS).map(|n| c.hold(BuiltinProfile::Performance, ("", ""), &holders[n % 4], "test")).collect();
    let distinct: std::collections::BTreeSet<u32> = cookies.iter().copied().collect();
    assert_eq!(distinct.len(), MAX_HOLDS);
    assert!(!distinct.contains(&0));
    // Not a counter: the cookies are not consecutive.
    let consecutive = cookies.windows(2).filter(|w| w[1] == w[0].wrapping_add(1)).count();
    assert!(consecutive < 3, "{consecutive} consecutive pairs in {cookies:?}");
}

#[test]
fn the_policy_chooses_by_the_power_source() {
    let auto = AutoPolicy { enabled: true, on_ac: "balance_performance".into(), on_battery: "balance_power".into() };
    assert_eq!(policy_choice(&auto, Some(true)), "balance_power");
    assert_eq!(policy_choice(&auto, Some(false)), "balance_performance");
    assert_eq!(policy_choice(&auto, None), "balance_performance");
}
