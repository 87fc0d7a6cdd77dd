use super::*;
use crate::core::machine::Machine;
use crate::core::models::ModelTable;

/// A configuration root holding `files` (path under the root, text),
/// checked for the Meteor Lake snapshot.
fn load(files: &[(&str, &str)]) -> (tempfile::TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/meteor-lake-155h");
    let machine = Machine::read(&SysRoot::open(&fixture).unwrap());
    let table = ModelTable::builtin();
    let config = Config::load(&SysRoot::open(dir.path()).unwrap(), &Resolver::new(&machine, &table));
    (dir, config)
}

const MAIN: &str = "etc/gearshift/gearshift.toml";

#[test]
fn later_files_win_key_by_key() {
    let (dir, config) = load(&[
            (MAIN, "profile = \"balance_performance\"\n[auto]\nenabled = true\non_ac = \"performance\"\non_battery = \"balance_power\"\n"),
            ("etc/gearshift/conf.d/50-fleet.toml", "[auto]\non_battery = \"power\"\n"),
            ("etc/gearshift/conf.d/10-first.toml", "locked = true\n[metrics]\ntextfile_dir = \"/srv/metrics\"\n"),
            ("etc/gearshift/conf.d/notes.txt", "not toml at all"),
        ]);
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let names: Vec<String> =
        config.files.iter().map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string()).collect();
    assert_eq!(names, [MAIN, "etc/gearshift/conf.d/10-first.toml", "etc/gearshift/conf.d/50-fleet.toml"]);
    assert_eq!(config.profile.as_ref().map(|s| s.value.as_str()), Some("balance_performance"));
    assert_eq!(config.on_ac.as_ref().map(|s| s.value.as_str()), Some("performance"));
    assert_eq!(config.on_battery.as_ref().map(|s| s.value.as_str()), Some("power"));
    assert!(config.on_battery.as_ref().unwrap().file.ends_with("50-fleet.toml"));
    assert!(config.locked_by().is_some_and(|f| f.ends_with("10-first.toml")));
    assert_eq!(config.textfile_dir(), PathBuf::from("/srv/metrics"));
    let sources = config.sources();
    assert!(sources["auto.on_ac"].ends_with("gearshift.toml") && sources["auto.on_battery"].ends_with("50-fleet.toml"));
}

#[test]
fn declared_profiles_are_checked_against_the_machine_and_named_by_others() {
    let (_dir, config) = load(&[
        (MAIN, "default_profile = \"render\"\n\n[[profile]]\nid = \"render\"\nname = \"Render farm\"\nepp = 32\n"),
        ("etc/gearshift/conf.d/20-quiet.toml", "[auto]\non_battery = \"render\"\n"),
    ]);
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    assert_eq!(config.profiles.len(), 1);
    assert_eq!(config.profile.as_ref().map(|s| s.value.as_str()), Some("render"));
    assert!(config.sources()["profile.render"].ends_with("gearshift.toml"));
}

#[test]
fn a_bad_file_is_set_aside_with_its_line_and_the_others_apply() {
    let (_dir, config) = load(&[
        (MAIN, "profile = \"balance_power\"\n"),
        ("etc/gearshift/conf.d/10-typo.toml", "locked = true\nprofil = \"power\"\n"),
        ("etc/gearshift/conf.d/20-syntax.toml", "[auto\nenabled = true\n"),
        ("etc/gearshift/conf.d/30-unknown.toml", "\n[auto]\non_ac = \"turbo\"\n"),
        ("etc/gearshift/conf.d/40-refused.toml", "[[profile]]\nid = \"hot\"\nname = \"Hot\"\nepp = 300\n"),
        ("etc/gearshift/conf.d/50-both.toml", "profile = \"power\"\n[[profile]]\nid = \"x\"\nname = \"X\"\nepp = 1\n"),
    ]);
    // Only the main file applies: nothing is locked, the boot profile stands.
    assert_eq!(config.files.len(), 1, "{:?}", config.problems);
    assert_eq!(config.locked_by(), None);
    assert_eq!(config.profile.as_ref().map(|s| s.value.as_str()), Some("balance_power"));
    let said: Vec<String> = config.problems.iter().map(ToString::to_string).collect();
    let find = |file: &str| said.iter().find(|p| p.contains(file)).cloned().unwrap_or_default();
    assert!(find("10-typo.toml").contains("10-typo.toml:2: unknown key “profil”"), "{said:?}");
    assert!(find("20-syntax.toml").contains("20-syntax.toml:1:"), "{said:?}");
    assert!(find("30-unknown.toml").contains("30-unknown.toml:3: no profile is called “turbo”"), "{said:?}");
    assert!(find("40-refused.toml").contains("40-refused.toml:1: profile"), "{said:?}");
    assert!(find("50-both.toml").contains("default_profile"), "{said:?}");
}

#[test]
fn a_file_that_names_a_profile_declared_in_a_bad_file_is_set_aside_too() {
    let (_dir, config) = load(&[
        ("etc/gearshift/conf.d/10-profiles.toml", "[[profile]]\nid = \"render\"\nname = \"Render\"\nepp = 999\n"),
        ("etc/gearshift/conf.d/20-boot.toml", "profile = \"render\"\n"),
    ]);
    assert!(config.files.is_empty(), "{:?}", config.files);
    assert_eq!(config.problems.len(), 2, "{:?}", config.problems);
}

#[test]
fn no_files_no_settings() {
    let (_dir, config) = load(&[]);
    assert_eq!(config, Config::default());
    assert_eq!(config.textfile_dir(), PathBuf::from(DEFAULT_TEXTFILE_DIR));
}

#[test]
fn rules_of_every_good_file_apply_and_a_wrong_one_is_named_by_its_line() {
    let (_dir, config) = load(&[
        (MAIN, "[[rule]]\nprogram = \"cargo\"\nprofile = \"performance\"\n"),
        (
            "etc/gearshift/conf.d/50-fleet.toml",
            "locked = true\n\n[[rule]]\napp_id = \"com.valvesoftware.Steam\"\nprofile = \"power\"\n",
        ),
    ]);
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let rules: Vec<(Option<&str>, Option<&str>, &str)> = config
        .rules
        .iter()
        .map(|r| (r.value.program.as_deref(), r.value.app_id.as_deref(), r.value.profile.as_str()))
        .collect();
    let saver = crate::core::panel::PanelProfile::PowerSaver.name();
    assert_eq!(rules, [(Some("cargo"), None, "performance"), (None, Some("com.valvesoftware.Steam"), saver)]);
    assert!(config.rules[1].file.ends_with("50-fleet.toml"));
    // A rule that cannot be sets its file aside, with the rule's line.
    let (_dir, config) = load(&[
        (MAIN, "[[rule]]\nprogram = \"cargo\"\nprofile = \"performance\"\n"),
        (
            "etc/gearshift/conf.d/60-typo.toml",
            "default_profile = \"power\"\n\n[[rule]]\nprogram = \"blender\"\nprofile = \"balanced\"\n",
        ),
    ]);
    assert_eq!(config.rules.len(), 1, "the good file's rule stays");
    assert_eq!(config.problems.len(), 1, "{:?}", config.problems);
    assert_eq!(config.problems[0].line, Some(3));
    assert!(config.problems[0].message.english().contains("a rule holds performance or power-saver"));
    assert!(config.profile.is_none(), "the file was set aside whole");
}
