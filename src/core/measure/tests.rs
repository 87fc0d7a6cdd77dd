use super::*;

fn zone(name: &str, uj: u64, max: u64) -> Zone {
    Zone { name: name.into(), energy_uj: uj, max_uj: max }
}

/// A bench that logs what it was asked, counts energy per reading
/// (1 J, or what `joules` says for the profile and the reading), and
/// fails the switch to `fail`.
#[derive(Default)]
struct Fake {
    asked: Vec<String>,
    uj: u64,
    readings: usize,
    joules: Option<fn(&str, usize) -> f64>,
    fail: Option<&'static str>,
    /// The disturbance counter goes up at this call of `disturbances`
    /// (run i reads it at calls 2i+1 and 2i+2).
    disturb_at: Option<usize>,
    calls: usize,
    disturbances: u32,
}

impl Bench for Fake {
    type Error = String;
    fn switch(&mut self, id: &str) -> Result<(), String> {
        self.asked.push(id.to_owned());
        if self.fail == Some(id) {
            return Err(format!("cannot switch to {id}"));
        }
        Ok(())
    }
    fn energy(&mut self) -> Option<Vec<Zone>> {
        self.readings += 1;
        let profile = self.asked.last().map_or("", String::as_str);
        let joules = self.joules.map_or(1.0, |j| j(profile, self.readings));
        self.uj += (joules * 1e6) as u64;
        Some(vec![zone("package-0", self.uj, 1 << 40)])
    }
    fn disturbances(&mut self) -> Option<u32> {
        self.calls += 1;
        if self.disturb_at == Some(self.calls) {
            self.disturbances += 1;
        }
        Some(self.disturbances)
    }
    fn settle(&mut self, _: Duration) {}
}

fn session(profiles: &[&str], rounds: Rounds) -> Session {
    Session {
        profiles: profiles.iter().map(|p| (*p).to_owned()).collect(),
        epps: vec![("power".into(), Some(255)), (KERNEL_DEFAULT.into(), Some(128))],
        workload: Some(Workload::Burst),
        command: None,
        rounds,
        scale: 0.002,
        cpus: 1,
    }
}

fn quietly(_: Progress<'_>) {}

#[test]
fn a_session_switches_in_rounds_and_reports() {
    let mut bench = Fake::default();
    let s = session(&["power", KERNEL_DEFAULT], Rounds::Fixed(2));
    let mut heard = Vec::new();
    let measured = s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut |p| {
        heard.push(format!("{}/{}-{} {}", p.run, p.fewest, p.most, p.profile))
    });
    assert_eq!(measured.end, End::Done);
    assert_eq!(bench.asked, ["power", KERNEL_DEFAULT, "power", KERNEL_DEFAULT]);
    assert_eq!(heard, ["0/4-4 power", "1/4-4 kernel_default", "2/4-4 power", "3/4-4 kernel_default"]);
    assert_eq!(measured.source, Some("package"));
    let report = s.report(&measured, "balance_power");
    assert_eq!((report.restored.as_str(), report.repeats), ("balance_power", 2));
    assert_eq!(report.energy_source.as_deref(), Some("package"));
    assert_eq!(
        report.runs.iter().map(|f| (f.profile.as_str(), f.epp)).collect::<Vec<_>>(),
        [("power", Some(255)), (KERNEL_DEFAULT, Some(128))]
    );
    assert!(report.runs.iter().all(|f| f.ppw.is_some_and(|p| p > 0.0)));
}

#[test]
fn a_clear_difference_stops_after_the_fewest_rounds() {
    // Performance costs four times the energy of Power Saver, 1% either way.
    let joules = |profile: &str, reading: usize| {
        let wobble = [1.0, 1.01, 0.99][reading % 3];
        if profile == "performance" {
            2.0 * wobble
        } else {
            0.5 * wobble
        }
    };
    let mut bench = Fake { joules: Some(joules), ..Fake::default() };
    let s = session(&["power", "performance"], Rounds::DEFAULT);
    let mut heard = Vec::new();
    let measured =
        s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut |p| heard.push((p.run, p.fewest, p.most)));
    assert_eq!(measured.end, End::Done);
    assert_eq!(measured.runs.len(), 6, "3 rounds of 2: {heard:?}");
    assert_eq!(heard[0], (0, 6, 16));
    let report = s.report(&measured, "power");
    assert_eq!((report.best.as_deref(), report.repeats, report.method.as_str()), (Some("power"), 3, "pocock"));
}

#[test]
fn a_tie_goes_on_to_the_most_rounds_and_says_so() {
    // The same energy, with a few per cent of noise either way.
    let joules = |_: &str, reading: usize| [1.0, 1.03, 0.98, 1.01, 0.97, 1.02, 0.99][reading % 7] / 2.0;
    let mut bench = Fake { joules: Some(joules), ..Fake::default() };
    let s = session(&["power", KERNEL_DEFAULT], Rounds::Auto { min: 3, max: 5 });
    let mut heard = Vec::new();
    let measured =
        s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut |p| heard.push((p.run, p.fewest, p.most)));
    assert_eq!(measured.runs.len(), 10);
    // The fewest grows with each round past the third.
    assert_eq!(heard.iter().map(|h| h.1).collect::<Vec<_>>(), [6, 6, 6, 6, 6, 6, 8, 8, 10, 10]);
    let report = s.report(&measured, "power");
    assert_eq!((report.best.clone(), report.tied_best.len(), report.repeats), (None, 2, 5));
    let vs = report.runs[0].vs_kernel_default.clone().expect("compared");
    assert!(!vs.clear && vs.ci95_pct[0] < 0.0 && vs.ci95_pct[1] > 0.0, "{vs:?}");
}

#[test]
fn a_run_during_which_someone_else_switched_is_set_aside() {
    // Run 2 (index 1, the first kernel_default run) is disturbed.
    let mut bench = Fake { disturb_at: Some(4), ..Fake::default() };
    let s = session(&["power", KERNEL_DEFAULT], Rounds::Fixed(2));
    let measured = s.run(&mut bench, Some("package"), &AtomicBool::new(false), &mut quietly);
    let flags: Vec<bool> = measured.runs.iter().map(|r| r.disturbed).collect();
    assert_eq!(flags, [false, true, false, false]);
    let report = s.report(&measured, "balance_power");
    let kernel = report.runs.iter().find(|f| f.profile == KERNEL_DEFAULT).unwrap();
    assert_eq!((kernel.disturbed, kernel.n), (1, 1));
    // The undisturbed run alone makes the figures: its work per joule,
    // with no spread and no interval (one run).
    assert!(kernel.ppw.is_some() && kernel.ppw_spread.is_some_and(|s| s.abs() < 1e-9), "{kernel:?}");
    assert_eq!(kernel.ppw_ci95, None);
    assert_eq!(report.runs.iter().find(|f| f.profile == "power").unwrap().disturbed, 0);
}

#[test]
fn a_session_stops_at_a_failed_switch_and_when_cancelled() {
    let mut bench = Fake { fail: Some("performance"), ..Fake::default() };
    let measured = session(&["power", "performance"], Rounds::Fixed(3)).run(
        &mut bench,
        Some("package"),
        &AtomicBool::new(false),
        &mut quietly,
    );
    assert_eq!(measured.end, End::Failed("cannot switch to performance".to_owned()));
    assert_eq!(measured.runs.len(), 1, "the run before the failure is kept");
    let cancel = AtomicBool::new(false);
    let mut bench = Fake::default();
    let measured =
        session(&["power", "performance"], Rounds::Fixed(3)).run(&mut bench, Some("package"), &cancel, &mut |p| {
            if p.run == 1 {
                cancel.store(true, Ordering::SeqCst);
            }
        });
    assert_eq!(measured.end, End::Cancelled);
    assert_eq!(measured.runs.len(), 1, "the cancelled run is not counted");
    assert_eq!(bench.asked, ["power", "performance"]);
}
