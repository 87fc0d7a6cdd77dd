//! The window's reads of sysfs and /proc, on the reading thread
//! (`reader.rs`) so that the GTK main thread never waits on a file; the
//! results come back as [`CmdOut`] messages.

use gearshift::core::machine::{Machine, ModeControl};
use gearshift::core::parse::{parse_flag, parse_word};
use gearshift::core::paths::{global_file, DYTC_LAPMODE};
use gearshift::core::platform::PlatformProfile;
use gearshift::core::root::{Probe, SysRoot};

use super::msg::{CmdOut, FirmwareRead};
use super::reader::blocking;

/// The firmware's platform profile, the lap sensor and the driver's mode
/// (which someone else may switch: the kernel sends no event). A few
/// small files.
pub async fn firmware(root: SysRoot, control: Option<ModeControl>) -> CmdOut {
    let read = blocking(move || {
        let mut probe = Probe::new(&root);
        FirmwareRead {
            mode: control.and_then(|c| probe.parsed(&global_file(c.file()), parse_word)),
            platform: PlatformProfile::read(&mut probe),
            lap_mode: probe.parsed(DYTC_LAPMODE, parse_flag),
        }
    });
    CmdOut::Firmware(read.await)
}

/// The whole machine.
pub async fn machine(root: SysRoot) -> CmdOut {
    CmdOut::Machine(blocking(move || Machine::read(&root)).await.map(Box::new))
}

/// Other power managers running (a walk of /proc).
pub async fn conflicts(root: SysRoot) -> CmdOut {
    let found = blocking(move || gearshift::core::conflicts::programs_found(&root, &[]));
    CmdOut::Conflicts(found.await.unwrap_or_default())
}
