use super::*;

fn method_error(name: &str, text: &str) -> zbus::Error {
    // The variant zbus produces for an error reply.
    let msg = zbus::message::Message::method_call("/", "Ping").unwrap().build(&()).unwrap();
    zbus::Error::MethodError(zbus::names::OwnedErrorName::try_from(name).unwrap(), Some(text.to_owned()), msg)
}

/// `error` as the helper sends it and a client receives it: the reply
/// message the helper builds, read back the way zbus reads an error reply.
fn across_the_bus(error: &HelperError) -> HelperError {
    let call = zbus::message::Message::method_call("/", "Ping").unwrap().build(&()).unwrap();
    let reply = zbus::DBusError::create_reply(error, &call.header()).unwrap();
    HelperError::from(zbus::Error::from(reply))
}

#[test]
fn applies_are_counted_in_plain_words() {
    let summary = |cpus: u32, changed, unchanged| ApplySummary {
        profile: "power".into(),
        changed,
        unchanged,
        cpus: (0..cpus).collect(),
        summary: String::new(),
        unsaved: String::new(),
    };
    assert_eq!(
        applied_words("Switched to Power Saver", &summary(22, 0, 44)),
        "Switched to Power Saver on 22 CPUs. All 22 already had these values, so nothing was written."
    );
    assert_eq!(
        applied_words("EPP 10 set", &summary(1, 0, 1)),
        "EPP 10 set on 1 CPU. It already had these values, so nothing was written."
    );
    assert_eq!(
        applied_words("Governor set", &summary(2, 1, 0)),
        "Governor set on 2 CPUs. Its one kernel file was written."
    );
    assert_eq!(
        applied_words("Switched", &summary(22, 30, 14)),
        "Switched on 22 CPUs. 30 of its 44 kernel files were written; the others already held their values."
    );
    // Issue 27 (14): "the others" named no number and read wrong where
    // people count CPUs, not files; the count says it. Issue 42 (8): "22
    // values written" on 22 CPUs read as one per CPU; they are files.
}

#[test]
fn each_helper_error_becomes_a_sentence() {
    let cases = [
        ("io.github.gearshift.Error.NotAuthorized", "not allowed"),
        ("io.github.gearshift.Error.InvalidArgument", "refused"),
        ("io.github.gearshift.Error.Unsupported", "cannot do"),
        ("io.github.gearshift.Error.WriteFailed", "nothing was left half-done"),
        ("org.freedesktop.DBus.Error.ServiceUnknown", "not installed"),
    ];
    for (name, words) in cases {
        let err = ClientError::from(HelperError::from(method_error(name, "detail")));
        assert!(err.headline().contains(words), "{name}: {}", err.headline());
    }
    // The advice follows the cause the helper sends as the reply's second
    // argument, never the English words of its message.
    let busy = ClientError::from(across_the_bus(
        &HelperError::WriteFailed(
            "writing energy_performance_preference for CPU 3 failed: Device or resource busy".into(),
        )
        .because(Cause::EppBusy),
    ));
    assert!(matches!(busy, ClientError::WriteFailed(_, Some(Cause::EppBusy))), "{busy:?}");
    assert!(busy.advice().contains("performance governor holds EPP at 0"));
    let offline = ClientError::from(across_the_bus(
        &HelperError::InvalidArgument("CPU 4 is offline".into()).because(Cause::CpuOffline),
    ));
    assert!(offline.advice().starts_with("CPU 4 is offline."));
    assert!(offline.advice().contains("come online"));
    // The same words without a cause get no advice: nothing reads them.
    let words_only = ClientError::from(across_the_bus(&HelperError::WriteFailed("EBUSY; CPU 4 offline".into())));
    assert_eq!(words_only.advice(), "EBUSY; CPU 4 offline.");
    // An older helper's reply (one argument) and a cause this client does
    // not know arrive as the plain error.
    let unknown = zbus::message::Message::method_call("/", "Ping").unwrap().build(&()).unwrap();
    let reply = zbus::message::Message::error(&unknown.header(), "io.github.gearshift.Error.WriteFailed")
        .unwrap()
        .build(&("failed", "a-cause-from-the-future"))
        .unwrap();
    let plain = HelperError::from(zbus::Error::from(reply));
    assert!(matches!(plain, HelperError::WriteFailed(ref text) if text.english() == "failed"), "{plain:?}");
    // The error name is the contract's, with or without a cause.
    for error in [
        HelperError::InvalidArgument("x".into()).because(Cause::CpuOffline),
        HelperError::Unsupported("x".into()).because(Cause::EppBusy),
    ] {
        let back = across_the_bus(&error);
        assert_eq!(zbus::DBusError::name(&back), zbus::DBusError::name(&error));
        assert_eq!(back.cause(), error.cause());
    }
    // Tests run from the source tree: its own command, with the tree.
    assert!(
        ClientError::NotInstalled.advice().contains(&format!("./build-aux/run in {}", env!("CARGO_MANIFEST_DIR")))
            || ClientError::NotInstalled.advice().contains("systemctl reload dbus")
    );
    // The lock is no polkit refusal: no password lifts it, and the words say who can.
    let locked = ClientError::from(
        HelperError::NotAuthorized(
            "switching and tuning are set by your administrator in /etc/gearshift/gearshift.toml (locked = true)"
                .into(),
        )
        .because(Cause::Locked),
    );
    assert!(matches!(locked, ClientError::Locked(_)), "{locked:?}");
    assert!(
        !locked.advice().contains("polkit agent") && locked.advice().contains("only an administrator"),
        "{}",
        locked.advice()
    );
}
