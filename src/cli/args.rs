//! The command line, declared once (clap's derive) with translated help;
//! the man page is generated from the same definition. Defaults are written
//! here only: the commands get the values parsed.

use clap::builder::TypedValueParser as _;
use gearshift::core::custom::EppSetting;
use gearshift::core::machine::DriverMode;
use std::path::PathBuf;

use clap::{Arg, ArgAction, CommandFactory, FromArgMatches, Parser, Subcommand};

use gearshift::i18n::{gettext, i18n_text};

pub use super::values::Repeats;
use super::values::{
    drop_in_name, energy_bias, epp_number, epp_setting, hold_profile, interval_ms, most_rounds, repeats, sample_count,
};

/// `gearshift`: without a subcommand, the window (or `--tray`).
#[derive(Debug, Parser)]
#[command(
    name = "gearshift",
    version,
    about = gettext("Run your CPU the way its maker tuned it"),
    long_about = gettext(
        "Gearshift shows what your CPU is doing and switches its energy performance preference (EPP) to the values the CPU's maker chose for each profile. Intel tuned Meteor Lake and Arrow Lake to 64 for \"balanced\" and its Xeons to 32, but kernels before about 6.11 and other tools write the generic 128; Gearshift writes the model's own number.\n\nWithout a subcommand Gearshift opens its window. Changes go through gearshift-helper, a small privileged service that asks polkit whether you may make them.",
    ),
    after_help = gettext(
        "Examples:\n  gearshift status                 what this machine is and does now\n  gearshift profile set balance_power\n  gearshift profile set kernel     hand the CPU back: the kernel's own values, nothing re-applied\n  gearshift epp set --cpus 12-21 200   a custom EPP for some CPUs\n  gearshift monitor --count 5      five samples of every CPU\n  gearshift measure --repeats 2    work per joule of each profile here\n  gearshift launch -- blender      Performance while Blender runs\n  gearshift --root DIR status      read a snapshot made with `gearshift snapshot DIR`\n\nExit status: 0 done, 1 refused or failed, 2 bad usage or unreadable input.",
    )
)]
pub struct Cli {
    /// The snapshot to read instead of this machine.
    #[arg(
        long,
        value_name = "DIR",
        env = "GEARSHIFT_ROOT",
        global = true,
        help = gettext("Read the machine snapshot in DIR (holding sys/ and proc/) instead of this machine; commands that change something are then refused")
    )]
    pub root: Option<PathBuf>,
    /// Only the tray indicator.
    #[arg(long, help = gettext("Run only the tray indicator"))]
    pub tray: bool,
    /// The bundled demo snapshot.
    #[arg(long, help = gettext("Open a bundled demo snapshot (a Meteor Lake laptop); nothing can be changed in it"))]
    pub demo: bool,
    /// The subcommand, if any.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `--json`, as every reading command has it.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Json {
    /// JSON instead of a table.
    #[arg(long, help = gettext("Print JSON instead of a table"))]
    pub json: bool,
}

/// A subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// `status`.
    #[command(about = gettext("Show the machine, every CPU and every profile as it resolves here"))]
    Status(Json),
    /// `detect`.
    #[command(about = gettext("Show the hardware report: what was found and what Gearshift will change"))]
    Detect(Json),
    /// `profile list|get|set`.
    #[command(about = gettext("The profiles: list them, get the active one, set another, save and delete your own"), arg_required_else_help = false)]
    Profile {
        /// What to do.
        #[command(subcommand)]
        action: ProfileAction,
    },
    /// `mode [set MODE]`.
    #[command(
        about = gettext("Show or switch the cpufreq driver's mode (intel_pstate, amd-pstate)"),
        long_about = gettext("Without a subcommand, show the driver's mode and the modes it takes. In active mode the CPU picks its own frequencies guided by EPP (intel_pstate, amd-pstate-epp); in passive and guided mode a kernel governor picks them.")
    )]
    Mode {
        /// For showing it.
        #[command(flatten)]
        json: Json,
        /// Switching it.
        #[command(subcommand)]
        action: Option<ModeAction>,
    },
    /// `epp set`.
    #[command(about = gettext("Set a raw energy performance preference"), arg_required_else_help = false)]
    Epp {
        /// What to do.
        #[command(subcommand)]
        action: EppAction,
    },
    /// `governor set`.
    #[command(about = gettext("Set the cpufreq governor"), arg_required_else_help = false)]
    Governor {
        /// What to do.
        #[command(subcommand)]
        action: GovernorAction,
    },
    /// `auto set|off|status`.
    #[command(about = gettext("Switch profiles automatically on AC power and on battery"), arg_required_else_help = false)]
    Auto {
        /// What to do.
        #[command(subcommand)]
        action: AutoAction,
    },
    /// `monitor`.
    #[command(about = gettext("Print live per-CPU frequency, EPP and governor"))]
    Monitor {
        /// Samples before stopping.
        #[arg(
            long,
            value_name = "N",
            value_parser = sample_count,
            help = gettext("Stop after N samples (default: until interrupted)")
        )]
        count: Option<u64>,
        /// Between samples.
        #[arg(
            long,
            value_name = "MS",
            default_value_t = 1000,
            value_parser = interval_ms,
            help = gettext("Time between samples in milliseconds")
        )]
        interval_ms: u64,
        /// A JSON object a line.
        #[arg(long, help = gettext("Print one JSON object per sample and line"))]
        json: bool,
    },
    /// `measure`.
    #[command(
        about = gettext("Measure how much work per joule each profile gives on this machine"),
        long_about = gettext("Runs a fixed workload under each profile in turn (interleaved, several rounds), reads the energy counters through the helper, and prints work per joule (performance per watt) per profile, with the model's balanced value against the kernel's generic one where they differ. The profile active before is put back afterwards, also after Ctrl-C. The work runs in this process, unprivileged; reading energy and switching ask polkit. docs/efficiency.md explains the method.")
    )]
    Measure {
        /// The built-in workload.
        #[arg(
            long,
            value_name = "WORKLOAD",
            value_parser = ["build", "burst", "wake", "playback"],
            default_value = "build",
            conflicts_with = "command",
            help = gettext("build: every CPU busy, like a kernel build; burst: short single-thread bursts with idle gaps, like a browser; wake: many wake-ups and messages between threads; playback: 30 frames a second of fixed work, like a video, counting late frames")
        )]
        workload: String,
        /// The person's own command instead.
        #[arg(
            long,
            value_name = "CMD",
            help = gettext("Time your own command (run by sh) instead: one run is one unit of work")
        )]
        command: Option<String>,
        /// Which profiles.
        #[arg(
            long,
            value_name = "A,B,...",
            help = gettext("Profiles to compare, by id or name, and kernel_default (default: the four built-in ones and, where the model's value differs, the kernel's generic one)")
        )]
        profiles: Option<String>,
        /// Rounds.
        #[arg(
            long,
            value_name = "auto|N",
            default_value = "auto",
            value_parser = repeats,
            help = gettext("Rounds over all profiles: auto (at least 3, then one more at a time until the verdict is clear, at most --max-repeats) or a fixed number from 1 to 20")
        )]
        repeats: Repeats,
        /// The most rounds of `--repeats auto`.
        #[arg(
            long,
            value_name = "N",
            default_value_t = 8,
            value_parser = most_rounds,
            help = gettext("With --repeats auto: the most rounds, from 3 to 20")
        )]
        max_repeats: u64,
        /// How much work.
        #[arg(
            long,
            value_name = "F",
            default_value_t = 1.0,
            help = gettext("Times the standard amount of work (1: some 10 to 30 s a run on a laptop; 0.1 for a quick look)")
        )]
        scale: f64,
        /// No questions.
        #[arg(long, help = gettext("Measure on battery or on a busy machine without asking"))]
        yes: bool,
        /// JSON.
        #[command(flatten)]
        json: Json,
    },
    /// `config ...`.
    #[command(about = gettext("The administrator's configuration in /etc/gearshift (docs/fleet.md)"))]
    Config {
        /// What to do.
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// `metrics`.
    #[command(
        about = gettext("Print Prometheus metrics: EPP per CPU, the profile, the kernel's value beside the model's"),
        long_about = gettext("Prints the Prometheus text format (gearshift_ series) for node_exporter's textfile collector: the machine, each CPU's EPP, the active profile, each profile's EPP against the kernel's generic one, the platform profile, changes made outside Gearshift and the newest kept measurement. With --output the file is written whole (a temporary file renamed into place).")
    )]
    Metrics {
        /// Where to write.
        #[arg(long, value_name = "FILE", conflicts_with = "textfile", help = gettext("Write to FILE (a temporary file renamed into place) instead of printing"))]
        output: Option<PathBuf>,
        /// Into node_exporter's textfile directory.
        #[arg(long, help = gettext("Write gearshift.prom into node_exporter's textfile directory (/var/lib/prometheus/node-exporter, or [metrics] textfile_dir in /etc/gearshift)"))]
        textfile: bool,
        /// Text gathered before.
        #[arg(long, value_name = "FILE", help = gettext("Write the metrics in FILE (gathered by an unprivileged run) instead of gathering them"))]
        from: Option<PathBuf>,
    },
    /// `launch`.
    #[command(
        about = gettext("Run a program while a profile is held: Performance, unless you choose Power Saver"),
        long_about = gettext("Holds the profile while COMMAND runs and lets it go when COMMAND ends; the profile chosen before comes back (automatic AC/battery switching waits meanwhile). gearshift launch exits with COMMAND's exit status. The hold also ends when gearshift launch itself is killed: the helper ends every hold whose program left the system bus. A hold takes performance or power-saver, as the desktop's power menu's holds do: when several programs hold at once, Power Saver wins. Where no hold can be taken (no helper, the administrator's lock), COMMAND runs anyway and a warning says why."),
        after_help = gettext("Examples:\n  gearshift launch -- blender scene.blend\n  gearshift launch --profile power-saver --reason \"Backup on battery\" -- restic backup ~\n  In Steam's launch options: gearshift launch -- %command%")
    )]
    Launch(LaunchArgs),
    /// `holds`.
    #[command(about = gettext("Show what holds a profile now, and the rules that follow programs"))]
    Holds(Json),
    /// `agent`.
    #[command(
        about = gettext("Follow the rules “while PROGRAM runs, hold PROFILE” (the gearshift-agent user service runs it)"),
        long_about = gettext("Runs as you, in your session, and holds a rule's profile through the helper while a program of yours that the rule names runs: an executable by its name, or an app the desktop started by its application id. The rules are the administrator's [[rule]] tables in /etc/gearshift and, unless the administrator's lock is on, yours in ~/.config/gearshift/rules.toml, read again when that file changes (and on SIGHUP). It wakes only when something starts or ends (docs/rules.md). systemctl --user enable --now gearshift-agent starts it with each session.")
    )]
    Agent,
    /// `snapshot OUTDIR`.
    #[command(about = gettext("Copy this machine's CPU files into a snapshot that --root reads"))]
    Snapshot {
        /// Where.
        #[arg(value_name = "OUTDIR", help = gettext("A new or empty directory"))]
        outdir: PathBuf,
    },
}

/// `launch`'s arguments.
#[derive(Debug, clap::Args)]
pub struct LaunchArgs {
    /// What to hold.
    #[arg(
        long,
        value_name = "PROFILE",
        default_value = "performance",
        value_parser = hold_profile,
        help = gettext("performance, or power-saver (power)")
    )]
    pub profile: String,
    /// Why, in the holder's words.
    #[arg(long, value_name = "TEXT", help = gettext("Why, as the desktop's power menu and the tray show it (default: the command's name)"))]
    pub reason: Option<String>,
    /// Who holds it.
    #[arg(long, value_name = "ID", help = gettext("The application id to hold it as (default: the command's name)"))]
    pub app_id: Option<String>,
    /// The program and its arguments.
    #[arg(
        value_name = "COMMAND",
        required = true,
        num_args = 1..,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        help = gettext("The program to run, and its arguments (after --)")
    )]
    pub command: Vec<std::ffi::OsString>,
}

/// `profile ...`.
#[derive(Debug, Subcommand)]
pub enum ProfileAction {
    /// `profile list`.
    #[command(about = gettext("List the profiles and their EPP values here"))]
    List(Json),
    /// `profile get`.
    #[command(about = gettext("Show the active profile"))]
    Get(Json),
    /// `profile set ID`.
    #[command(about = gettext("Switch to a profile (through the helper)"))]
    Set {
        /// The profile.
        #[arg(
            value_name = "ID",
            help = gettext("A profile's id or name, in any case: performance, balance_performance, balance_power, power (Performance, Balanced, Efficient, Power Saver), a custom profile's, or kernel: hand the CPU back to the kernel's own values")
        )]
        id: String,
    },
    /// `profile save NAME ...`.
    #[command(
        about = gettext("Save a custom profile (through the helper); one of the same name is replaced after asking"),
        after_help = gettext("Example: gearshift profile save Quiet --epp 200 --platform-profile low-power\nValues this machine cannot take are refused before anything is saved.")
    )]
    Save(SaveArgs),
    /// `profile show NAME`.
    #[command(
        about = gettext("Show a profile's values: what a saved or declared profile sets, and what it gives this machine"),
        after_help = gettext("Example: gearshift profile show Quiet --json")
    )]
    Show {
        /// The profile.
        #[arg(value_name = "NAME", help = gettext("The profile's name or id, in any case"))]
        name: String,
        /// JSON.
        #[command(flatten)]
        json: Json,
    },
    /// `profile delete NAME`.
    #[command(about = gettext("Delete a custom profile (through the helper)"))]
    Delete {
        /// The custom profile.
        #[arg(value_name = "NAME", help = gettext("The custom profile's name or id"))]
        name: String,
    },
}

/// `profile save NAME ...`: what the window's Tuning page sets.
#[derive(Debug, clap::Args)]
pub struct SaveArgs {
    /// The name.
    #[arg(value_name = "NAME", help = gettext("The profile's name, as the window and the power menu show it"))]
    pub name: String,
    /// EPP for every core.
    #[arg(long, value_name = "EPP", value_parser = epp_setting, help = gettext("EPP for every core: a number from 0 (fastest) to 255 (saves the most power), or performance, balance_performance, balance_power or power"))]
    pub epp: Option<EppSetting>,
    /// EPP for the E-cores.
    #[arg(long = "e-core-epp", value_name = "EPP", value_parser = epp_setting, help = gettext("EPP for the E-cores of a hybrid CPU, a number or a name as --epp takes (the P-cores take --epp)"))]
    pub e_core_epp: Option<EppSetting>,
    /// The governor.
    #[arg(long, value_name = "G", help = gettext("A governor this machine offers (gearshift status lists them)"))]
    pub governor: Option<String>,
    /// The firmware's platform profile.
    #[arg(long = "platform-profile", value_name = "P", help = gettext("A platform profile this machine's firmware offers"))]
    pub platform_profile: Option<String>,
    /// The energy performance bias.
    #[arg(long = "energy-bias", value_name = "B", value_parser = energy_bias, help = gettext("The energy performance bias, from 0 (fastest) to 15 (saves the most power)"))]
    pub energy_bias: Option<u8>,
    /// Replace without asking.
    #[arg(long, help = gettext("Replace a profile of the same name without asking"))]
    pub yes: bool,
}

/// `mode set MODE`.
#[derive(Debug, Subcommand)]
pub enum ModeAction {
    /// `mode set MODE`.
    #[command(about = gettext("Switch the driver's mode through the helper, then apply the profile again"))]
    Set {
        /// The mode.
        #[arg(
            value_name = "MODE",
            value_parser = clap::builder::PossibleValuesParser::new(DriverMode::WORDS)
                .try_map(|word| DriverMode::from_word(&word).ok_or("not a driver mode")),
            help = gettext("active, passive, or guided (amd-pstate only)")
        )]
        mode: DriverMode,
    },
}

/// `--cpus LIST`.
#[derive(Debug, Clone, clap::Args)]
pub struct Cpus {
    /// The CPUs.
    #[arg(
        long,
        value_name = "LIST",
        help = gettext("CPUs to change, as a kernel CPU list such as 0-3,8 (default: every online CPU)")
    )]
    pub cpus: Option<String>,
}

/// `epp set`.
#[derive(Debug, Subcommand)]
pub enum EppAction {
    /// `epp set [--cpus LIST] VALUE`.
    #[command(about = gettext("Set EPP (0 fastest .. 255 most frugal) through the helper"))]
    Set {
        /// Which CPUs.
        #[command(flatten)]
        cpus: Cpus,
        /// The value.
        #[arg(value_name = "VALUE", value_parser = epp_number, help = gettext("A number from 0 to 255"))]
        value: u32,
    },
}

/// `governor set`.
#[derive(Debug, Subcommand)]
pub enum GovernorAction {
    /// `governor set [--cpus LIST] NAME`.
    #[command(about = gettext("Set the governor through the helper"))]
    Set {
        /// Which CPUs.
        #[command(flatten)]
        cpus: Cpus,
        /// The governor.
        #[arg(
            value_name = "NAME",
            help = gettext("A governor the CPUs offer (see scaling_available_governors in `gearshift status --json`)")
        )]
        name: String,
    },
}

/// `auto ...`.
#[derive(Debug, Subcommand)]
pub enum AutoAction {
    /// `auto set --on-ac ID --on-battery ID`.
    #[command(about = gettext("Turn on automatic switching with these profiles"))]
    Set {
        /// On AC.
        #[arg(long, value_name = "ID", help = gettext("Profile on AC power"))]
        on_ac: String,
        /// On battery.
        #[arg(long, value_name = "ID", help = gettext("Profile on battery"))]
        on_battery: String,
    },
    /// `auto off`.
    #[command(about = gettext("Turn automatic switching off"))]
    Off,
    /// `auto status`.
    #[command(about = gettext("Show the automatic switching policy"))]
    Status(Json),
}

/// `config ...`.
#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// `config check [FILE [--as NAME]]`.
    #[command(
        about = gettext("Check the configuration without the helper: exit 0 good, 2 bad, a line per problem"),
        long_about = gettext("Checks /etc/gearshift/gearshift.toml and conf.d/*.toml (under --root DIR) against this machine, as the helper would read them, without the helper: exit 0 when every file is good, 2 with a line per problem (file:line: what). With FILE, that file is checked as the last drop-in, or with --as NAME in the place of conf.d/NAME, for a playbook's validate step.")
    )]
    Check {
        /// A file to check as the last drop-in.
        #[arg(value_name = "FILE", help = gettext("A file to check as if it were the last file in conf.d"))]
        file: Option<PathBuf>,
        /// The drop-in FILE is meant to become.
        #[arg(
            long = "as",
            value_name = "NAME",
            requires = "file",
            value_parser = drop_in_name,
            help = gettext("Check FILE as conf.d/NAME: in its place in the order, instead of a file of that name")
        )]
        as_name: Option<String>,
    },
}

/// The whole `gearshift` command line, with clap's own words (Usage,
/// Options, Commands, the help and version flags) in the reader's language.
pub fn command() -> clap::Command {
    localize(Cli::command(), true)
}

/// Parses the process's arguments with [`command`].
///
/// # Errors
/// Bad usage, or `--help`/`--version` (clap prints them).
pub fn parse() -> Result<Cli, clap::Error> {
    let matches = command().try_get_matches()?;
    Cli::from_arg_matches(&matches)
}

/// clap's headings and flags, translated, on `cmd` and every subcommand.
fn localize(cmd: clap::Command, top: bool) -> clap::Command {
    let mut cmd = cmd
        .help_template(format!(
            "{{before-help}}{{about-with-newline}}\n{} {{usage}}\n\n{{all-args}}{{after-help}}",
            gettext("Usage:")
        ))
        .subcommand_help_heading(gettext("Commands"))
        .disable_help_flag(true)
        .arg(Arg::new("help").short('h').long("help").action(ArgAction::Help).help(gettext("Print help")));
    if top {
        cmd = cmd.disable_version_flag(true).arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help(gettext("Print the version")),
        );
    }
    let (options, arguments) = (gettext("Options"), gettext("Arguments"));
    cmd = cmd.mut_args(|arg| {
        let heading = if arg.is_positional() { arguments.clone() } else { options.clone() };
        let arg = arg.help_heading(heading);
        if !arg.get_action().takes_values() {
            return arg;
        }
        // clap's own brackets ("[default: 1000]", "[env: GEARSHIFT_ROOT=]",
        // "[possible values: ...]") are English: said in the help's words.
        let mut extra: Vec<String> = Vec::new();
        let defaults: Vec<String> = arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
        if !defaults.is_empty() && !arg.is_hide_default_value_set() {
            // Translators: what an option is when not given ("1000").
            extra.push(i18n_text("default: {value}").arg("value", defaults.join(", ")).localized());
        }
        let values: Vec<String> = arg.get_possible_values().iter().map(|v| v.get_name().to_owned()).collect();
        if !values.is_empty() && !arg.is_hide_possible_values_set() {
            // Translators: the values an option takes.
            extra.push(i18n_text("takes: {values}").arg("values", values.join(", ")).localized());
        }
        if let Some(env) = arg.get_env().filter(|_| !arg.is_hide_env_set()) {
            // Translators: an environment variable that sets the same.
            extra.push(i18n_text("or the environment variable {name}").arg("name", env.to_string_lossy()).localized());
        }
        if extra.is_empty() {
            return arg;
        }
        let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
        arg.help(format!("{help} ({})", extra.join("; ")))
            .hide_default_value(true)
            .hide_possible_values(true)
            .hide_env(true)
    });
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_owned()).collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, |sub| localize(sub, false));
    }
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn defaults_are_written_once_and_parsed() {
        let cli = Cli::from_arg_matches(&command().try_get_matches_from(["gearshift", "monitor"]).unwrap()).unwrap();
        assert!(matches!(cli.command, Some(Command::Monitor { count: None, interval_ms: 1000, json: false })));
        let cli = Cli::from_arg_matches(&command().try_get_matches_from(["gearshift", "measure"]).unwrap()).unwrap();
        match cli.command {
            Some(Command::Measure { workload, repeats, max_repeats, scale, .. }) => {
                assert_eq!((workload.as_str(), repeats, max_repeats, scale), ("build", Repeats::Auto, 8, 1.0));
            }
            other => panic!("{other:?}"),
        }
        let fixed = ["gearshift", "measure", "--repeats", "5"];
        let cli = Cli::from_arg_matches(&command().try_get_matches_from(fixed).unwrap()).unwrap();
        assert!(matches!(cli.command, Some(Command::Measure { repeats: Repeats::Fixed(5), .. })));
        for bad in ["0", "21", "many", "-1"] {
            assert!(command().try_get_matches_from(["gearshift", "measure", "--repeats", bad]).is_err(), "{bad}");
        }
        assert!(command().try_get_matches_from(["gearshift", "profile"]).is_err(), "profile needs a subcommand");
    }
}
