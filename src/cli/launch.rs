//! `gearshift launch`: a program run while a profile is held.
//!
//! The hold is taken through the helper's `HoldProfile` (Gearshift's own
//! interface, whose refusals come translated) on this process's system bus
//! connection, so it lasts exactly as long as that connection: released
//! when the program ends, and ended by the helper when this process dies,
//! however it dies (`kill -9` included). The program runs as a child with
//! this terminal; SIGTERM and SIGHUP sent to `gearshift launch` are passed
//! on to it, and Ctrl-C reaches it from the terminal, so that the hold is
//! let go only once the program has ended.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use gearshift::client::{ClientError, Helper};
use gearshift::i18n::i18n_text;
use tokio::signal::unix::{signal, SignalKind};

use super::args::LaunchArgs;
use super::CliError;

/// Runs `args.command` while the profile is held.
///
/// # Errors
/// The program's exit status where it is not 0 (128 + the signal that
/// ended it, as shells say it; 127 where it cannot be found, 126 where it
/// cannot be run); a snapshot root, as every changing command.
pub fn run(args: LaunchArgs, root: Option<&Path>) -> Result<(), CliError> {
    super::changes::refuse_snapshot(root)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(e.to_string()))?;
    match runtime.block_on(launch(args)) {
        0 => Ok(()),
        code => Err(CliError::status(code)),
    }
}

/// The program's name, for the hold's default reason and application id.
fn name_of(program: &OsString) -> String {
    let path = Path::new(program);
    path.file_name().unwrap_or(program.as_os_str()).to_string_lossy().into_owned()
}

async fn launch(args: LaunchArgs) -> u8 {
    let Some((program, rest)) = args.command.split_first() else { return 2 };
    let name = name_of(program);
    let reason = args.reason.clone().unwrap_or_else(|| name.clone());
    let app_id = args.app_id.clone().unwrap_or_else(|| name.clone());
    let helper = Helper::new();
    let profile = args.profile.clone();
    let hold = helper.call(|p| async move { p.hold_profile(&profile, &reason, &app_id).await }).await;
    if let Err(err) = &hold {
        warn_unheld(err, &name);
    }
    let mut child = match std::process::Command::new(program).args(rest).spawn() {
        Ok(child) => child,
        Err(err) => {
            release(&helper, hold.ok()).await;
            eprintln!(
                "gearshift: {}",
                i18n_text("cannot run {program}: {error}")
                    .arg("program", program.to_string_lossy())
                    .arg("error", &err)
                    .localized()
            );
            return if err.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
        }
    };
    let pid = child.id();
    let status = {
        let waiting = tokio::task::spawn_blocking(move || child.wait());
        tokio::pin!(waiting);
        let (mut term, mut hup, mut int) = (
            signal(SignalKind::terminate()).ok(),
            signal(SignalKind::hangup()).ok(),
            signal(SignalKind::interrupt()).ok(),
        );
        loop {
            tokio::select! {
                status = &mut waiting => break status,
                Some(()) = next(&mut term) => pass_on(pid, libc::SIGTERM),
                Some(()) = next(&mut hup) => pass_on(pid, libc::SIGHUP),
                // Ctrl-C: the terminal sent it to the program too; wait for it.
                Some(()) = next(&mut int) => {}
            }
        }
    };
    release(&helper, hold.ok()).await;
    match status {
        Ok(Ok(status)) => match (status.code(), status.signal()) {
            (Some(code), _) => u8::try_from(code).unwrap_or(1),
            (None, Some(signal)) => u8::try_from(128 + signal).unwrap_or(255),
            (None, None) => 1,
        },
        _ => {
            eprintln!("gearshift: {}", i18n_text("lost track of {program}").arg("program", &name).localized());
            1
        }
    }
}

/// The next signal of a kind, where it could be listened for.
async fn next(listener: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
    match listener {
        Some(listener) => listener.recv().await,
        None => std::future::pending().await,
    }
}

/// Passes a signal on to the program.
fn pass_on(pid: u32, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) with our own child's pid; an exited child gives
        // ESRCH, nothing else.
        unsafe { libc::kill(pid, signal) };
    }
}

/// Lets the hold go (a hold a manual switch already ended is gone: that
/// answer is no failure).
async fn release(helper: &Helper, cookie: Option<u32>) {
    if let Some(cookie) = cookie {
        let _ = helper.call(|p| async move { p.release_profile(cookie).await }).await;
    }
}

/// Why the program runs without the hold, and what would give it one.
fn warn_unheld(err: &ClientError, name: &str) {
    eprintln!(
        "gearshift: {}\n{}\n{}",
        err.headline(),
        i18n_text("No profile is held: {program} runs anyway, under the profile in effect.")
            .arg("program", name)
            .localized(),
        err.advice()
    );
}
