//! `gearshift-helper`: the privileged D-Bus service (see `gearshift::helper`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{value_parser, Arg, Command};

fn command() -> Command {
    Command::new("gearshift-helper")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Gearshift's privileged helper: applies CPU energy profiles for callers that polkit authorizes")
        .long_about(
            "Gearshift's privileged helper. It runs as root on the system bus as io.github.gearshift.Helper1 \
             (normally started by D-Bus activation or systemd), asks polkit about every caller, validates each \
             request against the machine, and writes the cpufreq files all or nothing. The system bus address \
             comes from DBUS_SYSTEM_BUS_ADDRESS when set.",
        )
        .arg(
            Arg::new("root")
                .long("root")
                .value_name("DIR")
                .default_value("/")
                .value_parser(value_parser!(PathBuf))
                .help("Read and write the machine under DIR (a snapshot, for tests) instead of /"),
        )
        .arg(
            Arg::new("state_dir")
                .long("state-dir")
                .value_name("DIR")
                .default_value(gearshift::helper::DEFAULT_STATE_DIR)
                .value_parser(value_parser!(PathBuf))
                .help("Keep the active profile, the AC/battery policy and custom profiles in DIR"),
        )
}

fn main() -> ExitCode {
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    let options = gearshift::helper::Options {
        root: matches.get_one::<PathBuf>("root").cloned().unwrap_or_else(|| PathBuf::from("/")),
        state_dir: matches.get_one::<PathBuf>("state_dir").cloned().unwrap_or_default(),
    };
    // zbus needs a blocking thread only while connecting: let it go at once
    // instead of keeping it around (and waking once to end it) for 10 s.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_keep_alive(std::time::Duration::from_millis(50))
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("gearshift-helper: cannot start: {err}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(gearshift::helper::run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("gearshift-helper: {err:#}");
            ExitCode::from(1)
        }
    }
}
