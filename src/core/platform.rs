//! The firmware's ACPI platform profile: fan curves and power limits that
//! laptop firmware (ThinkPad, Dell, HP, ASUS, Lenovo...) switches as a whole.
//!
//! Two interfaces show it (docs/interfaces.md, "Platform profile"):
//! - the legacy `sys/firmware/acpi/platform_profile` with
//!   `platform_profile_choices`, one per machine;
//! - since Linux 6.14 also one class device per handler,
//!   `sys/class/platform-profile/platform-profile-N/{name,profile,choices}`.
//!   Where there are class devices the legacy file shows the choices all
//!   handlers share (their hidden choices included, 6.14), and `custom`
//!   when their profiles disagree; Gearshift then writes each handler
//!   itself, and reads the legacy file's `custom` as "the handlers differ".
//!
//! Not every class device is firmware: amd-pstate's dynamic EPP (7.1)
//! registers one per CPU, `amd-pstate-epp-cpuN` below the CPU's device,
//! whose choices set that CPU's EPP. Those are CPU controls
//! ([`CpuHandler`]), kept apart from the firmware's handlers: they are
//! neither shown as firmware nor written by a profile's firmware settings.
//!
//! Paths are built from fixed names and parsed integers only.

use serde::{Deserialize, Serialize};

use super::parse::EppName;
use super::paths::numbered;
use super::root::Probe;

/// The legacy file (before 6.14 the only one).
pub const LEGACY_PROFILE: &str = "sys/firmware/acpi/platform_profile";
/// The legacy choices.
pub const LEGACY_CHOICES: &str = "sys/firmware/acpi/platform_profile_choices";
/// The directory the legacy files live in (watched for a late-loading driver).
pub const LEGACY_DIR: &str = "sys/firmware/acpi";
/// The class (Linux 6.14 and later).
pub const CLASS_DIR: &str = "sys/class/platform-profile";

/// The names the kernel knows, in its order (`profile_names[]` in
/// drivers/acpi/platform_profile.c), which is also the order of `choices`.
/// `max-power` came with Linux 6.19: offered in custom profiles where a
/// handler has it, never chosen by a built-in profile.
pub const PROFILE_NAMES: &[&str] =
    &["low-power", "cool", "quiet", "balanced", "balanced-performance", "performance", "max-power", "custom"];

/// The most power a handler allows (Linux 6.19): never a built-in profile's.
pub const MAX_POWER: &str = "max-power";

/// The name amd-pstate gives the platform profile of CPU N (`amd-pstate-epp-cpuN`).
pub const CPU_HANDLER_PREFIX: &str = "amd-pstate-epp-cpu";

/// The CPU a handler belongs to, by the `name` amd-pstate gives it
/// (`amd-pstate-epp-cpuN`); `None` for the firmware's handlers.
pub fn cpu_of_handler(name: &str) -> Option<u32> {
    numbered(name.trim(), CPU_HANDLER_PREFIX)
}

/// The longest handler name shown; longer ones (or ones with control
/// characters) are shown by their directory's name.
const MAX_NAME: usize = 64;

/// What power-profiles-daemon writes for power-saver, in order of preference.
pub const LOW_POWER_CHOICES: &[&str] = &["low-power", "quiet", "cool"];

/// Where a handler is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "interface", content = "number")]
pub enum HandlerId {
    /// `sys/firmware/acpi/platform_profile`.
    Legacy,
    /// `sys/class/platform-profile/platform-profile-N`.
    Class(u32),
}

impl HandlerId {
    /// The `profile` file, relative to the root.
    pub fn profile_file(self) -> String {
        match self {
            HandlerId::Legacy => LEGACY_PROFILE.to_owned(),
            HandlerId::Class(n) => format!("{CLASS_DIR}/platform-profile-{n}/profile"),
        }
    }

    /// The `name` file of a class device (the legacy file has none).
    pub fn name_file(self) -> Option<String> {
        match self {
            HandlerId::Legacy => None,
            HandlerId::Class(n) => Some(format!("{CLASS_DIR}/platform-profile-{n}/name")),
        }
    }

    /// The `choices` file, relative to the root.
    pub fn choices_file(self) -> String {
        match self {
            HandlerId::Legacy => LEGACY_CHOICES.to_owned(),
            HandlerId::Class(n) => format!("{CLASS_DIR}/platform-profile-{n}/choices"),
        }
    }
}

/// One platform profile handler.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Handler {
    /// Where it is written.
    pub id: HandlerId,
    /// `legacy`, or `class:NAME` with the handler's `name` (the directory's
    /// name where it has none).
    pub label: String,
    /// What it offers, in the kernel's order.
    pub choices: Vec<String>,
    /// What it shows now (`None` when unreadable or not a known name).
    pub current: Option<String>,
}

/// A CPU's own platform profile (amd-pstate with dynamic EPP, Linux 7.1):
/// `low-power`, `balanced` and `performance` set that CPU's EPP to 255, the
/// kernel's balanced value (0 on AC, 128 on battery) and 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CpuHandler {
    /// The CPU it belongs to.
    pub cpu: u32,
    /// Where it is written.
    pub id: HandlerId,
    /// What it offers, in the kernel's order.
    pub choices: Vec<String>,
    /// What it shows now.
    pub current: Option<String>,
}

/// What a CPU's own platform profile is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpuChoice {
    /// EPP 255.
    LowPower,
    /// The kernel's balanced value: 0 on AC, 128 on battery.
    Balanced,
    /// EPP 0.
    Performance,
}

impl CpuChoice {
    /// The name as the kernel spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            CpuChoice::LowPower => "low-power",
            CpuChoice::Balanced => "balanced",
            CpuChoice::Performance => "performance",
        }
    }

    /// The choice for a built-in profile's preference: both balanced
    /// profiles are the kernel's balanced value.
    pub fn for_epp_name(name: EppName) -> CpuChoice {
        match name {
            EppName::Performance => CpuChoice::Performance,
            EppName::Power => CpuChoice::LowPower,
            EppName::Default | EppName::BalancePerformance | EppName::BalancePower => CpuChoice::Balanced,
        }
    }

    /// The EPP the kernel sets for it (`None`: the balanced value, which
    /// the kernel picks by the power source).
    pub fn epp(self) -> Option<u8> {
        match self {
            CpuChoice::LowPower => Some(255),
            CpuChoice::Balanced => None,
            CpuChoice::Performance => Some(0),
        }
    }
}

/// Every platform profile handler of the machine, firmware and CPUs apart.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Handlers {
    /// The firmware's (fans, power limits), where a driver offers one.
    pub firmware: Option<PlatformProfile>,
    /// The CPUs' own, by CPU number.
    pub cpus: Vec<CpuHandler>,
}

/// The platform profile of this machine, where it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlatformProfile {
    /// The handlers Gearshift writes: every class device, or the legacy
    /// file where there are none.
    pub handlers: Vec<Handler>,
    /// Which interfaces exist (`legacy`, `class:NAME`), for reports.
    pub interfaces: Vec<String>,
    /// The choices every handler offers, in the kernel's order.
    pub choices: Vec<String>,
    /// What the machine shows: the handlers' common profile, or `custom`
    /// when they disagree.
    pub current: Option<String>,
}

impl PlatformProfile {
    /// What the firmware offers, as `status` and `detect` both say it: the
    /// names its handlers take where they take the same, else each
    /// handler's own ("asus-wmi: quiet, balanced, performance / amd-pmf:
    /// low-power, balanced, performance"), in the kernel's order.
    pub fn offered(&self) -> String {
        let ordered = |choices: &[String]| -> Vec<String> {
            let mut known: Vec<String> =
                PROFILE_NAMES.iter().filter(|n| choices.iter().any(|c| c == *n)).map(|n| (*n).to_owned()).collect();
            known.extend(choices.iter().filter(|c| !PROFILE_NAMES.contains(&c.as_str())).cloned());
            known
        };
        let lists: Vec<(&str, Vec<String>)> = self
            .handlers
            .iter()
            .map(|h| (h.label.strip_prefix("class:").unwrap_or(&h.label), ordered(&h.choices)))
            .collect();
        match lists.split_first() {
            None => ordered(&self.choices).join(", "),
            Some(((_, first), rest)) if rest.iter().all(|(_, c)| c == first) => first.join(", "),
            Some(_) => {
                lists.iter().map(|(label, c)| format!("{label}: {}", c.join(", "))).collect::<Vec<_>>().join(" / ")
            }
        }
    }
}

impl PlatformProfile {
    /// Reads both interfaces. `None` when neither offers a choice (no
    /// driver loaded, or one that registered with nothing to choose: the
    /// files then hold an empty line). The CPUs' own handlers are left out
    /// ([`Handlers::read`]).
    pub fn read(probe: &mut Probe<'_>) -> Option<PlatformProfile> {
        Handlers::read(probe).firmware
    }

    /// True when every handler offers `choice`.
    pub fn offers(&self, choice: &str) -> bool {
        self.choices.iter().any(|c| c == choice)
    }

    /// What a custom profile may ask of the firmware, in the kernel's
    /// order: the choices every handler offers, and `max-power` (6.19)
    /// where a handler has it (the others get `performance`:
    /// [`PlatformProfile::choice_of`]).
    pub fn custom_choices(&self) -> Vec<String> {
        let any_max = self.handlers.iter().any(|h| h.choices.iter().any(|c| c == MAX_POWER));
        PROFILE_NAMES
            .iter()
            .filter(|name| self.offers(name) || (**name == MAX_POWER && any_max))
            .map(|name| (*name).to_owned())
            .collect()
    }

    /// The choice a handler gets for a custom profile's `choice` (one of
    /// [`PlatformProfile::custom_choices`]): the choice itself, or, for
    /// `max-power` on a handler without it, `performance`.
    pub fn choice_of(handler: &Handler, choice: &str) -> Option<String> {
        if handler.choices.iter().any(|c| c == choice) {
            return Some(choice.to_owned());
        }
        (choice == MAX_POWER).then(|| choice_for(&handler.choices, Wanted::Performance)).flatten()
    }
}

impl Handlers {
    /// Reads the class devices (the CPUs' own apart) and the legacy file.
    /// The legacy file is a handler of its own only where there are no
    /// class devices (kernels before 6.14): otherwise writing it would
    /// write every handler, the CPUs' too.
    pub fn read(probe: &mut Probe<'_>) -> Handlers {
        Handlers::read_again(probe, None)
    }

    /// Reads them again, where `before` is what they were: while the class
    /// devices are the same ones, the CPUs' own are taken as they were
    /// (only the helper writes them, and each write notifies the legacy
    /// file: reading 24 of them again for each would be for nothing).
    pub fn read_again(probe: &mut Probe<'_>, before: Option<&Handlers>) -> Handlers {
        let numbers = class_numbers(&probe.list(CLASS_DIR));
        let same_devices = before.is_some_and(|b| {
            let mut known: Vec<u32> = b
                .cpus
                .iter()
                .map(|h| h.id)
                .chain(b.firmware.iter().flat_map(|f| f.handlers.iter().map(|h| h.id)))
                .filter_map(|id| match id {
                    HandlerId::Class(n) => Some(n),
                    HandlerId::Legacy => None,
                })
                .collect();
            known.sort_unstable();
            known == numbers
        });
        let mut handlers = Vec::new();
        let mut cpus = Vec::new();
        let mut any_class = false;
        for number in numbers {
            any_class = true;
            let id = HandlerId::Class(number);
            if same_devices {
                if let Some(known) = before.and_then(|b| b.cpus.iter().find(|h| h.id == id)) {
                    cpus.push(known.clone());
                    continue;
                }
            }
            let name = id
                .name_file()
                .and_then(|file| probe.text(&file))
                .map(|t| t.trim().to_owned())
                .filter(|t| shown_name(t))
                .unwrap_or_else(|| format!("platform-profile-{number}"));
            let Some(handler) = read_handler(probe, id, format!("class:{name}")) else { continue };
            match cpu_of_handler(&name) {
                Some(cpu) => {
                    cpus.push(CpuHandler { cpu, id, choices: handler.choices, current: handler.current });
                }
                None => handlers.push(handler),
            }
        }
        cpus.sort_by_key(|h| h.cpu);
        cpus.dedup_by_key(|h| h.cpu);
        let legacy = read_handler(probe, HandlerId::Legacy, "legacy".to_owned());
        let mut interfaces: Vec<String> = Vec::new();
        if legacy.is_some() {
            interfaces.push("legacy".to_owned());
        }
        interfaces.extend(handlers.iter().map(|h| h.label.clone()));
        if !any_class {
            handlers.extend(legacy);
        }
        if handlers.is_empty() {
            return Handlers { firmware: None, cpus };
        }
        let choices: Vec<String> = PROFILE_NAMES
            .iter()
            .filter(|name| handlers.iter().all(|h| h.choices.iter().any(|c| c == *name)))
            .map(|name| (*name).to_owned())
            .collect();
        let first = handlers[0].current.clone();
        let current = if handlers.iter().all(|h| h.current == first) { first } else { Some("custom".to_owned()) };
        Handlers { firmware: Some(PlatformProfile { handlers, interfaces, choices, current }), cpus }
    }
}

/// Whether a handler's `name` is shown as it is: printable text of at most
/// [`MAX_NAME`] bytes, spaces inside allowed (Intel's "SoC Power Slider").
fn shown_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME && name.chars().all(|c| c.is_ascii_graphic() || c == ' ')
}

/// The numbers of the class devices among the names in [`CLASS_DIR`],
/// ascending.
pub fn class_numbers(names: &[String]) -> Vec<u32> {
    let mut numbers: Vec<u32> = names.iter().filter_map(|n| numbered(n, "platform-profile-")).collect();
    numbers.sort_unstable();
    numbers
}

/// A handler, where it offers at least one known name.
fn read_handler(probe: &mut Probe<'_>, id: HandlerId, label: String) -> Option<Handler> {
    let text = probe.text(&id.choices_file())?;
    let choices: Vec<String> = PROFILE_NAMES
        .iter()
        .filter(|name| text.split_whitespace().any(|word| word == **name))
        .map(|name| (*name).to_owned())
        .collect();
    if choices.is_empty() {
        return None;
    }
    let current =
        probe.text(&id.profile_file()).map(|t| t.trim().to_owned()).filter(|t| PROFILE_NAMES.contains(&t.as_str()));
    Some(Handler { id, label, choices, current })
}

/// What a built-in profile asks of the firmware, as power-profiles-daemon
/// maps it: `performance`, `balanced`, or the first offered of
/// `low-power`, `quiet`, `cool`. `None` where the handler offers none.
pub fn choice_for(handler_choices: &[String], wanted: Wanted) -> Option<String> {
    let offered = |name: &str| handler_choices.iter().any(|c| c == name);
    let candidates: &[&str] = match wanted {
        Wanted::Performance => &["performance"],
        Wanted::Balanced => &["balanced"],
        Wanted::LowPower => LOW_POWER_CHOICES,
    };
    candidates.iter().find(|c| offered(c)).map(|c| (*c).to_owned())
}

/// The three things a built-in profile can ask of the firmware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// `performance`.
    Performance,
    /// `balanced`.
    Balanced,
    /// `low-power`, `quiet` or `cool`.
    LowPower,
}

impl Wanted {
    /// What a platform profile name means, the other way round: a firmware
    /// hotkey that chose it asks for this. `None` for names with no
    /// built-in counterpart (`balanced-performance`, `custom`).
    pub fn from_choice(choice: &str) -> Option<Wanted> {
        match choice {
            "performance" => Some(Wanted::Performance),
            "balanced" => Some(Wanted::Balanced),
            "low-power" | "quiet" | "cool" => Some(Wanted::LowPower),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
