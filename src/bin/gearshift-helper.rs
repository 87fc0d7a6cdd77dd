//! `gearshift-helper`: the privileged D-Bus service (see `gearshift::helper`).

fn main() -> std::process::ExitCode {
    eprintln!("gearshift-helper: not built yet");
    std::process::ExitCode::from(1)
}
