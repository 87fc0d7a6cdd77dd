//! The shipped Ansible playbook (data/fleet/gearshift.yml) run by a real
//! `ansible-playbook` against this machine with a local connection, on a
//! snapshot root, its install and reload tasks skipped by their tags: it
//! writes conf.d/50-fleet.toml only after `gearshift config check` passed
//! it, asserts that `gearshift status --json` shows the setting, changes
//! nothing on a second run, and the helper started on that root then does
//! what the playbook set. A bad variable fails the check and leaves the
//! file that was there byte for byte.

mod common;

use std::path::Path;
use std::process::Output;

use common::bus::{cli, wait_for, Bus, Helper};
use common::{stderr, stdout};

const FLEET: &str = "etc/gearshift/conf.d/50-fleet.toml";

/// `ansible-playbook data/fleet/gearshift.yml` on `root` with `vars`.
fn playbook(root: &Path, vars: &serde_json::Value) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut all = serde_json::json!({
        "gearshift_root": root,
        "gearshift_cmd": env!("CARGO_BIN_EXE_gearshift"),
        "gearshift_become": false,
        // Debian's python3, whose packages Ansible's modules are.
        "ansible_python_interpreter": "/usr/bin/python3",
    });
    all.as_object_mut().unwrap().extend(vars.as_object().unwrap().clone());
    std::process::Command::new("ansible-playbook")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/fleet/gearshift.yml"))
        .args(["-i", "localhost,", "-c", "local", "--skip-tags", "install,reload", "-e"])
        .arg(all.to_string())
        .env("HOME", home.path())
        .env("ANSIBLE_LOCAL_TEMP", home.path().join("tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "0")
        .output()
        .expect("ansible-playbook (Debian's ansible-core)")
}

/// The recap's count of `what` (ok, changed, failed) for localhost.
fn recap(out: &Output, what: &str) -> u32 {
    let text = stdout(out);
    let line = text.lines().find(|l| l.starts_with("localhost")).unwrap_or_else(|| panic!("no recap: {text}"));
    let field = line.split_whitespace().find_map(|w| w.strip_prefix(&format!("{what}="))).unwrap();
    field.parse().unwrap()
}

#[test]
fn the_playbook_writes_a_checked_drop_in_that_the_helper_applies() {
    let mut helper = Helper::prepare("meteor-lake-155h");
    let root = helper.root.path().to_owned();
    let vars = serde_json::json!({
        "gearshift_profile": "render",
        "gearshift_on_ac": "performance",
        "gearshift_on_battery": "render",
        "gearshift_custom_profiles": [{"id": "render", "name": "Render farm", "epp": 32}],
    });
    let out = playbook(&root, &vars);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    // The directory conf.d and the file in it.
    assert_eq!((recap(&out, "changed"), recap(&out, "failed")), (2, 0), "{}", stdout(&out));
    let written = std::fs::read_to_string(root.join(FLEET)).unwrap();
    assert!(written.contains("default_profile = \"render\"") && written.contains("[[profile]]"), "{written}");
    // A second run finds everything as it should be.
    let again = playbook(&root, &vars);
    assert!(again.status.success(), "{}", stdout(&again));
    assert_eq!(recap(&again, "changed"), 0, "{}", stdout(&again));

    // The helper on that root: the declared profile at boot, with its EPP,
    // and the policy.
    let bus = Bus::start();
    helper.spawn(&bus);
    wait_for(|| stdout(&cli(&bus, None, &["profile", "get"])).trim() == "render", "the fleet's boot profile");
    assert_eq!(helper.policy(0, "energy_performance_preference"), "32");
    let auto: serde_json::Value =
        serde_json::from_str(&stdout(&cli(&bus, None, &["auto", "status", "--json"]))).unwrap();
    assert_eq!((auto["enabled"].as_bool(), auto["on_ac"].as_str()), (Some(true), Some("performance")), "{auto}");
    assert_eq!(auto["on_battery"], "render", "{auto}");
    // Declared: usable, not deletable by a person (also when not in use).
    assert!(cli(&bus, None, &["profile", "set", "performance"]).status.success());
    let delete = cli(&bus, None, &["profile", "delete", "render"]);
    assert!(!delete.status.success(), "{}", stdout(&delete));
    assert!(stderr(&delete).contains("administrator"), "{}", stderr(&delete));
}

#[test]
fn a_bad_variable_fails_the_check_and_the_file_stays_as_it_was() {
    let mut helper = Helper::prepare("meteor-lake-155h");
    let root = helper.root.path().to_owned();
    let good = playbook(&root, &serde_json::json!({"gearshift_profile": "balance_power", "gearshift_locked": true}));
    assert!(good.status.success(), "{}", stdout(&good));
    let before = std::fs::read(root.join(FLEET)).unwrap();
    let bad = playbook(&root, &serde_json::json!({"gearshift_profile": "turbo", "gearshift_locked": true}));
    assert!(!bad.status.success(), "{}", stdout(&bad));
    assert_eq!(recap(&bad, "failed"), 1, "{}", stdout(&bad));
    assert!(stdout(&bad).contains("no profile is called “turbo”"), "{}", stdout(&bad));
    assert_eq!(std::fs::read(root.join(FLEET)).unwrap(), before, "the failed check replaced the file");
    let leftovers: Vec<_> = std::fs::read_dir(root.join("etc/gearshift/conf.d")).unwrap().flatten().collect();
    assert_eq!(leftovers.len(), 1, "{leftovers:?}");

    // The helper does what the good run set: Efficient, locked.
    let bus = Bus::start();
    helper.spawn(&bus);
    wait_for(|| stdout(&cli(&bus, None, &["profile", "get"])).trim() == "balance_power", "the locked boot profile");
    let set = cli(&bus, None, &["profile", "set", "performance"]);
    assert!(!set.status.success());
    assert!(stderr(&set).contains("administrator") && stderr(&set).contains(FLEET), "{}", stderr(&set));
}
