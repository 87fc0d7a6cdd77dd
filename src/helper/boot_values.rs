//! The machine's values before the helper's first write of a boot, kept in
//! its state directory (`core::kernel_own`): what "Use the kernel's own
//! values" puts back. A record of an earlier boot is replaced; one of this
//! boot is kept, so that a helper restarted after its writes (an upgrade)
//! does not take its own values for the kernel's.

use crate::core::kernel_own::BootValues;
use crate::core::machine::Machine;
use crate::core::root::SysRoot;

use super::state::Store;

/// Where the kernel names the boot.
pub const BOOT_ID: &str = "proc/sys/kernel/random/boot_id";

/// This boot's record: the kept one where it is this boot's, else what
/// `machine` (read before any write) holds, kept for the next start.
pub fn recorded(store: &Store, root: &SysRoot, machine: &Machine) -> Option<BootValues> {
    let boot_id = root.read_text(BOOT_ID, 128).ok().flatten().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
    if let Some(kept) = store.boot_values().filter(|kept| kept.of_boot(boot_id.as_deref())) {
        return Some(kept);
    }
    let values = BootValues::of(machine, boot_id);
    if let Err(err) = store.save_boot_values(&values) {
        // Handing back still works: with the kernel's defaults only.
        log::warn!("cannot keep the machine's boot values in {}: {err}", store.dir().display());
    }
    Some(values)
}
