//! The Efficiency page's words and figures for a measurement: the line
//! under a kept one, the chart's data, what a screen reader says for it,
//! a profile's row, and why a Use button is off.

use relm4::gtk::glib;

use gearshift::client::lab::{self, Kept};
use gearshift::core::measure::{self, Report, Workload};
use gearshift::i18n::{gettext, i18n_f, i18n_plural, i18n_text, percent};

use super::rows::{Against, FigureRow};
use crate::ui::chart::{self, ChartData, Entry};

/// "1 Dec 2026, 14:02 · Linux 6.12.0 · Meteor Lake · 3 rounds"
pub fn kept_line(k: &Kept) -> String {
    // Translators: a date and time as GLib's strftime-like formats write
    // it, "1 Dec 2026, 14:02"; day, month and year in your language's
    // order ("%e. %b %Y, %H:%M" in German).
    // xgettext:no-c-format
    let format = gettext("%e %b %Y, %H:%M");
    let when = glib::DateTime::from_unix_local(i64::try_from(k.time).unwrap_or(0))
        .and_then(|t| t.format(&format))
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let rounds = i18n_plural("{n} round", "{n} rounds", k.report.repeats as u64).arg("n", k.report.repeats).localized();
    let mut parts = vec![when];
    if !k.kernel.is_empty() {
        parts.push(i18n_f("Linux {}", &[&k.kernel]));
    }
    if !k.cpu.is_empty() {
        parts.push(k.cpu.clone());
    }
    parts.push(rounds);
    parts.join(" · ")
}

/// "Build: Power Saver did best": a kept measurement's title.
pub fn kept_title(k: &Kept, name_of: &dyn Fn(&str) -> String) -> String {
    let (workload, _) =
        Workload::from_id(&k.report.workload).map_or_else(|| (gettext("Your command"), String::new()), workload_label);
    match k.report.best.as_deref() {
        // Translators: a workload's name, then the profile that did best.
        Some(best) => i18n_text("{workload}: {best} did best").arg("workload", &workload).arg("best", name_of(best)),
        // Translators: a workload's name: its runs could not tell the profiles apart.
        None => i18n_text("{workload}: no clear difference").arg("workload", &workload),
    }
    .localized()
}

/// The chart's data: work per joule where energy was read, else speed.
pub fn chart_data(report: &Report, name_of: &dyn Fn(&str) -> String) -> ChartData {
    let energy = report.energy_source.is_some();
    let unit = report.runs.first().map(|f| f.unit.trim_end_matches("/s").to_owned()).unwrap_or_default();
    ChartData {
        entries: report
            .runs
            .iter()
            .map(|f| Entry {
                label: name_of(&f.profile),
                ppw: if energy { f.ppw } else { Some(f.throughput) },
                interval: if energy { f.ppw_ci95 } else { f.throughput_ci95 }.map(|[low, high]| (low, high)),
                watts: f.watts,
                throughput: f.throughput,
                best: report.best.as_deref() == Some(f.profile.as_str()),
            })
            .collect(),
        bars_title: if energy {
            // Translators: {unit} is the workload's unit, such as MB.
            i18n_text("Work per joule ({unit} per joule)").arg("unit", &unit).localized()
        } else {
            i18n_text("Speed ({unit} per second)").arg("unit", &unit).localized()
        },
        points_title: i18n_text("Speed against power ({unit} per second, watts)").arg("unit", &unit).localized(),
    }
}

/// What a screen reader says for the chart.
pub fn describe(report: &Report, name_of: &dyn Fn(&str) -> String) -> String {
    let parts: Vec<String> = report
        .runs
        .iter()
        .map(|f| match (f.ppw, f.watts) {
            // Translators: a profile's figures for a screen reader, such as
            // "Balanced: 42.6 MB per joule at 19.1 W".
            (Some(ppw), Some(watts)) => i18n_text("{profile}: {value} {unit} per joule at {watts} W")
                .arg("profile", name_of(&f.profile))
                .arg("value", chart::figure(ppw))
                .arg("unit", f.unit.trim_end_matches("/s"))
                .arg("watts", chart::figure(watts))
                .localized(),
            _ => format!("{}: {} {}", name_of(&f.profile), chart::figure(f.throughput), f.unit),
        })
        .collect();
    // Translators: {figures} lists each profile's figures.
    i18n_text("Efficiency chart. {figures}").arg("figures", parts.join("; ")).localized()
}

/// A workload's name and what it is like.
pub fn workload_label(w: Workload) -> (String, String) {
    match w {
        Workload::Build => (gettext("Build"), gettext("Every CPU busy, like compiling a kernel")),
        Workload::Burst => (gettext("Bursts"), gettext("Short single-thread bursts with pauses, like a web browser")),
        Workload::Wake => (gettext("Wake-ups"), gettext("Many short messages between threads, like a busy server")),
        Workload::Playback => {
            (gettext("Playback"), gettext("30 frames a second of fixed work, like a video: power, and late frames"))
        }
    }
}

/// "3 of 15 to 40": runs made of the fewest to the most ("3 of 15" where
/// they are the same).
pub fn runs_of(n: usize, fewest: usize, most: usize) -> String {
    if fewest == most {
        // Translators: "3 of 15", runs of a measurement.
        i18n_text("{n} of {total}").arg("n", n).arg("total", fewest).localized()
    } else {
        // Translators: "3 of 15 to 40", runs of a measurement that goes on until its results are clear.
        i18n_text("{n} of {fewest} to {most}").arg("n", n).arg("fewest", fewest).arg("most", most).localized()
    }
}

/// What a profile's row of a result shows; `kernel` is the EPP of the
/// kernel's own run, which the differences are against.
pub fn figure_row(
    f: &measure::ProfileFigures,
    (best, kernel): (Option<&str>, Option<u8>),
    name_of: &dyn Fn(&str) -> String,
) -> FigureRow {
    let unit = f.unit.trim_end_matches("/s");
    let mut facts = Vec::new();
    if let Some(epp) = f.epp {
        facts.push(i18n_f("EPP {}", &[&epp]));
    }
    facts.push(format!("{} {}", lab::figure(f.throughput), f.unit));
    if let Some(w) = f.watts {
        facts.push(format!("{} W", lab::figure(w)));
    }
    if f.n > 0 {
        facts.push(i18n_plural("{n} run", "{n} runs", f.n as u64).arg("n", f.n).localized());
    }
    if let Some(missed) = f.missed_frames {
        facts.push(i18n_plural("{n} late frame", "{n} late frames", missed).arg("n", missed).localized());
    }
    let per_joule = f.ppw.map(|ppw| {
        // Translators: work per joule, e.g. "42.6 MB per joule".
        let value = i18n_text("{value} {unit} per joule").arg("value", lab::figure(ppw)).arg("unit", unit).localized();
        match f.ppw_ci95 {
            // Translators: a figure, then its 95% interval ("42.6 MB per joule (41.2–44.0)").
            Some([low, high]) => i18n_text("{value} ({low}–{high})")
                .arg("value", value)
                .arg("low", lab::figure(low))
                .arg("high", lab::figure(high))
                .localized(),
            None => value,
        }
    });
    // Green or orange only where the runs support a difference; the words
    // say what the figure is against.
    let kernel = kernel.map_or_else(|| "?".to_owned(), |e| e.to_string());
    let against = |pct: f64, unclear: bool| {
        let words = if unclear {
            // Translators: a percentage, then the kernel's EPP, such as 128.
            i18n_text("{pct} compared with the kernel's {kernel} (no clear difference)")
        } else {
            // Translators: a percentage, then the kernel's EPP, such as 128.
            i18n_text("{pct} compared with the kernel's {kernel}")
        };
        words.arg("pct", percent(pct, true)).arg("kernel", &kernel).localized()
    };
    let against_kernel = match (&f.vs_kernel_default, f.vs_kernel_default_pct) {
        (Some(vs), _) if vs.clear => Some(Against {
            short: percent(vs.pct, true),
            words: against(vs.pct, false),
            class: if vs.pct >= 0.0 { "success" } else { "warning" },
        }),
        (Some(vs), _) => {
            Some(Against { short: percent(vs.pct, true), words: against(vs.pct, true), class: "dim-label" })
        }
        (None, Some(pct)) => {
            Some(Against { short: percent(pct, true), words: against(pct, false), class: "dim-label" })
        }
        (None, None) => None,
    };
    FigureRow {
        title: name_of(&f.profile),
        facts: facts.join(" · "),
        per_joule,
        against_kernel,
        best: best == Some(f.profile.as_str()),
    }
}

/// What the Use buttons go by.
pub struct UseFacts<'a> {
    /// The result's best profile, if any.
    pub best: Option<&'a str>,
    /// The best is one of this computer's profiles (not the kernel's bare
    /// value, not a custom profile deleted since).
    pub usable: bool,
    /// Its name.
    pub name: &'a str,
    /// A measurement runs.
    pub running: bool,
    /// Why switching is off (the helper is not there, a snapshot, a
    /// lock); `None` where it is on.
    pub why_not: Option<&'a str>,
    /// The profile in effect.
    pub active: Option<&'a str>,
    /// The computer has a battery.
    pub battery: bool,
}

/// Why each of Use This Profile, Use on Battery and Use on AC Power is
/// off, where it is: from the same facts that turn it off.
pub fn why_not_use(facts: &UseFacts<'_>) -> [Option<String>; 3] {
    let all = |why: String| [Some(why.clone()), Some(why.clone()), Some(why)];
    if facts.running {
        return all(gettext("A measurement is running."));
    }
    if let Some(why) = facts.why_not {
        return all(if why.is_empty() { gettext("Switching profiles is off now.") } else { why.to_owned() });
    }
    let Some(best) = facts.best else {
        return all(gettext("No profile did clearly best, so there is none to use."));
    };
    if best == measure::KERNEL_DEFAULT {
        // Translators: {} is "Kernel default (128)".
        return all(i18n_f("{} is what the others were measured against, not a profile to use.", &[&facts.name]));
    }
    if !facts.usable {
        // Translators: {} is a custom profile's name.
        return all(i18n_f("{} is no longer one of your profiles.", &[&facts.name]));
    }
    [
        // Translators: {} is a profile's name.
        (facts.active == Some(best)).then(|| i18n_f("{} is already in effect.", &[&facts.name])),
        (!facts.battery).then(|| gettext("This computer has no battery.")),
        None,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use gearshift::core::measure::{summarize, Rounds, Run};

    #[test]
    fn a_use_button_that_is_off_says_why() {
        let facts = |best: Option<&'static str>| UseFacts {
            best,
            usable: best.is_some_and(|b| b != "kernel_default" && b != "gone"),
            name: "Power Saver",
            running: false,
            why_not: None,
            active: Some("balance_power"),
            battery: true,
        };
        assert_eq!(why_not_use(&facts(Some("power"))), [None, None, None]);
        let tie = why_not_use(&facts(None));
        assert!(tie.iter().all(|w| w.as_deref() == Some("No profile did clearly best, so there is none to use.")));
        let kernel = why_not_use(&facts(Some("kernel_default")));
        assert!(kernel[0].as_deref().is_some_and(|w| w.contains("measured against")), "{kernel:?}");
        assert!(why_not_use(&facts(Some("gone")))[2].as_deref().is_some_and(|w| w.contains("no longer")));
        let active = UseFacts { active: Some("power"), battery: false, ..facts(Some("power")) };
        assert_eq!(
            why_not_use(&active),
            [
                Some("Power Saver is already in effect.".to_owned()),
                Some("This computer has no battery.".to_owned()),
                None
            ]
        );
        let helper = UseFacts { why_not: Some("The helper is not running"), ..facts(Some("power")) };
        assert!(why_not_use(&helper).iter().all(|w| w.as_deref() == Some("The helper is not running")));
        let running = UseFacts { running: true, ..helper };
        assert!(why_not_use(&running).iter().all(|w| w.as_deref() == Some("A measurement is running.")));
    }

    #[test]
    fn the_chart_shows_work_per_joule_or_else_speed() {
        let run = |profile: &str, seconds: f64, joules: f64| Run {
            profile: profile.into(),
            work: 100.0,
            seconds,
            joules: Some(joules),
            ..Run::default()
        };
        // Two rounds, the second a little off the first: intervals to draw.
        let runs = [
            run("performance", 10.0, 200.0),
            run("power", 20.0, 50.0),
            run("performance", 10.0, 204.0),
            run("power", 20.0, 51.0),
        ];
        let name = |id: &str| id.to_uppercase();
        let report = summarize("build", "MB", Rounds::Fixed(2), Some("psys"), &runs, &|_| None, "");
        let data = chart_data(&report, &name);
        assert_eq!(data.entries.iter().map(|e| e.label.as_str()).collect::<Vec<_>>(), ["PERFORMANCE", "POWER"]);
        assert!(data.entries[1].ppw.is_some_and(|p| (p - 1.98).abs() < 0.01));
        let (low, high) = data.entries[1].interval.expect("an interval");
        assert!(low < 1.98 && high > 1.98);
        assert!(data.entries[1].best && !data.entries[0].best);
        assert!(data.entries[0].watts.is_some_and(|w| (w - 20.2).abs() < 1e-9));
        assert!(data.bars_title.contains("MB per joule"), "{}", data.bars_title);
        let timed: Vec<Run> = runs.iter().map(|r| Run { joules: None, ..r.clone() }).collect();
        let report = summarize("build", "MB", Rounds::Fixed(2), None, &timed, &|_| None, "");
        let data = chart_data(&report, &name);
        assert_eq!(data.entries[0].ppw, Some(10.0), "speed instead");
        assert!(data.entries[0].best);
        assert!(data.bars_title.contains("per second"));
        assert!(describe(&report, &name).contains("PERFORMANCE: 10.0 MB/s"));
    }
}
