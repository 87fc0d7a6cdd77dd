//! The lab's result in words a person reads: the verdict the runs support
//! (a winner only where one is clear, else "no clear difference" with the
//! figure and its interval), what the CPU's maker measured beside it, the
//! estimate before starting, and figures as the locale writes them.

use super::estimate::Span;
use crate::core::measure::{Comparison, Report, KERNEL_DEFAULT};
use crate::core::models::Claim;
use crate::i18n::{decimal, gettext, i18n_f, i18n_plural, i18n_text, percent};

/// "between +3.1% and +10.9%": a comparison's interval, as the locale
/// writes percentages.
fn between(c: &Comparison) -> String {
    i18n_text("between {low} and {high}")
        .arg("low", percent(c.ci95_pct[0], true))
        .arg("high", percent(c.ci95_pct[1], true))
        .localized()
}

/// "+7.0% (between +3.1% and +10.9%)": a comparison's figure and its
/// interval.
pub fn with_interval(c: &Comparison) -> String {
    // Translators: a percentage, then "between +3.1% and +10.9%".
    i18n_text("{pct} ({between})").arg("pct", percent(c.pct, true)).arg("between", between(c)).localized()
}

/// "Balanced gave +0.8% work per joule compared with Kernel default
/// (128), between -1.9% and +3.5%": a comparison inside words that are in
/// brackets already, naming what it is measured against.
fn compared(c: &Comparison, profile: &str, other: &str, energy: bool) -> String {
    let text = if energy {
        // Translators: two profile names, a percentage, then "between -1.9% and +3.5%".
        i18n_text("{profile} gave {pct} work per joule compared with {other}, {between}")
    } else {
        // Translators: two profile names, a percentage, then "between -1.9% and +3.5%".
        i18n_text("{profile} ran at {pct} speed compared with {other}, {between}")
    };
    text.arg("profile", profile)
        .arg("other", other)
        .arg("pct", percent(c.pct, true))
        .arg("between", between(c))
        .localized()
}

/// "A, B and C".
fn names_list(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => {
            i18n_text("{first} and {last}").arg("first", rest.join(", ")).arg("last", last).localized()
        }
    }
}

/// The measurement's outcome in plain words, saying only what the runs
/// support: a winner where one is clearly ahead, else "no clear
/// difference" with the figure and its interval; each profile against the
/// kernel's generic value the same way; playback profiles that did not
/// keep up, runs that stood out or were set aside. `machine` is the CPU's
/// codename ("Meteor Lake") or a word for it.
pub fn verdict(report: &Report, machine: &str, name_of: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut words = Vec::new();
    if report.method.is_empty() {
        // Kept by a Gearshift before intervals: its best is only the
        // highest mean, and it says so.
        words.extend(earlier(report, machine, name_of));
    }
    words.extend(best_words(report, machine, name_of));
    words.extend(kernel_words(report, name_of));
    words.extend(caveats(report, name_of));
    words
}

/// The winner where one is clearly ahead, with its lead over the next;
/// else the profiles no run could tell apart.
fn best_words(report: &Report, machine: &str, name_of: &dyn Fn(&str) -> String) -> Option<String> {
    let energy = report.energy_source.is_some();
    let lead = report.lead.as_ref();
    match (&report.best, lead) {
        (Some(_), _) if report.method.is_empty() => None,
        (Some(best), lead) => {
            let mut line = if energy {
                // Translators: {machine} is a codename such as "Meteor Lake", {profile} a profile name.
                i18n_text("On this {machine}, {profile} did the most work per joule.")
                    .arg("machine", machine)
                    .arg("profile", name_of(best))
                    .localized()
            } else {
                i18n_text("Without energy counters only speed can be compared: {profile} was the fastest.")
                    .arg("profile", name_of(best))
                    .localized()
            };
            if let Some(lead) = lead.filter(|l| &l.profile == best) {
                line.push(' ');
                // Translators: {figure} is "+7.0% (between +3.1% and +10.9%)", {other} a profile name.
                line.push_str(
                    &i18n_text("Against {other}, the next: {figure}.")
                        .arg("other", name_of(&lead.over))
                        .arg("figure", with_interval(&lead.by))
                        .localized(),
                );
            }
            Some(line)
        }
        (None, _) if report.tied_best.len() >= 2 => {
            let names: Vec<String> = report.tied_best.iter().map(|id| name_of(id)).collect();
            let figure = lead
                .filter(|l| report.tied_best.contains(&l.over))
                .map(|l| compared(&l.by, &name_of(&l.profile), &name_of(&l.over), energy));
            Some(match figure {
                // Translators: {profiles} is "Balanced and Power Saver", {figure} "Balanced gave +0.8%
                // work per joule compared with Power Saver, between -1.9% and +3.5%".
                Some(figure) => i18n_text("{profiles}: no clear difference ({figure}).")
                    .arg("profiles", names_list(&names))
                    .arg("figure", figure)
                    .localized(),
                None => i18n_text("{profiles}: no clear difference (too few runs to tell).")
                    .arg("profiles", names_list(&names))
                    .localized(),
            })
        }
        _ => None,
    }
}

/// Each profile against the kernel's generic value, where that was run.
fn kernel_words(report: &Report, name_of: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut words = Vec::new();
    let lead = report.lead.as_ref();
    if let Some(base) = report.runs.iter().find(|f| f.profile == KERNEL_DEFAULT) {
        let epp = |e: Option<u8>| e.map_or_else(|| "?".to_owned(), |e| e.to_string());
        // Said once: where the front runners are a profile and the
        // kernel's value (either way round), the sentence above compared
        // them already.
        let said = lead.and_then(|l| match (l.profile.as_str(), l.over.as_str()) {
            (profile, KERNEL_DEFAULT) | (KERNEL_DEFAULT, profile) => Some(profile),
            _ => None,
        });
        for f in report.runs.iter().filter(|f| f.profile != KERNEL_DEFAULT && Some(f.profile.as_str()) != said) {
            let Some(vs) = &f.vs_kernel_default else { continue };
            let text = if vs.clear {
                // Translators: a profile name, its EPP, the kernel's EPP, a percentage, "between +3.1% and +10.9%".
                i18n_text("{profile} (EPP {epp}) against the kernel's {kernel}: {pct} work per joule ({between}).")
            } else {
                // Translators: a profile name, its EPP, the kernel's EPP, a percentage, then "between -1.9% and +3.5%".
                i18n_text("{profile} (EPP {epp}) against the kernel's {kernel}: no clear difference ({pct} work per joule, {between}).")
            };
            words.push(
                text.arg("profile", name_of(&f.profile))
                    .arg("epp", epp(f.epp))
                    .arg("kernel", epp(base.epp))
                    .arg("pct", percent(vs.pct, true))
                    .arg("between", between(vs))
                    .localized(),
            );
        }
    }
    words
}

/// Playback profiles that did not keep up, runs that stood out, runs set
/// aside.
fn caveats(report: &Report, name_of: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut words = Vec::new();
    for f in report.runs.iter().filter(|f| f.fell_behind()) {
        let frames = (f.throughput * f.seconds * f.n as f64).round() as u64;
        let missed = f.missed_frames.unwrap_or(0);
        words.push(
            // Translators: {missed} chooses the form ("1 of its 36 frames was late").
            i18n_plural(
                "{profile} did not keep up: {missed} of its {frames} frames was late, so it cannot be the best.",
                "{profile} did not keep up: {missed} of its {frames} frames were late, so it cannot be the best.",
                missed,
            )
            .arg("profile", name_of(&f.profile))
            .arg("missed", missed)
            .arg("frames", frames)
            .localized(),
        );
    }
    let outliers: usize = report.runs.iter().map(|f| f.outliers).sum();
    if outliers > 0 {
        words.push(
            i18n_plural(
                "{n} run stood out from the others of its profile (a background task, or heat?); it is kept in the figures, which widens their intervals.",
                "{n} runs stood out from the others of their profile (a background task, or heat?); they are kept in the figures, which widens their intervals.",
                outliers as u64,
            )
            .arg("n", outliers)
            .localized(),
        );
    }
    let disturbed: usize = report.runs.iter().map(|f| f.disturbed).sum();
    if disturbed > 0 {
        words.push(
            i18n_plural(
                "{n} run was set aside: something else changed the profile while it ran.",
                "{n} runs were set aside: something else changed the profile while they ran.",
                disturbed as u64,
            )
            .arg("n", disturbed)
            .localized(),
        );
    }
    words
}

/// The words for a measurement kept before Gearshift gave intervals: the
/// highest mean, and the gains against the kernel without an interval.
fn earlier(report: &Report, machine: &str, name_of: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut words = Vec::new();
    if let Some(best) = &report.best {
        words.push(
            i18n_text("On this {machine}, {profile} did the most work per joule on average; this earlier measurement has no intervals to say how clearly.")
                .arg("machine", machine)
                .arg("profile", name_of(best))
                .localized(),
        );
    }
    let base = report.runs.iter().find(|f| f.profile == KERNEL_DEFAULT);
    for f in report.runs.iter().filter(|f| f.vs_kernel_default.is_none()) {
        let (Some(pct), Some(base)) = (f.vs_kernel_default_pct, base) else { continue };
        words.push(
            // Translators: a profile name, its EPP, the kernel's EPP, a percentage.
            i18n_text(
                "{profile} (EPP {epp}) against the kernel's {kernel}: {pct} work per joule, without an interval.",
            )
            .arg("profile", name_of(&f.profile))
            .arg("epp", f.epp.map_or_else(|| "?".to_owned(), |e| e.to_string()))
            .arg("kernel", base.epp.map_or_else(|| "?".to_owned(), |e| e.to_string()))
            .arg("pct", percent(pct, true))
            .localized(),
        );
    }
    words
}

/// What the CPU's maker measured for this model's balanced value, and
/// whether this measurement agrees within its interval: a line each, empty
/// where the maker published nothing for the model. `balanced` is the
/// model's balanced profile's id here.
pub fn claims(report: &Report, machine: &str, claims: &[Claim], name_of: &dyn Fn(&str) -> String) -> Vec<String> {
    let Some(first) = claims.first() else { return Vec::new() };
    let figures: Vec<String> = claims
        .iter()
        .map(|c| {
            let mut figure = i18n_text("{pct} work per joule in {benchmark}")
                .arg("pct", as_published(c.work_per_joule_pct, true))
                .arg("benchmark", &c.benchmark)
                .localized();
            if let Some(speed) = c.speed_pct {
                // Translators: after "+5.3% work per joule in Speedometer": how much faster it ran.
                figure = i18n_text("{figure} ({speed} faster)")
                    .arg("figure", figure)
                    .arg("speed", as_published(speed, false))
                    .localized();
            }
            figure
        })
        .collect();
    let mut words = vec![i18n_text("The maker measured this {machine} at EPP {epp} against {against}: {figures}.")
        .arg("machine", machine)
        .arg("epp", first.epp)
        .arg("against", first.against)
        .arg("figures", names_list(&figures))
        .localized()];
    // This machine's runs of the same values: the profile at the claimed
    // EPP against the kernel's value.
    let ours = report.runs.iter().find(|f| f.epp == Some(first.epp) && f.profile != KERNEL_DEFAULT);
    let vs = ours.and_then(|f| Some((f, f.vs_kernel_default.as_ref()?)));
    if let Some((f, vs)) = vs {
        let [low, high] = vs.ci95_pct;
        let within = claims.iter().filter(|c| (low..=high).contains(&c.work_per_joule_pct)).count();
        let text = if within > 0 {
            i18n_text("Here {profile} gave {figure}: that agrees with the maker's figures within its interval.")
        } else if high < claims.iter().map(|c| c.work_per_joule_pct).fold(f64::INFINITY, f64::min) {
            i18n_text("Here {profile} gave {figure}: less than the maker measured, beyond its interval.")
        } else if low > claims.iter().map(|c| c.work_per_joule_pct).fold(f64::NEG_INFINITY, f64::max) {
            i18n_text("Here {profile} gave {figure}: more than the maker measured, beyond its interval.")
        } else {
            i18n_text("Here {profile} gave {figure}: between the maker's figures, and agreeing with none of them within its interval.")
        };
        words.push(text.arg("profile", name_of(&f.profile)).arg("figure", with_interval(vs)).localized());
    }
    words
}

/// A maker's figure as published: "+5.25%", "19%".
fn as_published(value: f64, signed: bool) -> String {
    crate::i18n::percent_to(value, if value.fract() == 0.0 { 0 } else { 2 }, signed)
}

/// "About 3 to 7 minutes for 15 to 40 runs.": how long a measurement
/// takes, before it starts.
pub fn estimate_words(span: Span, fewest: usize, most: usize) -> String {
    let runs = if fewest == most {
        i18n_plural("{n} run", "{n} runs", most as u64).arg("n", most).localized()
    } else {
        // Translators: runs of a measurement that stops once its results are clear.
        i18n_plural("{fewest} to {most} run", "{fewest} to {most} runs", most as u64)
            .arg("fewest", fewest)
            .arg("most", most)
            .localized()
    };
    match span {
        Span::UnderAMinute => i18n_text("Less than a minute for {runs}.").arg("runs", runs).localized(),
        // Translators: {runs} is "15 runs" or "15 to 40 runs".
        Span::About(minutes) => {
            i18n_plural("About {minutes} minute for {runs}.", "About {minutes} minutes for {runs}.", minutes)
                .arg("minutes", minutes)
                .arg("runs", runs)
                .localized()
        }
        Span::Between(soonest, latest) => i18n_plural(
            "About {soonest} to {latest} minute for {runs}.",
            "About {soonest} to {latest} minutes for {runs}.",
            latest,
        )
        .arg("soonest", soonest)
        .arg("latest", latest)
        .arg("runs", runs)
        .localized(),
    }
}

/// "About 4 minutes left.": while a measurement runs.
pub fn left_words(span: Span) -> String {
    match span {
        Span::UnderAMinute => gettext("Less than a minute left."),
        Span::About(minutes) => i18n_plural("About {minutes} minute left.", "About {minutes} minutes left.", minutes)
            .arg("minutes", minutes)
            .localized(),
        Span::Between(soonest, latest) => {
            i18n_plural("About {soonest} to {latest} minute left.", "About {soonest} to {latest} minutes left.", latest)
                .arg("soonest", soonest)
                .arg("latest", latest)
                .localized()
        }
    }
}

/// What is worth knowing before a measurement where something would spoil
/// it, a paragraph each: on battery, how busy the CPUs are (a share),
/// how long it takes ([`estimate_words`]) and what it changes meanwhile.
pub fn before_words(battery: bool, busy: Option<f64>, how_long: &str) -> Vec<String> {
    let mut words = Vec::new();
    if battery {
        words.push(gettext(
            "This computer runs on battery: the figures will differ from those on AC power, and the battery drains.",
        ));
    }
    if let Some(busy) = busy {
        words.push(i18n_f(
            "The CPUs are {} per cent busy with other work, which spoils the figures. Close what runs, or measure anyway.",
            &[&decimal(busy * 100.0, 0)],
        ));
    }
    words.push(how_long.to_owned());
    words.push(gettext("Meanwhile each profile is switched on in turn, and switching by hand and the AC/battery settings are off; the profile you use now comes back afterwards."));
    words
}

/// A decimal figure as the locale writes it, three significant digits
/// ("42.6", "0.123", "1,234").
pub fn figure(value: f64) -> String {
    let digits = if value.abs() >= 100.0 {
        0
    } else if value.abs() >= 10.0 {
        1
    } else if value.abs() >= 1.0 {
        2
    } else {
        3
    };
    decimal(value, digits)
}

#[cfg(test)]
mod tests;
