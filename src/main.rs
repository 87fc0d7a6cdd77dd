//! `gearshift`: the user side. Without a subcommand it opens the window;
//! `--tray` runs the tray indicator; subcommands are the command line.

#[cfg(feature = "gui")]
mod autostart;
mod cli;
mod context;
mod failure;
mod hooks;
#[cfg(feature = "gui")]
mod tray;
#[cfg(feature = "gui")]
mod ui;

use std::path::PathBuf;
use std::process::ExitCode;

#[cfg(not(feature = "gui"))]
use gearshift::i18n::gettext;
use gearshift::i18n::i18n_f;

/// Where compiled translations are installed (set by meson for release builds).
const LOCALEDIR: &str = match option_env!("GEARSHIFT_LOCALEDIR") {
    Some(dir) => dir,
    None => "/usr/share/locale",
};

/// Where the bundled data (the demo snapshot) is installed.
const PKGDATADIR: &str = match option_env!("GEARSHIFT_PKGDATADIR") {
    Some(dir) => dir,
    None => "/usr/share/gearshift",
};

/// The bundled demo snapshot: installed with the program, or the source
/// tree's Meteor Lake fixture when running from a checkout.
fn demo_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("GEARSHIFT_DEMO_DIR") {
        return PathBuf::from(dir);
    }
    let installed = PathBuf::from(PKGDATADIR).join("demo");
    if installed.is_dir() {
        return installed;
    }
    match gearshift::client::install::source_tree() {
        Some(tree) => tree.join("tests/fixtures/meteor-lake-155h"),
        None => installed,
    }
}

/// The window, or with `tray` the tray indicator.
#[cfg(feature = "gui")]
fn open(mut ctx: context::Context, tray: bool, demo: bool) -> ExitCode {
    ctx.dev = context::DevHooks::from_env();
    if tray {
        return tray::run(ctx);
    }
    ui::run(ui::Launch { ctx, demo, settings: ui::settings::Settings::open() })
}

/// Built without the window and the tray: hands over to the window's
/// program where the gearshift package installed it (the same arguments),
/// else says which package brings them.
#[cfg(not(feature = "gui"))]
fn open(_ctx: context::Context, tray: bool, _demo: bool) -> ExitCode {
    use std::os::unix::process::CommandExt;
    if let Some(window) = gearshift::client::install::private_program("gearshift-window") {
        let err = std::process::Command::new(&window).args(std::env::args_os().skip(1)).exec();
        eprintln!("gearshift: {}", i18n_f("cannot start {}: {}", &[&window.display(), &err]));
        return ExitCode::from(1);
    }
    let what = if tray { gettext("the tray indicator") } else { gettext("the window") };
    eprintln!(
        "gearshift: {}",
        i18n_f(
            "this gearshift was built without {} (the command line only, as the gearshift-cli package installs it); the gearshift package brings the window and the tray, and `gearshift --help` lists the commands",
            &[&what]
        )
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let localedir = std::env::var("GEARSHIFT_LOCALEDIR").unwrap_or_else(|_| LOCALEDIR.to_owned());
    gearshift::i18n::init(&localedir);
    // Diagnostics (the window's and the tray's); results and errors of the
    // command line are printed, not logged.
    gearshift::logging::init("gearshift", log::LevelFilter::Warn);
    // A bug must not greet a person with a stack trace.
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        // `println!` panics when stdout is closed or full (`> /dev/full`,
        // a pipe whose reader left): an I/O error, not a bug.
        if let Some(why) = what.strip_prefix("failed printing to stdout: ") {
            eprintln!("gearshift: {}", i18n_f("cannot write the output: {}", &[&why]));
            std::process::exit(1);
        }
        eprintln!("gearshift: {}", i18n_f("internal error ({}); please report it with the command you ran", &[&what]));
    }));

    let args = match cli::args::parse() {
        Ok(args) => args,
        Err(err) => {
            // Bad usage in the person's language; help and version as
            // clap prints them.
            match cli::mistakes::explain(&err) {
                Some(words) => eprint!("{words}"),
                // Help and version on stdout, clap's own words translated.
                None if matches!(
                    err.kind(),
                    clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
                ) =>
                {
                    print!("{}", cli::mistakes::clap_words(&err.render().to_string()));
                }
                None => drop(err.print()),
            }
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    let root = if args.demo { Some(demo_dir()) } else { args.root };
    let result = match args.command {
        Some(command) => cli::run(command, root.as_deref()),
        None => match context::Context::load_without_helper(root.as_deref()) {
            Ok(ctx) => return open(ctx, args.tray, args.demo),
            Err(err) => Err(err),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // An empty message: another program's status, said already.
            if !err.message.is_empty() {
                eprintln!("gearshift: {err}");
            }
            ExitCode::from(err.code)
        }
    }
}
