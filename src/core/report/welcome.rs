//! The first-run wizard's first page in plain words: what this machine is,
//! what Gearshift will change, and that nothing changes before Finish (with
//! the way back). No abbreviation a person must look up: the findings with
//! their details stay behind the page's expander.

use super::Resolver;
use crate::core::identity::Vendor;
use crate::core::parse::EppName;
use crate::core::plan::PreferenceForm;
use crate::core::profile::BuiltinProfile;
use crate::i18n::{i18n_plural, i18n_text, Text};

/// The three sentences, in reading order.
pub fn welcome(resolver: &Resolver<'_>, can_tune: bool, why_not: Option<&Text>) -> Vec<Text> {
    let mut out = vec![what_it_is(resolver)];
    out.push(match why_not.filter(|_| !can_tune) {
        Some(why) => why.clone(),
        None => what_changes(resolver),
    });
    if can_tune {
        out.push(i18n_text("Nothing changes before you press Finish, and “The kernel's own values” among the profiles hands the processor back at any time."));
    }
    out
}

fn what_it_is(resolver: &Resolver<'_>) -> Text {
    let machine = resolver.machine;
    // The brand string without its trademark signs and padding.
    let name = machine.identity.model_name.as_deref().map(|n| {
        let n = n.replace("(R)", "").replace("(TM)", "").replace("(tm)", "");
        n.split_whitespace().collect::<Vec<_>>().join(" ")
    });
    let codename = resolver.model.as_ref().and_then(|m| m.codename.clone());
    let cpu = match (name, codename) {
        // Translators: a processor's name, then its code name.
        (Some(name), Some(code)) => i18n_text("{name} ({codename})").arg("name", name).arg("codename", code),
        (Some(name), None) => Text::from(name),
        (None, Some(code)) => Text::from(code),
        (None, None) => i18n_text("a processor Gearshift does not know by name"),
    };
    let cpus = machine.online_ids().len() as u64;
    if machine.is_hybrid() {
        let (p, e) = machine.core_counts();
        // Translators: {cpu} is a processor's name; counts of CPUs.
        return i18n_text(
            "This computer runs on {cpu}: {cpus} CPUs, {p} of them on fast cores and {e} on efficient ones.",
        )
        .arg_text("cpu", cpu)
        .arg("cpus", cpus)
        .arg("p", p)
        .arg("e", e);
    }
    // Translators: {cpu} is a processor's name; {cpus} a count.
    i18n_plural("This computer runs on {cpu}, with {cpus} CPU.", "This computer runs on {cpu}, with {cpus} CPUs.", cpus)
        .arg_text("cpu", cpu)
        .arg("cpus", cpus)
}

fn what_changes(resolver: &Resolver<'_>) -> Text {
    let maker = match resolver.vendor {
        Vendor::Intel => i18n_text("Intel"),
        Vendor::Amd => i18n_text("AMD"),
        Vendor::Other => i18n_text("its maker"),
    };
    let balanced = BuiltinProfile::BalancePerformance.name();
    match resolver.form {
        PreferenceForm::KernelDynamic => i18n_text("Your kernel picks the energy setting by itself here: Gearshift switches between its low-power, balanced and performance choices for you."),
        PreferenceForm::Bias => i18n_text("This processor has no energy preference to set: Gearshift sets its older energy bias instead, from fastest to most frugal."),
        PreferenceForm::GovernorOnly => i18n_text("This processor takes no energy setting: Gearshift can only choose how the kernel picks its speed."),
        _ => match (resolver.epp_for(EppName::BalancePerformance), resolver.kernel_epp_for(EppName::BalancePerformance)) {
            (Some(ours), Some(theirs)) if ours != theirs && resolver.form == PreferenceForm::Number => {
                // Translators: {maker} is Intel or AMD; {profile} a profile name; EPP numbers (0 fastest, 255 most frugal).
                i18n_text("Gearshift gives it the energy setting {maker} chose for this model: {profile} gets {ours} (0 is fastest, 255 most frugal), where your kernel would use {theirs}.")
                    .arg_text("maker", maker)
                    .arg_text("profile", balanced)
                    .arg("ours", ours)
                    .arg("theirs", theirs)
            }
            // Translators: {maker} is Intel or AMD.
            _ => i18n_text("Gearshift switches between the energy settings {maker} made for this processor, and keeps them after sleep and restarts.")
                .arg_text("maker", maker),
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::core::machine::fixture;
    use crate::core::models::ModelTable;
    use crate::core::profile::Resolver;
    use crate::core::report::HardwareReport;

    fn words(name: &str) -> Vec<String> {
        let machine = fixture(name);
        let table = ModelTable::builtin();
        HardwareReport::build(&Resolver::new(&machine, &table)).welcome.iter().map(|t| t.english()).collect()
    }

    #[test]
    fn the_first_page_says_what_the_machine_is_and_what_changes_in_plain_words() {
        let mtl = words("meteor-lake-155h");
        assert_eq!(
            mtl[0],
            "This computer runs on Intel Core Ultra 7 155H (Meteor Lake): 22 CPUs, 12 of them on fast cores and 10 on efficient ones."
        );
        assert_eq!(mtl[1], "Gearshift gives it the energy setting Intel chose for this model: Balanced gets 64 (0 is fastest, 255 most frugal), where your kernel would use 128.");
        assert!(mtl[2].starts_with("Nothing changes before you press Finish"), "{mtl:?}");
        // No word a person must look up, on any of these machines.
        for name in
            ["meteor-lake-155h", "ivy-bridge-epb", "amd-7840hs-epp", "vm-no-cpufreq", "amd-ai300-7.1-dynamic-epp"]
        {
            for sentence in words(name) {
                for jargon in ["HWP", "CPPC", "EPB", "RAPL", "CVE", "family 6", "0x"] {
                    assert!(!sentence.contains(jargon), "{name}: {jargon} in {sentence:?}");
                }
            }
        }
        let vm = words("vm-no-cpufreq");
        assert_eq!(vm.len(), 2, "{vm:?}");
    }
}
