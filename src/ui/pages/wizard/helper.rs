//! Step two: the helper, installed, reachable and allowed: asked while
//! the person reads the first step, and filled in when the answer comes.

use relm4::adw::{self, prelude::*};
use relm4::gtk;

use gearshift::client::{ClientError, Helper};
use gearshift::dbus::{HelperError, ACTION_SWITCH};
use gearshift::i18n::{gettext, i18n_f};

use super::parts::{page, row};

/// The step's page, and the group the answer fills.
pub fn build() -> (gtk::ScrolledWindow, adw::PreferencesGroup) {
    let (helper_page, content) = page(
        &gettext("The Helper"),
        &gettext("Gearshift changes nothing itself: a small helper does, after polkit allows it. Started for the first time (as this window just did), the helper applies Balanced at once, with this model's own values, as power-profiles-daemon applies its default; Finish then applies and keeps your choice."),
        "system-run-symbolic",
    );
    let group = adw::PreferencesGroup::new();
    content.append(&group);
    (helper_page, group)
}

/// What the helper check found.
#[derive(Debug, Clone)]
pub struct HelperCheck {
    /// Where the helper binary is installed, if it is.
    pub installed: Option<std::path::PathBuf>,
    /// The helper answered on the system bus (its version), or why not.
    pub reachable: Result<String, ClientError>,
    /// What polkit says about switching for this user: yes, with a password,
    /// no (a sentence, never a raw bus error); `None` where polkit could
    /// not be asked (no system bus).
    pub authorized: Option<Result<String, String>>,
}

/// Asks the bus and polkit (no prompt) about the helper.
pub async fn check_helper(client: &Helper) -> HelperCheck {
    let installed = gearshift::client::install::helper_program();
    let reachable = client.call(|p| async move { p.version().await.map_err(HelperError::from) }).await;
    let Ok(connection) = client.connection().await else {
        return HelperCheck { installed, reachable, authorized: None };
    };
    // Whatever fails here is said as a sentence; the bus's own words go to
    // the log only.
    let polkit_unreachable = |err: &dyn std::fmt::Display| {
        log::info!("polkit cannot be asked: {err}");
        gettext("polkit is not running or does not answer, so the helper refuses every change until it does.")
    };
    let authorized = async {
        let authority =
            zbus_polkit::policykit1::AuthorityProxy::new(&connection).await.map_err(|e| polkit_unreachable(&e))?;
        let subject = zbus_polkit::policykit1::Subject::new_for_owner(std::process::id(), None, None)
            .map_err(|e| polkit_unreachable(&e))?;
        let result = authority
            .check_authorization(&subject, ACTION_SWITCH, &std::collections::HashMap::new(), Default::default(), "")
            .await
            .map_err(|e| polkit_unreachable(&e))?;
        Ok(if result.is_authorized {
            gettext("You may switch profiles.")
        } else if result.is_challenge {
            gettext("You may switch profiles after entering a password.")
        } else {
            return Err(i18n_f(
                "polkit does not allow you to switch profiles. An administrator can allow it with a polkit rule for {}.",
                &[&ACTION_SWITCH],
            ));
        })
    }
    .await;
    HelperCheck { installed, reachable, authorized: Some(authorized) }
}

/// Fills the step with the check's answer (none: a snapshot, not asked).
pub fn fill(group: &adw::PreferencesGroup, check: Option<&HelperCheck>) {
    let Some(check) = check else {
        group.add(&row(
            &gettext("Snapshot"),
            &gettext("A snapshot is only shown; the helper is not asked."),
            Some("dialog-information-symbolic"),
        ));
        return;
    };
    for (title, text, good) in helper_rows(check) {
        let r = row(&title, &text, Some(if good { "emblem-ok-symbolic" } else { "dialog-warning-symbolic" }));
        r.set_subtitle_lines(0);
        group.add(&r);
    }
}

/// The helper page's rows: title, what was found and what to do, and
/// whether it is fine. Advice fits the cause: with no system bus there is
/// nothing to reload and no polkit to write a rule for.
pub fn helper_rows(check: &HelperCheck) -> Vec<(String, String, bool)> {
    let mut rows = vec![(
        gettext("Installed"),
        if let Some(path) = &check.installed {
            i18n_f("Yes, at {}", &[&path.display()])
        } else {
            i18n_f("No. {}", &[&gearshift::client::install::origin().advice()])
        },
        check.installed.is_some(),
    )];
    let reachable = match &check.reachable {
        Ok(version) => i18n_f("Yes, version {}", &[version]),
        Err(ClientError::NoBus(_)) => gettext(
            "No: there is no system bus here (inside a container there often is none). Gearshift shows this machine, but nothing can be changed.",
        ),
        // Installed, but the bus does not know it yet: reloading helps.
        Err(ClientError::NotInstalled) if check.installed.is_some() => {
            gettext("No: the bus does not know the helper yet. If it was just installed: sudo systemctl reload dbus")
        }
        Err(err) => i18n_f("No: {}", &[&err.headline()]),
    };
    rows.push((gettext("Reachable"), reachable, check.reachable.is_ok()));
    if let Some(authorized) = &check.authorized {
        let (text, good) = match authorized {
            Ok(text) => (text.clone(), true),
            Err(why) => (why.clone(), false),
        };
        rows.push((gettext("Allowed"), text, good));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_fits_the_cause() {
        // No system bus: nothing to reload, no polkit to write a rule for.
        let no_bus = HelperCheck {
            installed: Some("/usr/libexec/gearshift-helper".into()),
            reachable: Err(ClientError::NoBus("/run/dbus/system_bus_socket: No such file or directory".into())),
            authorized: None,
        };
        let rows = helper_rows(&no_bus);
        let text: String = rows.iter().map(|(t, s, _)| format!("{t}: {s}\n")).collect();
        assert_eq!(rows.len(), 2, "{text}");
        assert!(text.contains("there is no system bus here"), "{text}");
        for wrong in ["reload", "polkit", "system_bus_socket", "zbus", "org.freedesktop"] {
            assert!(!text.contains(wrong), "{wrong}: {text}");
        }
        // Installed but unknown to the bus: reloading is the advice.
        let unknown = HelperCheck {
            installed: Some("/usr/libexec/gearshift-helper".into()),
            reachable: Err(ClientError::NotInstalled),
            authorized: Some(Err("polkit does not allow you to switch profiles.".into())),
        };
        let text: String = helper_rows(&unknown).iter().map(|(_, s, _)| s.clone()).collect();
        assert!(text.contains("sudo systemctl reload dbus"), "{text}");
        let fine = HelperCheck {
            installed: Some("/usr/libexec/gearshift-helper".into()),
            reachable: Ok("0.1.0".into()),
            authorized: Some(Ok("You may switch profiles.".into())),
        };
        assert!(helper_rows(&fine).iter().all(|(_, _, good)| *good));
    }
}
