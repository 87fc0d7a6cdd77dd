//! How the helper's refusals and failures become D-Bus errors
//! ([`HelperError`], defined with the wire in `crate::dbus`), each with a
//! message a person can act on.

use super::apply::{ApplyFailure, Target};
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
        }
    }
}

impl From<ApplyFailure> for HelperError {
    fn from(failure: ApplyFailure) -> Self {
        let error = HelperError::WriteFailed(describe_failure(&failure));
        // EBUSY on EPP: the performance governor holds it at 0 (or the CPU
        // went offline); on any other policy file: the policy is inactive,
        // its CPUs offline (cpufreq's store()).
        match (failure.failed.errno, failure.failed.target) {
            (Some("EBUSY"), target) if target.is_epp() => error.because(Cause::EppBusy),
            (Some("EBUSY"), Target::Policy(..)) => error.because(Cause::CpuOffline),
            _ => error,
        }
    }
}

/// A failure in words: where, the errno, why (for EBUSY), and the undo.
pub fn describe_failure(failure: &ApplyFailure) -> String {
    let f = &failure.failed;
    let errno = f.errno.map(|e| format!(" ({e})")).unwrap_or_default();
    let mut msg = format!("writing {} failed: {}{errno}", f.target.describe(&f.cpus), f.message);
    if f.errno == Some("EOPNOTSUPP") {
        msg.push_str("; the firmware does not offer this platform profile");
    } else if f.errno == Some("EBUSY") && f.target.is_epp() {
        msg.push_str(
            "; the kernel refuses EPP above 0 while the performance governor runs, and answers EBUSY for offline CPUs",
        );
    } else if f.errno == Some("EBUSY") {
        msg.push_str("; the kernel answers EBUSY for a CPU that is offline");
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
