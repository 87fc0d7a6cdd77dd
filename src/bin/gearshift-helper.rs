//! `gearshift-helper`: the privileged D-Bus service (see `gearshift::helper`).
//!
//! Its command line is read by hand: a root daemon that idles for days
//! should not carry a whole argument-parsing library in memory for two
//! options (docs/performance.md, "The helper's memory").

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

const HELP: &str = "\
Gearshift's privileged helper: applies CPU energy profiles for callers that polkit authorizes.

It runs as root on the system bus as io.github.gearshift.Helper1 (normally
started by D-Bus activation or systemd), asks polkit about every caller,
validates each request against the machine, and writes the cpufreq files all
or nothing. The system bus address comes from DBUS_SYSTEM_BUS_ADDRESS when
set.

Usage: gearshift-helper [OPTIONS]

Options:
      --root <DIR>       Read and write the machine under DIR (a snapshot, for
                         tests) instead of / [default: /]
      --state-dir <DIR>  Keep the active profile, the AC/battery policy and
                         custom profiles in DIR [default: /var/lib/gearshift]
      --block-driver <NAME>
                         Drive nothing with power-profiles-daemon's driver
                         NAME: intel_pstate, amd_pstate (the CPUs' files) or
                         platform_profile (the firmware's); may be repeated
      --block-action <NAME>
                         Turn off the action NAME (trickle_charge,
                         amdgpu_panel_power, amdgpu_dpm); may be repeated
      --disable-upower   Do not follow UPower (power source, battery level)
      --disable-logind   Do not follow logind (re-applying after resume)
  -v, --verbose          Log debug messages too
  -h, --help             Print help
  -V, --version          Print version

The --block-* and --disable-* options are power-profiles-daemon's, with its
meaning, so that its unit's and its tests' command lines work unchanged.
";

/// Where an option's value goes.
enum Slot<'a> {
    Path(&'a mut PathBuf),
    Names(&'a mut Vec<String>),
}

/// What the command line asked for.
#[derive(Debug, PartialEq)]
enum Request {
    Serve(gearshift::helper::Options),
    Help,
    Version,
}

/// Reads `--root DIR`, `--state-dir DIR`, `--block-driver NAME`,
/// `--block-action NAME` (each also as `--name=VALUE`), `--disable-upower`,
/// `--disable-logind`, `--help` and `--version`; anything else is an error
/// that says what.
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Request, String> {
    let mut options = gearshift::helper::Options {
        root: PathBuf::from("/"),
        state_dir: PathBuf::from(gearshift::helper::DEFAULT_STATE_DIR),
        blocklist: gearshift::helper::blocklist::Blocklist::default(),
        verbose: false,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        let (name, inline) = match text.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name.to_owned(), Some(value.to_owned())),
            _ => (text.into_owned(), None),
        };
        let (slot, what) = match name.as_str() {
            "-h" | "--help" => return Ok(Request::Help),
            "-V" | "--version" => return Ok(Request::Version),
            "--disable-upower" | "--disable-logind" if inline.is_some() => {
                return Err(format!("'{name}' takes no value"));
            }
            "-v" | "-vv" | "-vvv" | "--verbose" => {
                options.verbose = true;
                continue;
            }
            "--disable-upower" => {
                options.blocklist.upower_disabled = true;
                continue;
            }
            "--disable-logind" => {
                options.blocklist.logind_disabled = true;
                continue;
            }
            "--root" => (Slot::Path(&mut options.root), "DIR"),
            "--state-dir" => (Slot::Path(&mut options.state_dir), "DIR"),
            "--block-driver" => (Slot::Names(&mut options.blocklist.drivers), "NAME"),
            "--block-action" => (Slot::Names(&mut options.blocklist.actions), "NAME"),
            _ => return Err(format!("unexpected argument '{}'", arg.to_string_lossy())),
        };
        let value = match inline {
            // Taken from the original argument, so that a path that is not
            // UTF-8 survives.
            Some(_) => arg.to_str().and_then(|a| a.split_once('=')).map(|(_, v)| OsString::from(v)),
            None => args.next(),
        };
        let value = match value {
            Some(value) if !value.is_empty() => value,
            _ => return Err(format!("a value is required for '{name} <{what}>' but none was supplied")),
        };
        match slot {
            Slot::Path(path) => *path = PathBuf::from(value),
            Slot::Names(names) => match value.to_str() {
                Some(text) if text.len() <= 64 && text.chars().all(|c| c.is_ascii_graphic()) => {
                    names.push(text.to_owned());
                }
                _ => return Err(format!("'{name}' takes a driver or action name, not {value:?}")),
            },
        }
    }
    Ok(Request::Serve(options))
}

fn main() -> ExitCode {
    let options = match parse(std::env::args_os().skip(1)) {
        Ok(Request::Serve(options)) => options,
        Ok(Request::Help) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Ok(Request::Version) => {
            println!("gearshift-helper {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("error: {message}\n\nUsage: gearshift-helper [OPTIONS]\n\nFor more information, try '--help'.");
            return ExitCode::from(2);
        }
    };
    gearshift::helper::tune_allocator();
    let level = if options.verbose { log::LevelFilter::Debug } else { log::LevelFilter::Info };
    gearshift::logging::init("gearshift-helper", level);
    // zbus needs a blocking thread only while connecting: let it go at once
    // instead of keeping it around (and waking once to end it) for 10 s.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .thread_keep_alive(std::time::Duration::from_millis(50))
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            log::error!("cannot start: {err}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(gearshift::helper::run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            log::error!("{err:#}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gearshift::helper::blocklist::Blocklist;

    fn run(args: &[&str]) -> Result<Request, String> {
        parse(args.iter().map(OsString::from))
    }

    fn serve(root: &str, state: &str) -> Request {
        Request::Serve(gearshift::helper::Options {
            root: root.into(),
            state_dir: state.into(),
            blocklist: Blocklist::default(),
            verbose: false,
        })
    }

    #[test]
    fn defaults_and_both_spellings() {
        assert_eq!(run(&[]), Ok(serve("/", "/var/lib/gearshift")));
        assert_eq!(run(&["--root", "/tmp/a", "--state-dir=/tmp/b"]), Ok(serve("/tmp/a", "/tmp/b")));
        assert_eq!(run(&["--root=/x=y"]), Ok(serve("/x=y", "/var/lib/gearshift")));
        assert_eq!(run(&["--state-dir", "s", "--help"]), Ok(Request::Help));
        assert_eq!(run(&["-V"]), Ok(Request::Version));
    }

    #[test]
    fn power_profiles_daemons_options_mean_what_they_mean_there() {
        let Ok(Request::Serve(options)) = run(&[
            "--block-driver",
            "amd_pstate",
            "--block-driver=platform_profile",
            "--block-action",
            "trickle_charge",
            "--disable-upower",
            "--disable-logind",
            "-vv",
        ]) else {
            panic!("refused")
        };
        assert_eq!(
            options.blocklist,
            Blocklist {
                drivers: vec!["amd_pstate".into(), "platform_profile".into()],
                actions: vec!["trickle_charge".into()],
                upower_disabled: true,
                logind_disabled: true,
            }
        );
        assert!(options.verbose);
        assert!(run(&["--block-driver"]).unwrap_err().contains("'--block-driver <NAME>'"));
        assert!(run(&["--block-action", "a b"]).unwrap_err().contains("not \"a b\""));
        assert_eq!(run(&["--disable-upower=1"]), Err("'--disable-upower' takes no value".into()));
    }

    #[test]
    fn mistakes_are_named() {
        assert_eq!(run(&["--rot", "/"]), Err("unexpected argument '--rot'".into()));
        assert_eq!(run(&["/"]), Err("unexpected argument '/'".into()));
        assert!(run(&["--root"]).unwrap_err().contains("'--root <DIR>'"));
        assert!(run(&["--state-dir="]).unwrap_err().contains("'--state-dir <DIR>'"));
    }
}
