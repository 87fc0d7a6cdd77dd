//! How the helper's refusals and failures become D-Bus errors
//! ([`HelperError`], defined with the wire in `crate::dbus`), each with a
//! message a person can act on.

use super::apply::{ApplyFailure, Busy};
use super::validate::Refusal;
use crate::dbus::error::Cause;
pub use crate::dbus::HelperError;
use crate::i18n::{i18n_plural, i18n_text, Text};

impl From<Refusal> for HelperError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::InvalidArgument(msg) => HelperError::InvalidArgument(msg.into()),
            Refusal::Unsupported(msg) => HelperError::Unsupported(msg.into()),
            Refusal::CpuOffline(msg) => HelperError::InvalidArgument(msg.into()).because(Cause::CpuOffline),
            Refusal::EppBusy(msg) => HelperError::Unsupported(msg.into()).because(Cause::EppBusy),
            Refusal::DynamicEpp(msg) => HelperError::Unsupported(msg.into()).because(Cause::DynamicEpp),
        }
    }
}

impl From<ApplyFailure> for HelperError {
    fn from(failure: ApplyFailure) -> Self {
        let error = HelperError::WriteFailed(describe_failure(&failure).into());
        // The cause the files showed right after the EBUSY (never guessed
        // from the errno alone: the kernel has several reasons).
        match failure.failed.busy {
            Some(Busy::DynamicEpp) => error.because(Cause::DynamicEpp),
            Some(Busy::PerformanceGovernor) => error.because(Cause::EppBusy),
            Some(Busy::CpuOffline) => error.because(Cause::CpuOffline),
            Some(Busy::Unknown) | None => error,
        }
    }
}

/// How many of the changes that could not be undone a message names.
const LISTED: usize = 8;

/// A failure in words: where, the errno, why (for EBUSY), and the undo,
/// as parts joined by "; ".
pub fn describe_failure(failure: &ApplyFailure) -> Text {
    let f = &failure.failed;
    let errno = f.errno.map(|e| format!(" ({e})")).unwrap_or_default();
    let mut parts = vec![i18n_text("writing {what} failed: {why}{errno}")
        .arg_text("what", f.target.said(&f.cpus))
        .arg("why", &f.message)
        .arg("errno", errno)];
    let cpus = crate::core::parse::format_cpu_list(&f.cpus);
    if f.errno == Some("EOPNOTSUPP") {
        parts.push(i18n_text("the firmware does not offer this platform profile"));
    }
    match f.busy {
        Some(Busy::DynamicEpp) => parts.push(i18n_text(
            "the kernel's dynamic EPP (amd-pstate) is on: it sets EPP itself and refuses every write",
        )),
        Some(Busy::CpuOffline) => parts.push(i18n_text("CPU {cpus} is offline").arg("cpus", &cpus)),
        Some(Busy::PerformanceGovernor) => parts.push(
            i18n_text("CPU {cpus} runs the performance governor, which holds EPP at 0").arg("cpus", &cpus),
        ),
        Some(Busy::Unknown) => parts.push(i18n_text(
            "the kernel gave no reason the files show (the CPUs are online, the governor is not performance, dynamic EPP is off)",
        )),
        None => {}
    }
    let count = u64::try_from(failure.restored).unwrap_or(u64::MAX);
    if failure.not_restored.is_empty() {
        parts.push(
            i18n_plural(
                "the {count} earlier change of this request was undone",
                "the {count} earlier changes of this request were undone",
                count,
            )
            .arg("count", count),
        );
    } else {
        // A few of them (each nests a sentence deeper on the wire).
        let mut left = failure.not_restored.iter().take(LISTED).map(|n| n.target.said(&n.cpus)).reduce(|all, next| {
            // Translators: a list, as ", " joins it in English.
            i18n_text("{first}, {second}").arg_text("first", all).arg_text("second", next)
        });
        let more = failure.not_restored.len().saturating_sub(LISTED);
        if more > 0 {
            left = left.map(|shown| i18n_text("{shown} and {more} more").arg_text("shown", shown).arg("more", more));
        }
        parts.push(
            i18n_plural(
                "{count} change was undone, but these could not be: {left}",
                "{count} changes were undone, but these could not be: {left}",
                count,
            )
            .arg("count", count)
            .arg_text("left", left.unwrap_or_else(|| Text::from(String::new()))),
        );
    }
    parts
        .into_iter()
        .reduce(|all, part| {
            // Translators: two parts of a message, as "; " joins them in English.
            i18n_text("{first}; {second}").arg_text("first", all).arg_text("second", part)
        })
        .unwrap_or_else(|| Text::from(String::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::helper::apply::{FailedWrite, Target};

    fn failed(cpu: u32) -> FailedWrite {
        FailedWrite {
            target: Target::Policy(cpu, "energy_performance_preference"),
            cpus: vec![cpu],
            errno: Some("EIO"),
            message: "Input/output error".into(),
            busy: None,
        }
    }

    #[test]
    fn a_failure_names_what_could_not_be_undone_a_few_at_most_and_reads_back_from_the_wire() {
        let one = ApplyFailure { failed: Box::new(failed(10)), restored: 1, not_restored: Vec::new() };
        assert_eq!(
            describe_failure(&one).english(),
            "writing energy_performance_preference for CPU 10 failed: Input/output error (EIO); \
             the 1 earlier change of this request was undone"
        );
        let many =
            ApplyFailure { failed: Box::new(failed(10)), restored: 3, not_restored: (0..10).map(failed).collect() };
        let text = describe_failure(&many);
        let english = text.english();
        assert!(
            english
                .contains("3 changes were undone, but these could not be: energy_performance_preference for CPU 0, "),
            "{english}"
        );
        assert!(english.ends_with("energy_performance_preference for CPU 7 and 2 more"), "{english}");
        // The whole message crosses the bus, nesting and all.
        assert_eq!(Text::from_wire(&text.to_wire()), Some(text));
    }
}
