//! `gearshift profile save` and `profile delete`: custom profiles from the
//! command line, made as the window's Tuning page makes them (the same id
//! from the name, the same checks) and kept by the helper. Values this
//! machine cannot take are refused here (exit 2) before the helper is
//! asked; replacing a profile of the same name asks first on a terminal and
//! needs `--yes` elsewhere.

use std::io::{BufRead, IsTerminal, Write};

use gearshift::core::custom::{checked_for_saving, find_profile, id_for, CustomProfile, Field, IdChoice, ProfileError};
use gearshift::dbus::profile::{list_from_wire, to_wire};
use gearshift::dbus::HelperError;
use gearshift::i18n::{gettext, i18n_text};

use super::args::SaveArgs;
use super::changes::call;
use super::{CliError, Context};

/// The custom profiles the helper keeps.
pub fn helper_customs() -> Result<Vec<CustomProfile>, CliError> {
    let listed = call(|p| async move { p.list_custom_profiles().await })?;
    list_from_wire(&listed).map_err(CliError::failed)
}

/// A profile that does not fit, in the command line's words: the option
/// at fault and what is wrong.
fn refused(err: &ProfileError) -> CliError {
    let option = match err.field {
        Field::Epp => "--epp",
        Field::EppEfficiencyCores => "--e-core-epp",
        Field::EppPerformanceCores => "--epp",
        Field::Governor => "--governor",
        Field::PlatformProfile => "--platform-profile",
        Field::EnergyBias => "--energy-bias",
        _ => "NAME",
    };
    CliError::input(format!("{option}: {}", err.message.localized()))
}

/// `gearshift profile save NAME ...`.
pub fn profile_save(ctx: &Context, args: SaveArgs) -> Result<(), CliError> {
    let SaveArgs { name, epp, e_core_epp, governor, platform_profile, energy_bias, yes } = args;
    if epp.is_none()
        && e_core_epp.is_none()
        && governor.is_none()
        && platform_profile.is_none()
        && energy_bias.is_none()
    {
        return Err(CliError::input(gettext("A profile has to set something.")).hint(gettext(
            "Give at least one of --epp, --e-core-epp, --governor, --platform-profile and --energy-bias.",
        )));
    }
    let wanted = |id: &str| CustomProfile {
        id: id.to_owned(),
        name: name.trim().to_owned(),
        epp: epp.clone(),
        epp_efficiency_cores: e_core_epp.clone(),
        governor: governor.clone(),
        platform_profile: platform_profile.clone(),
        energy_bias,
        ..CustomProfile::default()
    };
    // What this machine takes, checked before the helper is asked.
    let alone = wanted(id_for(&name, &[]).id());
    let alone = checked_for_saving(alone, &[]).map_err(|e| refused(&e))?;
    ctx.resolver().custom(&alone).map_err(|e| refused(&e))?;

    let existing = helper_customs()?;
    let choice = id_for(&name, &existing);
    let mut profile = wanted(choice.id());
    if let Some(same) = existing.iter().find(|p| p.id == choice.id()) {
        // Replaced, it keeps its name as it was written ("büro" changes "Büro").
        profile.name.clone_from(&same.name);
    }
    let profile = checked_for_saving(profile, &existing).map_err(|e| refused(&e))?;
    if let IdChoice::Replaces(_) = &choice {
        if !yes && !confirm_replace(&profile.name)? {
            return Err(CliError::failed(gettext("Nothing was saved.")));
        }
    }
    let wire = to_wire(&profile);
    call(|p| async move { p.save_custom_profile(&wire).await })?;
    let text = match choice {
        // Translators: a custom profile's name and its id.
        IdChoice::New(_) => i18n_text("Saved “{name}” ({id})."),
        IdChoice::Replaces(_) => i18n_text("Replaced “{name}” ({id})."),
    };
    println!("{}", text.arg("name", &profile.name).arg("id", &profile.id).localized());
    Ok(())
}

/// Asks on the terminal whether to replace the profile named `name`; away
/// from a terminal the answer is no, with what to add.
fn confirm_replace(name: &str) -> Result<bool, CliError> {
    // Translators: a custom profile's name.
    let question = i18n_text("A custom profile named “{name}” exists. Replace it? [y/N] ").arg("name", name);
    if !std::io::stdin().is_terminal() {
        return Err(CliError::input(
            i18n_text("A custom profile named “{name}” exists, and nothing was replaced.")
                .arg("name", name)
                .localized(),
        )
        .hint(gettext("Add --yes to replace it.")));
    }
    print!("{}", question.localized());
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).map_err(|e| CliError::failed(e.to_string()))?;
    let answer = answer.trim().to_lowercase();
    // The locale's own "yes" as the catalogue gives it, and "y".
    Ok(answer == "y" || answer == "yes" || answer == gettext("yes"))
}

/// `gearshift profile delete NAME`: a custom profile by name or id.
pub fn profile_delete(word: &str) -> Result<(), CliError> {
    if let Some(builtin) = find_profile(word, &[]) {
        return Err(CliError::input(
            // Translators: a built-in profile's id.
            i18n_text("{id} is a built-in profile: only custom profiles can be deleted.")
                .arg("id", builtin)
                .localized(),
        ));
    }
    let customs = helper_customs()?;
    let Some(id) = find_profile(word, &customs) else {
        let known: Vec<String> = customs.iter().map(|p| format!("{} ({})", p.name, p.id)).collect();
        let err =
            CliError::input(i18n_text("No custom profile is called {word}.").arg("word", word.trim()).localized());
        return Err(if known.is_empty() {
            err.hint(gettext("There are no custom profiles."))
        } else {
            err.hint(i18n_text("The custom profiles: {list}").arg("list", known.join(", ")).localized())
        });
    };
    let name = customs.iter().find(|p| p.id == id).map_or_else(|| id.clone(), |p| p.name.clone());
    let active = call(|p| async move { p.active_profile().await.map_err(HelperError::from) })?;
    if active == id {
        return Err(CliError::failed(
            // Translators: a custom profile's name.
            i18n_text("“{name}” is the active profile, so it cannot be deleted now.").arg("name", &name).localized(),
        )
        .hint(gettext("Switch to another profile first, for example: gearshift profile set balanced")));
    }
    let wanted = id.clone();
    call(|p| async move { p.delete_custom_profile(&wanted).await })?;
    println!(
        "{}",
        // Translators: a custom profile's name and its id.
        i18n_text("Deleted “{name}” ({id}).").arg("name", &name).arg("id", &id).localized()
    );
    Ok(())
}

/// `ctx` with the custom profiles of the running helper, where it serves
/// this machine (they are the helper's to keep, wherever its state
/// directory is); as read from the state directory otherwise. A helper
/// that is not running is not started to ask.
pub fn with_helper_customs(mut ctx: Context) -> Context {
    let listed = gearshift::client::facts::ask_serving(&ctx.root, |p| async move { p.list_custom_profiles().await });
    if let Some(customs) = listed.and_then(|l| list_from_wire(&l).ok()) {
        ctx.customs = customs;
    }
    ctx
}

/// `gearshift profile show NAME`: what a saved or declared profile sets
/// (`CustomProfile::values`), where it comes from, and what it gives this
/// machine; for a built-in profile, what it gives this machine.
///
/// # Errors
/// No profile has that name (exit 2).
pub fn profile_show(ctx: &Context, word: &str, json: bool) -> Result<(), CliError> {
    let config = gearshift::core::config::Config::load(&ctx.root, &ctx.resolver());
    let all = config.with_saved(&ctx.customs);
    let status = super::show::build_status(ctx);
    let Some(id) = find_profile(word, &all) else {
        let known: Vec<String> =
            status.profiles.iter().map(|p| format!("{} ({})", p.title().localized(), p.id)).collect();
        return Err(CliError::input(i18n_text("No profile is called {word}.").arg("word", word.trim()).localized())
            .hint(i18n_text("The profiles here: {list}").arg("list", known.join(", ")).localized()));
    };
    let line = status.profiles.iter().find(|p| p.id == id);
    let custom = all.iter().find(|p| p.id == id);
    let active = status.active_profile.as_deref() == Some(id.as_str());
    if json {
        let value = serde_json::json!({
            "id": id,
            "name": line.map(|l| l.name.clone()).or_else(|| custom.map(|c| c.name.clone())),
            "builtin": custom.is_none(),
            "values": custom,
            "declared_in": line.and_then(|l| l.declared_in.clone()),
            "active": active,
            "here": line,
        });
        let text = serde_json::to_string_pretty(&value).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
        return ctx.check_problems();
    }
    let title = if id == gearshift::core::kernel_own::KERNEL_OWN {
        gearshift::core::kernel_own::name().localized()
    } else {
        line.map_or_else(|| id.clone(), |l| l.title().localized())
    };
    println!("{title} ({id})");
    let mut table = super::table::Table::headless(2);
    match custom {
        Some(custom) => {
            for (label, value) in custom.values() {
                table.row(vec![label.localized(), value]);
            }
            if custom.values().is_empty() {
                table.row(vec![gettext("Sets"), gettext("Sets nothing")]);
            }
        }
        None if id == gearshift::core::kernel_own::KERNEL_OWN => table.row(vec![
            gettext("Sets"),
            gettext("EPP default, and the governor, limits and platform profile the machine had at boot; then nothing until a profile is chosen"),
        ]),
        None => table.row(vec![gettext("Built in"), gettext("its values follow this CPU's model (gearshift profile list)")]),
    }
    if let Some(line) = line {
        let here = match (&line.error, line.epp_values.as_slice()) {
            (Some(err), _) => i18n_text("cannot be used here: {why}").arg("why", err).localized(),
            (None, []) => gettext("no EPP here"),
            (None, values) => {
                let values: Vec<String> = values.iter().map(u8::to_string).collect();
                i18n_text("EPP {values}").arg("values", values.join("/")).localized()
            }
        };
        table.row(vec![gettext("Here"), here]);
    }
    let source = match line.and_then(|l| l.declared_in.as_deref()) {
        Some(file) => i18n_text("declared by your administrator in {file}; it can be used, not changed")
            .arg("file", file)
            .localized(),
        None if custom.is_some() => gettext("saved (gearshift profile save, or the window's Tuning page)"),
        None => gettext("built in"),
    };
    table.row(vec![gettext("From"), source]);
    table.row(vec![gettext("In use"), if active { gettext("yes") } else { gettext("no") }]);
    print!("{}", table.render(""));
    ctx.check_problems()
}
