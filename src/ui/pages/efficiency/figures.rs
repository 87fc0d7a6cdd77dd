//! The Efficiency page's words and figures for a measurement: the line
//! under a kept one, the chart's data, what a screen reader says for it.

use relm4::gtk::glib;

use gearshift::client::lab::Kept;
use gearshift::core::measure::Report;
use gearshift::i18n::{gettext, i18n_f, i18n_plural, i18n_text};

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

#[cfg(test)]
mod tests {
    use super::*;
    use gearshift::core::measure::{summarize, Rounds, Run};

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
