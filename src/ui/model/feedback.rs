//! What the window says after something happened: errors, toasts, the
//! active profile's title.

use gearshift::client::ClientError;
use gearshift::core::profile::BuiltinProfile;
use gearshift::core::status::Status;
use gearshift::i18n::{gettext, i18n_f, i18n_plural, i18n_text};

/// Something to tell the person, in a toast.
#[derive(Debug, Clone)]
pub enum Notice {
    /// A sentence.
    Text(String),
    /// A failure: its headline, with Details.
    Error(ErrorView),
    /// A custom profile was deleted: the sentence, with Undo.
    Undo(String),
}

/// How an error from the helper is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorView {
    /// The headline (toast, banner title).
    pub title: String,
    /// The explanation and what to do.
    pub body: String,
    /// A command to copy, where one fixes it.
    pub command: Option<String>,
    /// Whether it lasts (a banner) rather than passes (a toast).
    pub lasting: bool,
}

impl ErrorView {
    /// The view of a helper error.
    pub fn from_client(err: &ClientError) -> ErrorView {
        let command = match err {
            ClientError::NotInstalled => {
                if err.advice().contains("systemctl reload dbus") {
                    Some("sudo systemctl reload dbus".to_owned())
                } else {
                    gearshift::client::install::origin().command()
                }
            }
            _ => None,
        };
        let lasting = matches!(err, ClientError::NotInstalled | ClientError::NoBus(_));
        ErrorView { title: err.headline(), body: err.advice(), command, lasting }
    }
}

/// The toast after a profile was applied to `cpus`, `changed` files
/// written: the EPP it wrote, per kind of core where P- and E-cores got
/// different values.
pub fn switched_toast(status: &Status, id: &str, changed: u32, cpus: &[u32]) -> String {
    if id == gearshift::core::kernel_own::KERNEL_OWN {
        return gettext("The kernel's own values are back. Gearshift applies no profile until you choose one.");
    }
    let line = status.profiles.iter().find(|p| p.id == id);
    let name = line.map_or_else(|| id.to_owned(), |l| l.title().localized());
    let n = cpus.len() as u64;
    if let Some(parts) = line.and_then(|l| by_kind(status, l, cpus)) {
        return if changed == 0 {
            // Translators: a profile name, then "EPP 179 on 6 P-cores and 74 on 16 E-cores".
            i18n_text("{profile} applied: the CPUs already had {values}")
        } else {
            i18n_text("{profile} applied: {values}")
        }
        .arg("profile", &name)
        .arg("values", parts)
        .localized();
    }
    let text = match (line.and_then(|l| l.epp), changed) {
        // Translators: A profile name and an EPP number.
        (Some(epp), 0) => i18n_plural(
            "{profile} applied: the CPU already had EPP {value}",
            "{profile} applied: all {cpus} CPUs already had EPP {value}",
            n,
        )
        .arg("value", epp),
        // Translators: A profile name and an EPP number.
        (Some(epp), _) => i18n_plural(
            "{profile} applied: EPP {value} on {cpus} CPU",
            "{profile} applied: EPP {value} on {cpus} CPUs",
            n,
        )
        .arg("value", epp),
        // Translators: A profile name.
        (None, 0) => i18n_plural(
            "{profile} applied: the CPU already had these values",
            "{profile} applied: all {cpus} CPUs already had these values",
            n,
        ),
        // Translators: A profile name.
        (None, _) => i18n_plural("{profile} applied on {cpus} CPU", "{profile} applied on {cpus} CPUs", n),
    };
    text.arg("profile", &name).arg("cpus", n).localized()
}

/// "EPP 179 on 6 P-cores and 74 on 16 E-cores", where a profile gives the
/// two kinds of core different values.
fn by_kind(status: &Status, line: &gearshift::core::status::ProfileLine, cpus: &[u32]) -> Option<String> {
    use gearshift::core::identity::CoreType;
    let p_value = line.epp?;
    let e_value = line.epp_values.iter().copied().find(|v| *v != p_value)?;
    let count = |kind: CoreType| {
        status.cpus.iter().filter(|c| cpus.contains(&c.id) && c.core_type == Some(kind)).count() as u64
    };
    let (p_cores, e_cores) = (count(CoreType::Performance), count(CoreType::Efficiency));
    if p_cores == 0 || e_cores == 0 {
        return None;
    }
    // Translators: the first half of "EPP 179 on 6 P-cores and 74 on 16 E-cores".
    let p = i18n_plural("EPP {value} on {n} P-core", "EPP {value} on {n} P-cores", p_cores)
        .arg("value", p_value)
        .arg("n", p_cores)
        .localized();
    // Translators: the second half of "EPP 179 on 6 P-cores and 74 on 16 E-cores".
    let e = i18n_plural("{value} on {n} E-core", "{value} on {n} E-cores", e_cores)
        .arg("value", e_value)
        .arg("n", e_cores)
        .localized();
    Some(i18n_text("{first} and {last}").arg("first", p).arg("last", e).localized())
}

/// The saved profile that saving `profile` would replace (the same id, which
/// [`gearshift::core::custom::id_for`] gives a profile of the same name):
/// the window asks before it does.
pub fn replaced<'a>(
    customs: &'a [gearshift::core::custom::CustomProfile],
    profile: &gearshift::core::custom::CustomProfile,
) -> Option<&'a gearshift::core::custom::CustomProfile> {
    customs.iter().find(|p| p.id == profile.id)
}

/// The toast when the helper set back values that something else changed
/// (firmware, another program, a driver mode change): who did it is not
/// known, when it was noticed is.
pub fn outside_toast(change: &gearshift::dbus::OutsideChange) -> String {
    use gearshift::core::active::Occasion;
    let mut cpus: Vec<u32> = change.values.iter().flat_map(|(_, cpus, _, _)| cpus.iter().copied()).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let cpus = gearshift::core::parse::format_cpu_list(&cpus);
    match Occasion::from_wire(&change.occasion) {
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        Some(Occasion::Resume) => {
            i18n_text("After sleep, settings of CPU {cpus} had been changed outside Gearshift: set back")
        }
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        Some(Occasion::Ac) => {
            i18n_text("On AC power, settings of CPU {cpus} had been changed outside Gearshift: set back")
        }
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        Some(Occasion::Battery) => {
            i18n_text("On battery, settings of CPU {cpus} had been changed outside Gearshift: set back")
        }
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        Some(Occasion::DriverMode) => {
            i18n_text("The CPU driver was restarted and lost the settings of CPU {cpus}: set back")
        }
        // Translators: {cpus} is a list of CPU numbers such as "0-3,8".
        None => i18n_text("Settings of CPU {cpus} had been changed outside Gearshift: set back"),
    }
    .arg("cpus", cpus)
    .localized()
}

/// The profile shown as active: the helper's (`helper`), or else what the
/// machine's settings match.
pub fn active_title(status: &Status, helper: Option<&str>, until_power_change: bool) -> String {
    let active = helper.or(status.active_profile.as_deref());
    if let Some(line) = active.and_then(|id| status.profiles.iter().find(|p| p.id == id)) {
        let title = line.title().localized();
        if until_power_change {
            // Translators: {} is a profile's name; automatic switching
            // picks again when the power source changes.
            return i18n_f("{} until the power source changes", &[&title]);
        }
        return title;
    }
    match active {
        Some("") => gettext("None (tuned by hand)"),
        Some(gearshift::core::kernel_own::KERNEL_OWN) => gearshift::core::kernel_own::name().localized(),
        Some(other) => other.to_owned(),
        None => {
            // Say what is set instead, when every online CPU agrees.
            let mut values = status.cpus.iter().filter(|c| c.online).map(|c| c.epp_value);
            match values.next().flatten() {
                Some(first) if values.all(|v| v == Some(first)) => i18n_f("None (every CPU is at EPP {})", &[&first]),
                _ => gettext("None (the settings match no profile)"),
            }
        }
    }
}

/// The built-in profile for a desktop power panel name.
pub fn builtin_title(id: &str) -> Option<String> {
    BuiltinProfile::from_id(id).map(|p| p.name().localized())
}

#[cfg(test)]
mod tests {
    use super::super::testing::status;
    use super::*;

    #[test]
    fn outside_changes_name_the_occasion_and_the_cpus() {
        let change = gearshift::dbus::OutsideChange {
            occasion: "battery".into(),
            values: vec![
                ("energy_performance_preference".into(), vec![3], "115".into(), "64".into()),
                ("energy_performance_preference".into(), vec![0], "115".into(), "64".into()),
                ("energy_performance_preference".into(), vec![1, 2], "115".into(), "64".into()),
                ("scaling_governor".into(), vec![0], "performance".into(), "powersave".into()),
            ],
        };
        assert_eq!(
            super::outside_toast(&change),
            "On battery, settings of CPU 0-3 had been changed outside Gearshift: set back"
        );
        let mode = gearshift::dbus::OutsideChange { occasion: "driver-mode".into(), ..change };
        assert!(
            super::outside_toast(&mode).starts_with("The CPU driver was restarted"),
            "{}",
            super::outside_toast(&mode)
        );
    }

    #[test]
    fn each_helper_error_becomes_a_view() {
        let missing = ErrorView::from_client(&ClientError::NotInstalled);
        assert!(missing.lasting);
        assert!(missing.command.is_some());
        let denied = ErrorView::from_client(&ClientError::NotAuthorized("polkit says no".into()));
        assert!(!denied.lasting);
        assert!(denied.title.contains("not allowed"));
        let busy = ErrorView::from_client(&ClientError::WriteFailed(
            "writing energy_performance_preference for CPU 3 failed: Device or resource busy (EBUSY)".into(),
            Some(gearshift::client::Cause::EppBusy),
        ));
        assert!(busy.body.contains("performance governor holds EPP at 0"));
        let unsupported = ErrorView::from_client(&ClientError::Unsupported(
            "amd-pstate runs in passive mode, which has no EPP".into(),
            None,
        ));
        assert!(unsupported.body.contains("passive mode"));
        let offline = ErrorView::from_client(&ClientError::InvalidArgument(
            "CPU 4 is offline; bring it online first".into(),
            Some(gearshift::client::Cause::CpuOffline),
        ));
        assert!(offline.body.contains("come online"));
        let nobus = ErrorView::from_client(&ClientError::NoBus("no socket".into()));
        assert!(nobus.lasting && nobus.body.contains("system bus"));
    }

    #[test]
    fn saving_over_a_profile_of_the_same_name_asks_and_a_new_name_does_not() {
        use gearshift::core::custom::{id_for, parse_profiles};
        let saved = parse_profiles("[[profile]]\nid = \"büro\"\nname = \"Büro\"\nepp = 90\n").unwrap();
        let named = |name: &str| {
            let mut p = saved[0].clone();
            p.name = name.to_owned();
            p.id = id_for(name, &saved).id().to_owned();
            p
        };
        assert_eq!(replaced(&saved, &named("BÜRO")).map(|p| p.name.as_str()), Some("Büro"));
        assert!(replaced(&saved, &named("B ro")).is_none(), "a new name never replaces");
        assert!(replaced(&saved, &named("Büro!")).is_none(), "another name that makes the same id gets one of its own");
    }

    #[test]
    fn toasts_say_what_was_applied_where() {
        let s = status("meteor-lake-155h");
        let all: Vec<u32> = (0..22).collect();
        assert_eq!(switched_toast(&s, "balance_power", 22, &all), "Efficient applied: EPP 179 on 22 CPUs");
        // Nothing written: said in plain words, not "0 values changed".
        assert_eq!(switched_toast(&s, "balance_power", 0, &all), "Efficient applied: all 22 CPUs already had EPP 179");
        assert_eq!(switched_toast(&s, "power", 1, &[0]), "Power Saver applied: EPP 255 on 1 CPU");
        assert_eq!(
            switched_toast(&status("vm-no-cpufreq"), "power", 0, &[0, 1]),
            "Power Saver applied: all 2 CPUs already had these values"
        );
        // A hybrid custom profile: what each kind of core got.
        let mut hybrid = s.clone();
        hybrid.profiles.push(gearshift::core::status::ProfileLine {
            id: "mixed".into(),
            name: "Mixed".into(),
            builtin: false,
            epp: Some(179),
            epp_values: vec![179, 74],
            ..s.profiles[0].clone()
        });
        let (p, e) = (
            hybrid
                .cpus
                .iter()
                .filter(|c| c.core_type == Some(gearshift::core::identity::CoreType::Performance))
                .count(),
            hybrid.cpus.iter().filter(|c| c.core_type == Some(gearshift::core::identity::CoreType::Efficiency)).count(),
        );
        assert_eq!(
            switched_toast(&hybrid, "mixed", 22, &all),
            format!("Mixed applied: EPP 179 on {p} P-cores and 74 on {e} E-cores")
        );
        assert_eq!(active_title(&s, Some(""), false), "None (tuned by hand)");
        assert_eq!(active_title(&s, Some("kernel"), false), "The kernel's own values");
        assert_eq!(active_title(&s, Some("power"), false), "Power Saver");
        assert_eq!(active_title(&s, Some("power"), true), "Power Saver until the power source changes");
        // Linux 6.8 left Meteor Lake at the generic 128.
        assert_eq!(active_title(&s, None, false), "None (every CPU is at EPP 128)");
        assert_eq!(active_title(&status("raptor-lake-13700h"), None, false), "Efficient");
    }
}
