//! The administrator's configuration (`core::config`, docs/fleet.md), as
//! the helper takes it: at start and on reload (SIGHUP, `ReloadConfig`).
//!
//! - Its boot profile replaces a default no person chose (the first
//!   start's Balanced, or its own earlier boot profile), never a choice.
//! - Its AC/battery policy applies while no person has set one.
//! - Its declared profiles join the custom ones, usable and not editable.
//! - `locked` refuses every switch and every tuning, on every interface,
//!   saying which file set it.

use super::Engine;
use crate::core::config::Config;
use crate::core::custom::CustomProfile;
use crate::core::parse::quoted_text;
use crate::core::profile::Resolver;
use crate::helper::control::Hold;
use crate::helper::error::HelperError;
use crate::i18n::i18n_text;

impl Engine {
    /// Reads the configuration under the root and takes it into the state
    /// (saved where that changed); the caller applies. Returns the
    /// problems, each also logged with its file and line.
    pub async fn load_config(&self) -> Vec<String> {
        self.take_config().await.0
    }

    /// [`Engine::load_config`], also answering the holds a lock that
    /// arrived with it ended: while the administrator locks switching, no
    /// application holds a profile either (no hold can be taken while
    /// locked, and one taken before would keep its profile, and its holder
    /// could still end it, changing the files). A measurement under way
    /// ends too, putting the choice back.
    async fn take_config(&self) -> (Vec<String>, Vec<Hold>) {
        let (root, machine, table) = (self.root.clone(), self.machine(), self.table.clone());
        let loaded = crate::helper::off_runtime(move || Config::load(&root, &Resolver::new(&machine, &table))).await;
        let config = loaded.unwrap_or_default();
        let problems: Vec<String> = config.problems.iter().map(ToString::to_string).collect();
        for problem in &problems {
            log::warn!("{problem} (this file is ignored; the others apply)");
        }
        if !config.files.is_empty() {
            log::info!(
                "administrator's configuration: {}",
                config.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
            );
        }
        let mut txn = self.begin().await;
        let mut ended = Vec::new();
        let changed = {
            let mut state = txn.state();
            let before = state.saved.clone();
            if let Some(boot) = config.profile.as_ref().filter(|_| state.saved.by_default) {
                state.saved.active_profile = Some(boot.value.clone());
            }
            if !state.saved.auto_by_person {
                let auto = &mut state.saved.auto;
                if let Some(enabled) = &config.auto_enabled {
                    auto.enabled = enabled.value;
                }
                if let Some(on_ac) = &config.on_ac {
                    auto.on_ac.clone_from(&on_ac.value);
                }
                if let Some(on_battery) = &config.on_battery {
                    auto.on_battery.clone_from(&on_battery.value);
                }
            }
            let was_locked = state.config.locked_by().is_some();
            state.config = config;
            if !was_locked && state.config.locked_by().is_some() {
                ended = state.control.release_all();
            }
            state.saved != before
        };
        if changed {
            txn.save_state();
        }
        if !ended.is_empty() {
            log::info!("the administrator's lock ended {} hold(s)", ended.len());
        }
        if txn.state().config.locked_by().is_some() {
            self.end_measurement_for_lock(&mut txn).await;
        }
        (problems, ended)
    }

    /// Reads the configuration again and applies what it changed.
    pub async fn reload_config(&self, why: &str) -> Vec<String> {
        let (problems, ended) = self.take_config().await;
        self.reapply(why, false).await;
        self.notify_with(super::Notice { reloaded: true, ended, ..super::Notice::default() }).await;
        crate::helper::journal::handled(format_args!("configuration reloaded: {} problems", problems.len()));
        problems
    }

    /// The file that locks switching and tuning, where one does ("" where
    /// none does): the `AdministratorLock` property.
    pub fn locked_by(&self) -> String {
        self.shared.read().config.locked_by().map(|f| f.display().to_string()).unwrap_or_default()
    }

    /// Refuses a switch or tuning while the configuration locks them.
    ///
    /// # Errors
    /// Locked, with the file that says so.
    pub fn check_unlocked(&self) -> Result<(), HelperError> {
        match self.shared.read().config.locked_by() {
            Some(file) => Err(HelperError::NotAuthorized(
                i18n_text("switching and tuning are set by your administrator in {file} (locked = true)")
                    .arg("file", file.display())
                    .into(),
            )
            .because(crate::dbus::error::Cause::Locked)),
            None => Ok(()),
        }
    }

    /// Refuses to change or delete a profile the configuration declares.
    ///
    /// # Errors
    /// `id` is declared, with the file that declares it.
    pub fn check_not_declared(&self, id: &str) -> Result<(), HelperError> {
        let state = self.shared.read();
        match state.config.profiles.iter().find(|p| p.value.id == id) {
            Some(declared) => Err(HelperError::InvalidArgument(
                i18n_text("profile {id} is set by your administrator in {file}: it cannot be changed or deleted here")
                    .arg_text("id", quoted_text(id))
                    .arg("file", declared.file.display())
                    .into(),
            )),
            None => Ok(()),
        }
    }

    /// The profiles the configuration declares, each with its file.
    pub fn declared_profiles(&self) -> Vec<(CustomProfile, String)> {
        let state = self.shared.read();
        state.config.profiles.iter().map(|p| (p.value.clone(), p.file.display().to_string())).collect()
    }
}
