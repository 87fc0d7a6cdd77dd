//! The administrator's configuration as the status shows it.

use serde::Serialize;

/// The administrator's configuration, as the status shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigLine {
    /// The files read and used, in order.
    pub files: Vec<String>,
    /// Switching and tuning are the administrator's alone.
    pub locked: bool,
    /// Which file set each setting ("profile", "locked", "auto.on_ac", ...).
    pub settings: std::collections::BTreeMap<String, String>,
    /// Files set aside, with the line of each problem.
    pub problems: Vec<String>,
}

impl ConfigLine {
    /// The line of `config`, or `None` where there is no file at all.
    pub fn of(config: &crate::core::config::Config) -> Option<ConfigLine> {
        (!config.files.is_empty() || !config.problems.is_empty()).then(|| ConfigLine {
            files: config.files.iter().map(|f| f.display().to_string()).collect(),
            locked: config.locked_by().is_some(),
            settings: config.sources().into_iter().map(|(k, f)| (k, f.display().to_string())).collect(),
            problems: config.problems.iter().map(crate::core::config::ConfigProblem::english).collect(),
        })
    }
}
