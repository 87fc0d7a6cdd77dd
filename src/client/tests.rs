
use super::*;

fn method_error(name: &str, text: &str) -> zbus::Error {
    // The variant zbus produces for an error reply.
    let msg = zbus::message::Message::method_call("/", "Ping").unwrap().build(&()).unwrap();
    zbus::Error::MethodError(zbus::names::OwnedErrorName::try_from(name).unwrap(), Some(text.to_owned()), msg)
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
    assert_eq!(applied_words("Governor set", &summary(2, 1, 0)), "Governor set on 2 CPUs. 1 value written.");
    assert_eq!(
        applied_words("Switched", &summary(22, 30, 14)),
        "Switched on 22 CPUs. 30 values written; 14 already held theirs."
    );
    // Issue 27 (14): "the others" named no number and read wrong where
    // people count CPUs, not files; the count says it.
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
    let busy = ClientError::from(HelperError::from(method_error(
        "io.github.gearshift.Error.WriteFailed",
        "writing energy_performance_preference for CPU 3 failed: Device or resource busy (EBUSY)",
    )));
    assert!(busy.advice().contains("performance governor holds EPP at 0"));
    let offline = ClientError::from(HelperError::from(method_error(
        "io.github.gearshift.Error.InvalidArgument",
        "CPU 4 is offline",
    )));
    assert!(offline.advice().starts_with("CPU 4 is offline."));
    assert!(offline.advice().contains("come online"));
    assert!(
        ClientError::NotInstalled.advice().contains("build-aux/run")
            || ClientError::NotInstalled.advice().contains("systemctl reload dbus")
    );
}
