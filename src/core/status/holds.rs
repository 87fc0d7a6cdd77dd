//! What holds a profile now and the rules that follow programs, as the
//! status shows them (docs/rules.md). The command line fills them: the
//! holds from the helper, the rules from the files.

use serde::Serialize;

use crate::core::panel::PanelProfile;
use crate::core::profile::BuiltinProfile;
use crate::core::rules::Rule;
use crate::i18n::{i18n_text, Text};

/// A hold of a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HoldLine {
    /// Who holds it (`com.valvesoftware.Steam`, `blender`).
    pub application_id: String,
    /// `performance` or `power`.
    pub profile: String,
    /// Why, in the holder's words.
    pub reason: String,
    /// GameMode's: a game runs, and GameMode sets the CPU meanwhile.
    pub game_mode: bool,
}

impl From<(String, String, String, bool)> for HoldLine {
    /// A hold as the helper's `Holds` property lists it: application id,
    /// profile id, reason, GameMode's.
    fn from((application_id, profile, reason, game_mode): (String, String, String, bool)) -> HoldLine {
        HoldLine { application_id, profile, reason, game_mode }
    }
}

impl HoldLine {
    /// The hold in words: "Performance, held by blender: rule: while
    /// blender runs", or GameMode's.
    pub fn sentence(&self) -> Text {
        let title = BuiltinProfile::from_id(&self.profile)
            .map_or_else(|| Text::from(self.profile.clone()), BuiltinProfile::name);
        if self.game_mode {
            i18n_text("{profile}, held by GameMode while a game runs (hands off the CPU)").arg_text("profile", title)
        } else {
            // Translators: {app} is the holder's application id, {reason} its words.
            i18n_text("{profile}, held by {app}: {reason}")
                .arg_text("profile", title)
                .arg("app", &self.application_id)
                .arg("reason", &self.reason)
        }
    }
}

/// A rule in effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuleLine {
    /// The executable's name it follows, if it names one.
    pub program: Option<String>,
    /// The desktop application id it follows, if it names one.
    pub app_id: Option<String>,
    /// `performance` or `power-saver`.
    pub profile: String,
    /// The file that holds it.
    pub file: String,
}

impl RuleLine {
    /// The line of `rule`, written in `file`.
    pub fn of(rule: &Rule, file: &std::path::Path) -> RuleLine {
        RuleLine {
            program: rule.program.clone(),
            app_id: rule.app_id.clone(),
            profile: rule.profile.clone(),
            file: file.display().to_string(),
        }
    }

    /// The rule in words: "while blender runs, Performance is held".
    pub fn sentence(&self) -> Text {
        let profile = PanelProfile::from_name(&self.profile).unwrap_or(PanelProfile::Performance).title();
        // Translators: a rule; {what} is a program's name or an application id (or both).
        i18n_text("while {what} runs, {profile} is held")
            .arg_text("what", crate::core::rules::following(self.program.as_deref(), self.app_id.as_deref()))
            .arg_text("profile", profile)
    }
}
