use super::*;

fn keyfile(path: &Path) -> gio::SettingsBackend {
    gio::keyfile_settings_backend_new(path.to_str().unwrap(), "/", None)
}

#[test]
fn the_built_in_schema_has_the_keys_and_the_defaults_written_here() {
    let schema = built_in_schema().expect("the built-in schema loads");
    assert!(KEYS.iter().all(|k| schema.has_key(k)));
    let key = schema.key(INTERVAL);
    assert_eq!(key.default_value().get::<u32>(), Some(Values::default().interval_ms as u32));
    assert_eq!(key.range().child_value(1).as_variant().and_then(|v| v.get::<(u32, u32)>()), Some((250, 60_000)));
    assert_eq!(DEFAULT_RANGE, 250..=60_000);
    assert_eq!(schema.key(WIZARD_DONE).default_value().get::<bool>(), Some(Values::default().wizard_done));
    let seen = schema.key(SNAPSHOT_WIZARD_SEEN).default_value().get::<bool>();
    assert_eq!(seen, Some(Values::default().snapshot_wizard_seen));
    // The preferences offer only intervals the schema allows.
    assert!(INTERVAL_CHOICES_MS.iter().all(|ms| DEFAULT_RANGE.contains(ms)));
}

#[test]
fn the_old_settings_file_is_imported_once_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("settings.toml");
    let store = dir.path().join("keyfile");
    fs::write(&old, "wizard_done = true\ninterval_ms = 500\n").unwrap();
    let settings = Settings::open_with(built_in_schema(), Some(&keyfile(&store)), &old);
    assert!(matches!(settings.store, Store::GSettings(_)));
    assert!(settings.wizard_done() && !settings.snapshot_wizard_seen());
    assert_eq!(settings.interval_ms(), 500);
    assert_eq!(settings.interval_range(), 250..=60_000);
    assert_eq!(fs::read_to_string(&old).unwrap(), "wizard_done = true\ninterval_ms = 500\n", "the old file is kept");
    let written = fs::read_to_string(&store).unwrap();
    assert!(
        written.contains("sampling-interval=500") && written.contains("legacy-settings-imported=true"),
        "{written}"
    );

    // Changed later: the old file does not come back.
    settings.set_interval_ms(2000).unwrap();
    fs::write(&old, "interval_ms = 250\n").unwrap();
    assert_eq!(Settings::open_with(built_in_schema(), Some(&keyfile(&store)), &old).interval_ms(), 2000);
    // Refusals change nothing.
    let before = fs::read_to_string(&store).unwrap();
    assert_eq!(settings.set_interval_ms(100), Err(SettingsError::OutOfRange { key: INTERVAL, value: "100".into() }));
    assert!(matches!(settings.set_interval_ms(u64::MAX), Err(SettingsError::OutOfRange { .. })));
    assert_eq!(settings.interval_ms(), 2000);
    assert_eq!(fs::read_to_string(&store).unwrap(), before);
    settings.record_wizard(true).unwrap();
    assert!(Settings::open_with(built_in_schema(), Some(&keyfile(&store)), &old).snapshot_wizard_seen());
}

#[test]
fn an_unreadable_or_out_of_range_old_file_imports_what_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("settings.toml");
    fs::write(&old, "interval_ms = \"fast\"").unwrap();
    let settings = Settings::open_with(built_in_schema(), Some(&keyfile(&dir.path().join("a"))), &old);
    assert_eq!((settings.interval_ms(), settings.wizard_done()), (1000, false));
    fs::write(&old, "interval_ms = 10\nwizard_done = true\n").unwrap();
    let settings = Settings::open_with(built_in_schema(), Some(&keyfile(&dir.path().join("b"))), &old);
    assert_eq!((settings.interval_ms(), settings.wizard_done()), (1000, true));
    // No old file at all.
    let settings =
        Settings::open_with(built_in_schema(), Some(&keyfile(&dir.path().join("c"))), &dir.path().join("none"));
    assert_eq!((settings.interval_ms(), settings.wizard_done()), (1000, false));
}

#[test]
fn without_any_schema_the_defaults_last_for_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = Settings::open_with(None, None, &dir.path().join("none"));
    assert!(matches!(run.store, Store::ThisRunOnly(_)));
    assert_eq!(run.interval_ms(), 1000);
    run.set_interval_ms(5000).unwrap();
    assert_eq!(run.interval_ms(), 5000);
    assert!(run.set_interval_ms(10).is_err());
    run.record_wizard(false).unwrap();
    assert!(run.wizard_done() && !run.snapshot_wizard_seen());
}
