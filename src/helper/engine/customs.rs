//! Custom profiles: saved in `profiles.toml`, validated against the machine
//! and against each other (`core::names`), never deleted while in use.

use super::{Engine, Permit};
use crate::core::custom::{CustomProfile, MAX_CUSTOM_PROFILES};
use crate::core::custom::{Field, ProfileError};
use crate::core::parse::quoted_text;
use crate::core::profile::Resolver;
use crate::helper::error::HelperError;
use crate::helper::state::AutoPolicy;
use crate::i18n::i18n_text;

impl Engine {
    /// Saves (or replaces) a custom profile, validated against this machine.
    ///
    /// # Errors
    /// A malformed profile, one this machine cannot honour, or a full list.
    pub async fn save_custom(&self, permit: &Permit, profile: CustomProfile) -> Result<(), HelperError> {
        self.check_not_declared(&profile.id)?;
        let mut txn = self.begin_for(permit).await;
        let mut profiles = self.own_profiles();
        // Names and ids that could pass for another profile (core::names),
        // against the profiles saved now.
        let profile = crate::core::custom::checked_for_saving(profile, &profiles)
            .map_err(|e| HelperError::InvalidArgument(e.sentence().into()))?;
        // Nor for one the administrator declared (compared as built-in
        // names are: what they look like, not only their ids).
        let declared = self.declared_profiles();
        let declared: Vec<(&str, &str)> = declared.iter().map(|(p, _)| (p.id.as_str(), p.name.as_str())).collect();
        if let Some((part, problem)) = crate::core::names::look_alike_declared(&profile.id, &profile.name, &declared) {
            let field = match part {
                crate::core::names::Part::Name => Field::Name,
                crate::core::names::Part::Id => Field::Id,
            };
            let error = ProfileError { profile: profile.id.clone(), field, message: problem };
            return Err(HelperError::InvalidArgument(error.sentence().into()));
        }
        {
            let machine = self.machine();
            Resolver::new(&machine, &self.table)
                .custom(&profile)
                .map_err(|e| HelperError::Unsupported(e.sentence().into()))?;
        }
        if profiles.len() >= MAX_CUSTOM_PROFILES && !profiles.iter().any(|p| p.id == profile.id) {
            return Err(HelperError::InvalidArgument(
                i18n_text("{count} custom profiles are the most the helper keeps")
                    .arg("count", MAX_CUSTOM_PROFILES)
                    .into(),
            ));
        }
        // A profile saved again keeps its place in the list.
        match profiles.iter_mut().find(|p| p.id == profile.id) {
            Some(old) => *old = profile,
            None => profiles.push(profile),
        }
        txn.save_profiles(&profiles).await.map_err(|e| HelperError::WriteFailed(cannot_save(&e)))?;
        txn.state().profiles = profiles;
        Ok(())
    }

    /// Deletes a custom profile. The active profile, the one a measurement
    /// will put back, and one the AC/battery policy switches to cannot be
    /// deleted: nothing may point at a profile that is gone. A policy that
    /// is off but still names it falls back to the default for that power
    /// source.
    ///
    /// # Errors
    /// No such profile, one in use, or the file cannot be written.
    pub async fn delete_custom(&self, permit: &Permit, id: &str) -> Result<(), HelperError> {
        self.check_not_declared(id)?;
        let mut txn = self.begin_for(permit).await;
        let mut profiles = self.own_profiles();
        let before = profiles.len();
        profiles.retain(|p| p.id != id);
        if profiles.len() == before {
            return Err(HelperError::InvalidArgument(
                i18n_text("there is no custom profile {id}").arg_text("id", quoted_text(id)).into(),
            ));
        }
        let named = Some(id.to_owned());
        let mut saved = {
            let state = self.shared.read();
            if state.control.lease.is_some() && state.saved.active_profile == named {
                return Err(HelperError::InvalidArgument(
                    i18n_text(
                        "profile {id} is what the measurement under way puts back when it ends: delete it afterwards",
                    )
                    .arg_text("id", quoted_text(id))
                    .into(),
                ));
            }
            if state.saved.active_profile == named || state.in_effect == named {
                return Err(HelperError::InvalidArgument(
                    i18n_text("profile {id} is the active profile: switch to another one before deleting it")
                        .arg_text("id", quoted_text(id))
                        .into(),
                ));
            }
            let auto = &state.saved.auto;
            if auto.enabled && (auto.on_ac == id || auto.on_battery == id) {
                return Err(HelperError::InvalidArgument(
                    i18n_text("profile {id} is used by automatic switching on AC or battery: choose other profiles there first")
                        .arg_text("id", quoted_text(id))
                        .into(),
                ));
            }
            state.saved.clone()
        };
        let defaults = AutoPolicy::default();
        if saved.auto.on_ac == id {
            saved.auto.on_ac = defaults.on_ac;
        }
        if saved.auto.on_battery == id {
            saved.auto.on_battery = defaults.on_battery;
        }
        txn.save_profiles(&profiles).await.map_err(|e| HelperError::WriteFailed(cannot_save(&e)))?;
        let changed = {
            let mut state = txn.state();
            state.profiles = profiles;
            let changed = state.saved != saved;
            state.saved = saved;
            changed
        };
        if changed {
            txn.save_state();
        }
        Ok(())
    }
}

/// The profiles file could not be written.
fn cannot_save(error: &dyn std::fmt::Display) -> crate::dbus::Sentence {
    i18n_text("cannot save the profiles: {error}").arg("error", error).into()
}
