//! `gearshift measure`: the efficiency lab on the command line. Runs a fixed
//! workload under each profile in turn (interleaved, N rounds), reads the
//! energy through the helper, prints work per joule per profile and puts
//! back the profile that was active before, also after Ctrl-C or an error.
//! The method is in docs/efficiency.md; the work runs here, unprivileged,
//! never in the helper.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use gearshift::client::{lab, Helper};
use gearshift::core::custom::find_profile;
use gearshift::core::measure::{self, End, Progress, Report, Rounds, Session, Workload, KERNEL_DEFAULT};
use gearshift::i18n::{decimal, gettext, i18n_f, i18n_text, percent};

use super::changes::to_cli;
use super::{CliError, Context};

/// What the command line asked for.
pub struct Request {
    /// A built-in workload, or `None` with `command`.
    pub workload: Option<Workload>,
    /// The person's own command, timed by wall clock (one run = one unit).
    pub command: Option<String>,
    /// Profile ids or names (empty: the built-in four and the kernel's
    /// generic value).
    pub profiles: Vec<String>,
    /// How many rounds.
    pub rounds: Rounds,
    /// Times the standard amount of work.
    pub scale: f64,
    /// Measure on battery and on a busy machine without asking.
    pub yes: bool,
    /// Print JSON.
    pub json: bool,
}

/// A cancel flag that Ctrl-C (SIGINT) and SIGTERM set: the run in progress
/// stops, the profile is put back, then the command ends.
fn cancel_on_signals() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    extern "C" fn on_signal(_: libc::c_int) {
        if let Some(flag) = FLAG.get() {
            flag.store(true, Ordering::SeqCst);
        }
    }
    let flag = FLAG.get_or_init(|| Arc::new(AtomicBool::new(false))).clone();
    let handler = on_signal as extern "C" fn(libc::c_int);
    // SAFETY: the handler only stores to an atomic, which is
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        libc::signal(libc::SIGTERM, handler as libc::sighandler_t);
    }
    flag
}

/// The profiles to compare, as ids, and the kernel's generic value where
/// it is one of them.
fn profiles(ctx: &Context, asked: &[String]) -> Result<(Vec<String>, Option<u8>), CliError> {
    let kernel_default = measure::kernel_default(&ctx.resolver());
    if asked.is_empty() {
        return Ok((measure::default_profiles(kernel_default), kernel_default));
    }
    let mut ids = Vec::new();
    for word in asked {
        let id = if word == KERNEL_DEFAULT {
            if kernel_default.is_none() {
                return Err(CliError::input(gettext(
                    "kernel_default: this machine's balanced EPP is the kernel's own value (or the driver takes no numbers), so there is nothing to compare with.",
                )));
            }
            KERNEL_DEFAULT.to_owned()
        } else {
            find_profile(word, &ctx.customs)
                .ok_or_else(|| CliError::input(i18n_f("No profile is called {}.", &[word])))?
        };
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok((ids, kernel_default))
}

/// Asks a yes/no question on the terminal; false where there is none.
fn confirm(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer).is_ok() && matches!(answer.trim(), "y" | "Y" | "yes" | "j" | "o")
}

/// Checks what spoils the figures: running on battery, a busy machine.
fn preflight(ctx: &Context, yes: bool) -> Result<(), CliError> {
    let on_battery = gearshift::core::power_supply::on_battery(&mut gearshift::core::root::Probe::new(&ctx.root));
    if on_battery && !yes {
        let question = gettext("This machine runs on battery: the figures will differ from those on AC power, and the battery drains. Measure anyway?");
        if !confirm(&question) {
            return Err(CliError::input(gettext("Not measured: the machine runs on battery."))
                .hint(gettext("Plug it in, or pass --yes to measure on battery.")));
        }
    }
    if let Some(busy) = measure::busy_share().filter(|b| *b > measure::BUSY_LIMIT) {
        let percent = decimal(busy * 100.0, 0);
        if !yes {
            let question = i18n_f(
                "The CPUs are {} per cent busy with other work, which spoils the figures. Measure anyway?",
                &[&percent],
            );
            if !confirm(&question) {
                return Err(CliError::input(i18n_f(
                    "Not measured: the CPUs are {} per cent busy with other work.",
                    &[&percent],
                ))
                .hint(gettext("Close what runs, or pass --yes to measure anyway.")));
            }
        }
    }
    Ok(())
}

/// Runs the lab.
///
/// # Errors
/// Bad input or a snapshot (exit 2); the helper refused a switch (exit 1);
/// cancelled (exit 130, after the profile was put back).
pub fn run(ctx: &Context, request: &Request) -> Result<(), CliError> {
    // A snapshot is refused before (cli::run), unless the helper serves it.
    if !request.scale.is_finite() || request.scale <= 0.0 || request.scale > 100.0 {
        return Err(CliError::input(i18n_f("--scale is a number above 0 and at most 100, not {}", &[&request.scale])));
    }
    if !ctx.machine.has_cpufreq() {
        return Err(CliError::failed(gettext("This machine has no cpufreq driver: there are no profiles to compare."))
            .hint(gettext("`gearshift detect` explains what was found.")));
    }
    let (ids, kernel_default) = profiles(ctx, &request.profiles)?;
    log::debug!("measuring {ids:?}, kernel default {kernel_default:?}");
    preflight(ctx, request.yes)?;
    let cancel = cancel_on_signals();
    // Multi-threaded: the lab blocks on the helper's calls from this thread
    // while the runtime's worker keeps the connection alive.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(e.to_string()))?;
    let helper = Helper::new();
    let status = gearshift::core::status::Status::build(
        &ctx.root_arg,
        &ctx.resolver(),
        &ctx.customs,
        None,
        Vec::new(),
        &ctx.extra_problems,
    );
    let epps = lab::epps(&ids, &status, kernel_default);
    let session = Session {
        profiles: ids,
        epps,
        workload: request.workload,
        command: request.command.clone(),
        rounds: request.rounds,
        scale: request.scale,
        cpus: ctx.machine.online_ids().len(),
    };
    let source = lab::energy_source(&helper, runtime.handle());
    if let Err(err) = &source {
        eprintln!(
            "gearshift: {}",
            i18n_f(
                "no energy can be read here ({}): the results are time only, with no work per joule.",
                &[&err.headline()]
            )
        );
    }
    let name_of = |id: &str| lab::profile_name(id, &ctx.customs, kernel_default);
    let progress = std::io::stderr().is_terminal() && !request.json;
    let mut show = |p: Progress<'_>| {
        if progress {
            let of = if p.fewest == p.most { p.most.to_string() } else { format!("{}–{}", p.fewest, p.most) };
            eprint!("\r\x1b[2K[{}/{of}] {} …", p.run + 1, name_of(p.profile));
            let _ = std::io::stderr().flush();
        }
    };
    let outcome =
        lab::measure(&helper, runtime.handle(), &session, source.ok().flatten(), &cancel, &mut show).map_err(to_cli)?;
    if progress {
        eprint!("\r\x1b[2K");
    }
    let report = &outcome.report;
    if let Some(err) = &outcome.restore_failed {
        eprintln!("gearshift: {}", i18n_f("could not put the profile back: {}", &[&err.headline()]));
    } else if report.restored.is_empty() {
        eprintln!(
            "gearshift: {}",
            gettext("no profile was active before (the CPUs were tuned by hand), so none was put back.")
        );
    }
    match outcome.end {
        End::Done => {}
        End::Cancelled => {
            eprintln!("gearshift: {}", i18n_f("cancelled; {} is active again.", &[&name_of(&report.restored)]));
            return Err(CliError { code: 130, message: gettext("measurement cancelled"), hint: None });
        }
        End::Failed(err) => return Err(to_cli(err)),
        End::CommandFailed => {
            return Err(CliError::failed(gettext("The command failed, so its runs cannot be compared.")))
        }
    }
    match lab::Origin::of(&ctx.resolver()).keep(report).1 {
        Some(Ok(path)) => log::info!("kept in {}", path.display()),
        Some(Err(err)) => eprintln!("gearshift: {}", i18n_f("the result could not be kept: {}", &[&err])),
        None => {}
    }
    if request.json {
        println!("{}", serde_json::to_string(report).unwrap_or_default());
    } else {
        print_report(ctx, report, &name_of);
    }
    Ok(())
}

fn print_report(ctx: &Context, report: &Report, name_of: &dyn Fn(&str) -> String) {
    let dash = || "—".to_owned();
    // "42.6 (41.2–44.0)": a mean and its 95% interval.
    let with_ci = |value: f64, ci: Option<[f64; 2]>| match ci {
        Some([low, high]) => format!("{} ({}–{})", lab::figure(value), lab::figure(low), lab::figure(high)),
        None => lab::figure(value),
    };
    let rows: Vec<Vec<String>> = report
        .runs
        .iter()
        .map(|f| {
            vec![
                name_of(&f.profile),
                f.epp.map_or_else(dash, |e| e.to_string()),
                f.n.to_string(),
                format!("{} {}", with_ci(f.throughput, f.throughput_ci95), f.unit),
                f.watts.map_or_else(dash, |w| format!("{} W", with_ci(w, f.watts_ci95))),
                f.ppw.map_or_else(dash, |p| with_ci(p, f.ppw_ci95)),
                match (&f.vs_kernel_default, f.vs_kernel_default_pct) {
                    (Some(vs), _) => lab::with_interval(vs),
                    (None, Some(pct)) => percent(pct, true),
                    (None, None) => dash(),
                },
            ]
        })
        .collect();
    let unit = report.runs.first().map(|f| f.unit.trim_end_matches("/s").to_owned()).unwrap_or_default();
    let headers = [
        gettext("Profile"),
        gettext("EPP"),
        // Translators: the number of runs a profile's figures are of.
        gettext("Runs"),
        gettext("Work"),
        gettext("Power"),
        // Translators: {unit} is the workload's unit, such as MB.
        i18n_text("{unit} per joule").arg("unit", &unit).localized(),
        gettext("vs kernel"),
    ];
    let mut table = super::table::Table::new(&headers).right(1).right(2).right(3).right(4).right(5).right(6);
    for row in rows {
        table.row(row);
    }
    print!("{}", table.render(""));
    // xgettext:no-c-format
    println!("{}", gettext("Each figure is a mean with its 95% interval in brackets."));
    let resolver = ctx.resolver();
    let model = resolver.model.as_ref();
    let codename = model.and_then(|m| m.codename.clone()).unwrap_or_else(|| gettext("machine"));
    let mut words = lab::verdict(report, &codename, name_of);
    words.extend(lab::claims(report, &codename, model.map_or(&[][..], |m| &m.claims), name_of));
    if !words.is_empty() {
        println!("\n{}", words.join("\n"));
    }
    let rounds = i18n_f("Rounds: {}", &[&report.repeats]);
    let missed: u64 = report.runs.iter().filter_map(|f| f.missed_frames).sum();
    if report.workload == "playback" {
        println!("{rounds}; {}", i18n_f("late frames: {}", &[&decimal(missed as f64, 0)]));
    } else {
        println!("{rounds}");
    }
    println!(
        "{}",
        i18n_f("Put back: {}", &[&if report.restored.is_empty() { dash() } else { name_of(&report.restored) }])
    );
}
