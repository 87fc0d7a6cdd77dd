//! The driver mode's row: the modes the driver takes, the one chosen, and
//! whether (or why not) it can be switched.

use gearshift::core::machine::DriverMode;
use gearshift::core::report::HardwareReport;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f};

use super::*;

/// The overview's row that switches the driver's mode.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ModeRow {
    /// The modes the driver takes.
    pub modes: Vec<DriverMode>,
    /// The one shown as chosen among `modes`: the one asked for while a
    /// switch is in flight, else the current one (where it is one of them).
    pub selected: Option<usize>,
    /// What the modes mean, or why the mode cannot be switched now.
    pub subtitle: String,
    /// Whether the person may switch now.
    pub sensitive: bool,
    /// What a screen reader calls the row ("Driver mode: passive").
    pub accessible: String,
}

/// Why the driver's mode cannot be switched now (the row's subtitle), or
/// `None` when it can: a snapshot is only shown (`snapshot`), and without
/// the helper (`helper_error`) nothing can be changed.
pub fn switch_blocked(snapshot: bool, helper_error: Option<&ErrorView>, locked_by: Option<&str>) -> Option<String> {
    if snapshot {
        return Some(gettext("Cannot be switched in a snapshot: it would change this computer, not the snapshot."));
    }
    helper_error.map(|view| view.title.clone()).or_else(|| locked_by.map(super::banner::locked_words))
}

/// The driver mode's row, or `None` where the driver has no mode file (and
/// the Driver fact alone says the mode). `pending` is the mode asked for
/// while the switch is in flight; `blocked` why switching is off (see
/// [`switch_blocked`]).
pub fn mode_row(status: &Status, pending: Option<DriverMode>, blocked: Option<String>) -> Option<ModeRow> {
    if status.modes.is_empty() {
        return None;
    }
    let modes = status.modes.clone();
    let shown = pending.map(DriverMode::as_str).or(status.mode.as_deref());
    let selected = shown.and_then(|mode| modes.iter().position(|m| m.as_str() == mode));
    let (subtitle, sensitive) = match (pending, blocked) {
        (_, Some(why)) => (why, false),
        (Some(_), None) => (gettext("Switching the driver's mode…"), false),
        (None, None) if modes.contains(&DriverMode::Guided) => (
            gettext("active: the CPU picks frequencies guided by EPP; passive/guided: a kernel governor picks them"),
            true,
        ),
        (None, None) => {
            (gettext("active: the CPU picks frequencies guided by EPP; passive: a kernel governor picks them"), true)
        }
    };
    let accessible = match shown {
        // Translators: What a screen reader says for the driver mode's row; {} is a mode ("active", "passive").
        Some(mode) => i18n_f(
            "Driver mode: {}",
            &[&DriverMode::from_word(mode).map_or_else(|| mode.to_string(), |m| m.label().localized())],
        ),
        None => gettext("Driver mode"),
    };
    Some(ModeRow { modes, selected, subtitle, sensitive, accessible })
}

/// Whether the wizard offers to switch the driver to active mode: the
/// hardware report recommends it (its `driver_mode` finding) and the
/// driver takes it.
pub fn offers_active_mode(report: &HardwareReport, status: &Status) -> bool {
    report.findings.iter().any(|f| f.id == "driver_mode")
        && status.modes.contains(&DriverMode::Active)
        && status.mode.as_deref() != Some("active")
}

#[cfg(test)]
mod tests {
    use super::super::testing::{report, status};
    use super::super::{ErrorView, Overview};
    use super::*;
    use gearshift::client::ClientError;

    #[test]
    fn the_driver_mode_row_offers_what_the_driver_takes() {
        let tiger = status("tiger-lake-passive");
        let row = mode_row(&tiger, None, None).unwrap();
        assert_eq!(row.modes, [DriverMode::Active, DriverMode::Passive]);
        assert_eq!(row.selected, Some(1));
        assert!(row.sensitive);
        assert_eq!(
            row.subtitle,
            "active: the CPU picks frequencies guided by EPP; passive: a kernel governor picks them"
        );
        assert_eq!(row.accessible, "Driver mode: passive");
        // The facts say the driver and its mode; the row to switch it sits
        // in a list of its own under them (a tab stop among facts was
        // never reached: issue 27).
        let view = Overview::from_status(&tiger);
        assert!(view.facts.contains(&("Driver".to_owned(), "intel_cpufreq, passive mode".to_owned())));

        // amd-pstate also takes guided.
        let amd = mode_row(&status("amd-5900x-passive"), None, None).unwrap();
        assert_eq!(amd.modes, DriverMode::ALL);
        assert_eq!(amd.selected, Some(1));
        assert!(amd.subtitle.contains("passive/guided: a kernel governor"), "{}", amd.subtitle);
        let mtl = mode_row(&status("meteor-lake-155h"), None, None).unwrap();
        assert_eq!((mtl.selected, mtl.accessible.as_str()), (Some(0), "Driver mode: active"));

        // No mode file: no row (the Driver fact says the mode).
        for fixture in ["amd-2600-acpi", "vm-no-cpufreq", "real-intel-kf-m2g5-passive"] {
            assert_eq!(mode_row(&status(fixture), None, None), None, "{fixture}");
        }
        // A mode the row does not offer selects nothing.
        let mut off = tiger.clone();
        off.mode = Some("off".into());
        assert_eq!(mode_row(&off, None, None).unwrap().selected, None);

        // In flight: the mode asked for, and no second switch meanwhile.
        let pending = mode_row(&tiger, Some(DriverMode::Active), None).unwrap();
        assert_eq!(pending.selected, Some(0));
        assert!(!pending.sensitive);
        assert_eq!(pending.subtitle, "Switching the driver's mode…");
        assert_eq!(pending.accessible, "Driver mode: active");
    }

    #[test]
    fn the_driver_mode_row_says_why_it_cannot_be_switched() {
        let tiger = status("tiger-lake-passive");
        assert_eq!(switch_blocked(false, None, None), None);
        let snapshot = mode_row(&tiger, None, switch_blocked(true, None, None)).unwrap();
        assert!(!snapshot.sensitive);
        assert_eq!(
            snapshot.subtitle,
            "Cannot be switched in a snapshot: it would change this computer, not the snapshot."
        );
        // The current mode is still shown.
        assert_eq!(snapshot.selected, Some(1));
        // Without the helper: its headline.
        let missing = ErrorView::from_client(&ClientError::NotInstalled);
        let no_helper = mode_row(&tiger, None, switch_blocked(false, Some(&missing), None)).unwrap();
        assert!(!no_helper.sensitive);
        assert_eq!(no_helper.subtitle, missing.title);
        // A snapshot says so before any helper trouble.
        assert_eq!(switch_blocked(true, Some(&missing), None), switch_blocked(true, None, None));
    }

    #[test]
    fn the_wizard_offers_active_mode_where_the_report_recommends_it() {
        let offers = |fixture: &str| offers_active_mode(&report(fixture), &status(fixture));
        assert!(offers("tiger-lake-passive"));
        assert!(offers("amd-5900x-passive"));
        // Already active, no modes, or no mode file to switch.
        for fixture in ["meteor-lake-155h", "amd-2600-acpi", "real-intel-kf-m2g5-passive"] {
            assert!(!offers(fixture), "{fixture}");
        }
    }
}
