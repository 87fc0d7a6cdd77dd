//! The banner: the lasting condition under the header bar (a snapshot
//! shown read-only, a helper that cannot be reached, another power
//! manager), with the button that helps.

use gearshift::i18n::{gettext, i18n_f, i18n_text};

use super::ErrorView;

/// What the banner's button does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BannerAction {
    /// Put a command on the clipboard.
    Copy(String),
    /// Show an error's details.
    Details(ErrorView),
    /// Ask the helper again (it stopped).
    Retry,
}

/// What the banner says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banner {
    /// The sentence.
    pub text: String,
    /// The button's label and what it does.
    pub action: Option<(String, BannerAction)>,
}

/// Where the window's machine comes from, for the banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown<'a> {
    /// This computer, or a snapshot the helper serves: switching works.
    Served,
    /// The bundled demo snapshot.
    Demo,
    /// A snapshot in this directory, which the helper does not serve.
    Snapshot(&'a str),
    /// Served, but the administrator's file locks switching and tuning.
    Locked(&'a str),
}

pub use gearshift::client::locked_words;

/// The lasting condition, if any, first things first: a snapshot shown
/// read-only, then the helper's failure, then a helper that stopped
/// (`gone`: it was there and left the bus; "not installed" is only for a
/// helper never reached), then the administrator's lock, then the first
/// other power manager.
pub fn banner(shown: Shown<'_>, helper_error: Option<&ErrorView>, gone: bool, conflicts: &[String]) -> Option<Banner> {
    let read_only = match shown {
        Shown::Served | Shown::Locked(_) => None,
        Shown::Demo => Some(gettext("This is a demo snapshot of a Meteor Lake laptop. Switching is off: it would change this computer, not the snapshot.")),
        Shown::Snapshot(dir) => Some(i18n_f(
            "Showing the snapshot in {}. Switching is off: it would change this computer, not the snapshot.",
            &[&dir],
        )),
    };
    if let Some(text) = read_only {
        return Some(Banner { text, action: None });
    }
    if let Some(view) = helper_error {
        return Some(match &view.command {
            // Translators: {problem} is a sentence; {command} a shell command.
            Some(cmd) => Banner {
                text: i18n_text("{problem} To fix it, run: {command}")
                    .arg("problem", &view.title)
                    .arg("command", cmd)
                    .localized(),
                action: Some((gettext("Copy Command"), BannerAction::Copy(cmd.clone()))),
            },
            None => Banner {
                text: view.title.clone(),
                action: Some((gettext("Details"), BannerAction::Details(view.clone()))),
            },
        });
    }
    if gone {
        return Some(Banner {
            text: gettext(
                "The Gearshift helper stopped. The next change starts it again; what is shown is what it last said.",
            ),
            action: Some((gettext("Retry"), BannerAction::Retry)),
        });
    }
    if let Shown::Locked(file) = shown {
        return Some(Banner { text: locked_words(file), action: None });
    }
    let id = conflicts.first()?;
    let fix = gearshift::core::conflicts::fix(id).localized();
    // Translators: {program} is another power manager, {why} a sentence
    // on what it does, {command} a shell command.
    let text = i18n_text(
        "{program} also manages power here; Gearshift applies nothing on its own while it runs. {why} To resolve it, run: {command}",
    )
    .arg("program", id)
    .arg("why", gearshift::core::conflicts::explain(id).localized())
    .arg("command", &fix)
    .localized();
    Some(Banner { text, action: Some((gettext("Copy Command"), BannerAction::Copy(fix))) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unreachable(command: Option<&str>) -> ErrorView {
        ErrorView {
            title: "The helper is not installed.".into(),
            body: String::new(),
            command: command.map(str::to_owned),
            lasting: true,
        }
    }

    #[test]
    fn a_snapshot_comes_first_then_the_helper_then_other_power_managers() {
        let tlp = ["tlp".to_owned()];
        let error = unreachable(Some("./build-aux/run"));
        let shown = banner(Shown::Snapshot("/tmp/snap"), Some(&error), true, &tlp).unwrap();
        assert!(shown.text.contains("/tmp/snap"), "{shown:?}");
        assert_eq!(shown.action, None);
        assert!(banner(Shown::Demo, None, false, &[]).unwrap().text.contains("demo snapshot"));

        let helper = banner(Shown::Served, Some(&error), true, &tlp).unwrap();
        assert!(helper.text.contains("To fix it, run: ./build-aux/run"), "{helper:?}");
        assert_eq!(helper.action.unwrap().1, BannerAction::Copy("./build-aux/run".into()));
        let details = banner(Shown::Served, Some(&unreachable(None)), false, &[]).unwrap();
        assert_eq!(details.action.unwrap().1, BannerAction::Details(unreachable(None)));

        let other = banner(Shown::Served, None, false, &tlp).unwrap();
        assert!(other.text.starts_with("tlp also manages power here"), "{other:?}");
        assert!(matches!(other.action, Some((_, BannerAction::Copy(_)))));
        assert_eq!(banner(Shown::Served, None, false, &[]), None);
        // A helper that stopped: said so, with Retry, before the lock and
        // other power managers; never "not installed".
        let stopped = banner(Shown::Locked("/etc/gearshift/gearshift.toml"), None, true, &tlp).unwrap();
        assert!(stopped.text.contains("stopped") && !stopped.text.contains("not installed"), "{stopped:?}");
        assert_eq!(stopped.action.unwrap().1, BannerAction::Retry);

        // The administrator's lock after the helper's failure, before
        // another power manager; without a button.
        let file = "/etc/gearshift/conf.d/50-fleet.toml";
        let locked = banner(Shown::Locked(file), None, false, &tlp).unwrap();
        assert!(locked.text.contains("administrator") && locked.text.contains(file), "{locked:?}");
        assert_eq!(locked.action, None);
        assert_eq!(
            banner(Shown::Locked(file), Some(&error), false, &tlp),
            banner(Shown::Served, Some(&error), false, &[])
        );
    }
}
