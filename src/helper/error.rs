//! How the helper's refusals and failures become D-Bus errors
//! ([`HelperError`], defined with the wire in `crate::dbus`), each with a
//! message a person can act on.

use super::apply::{ApplyFailure, Busy};
use super::validate::Refusal;
use crate::dbus::error::Cause;
pub use crate::dbus::HelperError;

impl From<Refusal> for HelperError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::InvalidArgument(msg) => HelperError::InvalidArgument(msg),
            Refusal::Unsupported(msg) => HelperError::Unsupported(msg),
            Refusal::CpuOffline(msg) => HelperError::InvalidArgument(msg).because(Cause::CpuOffline),
            Refusal::EppBusy(msg) => HelperError::Unsupported(msg).because(Cause::EppBusy),
            Refusal::DynamicEpp(msg) => HelperError::Unsupported(msg).because(Cause::DynamicEpp),
        }
    }
}

impl From<ApplyFailure> for HelperError {
    fn from(failure: ApplyFailure) -> Self {
        let error = HelperError::WriteFailed(describe_failure(&failure));
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

/// A failure in words: where, the errno, why (for EBUSY), and the undo.
pub fn describe_failure(failure: &ApplyFailure) -> String {
    let f = &failure.failed;
    let errno = f.errno.map(|e| format!(" ({e})")).unwrap_or_default();
    let mut msg = format!("writing {} failed: {}{errno}", f.target.describe(&f.cpus), f.message);
    let cpus = crate::core::parse::format_cpu_list(&f.cpus);
    if f.errno == Some("EOPNOTSUPP") {
        msg.push_str("; the firmware does not offer this platform profile");
    }
    match f.busy {
        Some(Busy::DynamicEpp) => msg.push_str(
            "; the kernel's dynamic EPP (amd-pstate) is on: it sets EPP itself and refuses every write",
        ),
        Some(Busy::CpuOffline) => msg.push_str(&format!("; CPU {cpus} is offline")),
        Some(Busy::PerformanceGovernor) => {
            msg.push_str(&format!("; CPU {cpus} runs the performance governor, which holds EPP at 0"));
        }
        Some(Busy::Unknown) => msg.push_str(
            "; the kernel gave no reason the files show (the CPUs are online, the governor is not performance, dynamic EPP is off)",
        ),
        None => {}
    }
    if failure.not_restored.is_empty() {
        msg.push_str(&format!("; the {} earlier change(s) of this request were undone", failure.restored));
    } else {
        let left: Vec<String> = failure.not_restored.iter().map(|n| n.target.describe(&n.cpus)).collect();
        msg.push_str(&format!(
            "; {} change(s) were undone, but these could not be: {}",
            failure.restored,
            left.join(", ")
        ));
    }
    msg
}
