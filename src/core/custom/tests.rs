use super::*;

#[test]
fn parses_and_checks_shape() {
    let text = r#"
[[profile]]
id = "quiet"
name = "Quiet office"
epp_performance_cores = 96
epp_efficiency_cores = "balance_power"
governor = "powersave"
turbo = false
max_khz = 3000000
"#;
    let profiles = parse_profiles(text).unwrap();
    assert_eq!(profiles[0].epp_efficiency_cores, Some(EppSetting::Name("balance_power".into())));
    assert_eq!(parse_profiles(&format_profiles(&profiles).unwrap()).unwrap(), profiles);
}

#[test]
fn shape_errors_name_the_field() {
    let field = |text: &str| parse_profiles(text).unwrap_err().field;
    assert_eq!(field("[[profile]]\nid = \"Bad Id\"\nname = \"x\"\n"), Field::Id);
    assert_eq!(field("[[profile]]\nid = \"../etc\"\nname = \"x\"\n"), Field::Id);
    assert_eq!(field("[[profile]]\nid = \"power\"\nname = \"x\"\n"), Field::Id);
    assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"\"\n"), Field::Name);
    assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\nepp = \"turbo\"\n"), Field::Epp);
    assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\nepp = 256\n"), Field::File);
    assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\ngovernor = \"a/b\"\n"), Field::Governor);
    assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\nmin_khz = 5\nmax_khz = 4\n"), Field::MinKhz);
    assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\n[[profile]]\nid = \"a\"\nname = \"y\"\n"), Field::Id);
    assert_eq!(field("[[profile]]\nid = \"a\"\nname = \"x\"\ncolour = 1\n"), Field::File);
    // Text-direction overrides and other invisible controls in names.
    for bad in ["\\u202Erewop", "a\\u2066b", "a\\u200Fb", "tab\\there", "a\\u061Cb"] {
        assert_eq!(field(&format!("[[profile]]\nid = \"a\"\nname = \"{bad}\"\n")), Field::Name, "{bad}");
    }
    assert!(parse_profiles("[[profile]]\nid = \"a\"\nname = \"Büro – leise\"\n").is_ok());
}

fn named(id: &str, name: &str) -> CustomProfile {
    let text = format!("[[profile]]\nid = \"{id}\"\nname = \"{name}\"\n");
    parse_profiles(&text).unwrap().remove(0)
}

#[test]
fn ids_keep_letters_and_never_collapse_two_names() {
    assert_eq!(id_for("Büro", &[]), IdChoice::New("büro".into()));
    assert_eq!(id_for("  Quiet   office! ", &[]), IdChoice::New("quiet-office".into()));
    assert_eq!(id_for("日本語 プロファイル", &[]), IdChoice::New("日本語-プロファイル".into()));
    assert_eq!(id_for("Power", &[]), IdChoice::New("custom-power".into()));
    assert_eq!(id_for("default", &[]), IdChoice::New("custom-default".into()));
    let mut lab_run = named("kernel-default", "Kernel");
    assert!(check_shape(&lab_run).is_ok());
    lab_run.id = "kernel_default".into();
    assert!(check_shape(&lab_run).is_err_and(|e| e.field == Field::Id), "the lab's run is reserved");
    assert_eq!(id_for("!!!", &[]), IdChoice::New("custom".into()));
    let long = id_for(&"Ä".repeat(50), &[]);
    assert_eq!(long.id().chars().count(), MAX_ID_CHARS);
    // The issue's case: "Büro" and "B ro" are two profiles.
    let saved = [named("büro", "Büro")];
    assert_eq!(id_for("B ro", &saved), IdChoice::New("b-ro".into()));
    // Two names that make the same id get two ids.
    let saved = [named("b-ro", "B ro")];
    assert_eq!(id_for("B-ro", &saved), IdChoice::New("b-ro-2".into()));
    let saved = [named("b-ro", "B ro"), named("b-ro-2", "B-ro")];
    assert_eq!(id_for("B_ro", &saved), IdChoice::New("b-ro-3".into()));
    // The same name (any case) replaces, keeping the id.
    let saved = [named("büro", "Büro")];
    assert_eq!(id_for("büro ", &saved), IdChoice::Replaces("büro".into()));
    assert_eq!(id_for("BÜRO", &saved), IdChoice::Replaces("büro".into()));
    // A long name's suffix stays within the limit.
    let saved = [named(&"a".repeat(32), "first")];
    let next = id_for(&"a".repeat(40), &saved);
    assert_eq!(next, IdChoice::New(format!("{}-2", "a".repeat(30))));
    for choice in [next, id_for("Büro", &[]), id_for("日本語", &[]), long] {
        assert!(is_valid_id(choice.id()), "{choice:?}");
    }
}

#[test]
fn profiles_are_found_by_id_or_name_in_any_case() {
    let customs = [named("büro", "Büro"), named("quiet", "Power")];
    assert_eq!(find_profile("balance_power", &customs).as_deref(), Some("balance_power"));
    assert_eq!(find_profile("Efficient", &customs).as_deref(), Some("balance_power"));
    assert_eq!(find_profile("efficient", &customs).as_deref(), Some("balance_power"));
    assert_eq!(find_profile(" POWER SAVER ", &customs).as_deref(), Some("power"));
    assert_eq!(find_profile("BALANCE_POWER", &customs).as_deref(), Some("balance_power"));
    assert_eq!(find_profile("BÜRO", &customs).as_deref(), Some("büro"));
    assert_eq!(find_profile("büro", &customs).as_deref(), Some("büro"));
    // The built-in id wins over a custom profile's name.
    assert_eq!(find_profile("power", &customs).as_deref(), Some("power"));
    assert_eq!(find_profile("Turbo", &customs), None);
}

#[test]
fn ids_are_lowercase_words_only() {
    for good in ["büro", "日本語", "a", "quiet_2", "3d"] {
        assert!(is_valid_id(good), "{good}");
    }
    for bad in ["", "Büro", "-a", "_a", "a b", "a/b", "a.b", "..", "a\u{202e}b", "ǅ", &"a".repeat(33)] {
        assert!(!is_valid_id(bad), "{bad}");
    }
}

#[test]
fn the_file_holds_at_most_the_limit() {
    let file = |n: usize| (0..n).map(|i| format!("[[profile]]\nid = \"p{i}\"\nname = \"P{i}\"\n")).collect::<String>();
    assert_eq!(parse_profiles(&file(MAX_CUSTOM_PROFILES)).unwrap().len(), MAX_CUSTOM_PROFILES);
    let err = parse_profiles(&file(2000)).unwrap_err();
    assert_eq!(err.field, Field::File);
    assert!(err.message.english().contains("2000"), "{err}");
}
