//! The command line, defined once with translated help (the man page is
//! generated from the same definition).

use clap::{value_parser, Arg, ArgAction, Command};

use gearshift::i18n::gettext;

/// The whole `gearshift` command line, with clap's own words (Usage,
/// Options, Commands, the help and version flags) in the reader's language.
pub fn command() -> Command {
    localize(definition(), true)
}

/// clap's headings and flags, translated, on `cmd` and every subcommand.
fn localize(cmd: Command, top: bool) -> Command {
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
        arg.help_heading(heading)
    });
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_owned()).collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, |sub| localize(sub, false));
    }
    cmd
}

fn definition() -> Command {
    let json =
        || Arg::new("json").long("json").action(ArgAction::SetTrue).help(gettext("Print JSON instead of a table"));
    let cpus = || {
        Arg::new("cpus")
            .long("cpus")
            .value_name("LIST")
            .help(gettext("CPUs to change, as a kernel CPU list such as 0-3,8 (default: every online CPU)"))
    };
    Command::new("gearshift")
        .version(env!("CARGO_PKG_VERSION"))
        .about(gettext("Run your CPU the way its maker tuned it"))
        .long_about(gettext(
            "Gearshift shows what your CPU is doing and switches its energy performance preference (EPP) to the values the CPU's maker chose for each profile. Intel tuned Meteor Lake and Arrow Lake to 64 for \"balanced\" and its Xeons to 32, but kernels before about 6.11 and other tools write the generic 128; Gearshift writes the model's own number.\n\nWithout a subcommand Gearshift opens its window. Changes go through gearshift-helper, a small privileged service that asks polkit whether you may make them.",
        ))
        .after_help(gettext(
            "Examples:\n  gearshift status                 what this machine is and does now\n  gearshift profile set balance_power\n  gearshift epp set --cpus 12-21 200   a custom EPP for some CPUs\n  gearshift monitor --count 5      five samples of every CPU\n  gearshift measure --repeats 2    work per joule of each profile here\n  gearshift --root DIR status      read a snapshot made with `gearshift snapshot DIR`\n\nExit status: 0 done, 1 refused or failed, 2 bad usage or unreadable input.",
        ))
        .arg(
            Arg::new("root")
                .long("root")
                .value_name("DIR")
                .env("GEARSHIFT_ROOT")
                .global(true)
                .value_parser(value_parser!(std::path::PathBuf))
                .help(gettext("Read the machine snapshot in DIR (holding sys/ and proc/) instead of this machine; commands that change something are then refused")),
        )
        .arg(
            Arg::new("tray")
                .long("tray")
                .action(ArgAction::SetTrue)
                .help(gettext("Run only the tray indicator")),
        )
        .arg(
            Arg::new("demo")
                .long("demo")
                .action(ArgAction::SetTrue)
                .help(gettext("Open a bundled demo snapshot (a Meteor Lake laptop); nothing can be changed in it")),
        )
        .subcommand(
            Command::new("status")
                .about(gettext("Show the machine, every CPU and every profile as it resolves here"))
                .arg(json()),
        )
        .subcommand(
            Command::new("detect")
                .about(gettext("Show the hardware report: what was found and what Gearshift will change"))
                .arg(json()),
        )
        .subcommand(
            Command::new("profile")
                .about(gettext("The profiles: list them, get the active one, set another"))
                .subcommand_required(true)
                .subcommand(Command::new("list").about(gettext("List the profiles and their EPP values here")).arg(json()))
                .subcommand(Command::new("get").about(gettext("Show the active profile")).arg(json()))
                .subcommand(
                    Command::new("set").about(gettext("Switch to a profile (through the helper)")).arg(
                        Arg::new("id")
                            .required(true)
                            .value_name("ID")
                            .help(gettext("A profile's id or name, in any case: performance, balance_performance, balance_power, power (Performance, Balanced, Efficient, Power Saver), or a custom profile's")),
                    ),
                ),
        )
        .subcommand(
            Command::new("mode")
                .about(gettext("Show or switch the cpufreq driver's mode (intel_pstate, amd-pstate)"))
                .long_about(gettext("Without a subcommand, show the driver's mode and the modes it takes. In active mode the CPU picks its own frequencies guided by EPP (intel_pstate, amd-pstate-epp); in passive and guided mode a kernel governor picks them."))
                .arg(json())
                .subcommand(
                    Command::new("set").about(gettext("Switch the driver's mode through the helper, then apply the profile again")).arg(
                        Arg::new("mode")
                            .required(true)
                            .value_name("MODE")
                            .value_parser(["active", "passive", "guided"])
                            .help(gettext("active, passive, or guided (amd-pstate only)")),
                    ),
                ),
        )
        .subcommand(
            Command::new("epp")
                .about(gettext("Set a raw energy performance preference"))
                .subcommand_required(true)
                .subcommand(
                    Command::new("set")
                        .about(gettext("Set EPP (0 fastest .. 255 most frugal) through the helper"))
                        .arg(cpus())
                        .arg(
                            Arg::new("value")
                                .required(true)
                                .value_name("VALUE")
                                .value_parser(value_parser!(u32))
                                .help(gettext("A number from 0 to 255")),
                        ),
                ),
        )
        .subcommand(
            Command::new("governor")
                .about(gettext("Set the cpufreq governor"))
                .subcommand_required(true)
                .subcommand(
                    Command::new("set")
                        .about(gettext("Set the governor through the helper"))
                        .arg(cpus())
                        .arg(Arg::new("name").required(true).value_name("NAME").help(gettext(
                            "A governor the CPUs offer (see scaling_available_governors in `gearshift status --json`)",
                        ))),
                ),
        )
        .subcommand(
            Command::new("auto")
                .about(gettext("Switch profiles automatically on AC power and on battery"))
                .subcommand_required(true)
                .subcommand(
                    Command::new("set")
                        .about(gettext("Turn on automatic switching with these profiles"))
                        .arg(Arg::new("on_ac").long("on-ac").value_name("ID").required(true).help(gettext("Profile on AC power")))
                        .arg(
                            Arg::new("on_battery")
                                .long("on-battery")
                                .value_name("ID")
                                .required(true)
                                .help(gettext("Profile on battery")),
                        ),
                )
                .subcommand(Command::new("off").about(gettext("Turn automatic switching off")))
                .subcommand(Command::new("status").about(gettext("Show the automatic switching policy")).arg(json())),
        )
        .subcommand(
            Command::new("monitor")
                .about(gettext("Print live per-CPU frequency, EPP and governor"))
                .arg(
                    Arg::new("count")
                        .long("count")
                        .value_name("N")
                        .value_parser(value_parser!(u64).range(1..))
                        .help(gettext("Stop after N samples (default: until interrupted)")),
                )
                .arg(
                    Arg::new("interval_ms")
                        .long("interval-ms")
                        .value_name("MS")
                        .default_value("1000")
                        .value_parser(value_parser!(u64).range(50..=3_600_000))
                        .help(gettext("Time between samples in milliseconds")),
                )
                .arg(json().help(gettext("Print one JSON object per sample and line"))),
        )
        .subcommand(
            Command::new("measure")
                .about(gettext("Measure how much work per joule each profile gives on this machine"))
                .long_about(gettext("Runs a fixed workload under each profile in turn (interleaved, several rounds), reads the energy counters through the helper, and prints work per joule (performance per watt) per profile, with the model's balanced value against the kernel's generic one where they differ. The profile active before is put back afterwards, also after Ctrl-C. The work runs in this process, unprivileged; reading energy and switching ask polkit. docs/efficiency.md explains the method."))
                .arg(
                    Arg::new("workload")
                        .long("workload")
                        .value_name("WORKLOAD")
                        .value_parser(["build", "burst", "wake"])
                        .default_value("build")
                        .conflicts_with("command")
                        .help(gettext("build: every CPU busy, like a kernel build; burst: short single-thread bursts with idle gaps, like a browser; wake: many wake-ups and messages between threads")),
                )
                .arg(Arg::new("command").long("command").value_name("CMD").help(gettext(
                    "Time your own command (run by sh) instead: one run is one unit of work",
                )))
                .arg(Arg::new("profiles").long("profiles").value_name("A,B,...").help(gettext(
                    "Profiles to compare, by id or name, and kernel_default (default: the four built-in ones and, where the model's value differs, the kernel's generic one)",
                )))
                .arg(
                    Arg::new("repeats")
                        .long("repeats")
                        .value_name("N")
                        .default_value("3")
                        .value_parser(value_parser!(u64).range(1..=20))
                        .help(gettext("Rounds over all profiles")),
                )
                .arg(
                    Arg::new("scale")
                        .long("scale")
                        .value_name("F")
                        .default_value("1")
                        .value_parser(value_parser!(f64))
                        .help(gettext("Times the standard amount of work (1: some 10 to 30 s a run on a laptop; 0.1 for a quick look)")),
                )
                .arg(Arg::new("yes").long("yes").action(ArgAction::SetTrue).help(gettext(
                    "Measure on battery or on a busy machine without asking",
                )))
                .arg(json()),
        )
        .subcommand(
            Command::new("snapshot")
                .about(gettext("Copy this machine's CPU files into a snapshot that --root reads"))
                .arg(
                    Arg::new("outdir")
                        .required(true)
                        .value_name("OUTDIR")
                        .value_parser(value_parser!(std::path::PathBuf))
                        .help(gettext("A new or empty directory")),
                ),
        )
}

#[cfg(test)]
mod tests {
    #[test]
    fn definition_is_consistent() {
        super::command().debug_assert();
    }
}
