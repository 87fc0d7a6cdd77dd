//! Custom profiles resolved on real shapes of machine: what each driver
//! takes (numbers, the four names, the energy bias), the firmware profile,
//! and errors that name the field as people read it, in MHz.

mod common;

use gearshift::core::custom::{parse_profiles, CustomProfile};
use gearshift::core::machine::Machine;
use gearshift::core::models::ModelTable;
use gearshift::core::plan::{Plan, Preference, PreferenceForm};
use gearshift::core::profile::Resolver;
use gearshift::core::root::SysRoot;

fn machine(name: &str) -> Machine {
    Machine::read(&SysRoot::open(&common::fixture(name)).unwrap())
}

fn profile(body: &str) -> CustomProfile {
    parse_profiles(&format!("[[profile]]\nid = \"mine\"\nname = \"Mine\"\n{body}")).unwrap().remove(0)
}

fn resolve(fixture: &str, body: &str) -> Result<Plan, (String, String)> {
    let machine = machine(fixture);
    let table = ModelTable::builtin();
    Resolver::new(&machine, &table).custom(&profile(body)).map_err(|e| (e.label().english(), e.message.english()))
}

#[test]
fn ivy_bridge_takes_the_energy_bias() {
    let m = machine("ivy-bridge-epb");
    assert_eq!(Resolver::new(&m, &ModelTable::builtin()).form, PreferenceForm::Bias);
    let plan = resolve("ivy-bridge-epb", "energy_bias = 11\n").unwrap();
    assert!(!plan.cpus.is_empty());
    assert!(plan.cpus.iter().all(|c| c.preference == Some(Preference::Bias(11)) && c.companion_bias.is_none()));
    // EPP is refused there, by its label.
    let (label, message) = resolve("ivy-bridge-epb", "epp = 100\n").unwrap_err();
    assert_eq!(label, "Energy preference (EPP)");
    assert!(message.contains("offers no energy performance preference"), "{message}");
    // Out of range, before the machine is asked.
    assert!(parse_profiles("[[profile]]\nid = \"a\"\nname = \"A\"\nenergy_bias = 16\n").is_err());
}

#[test]
fn the_bias_goes_beside_epp_where_a_cpu_has_both_and_is_refused_where_it_has_none() {
    let plan = resolve("meteor-lake-155h", "epp = 90\nenergy_bias = 4\n").unwrap();
    assert!(plan.cpus.iter().all(|c| c.preference == Some(Preference::EppNumber(90)) && c.companion_bias == Some(4)));
    let (label, message) = resolve("amd-7840hs-epp", "energy_bias = 4\n").unwrap_err();
    assert_eq!(label, "Energy bias (EPB)");
    assert_eq!(message, "this CPU has no energy performance bias");
}

#[test]
fn old_amd_pstate_takes_the_four_names_only() {
    let m = machine("amd-7840hs-epp");
    assert_eq!(Resolver::new(&m, &ModelTable::builtin()).form, PreferenceForm::Name);
    let plan = resolve("amd-7840hs-epp", "epp = \"balance_power\"\n").unwrap();
    assert!(plan.cpus.iter().all(|c| matches!(c.preference, Some(Preference::EppName(_)))));
    let (label, message) = resolve("amd-7840hs-epp", "epp = 100\n").unwrap_err();
    assert_eq!(label, "Energy preference (EPP)");
    // What this machine does take: the names, and their numbers.
    assert!(message.contains("accepts only the preference names"), "{message}");
    assert!(message.contains("or their numbers 0, 128, 191 or 255, not 100"), "{message}");
}

#[test]
fn frequency_errors_say_the_label_and_mhz() {
    let (label, message) = resolve("meteor-lake-155h", "max_khz = 5000000\n").unwrap_err();
    assert_eq!(label, "Highest frequency");
    assert_eq!(message, "5000 MHz is outside what this CPU can run at, 400 to 4800 MHz");
    assert!(!message.contains("khz") && !message.contains("kHz"), "{message}");
    // Checked with the file's shape, before any machine.
    let err =
        parse_profiles("[[profile]]\nid = \"a\"\nname = \"A\"\nmin_khz = 3000000\nmax_khz = 2000000\n").unwrap_err();
    assert_eq!(err.label().english(), "Lowest frequency");
    assert_eq!(err.message.english(), "3000 MHz is above the highest frequency, 2000 MHz");
}

#[test]
fn the_firmware_profile_is_one_the_firmware_offers() {
    let plan = resolve("meteor-lake-155h", "platform_profile = \"low-power\"\n").unwrap();
    assert_eq!(plan.platform.len(), 1);
    let (label, message) = resolve("meteor-lake-155h", "platform_profile = \"quiet\"\n").unwrap_err();
    assert_eq!(label, "Firmware profile");
    assert!(message.contains("the firmware offers low-power, balanced, performance"), "{message}");
}

/// The examples people copy (the README's, `profile save --help`'s) work on
/// the bundled demo, a Meteor Lake laptop whose firmware offers low-power,
/// balanced and performance: before, they named `quiet`, which it refuses.
#[test]
fn the_documented_profile_save_examples_work_on_the_demo() {
    let readme = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let args =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli/args.rs")).unwrap();
    let mut checked = 0;
    for line in readme.lines().chain(args.lines()).filter(|l| l.contains("gearshift profile save ")) {
        // The help's example ends at its escaped line break.
        let example = line.split("gearshift profile save ").nth(1).unwrap().split("\\n").next().unwrap();
        let words: Vec<&str> = example.split_whitespace().collect();
        let value = |flag: &str| words.iter().position(|w| *w == flag).and_then(|i| words.get(i + 1)).copied();
        let mut body = String::new();
        if let Some(epp) = value("--epp") {
            body.push_str(&format!("epp = {epp}\n"));
        }
        if let Some(platform) = value("--platform-profile") {
            body.push_str(&format!("platform_profile = \"{platform}\"\n"));
        }
        assert!(resolve("meteor-lake-155h", &body).is_ok(), "{line}: {:?}", resolve("meteor-lake-155h", &body));
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} examples found");
}
