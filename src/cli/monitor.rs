//! `gearshift monitor`: live per-CPU samples.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::{Duration, Instant};

use gearshift::core::machine::Machine;
use gearshift::core::monitor::{CpuSample, Sampler};
use gearshift::core::parse::format_cpu_list;
use gearshift::i18n::{gettext, i18n_text};

use super::{CliError, Context};

/// Samples until `count` ticks were printed (or forever), one tick every
/// `interval_ms`. The first sample is the machine as just read.
///
/// # Errors
/// Unreadable input (exit 2), or a machine without cpufreq (exit 1).
pub fn run(ctx: &Context, count: Option<u64>, interval_ms: u64, json: bool) -> Result<(), CliError> {
    ctx.check_problems()?;
    if !ctx.machine.has_cpufreq() {
        return Err(CliError::failed(gettext(
            "This machine has no cpufreq driver: there are no frequencies to monitor.",
        ))
        .hint(gettext("`gearshift detect` explains what was found.")));
    }
    let interval = Duration::from_millis(interval_ms);
    let mut sampler = Sampler::new(&ctx.root, &ctx.machine, interval_ms);
    let start = Instant::now();
    let mut next = start;
    let mut line = String::with_capacity(96 * sampler.samples().len() + 64);
    let mut out = std::io::stdout().lock();
    let mut printed = 0u64;
    let resolver = ctx.resolver();
    loop {
        line.clear();
        let elapsed = start.elapsed().as_millis();
        if json {
            render_json(&mut line, printed + 1, elapsed, sampler.samples());
        } else {
            render_text(&mut line, printed + 1, elapsed, sampler.samples(), &|r| r.shown(resolver.reading_value(r)));
        }
        if out.write_all(line.as_bytes()).is_err() {
            // The reader went away (`| head`): that is a normal end.
            return Ok(());
        }
        printed += 1;
        if count.is_some_and(|c| printed >= c) {
            return Ok(());
        }
        next += interval;
        if let Some(wait) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        } else {
            next = Instant::now();
        }
        if !sampler.tick() {
            // CPUs went on- or offline: start again from a fresh reading.
            let machine = Machine::read(&ctx.root);
            sampler = Sampler::new(&ctx.root, &machine, interval_ms);
        }
    }
}

fn render_json(out: &mut String, n: u64, elapsed_ms: u128, samples: &[CpuSample]) {
    let cpus = serde_json::to_string(samples).unwrap_or_else(|_| "[]".to_owned());
    let _ = writeln!(out, "{{\"sample\":{n},\"elapsed_ms\":{elapsed_ms},\"cpus\":{cpus}}}");
}

/// One tick as text; `epp` shows a reading (the number first).
fn render_text(
    out: &mut String,
    n: u64,
    elapsed_ms: u128,
    samples: &[CpuSample],
    epp: &dyn Fn(gearshift::core::parse::EppReading) -> String,
) {
    let known: Vec<u64> = samples.iter().filter_map(|s| s.cur_khz).collect();
    let ghz = |khz: u64| gearshift::i18n::decimal(khz as f64 / 1e6, 2);
    let summary = match (known.iter().min(), known.iter().max()) {
        (Some(lo), Some(hi)) => {
            let avg = known.iter().sum::<u64>() / known.len() as u64;
            // Translators: Frequencies in GHz.
            i18n_text("average {average} GHz, lowest {lowest}, highest {highest}")
                .arg("average", ghz(avg))
                .arg("lowest", ghz(*lo))
                .arg("highest", ghz(*hi))
                .localized()
        }
        _ => gettext("no frequencies readable"),
    };
    let _ = writeln!(out, "#{n} +{}s  {summary}", gearshift::i18n::decimal(elapsed_ms as f64 / 1000.0, 1));
    for chunk in samples.chunks(8) {
        out.push(' ');
        for s in chunk {
            let mhz = s.cur_khz.map_or_else(|| "—".to_owned(), |k| ((k + 500) / 1000).to_string());
            let _ = write!(out, " {:>4}:{:>5}", s.id, mhz);
        }
        out.push('\n');
    }
    let epp = grouped(samples, |s| s.epp.map(epp));
    let governor = grouped(samples, |s| s.governor.clone());
    // Translators: Values with the CPUs that have them, such as
    // "64 [CPU 0-11], 179 [CPU 12-21]".
    let _ = writeln!(out, "  {}", i18n_text("EPP: {epp}").arg("epp", epp).localized());
    let _ = writeln!(out, "  {}", i18n_text("Governor: {governor}").arg("governor", governor).localized());
}

/// Each value with the CPUs showing it, in the order first met:
/// "powersave [CPU 0-11], performance [CPU 12-21]" (brackets: an EPP
/// carries the kernel's name in parentheses); a single value alone.
fn grouped(samples: &[CpuSample], value: impl Fn(&CpuSample) -> Option<String>) -> String {
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    for sample in samples {
        let shown = value(sample).unwrap_or_else(|| "—".to_owned());
        match groups.iter_mut().find(|(v, _)| *v == shown) {
            Some((_, cpus)) => cpus.push(sample.id),
            None => groups.push((shown, vec![sample.id])),
        }
    }
    if let [(only, _)] = groups.as_slice() {
        return only.clone();
    }
    groups
        .iter()
        .map(|(v, cpus)| format!("{v} [{}]", i18n_text("CPU {cpus}").arg("cpus", format_cpu_list(cpus)).localized()))
        .collect::<Vec<_>>()
        .join(", ")
}
