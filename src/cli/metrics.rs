//! `gearshift metrics`: the machine in Prometheus' text format, for
//! node_exporter's textfile collector (docs/fleet.md). Every series has the
//! `gearshift_` prefix, so none clashes with node_exporter's own (its
//! cpufreq collector has frequencies and governors, its RAPL collector the
//! joules; neither has EPP).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use gearshift::client::lab;
use gearshift::core::config::Config;
use gearshift::core::status::Status;
use gearshift::i18n::i18n_f;

use super::{CliError, Context};

/// The file name in the textfile collector's directory.
pub const TEXTFILE: &str = "gearshift.prom";

/// Where the metrics go: stdout, a file, or the configured textfile
/// directory (with their text gathered by an unprivileged run before).
pub struct Target<'a> {
    /// Write to this file (a temporary file renamed into place).
    pub output: Option<&'a Path>,
    /// Write to the configured textfile directory's `gearshift.prom`.
    pub textfile: bool,
    /// Take the text from this file instead of gathering it.
    pub from: Option<&'a Path>,
}

/// Prints or writes the metrics.
///
/// # Errors
/// The file cannot be written (exit 1) or `from` read (exit 2).
pub fn run(ctx: &Context, target: &Target<'_>) -> Result<(), CliError> {
    let text = match target.from {
        Some(from) => super::textfile::read_from(from)
            .map_err(|e| CliError::input(i18n_f("cannot read {}: {}", &[&from.display(), &e])))?,
        None => render(ctx),
    };
    let out: Option<PathBuf> = match (target.output, target.textfile) {
        (Some(path), _) => Some(path.to_path_buf()),
        (None, true) => Some(Config::load(&ctx.root, &ctx.resolver()).textfile_dir().join(TEXTFILE)),
        (None, false) => None,
    };
    match out {
        Some(path) => super::textfile::write_whole(&path, &text)
            .map_err(|e| CliError::failed(i18n_f("cannot write {}: {}", &[&path.display(), &e]))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// A metric family: its HELP, TYPE and samples.
struct Family<'a> {
    out: &'a mut String,
}

impl Family<'_> {
    fn new<'a>(out: &'a mut String, name: &str, kind: &str, help: &str) -> Family<'a> {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        Family { out }
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escape(v))).collect();
        let _ = writeln!(self.out, "{name}{{{}}} {value}", labels.join(","));
    }
}

/// A label value as the text format writes it: backslash, quote and
/// newline escaped.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The metrics of the machine under the context's root.
pub fn render(ctx: &Context) -> String {
    let status = super::show::build_status(ctx);
    let mut out = String::new();
    info(&mut out, &status);
    let name = "gearshift_cpu_energy_performance_preference";
    let help = "Each online CPU's energy performance preference, 0 (fastest) to 255 (most frugal); names as the kernel's numbers.";
    let mut family = Family::new(&mut out, name, "gauge", help);
    for cpu in status.cpus.iter().filter(|c| c.online) {
        if let Some(value) = cpu.epp_value {
            family.sample(name, &[("cpu", &cpu.id.to_string())], value);
        }
    }
    profiles(&mut out, &status);
    if let Some(platform) = &status.platform_profile {
        let name = "gearshift_platform_profile";
        let help = "The firmware's platform profile: 1 for the one in effect, 0 for the others it offers.";
        let mut family = Family::new(&mut out, name, "gauge", help);
        for choice in &platform.choices {
            family.sample(name, &[("profile", choice)], u8::from(platform.current.as_deref() == Some(choice.as_str())));
        }
    }
    if let Some(counts) = changed_outside(ctx) {
        let name = "gearshift_changed_outside_total";
        let help = "Values changed outside Gearshift (firmware, another program) that the helper set back, by occasion, since the helper started.";
        let mut family = Family::new(&mut out, name, "counter", help);
        for (occasion, count) in counts {
            family.sample(name, &[("occasion", &occasion)], count);
        }
    }
    measurement(&mut out, &ctx.root.path(lab::SYSTEM_RESULTS_DIR));
    out
}

fn info(out: &mut String, status: &Status) {
    let name = "gearshift_info";
    let mut family =
        Family::new(out, name, "gauge", "Gearshift's version and the CPU and driver it runs on (always 1).");
    let cpu = &status.cpu;
    let text = |v: Option<String>| v.unwrap_or_default();
    family.sample(
        name,
        &[
            ("version", status.gearshift_version),
            ("vendor", &text(cpu.vendor.clone())),
            ("family", &text(cpu.family.map(|f| f.to_string()))),
            ("model", &text(cpu.model.map(|m| m.to_string()))),
            ("codename", &text(cpu.codename.clone())),
            ("driver", &text(status.driver.clone())),
            ("mode", &text(status.mode.clone())),
        ],
        1,
    );
}

fn profiles(out: &mut String, status: &Status) {
    let name = "gearshift_profile";
    let mut family = Family::new(out, name, "gauge", "1 for the active profile, 0 for the others.");
    // Every profile the helper knows, declared ones included: exactly one
    // is 1 whenever what is in effect is known, so that PromQL can ask
    // which (`gearshift_profile == 1`).
    for p in &status.profiles {
        family.sample(name, &[("profile", &p.id)], u8::from(status.active_profile.as_deref() == Some(p.id.as_str())));
    }
    if let Some(active) = status.active_profile.as_deref().filter(|id| !status.profiles.iter().any(|p| p.id == *id)) {
        family.sample(name, &[("profile", active)], 1);
    }
    let name = "gearshift_profile_energy_performance_preference";
    let help = "Each built-in profile's EPP here: what Gearshift writes (source=\"model\", the CPU maker's value for this model) and what the kernel itself uses for the same name (source=\"kernel\").";
    let mut family = Family::new(out, name, "gauge", help);
    for p in status.profiles.iter().filter(|p| p.builtin) {
        if let Some(epp) = p.epp {
            family.sample(name, &[("profile", &p.id), ("source", "model")], epp);
        }
        if let Some(epp) = p.kernel_epp {
            family.sample(name, &[("profile", &p.id), ("source", "kernel")], epp);
        }
    }
}

/// The helper's count of changes set back, where a helper serving this
/// root answers.
fn changed_outside(ctx: &Context) -> Option<Vec<(String, u64)>> {
    let counts =
        gearshift::client::facts::ask_serving(&ctx.root, |p| async move { Ok(p.changed_outside_counts().await?) })?;
    let mut counts: Vec<(String, u64)> = counts.into_iter().collect();
    counts.sort();
    Some(counts)
}

/// The newest measurement kept in `dir`: work per joule per profile, and
/// when it was made.
fn measurement(out: &mut String, dir: &Path) {
    let Some((_, kept)) = lab::listed(dir).into_iter().next() else { return };
    let report = &kept.report;
    let workload = report.workload.as_str();
    let name = "gearshift_measurement_work_per_joule";
    let help = "Work per joule of each profile in the newest measurement kept on this machine (gearshift measure), in the workload's unit.";
    let mut family = Family::new(out, name, "gauge", help);
    for f in &report.runs {
        if let Some(ppw) = f.ppw {
            family.sample(name, &[("profile", &f.profile), ("workload", workload)], ppw);
        }
    }
    let name = "gearshift_measurement_timestamp_seconds";
    let mut family = Family::new(out, name, "gauge", "When the newest kept measurement was made (seconds since 1970).");
    family.sample(name, &[("workload", workload)], kept.time);
}
