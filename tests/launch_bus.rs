//! `gearshift launch` with the real helper on a private bus: the profile is
//! held while the program runs, under the program's name, and let go when
//! it ends; its exit status is passed on; `kill -9` of `gearshift launch`
//! ends the hold too (the helper ends every hold whose holder left the
//! bus); a profile a hold cannot take is refused before anything runs;
//! without a helper the program runs anyway, with a warning.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::bus::{cli, wait_for, Bus, Helper};
use common::stderr;

fn holds(bus: &Bus) -> Vec<(String, String, String)> {
    common::bus::panel_holds(bus)
}

fn profile(bus: &Bus) -> String {
    common::stdout(&cli(bus, None, &["profile", "get"])).trim().to_owned()
}

fn launch(bus: &Bus, args: &[&str]) -> Command {
    let mut command = bus.command(env!("CARGO_BIN_EXE_gearshift"));
    command.arg("launch").args(args);
    command
}

#[test]
fn a_program_runs_under_the_held_profile_and_its_status_is_passed_on() {
    let bus = Bus::start();
    let helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_power"]).status.success());
    let mut running = launch(&bus, &["--", "sleep", "2"]).stdin(Stdio::null()).spawn().unwrap();
    wait_for(|| !holds(&bus).is_empty(), "the hold of gearshift launch");
    assert_eq!(holds(&bus), [("sleep".to_owned(), "performance".to_owned(), "sleep".to_owned())]);
    wait_for(|| profile(&bus) == "performance", "Performance while it runs");
    assert_eq!(helper.policy(0, "energy_performance_preference"), "16");
    // `gearshift holds` says who holds what, from the helper's Holds.
    let listed: serde_json::Value =
        serde_json::from_slice(&cli(&bus, None, &["holds", "--json"]).stdout).expect("holds --json");
    assert_eq!(listed["holds"][0]["application_id"], "sleep", "{listed}");
    assert_eq!(listed["holds"][0]["profile"], "performance", "{listed}");
    assert_eq!(listed["holds"][0]["game_mode"], false, "{listed}");
    let said = common::stdout(&cli(&bus, None, &["holds"]));
    assert!(said.starts_with("Performance, held by sleep: sleep\n"), "{said}");
    // `gearshift status` says so too, as text and as JSON.
    let status: serde_json::Value =
        serde_json::from_slice(&cli(&bus, None, &["status", "--json"]).stdout).expect("status --json");
    assert_eq!(status["holds"][0]["application_id"], "sleep", "{status}");
    assert_eq!(status["holds"][0]["reason"], "sleep", "{status}");
    let said = common::stdout(&cli(&bus, None, &["status"]));
    assert!(
        said.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") == "Held Performance, held by sleep: sleep"),
        "{said}"
    );
    let status = running.wait().unwrap();
    assert!(status.success(), "{status:?}");
    // Let go at once: the chosen profile is back.
    assert_eq!(holds(&bus), []);
    wait_for(|| profile(&bus) == "balance_power", "the chosen profile back");
    // The program's exit status, and the reason and id it was given.
    let out = launch(&bus, &["--profile", "power-saver", "--reason", "Backup", "--app-id", "org.example.Backup", "--"])
        .args(["sh", "-c", "exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    // A signal that ends the program: 128 + its number, as shells say it.
    let out = launch(&bus, &["--", "sh", "-c", "kill -TERM $$"]).output().unwrap();
    assert_eq!(out.status.code(), Some(128 + 15), "{}", stderr(&out));
    // A program that is not there: 127, said.
    let out = launch(&bus, &["--", "no-such-program-here"]).output().unwrap();
    assert_eq!(out.status.code(), Some(127), "{}", stderr(&out));
    assert!(stderr(&out).contains("cannot run no-such-program-here"), "{}", stderr(&out));
    assert_eq!(holds(&bus), []);
    // Balanced is no hold's profile: refused before anything runs.
    let out = launch(&bus, &["--profile", "balanced", "--", "touch", "/tmp/gearshift-launch-ran"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("A hold takes performance or power-saver"), "{}", stderr(&out));
    assert!(stderr(&out).contains("For more, see gearshift launch --help."), "{}", stderr(&out));
    assert!(!std::path::Path::new("/tmp/gearshift-launch-ran").exists());
    assert_eq!(profile(&bus), "balance_power");
}

#[test]
fn killing_gearshift_launch_ends_its_hold() {
    let bus = Bus::start();
    let _helper = Helper::start(&bus, "meteor-lake-155h");
    assert!(cli(&bus, None, &["profile", "set", "balance_performance"]).status.success());
    let mut running = launch(&bus, &["--", "sleep", "60"]).stdin(Stdio::null()).spawn().unwrap();
    wait_for(|| !holds(&bus).is_empty(), "the hold of gearshift launch");
    wait_for(|| profile(&bus) == "performance", "Performance while it runs");
    wait_for(|| !common::procfs::children(running.id()).is_empty(), "sleep under gearshift launch");
    let program = common::procfs::children(running.id())[0];
    running.kill().unwrap();
    running.wait().unwrap();
    let killed = Instant::now();
    wait_for(|| holds(&bus).is_empty(), "the hold ended with its holder");
    wait_for(|| profile(&bus) == "balance_performance", "the chosen profile back");
    assert!(killed.elapsed() < Duration::from_secs(5), "{:?}", killed.elapsed());
    // SAFETY: kill(2) of the orphaned sleep this test started.
    unsafe { libc::kill(program as libc::pid_t, libc::SIGKILL) };
}

#[test]
fn without_a_helper_the_program_runs_anyway_and_says_why() {
    let bus = Bus::start();
    let out = launch(&bus, &["--", "sh", "-c", "echo ran; exit 4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_eq!(common::stdout(&out), "ran\n");
    assert!(stderr(&out).contains("No profile is held: sh runs anyway"), "{}", stderr(&out));
    assert!(stderr(&out).contains("not installed"), "{}", stderr(&out));
}
