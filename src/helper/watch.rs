//! What the helper listens to, without any timer: UPower's `OnBattery`,
//! logind's `PrepareForSleep`, bus names leaving (holders), kernel uevents
//! for CPUs coming online, and who owns the desktop power panel's names.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use futures_util::StreamExt;
use zbus::fdo::{DBusProxy, RequestNameFlags, RequestNameReply};
use zbus::names::BusName;
use zbus::{MatchRule, MessageStream};

use super::ppd::{HADESS_NAME, UPOWER_NAME};
use super::shared::Shared;
use crate::core::conflicts::id_for_process;
use crate::core::paths::numbered;

const UPOWER: &str = "org.freedesktop.UPower";
const LOGIN1: &str = "org.freedesktop.login1";

/// Takes the desktop power panel's names when nobody else has either of
/// them; when another program has one, records who and takes neither (two
/// daemons behind the two names would fight over the same files).
pub async fn take_panel_names(shared: &Shared) {
    let connection = &shared.connection;
    let Ok(dbus) = DBusProxy::new(connection).await else { return };
    let mut taken = false;
    for name in [UPOWER_NAME, HADESS_NAME] {
        let Ok(bus_name) = BusName::try_from(name) else { continue };
        if dbus.name_has_owner(bus_name.clone()).await.unwrap_or(false) {
            let who = owner_id(&dbus, bus_name).await;
            eprintln!("gearshift-helper: {name} belongs to {who}: leaving the power panel's names alone");
            shared.add_conflict(&who);
            taken = true;
        }
    }
    if taken {
        return;
    }
    for name in [UPOWER_NAME, HADESS_NAME] {
        match connection.request_name_with_flags(name, RequestNameFlags::DoNotQueue.into()).await {
            Ok(RequestNameReply::PrimaryOwner | RequestNameReply::AlreadyOwner) => {}
            Ok(_) => {
                // Someone took it a moment ago: give back what we hold.
                shared.add_conflict("power-profiles-daemon");
                for mine in [UPOWER_NAME, HADESS_NAME] {
                    let _ = connection.release_name(mine).await;
                }
                return;
            }
            Err(err) => eprintln!("gearshift-helper: cannot own {name}: {err}"),
        }
    }
}

/// Which power manager a bus name's owner is, by its process name.
async fn owner_id(dbus: &DBusProxy<'_>, name: BusName<'_>) -> String {
    let pid = dbus.get_connection_unix_process_id(name).await.unwrap_or(0);
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    // Whatever serves this API is power-profiles-daemon or one of its
    // stand-ins (tuned-ppd, system76-power).
    id_for_process(comm.trim()).unwrap_or("power-profiles-daemon").to_owned()
}

/// Follows UPower's `OnBattery`, also when UPower starts later.
pub async fn upower(shared: Arc<Shared>) {
    let connection = shared.connection.clone();
    let Ok(dbus) = DBusProxy::new(&connection).await else { return };
    let Ok(mut owners) = dbus.receive_name_owner_changed_with_args(&[(0, UPOWER)]).await else { return };
    loop {
        let present = match BusName::try_from(UPOWER) {
            Ok(name) => dbus.name_has_owner(name).await.unwrap_or(false),
            Err(_) => false,
        };
        if present {
            if let Ok(proxy) = zbus::Proxy::new(&connection, UPOWER, "/org/freedesktop/UPower", UPOWER).await {
                if let Ok(on_battery) = proxy.get_property::<bool>("OnBattery").await {
                    shared.power_source(on_battery).await;
                }
                let mut changes = proxy.receive_property_changed::<bool>("OnBattery").await;
                loop {
                    tokio::select! {
                        Some(change) = changes.next() => {
                            if let Ok(on_battery) = change.get().await {
                                shared.power_source(on_battery).await;
                            }
                        }
                        signal = owners.next() => match signal {
                            Some(s) if s.args().is_ok_and(|a| a.new_owner().is_none()) => break,
                            Some(_) => {}
                            None => return,
                        },
                    }
                }
            }
        }
        // Wait for UPower to (re)appear.
        loop {
            match owners.next().await {
                Some(s) if s.args().is_ok_and(|a| a.new_owner().is_some()) => break,
                Some(_) => {}
                None => return,
            }
        }
    }
}

/// Re-applies after resume: firmware may have reset EPP while suspended.
pub async fn logind(shared: Arc<Shared>) {
    let rule = MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(LOGIN1)
        .and_then(|b| b.interface("org.freedesktop.login1.Manager"))
        .and_then(|b| b.member("PrepareForSleep"))
        .map(|b| b.build());
    let Ok(rule) = rule else { return };
    let Ok(mut stream) = MessageStream::for_match_rule(rule, &shared.connection, None).await else { return };
    while let Some(Ok(message)) = stream.next().await {
        if let Ok(false) = message.body().deserialize::<bool>() {
            shared.reapply("after resume", true).await;
        }
    }
}

/// Ends the holds of applications that leave the bus.
pub async fn holders(shared: Arc<Shared>) {
    let Ok(dbus) = DBusProxy::new(&shared.connection).await else { return };
    let Ok(mut owners) = dbus.receive_name_owner_changed().await else { return };
    while let Some(signal) = owners.next().await {
        let Ok(args) = signal.args() else { continue };
        if args.new_owner().is_none() && args.name().starts_with(':') && !shared.holds().is_empty() {
            shared.holder_gone(args.name()).await;
        }
    }
}

/// A CPU event from a kernel uevent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuEvent {
    /// The CPU came online (or was added).
    Online(u32),
    /// The CPU went offline (or was removed).
    Offline(u32),
}

/// Parses one kernel uevent message (`ACTION@DEVPATH\0KEY=VALUE\0...`);
/// `None` for anything but a CPU coming or going.
pub fn parse_uevent(message: &[u8]) -> Option<CpuEvent> {
    // udev's own re-broadcasts start with "libudev": not ours to read.
    if message.starts_with(b"libudev") {
        return None;
    }
    let text = std::str::from_utf8(message).ok()?;
    let (mut action, mut devpath, mut subsystem) = (None, None, None);
    for field in text.split('\0').skip(1) {
        match field.split_once('=') {
            Some(("ACTION", v)) => action = Some(v),
            Some(("DEVPATH", v)) => devpath = Some(v),
            Some(("SUBSYSTEM", v)) => subsystem = Some(v),
            _ => {}
        }
    }
    if subsystem != Some("cpu") {
        return None;
    }
    let cpu = numbered(devpath?.strip_prefix("/devices/system/cpu/")?, "cpu")?;
    match action? {
        "online" | "add" => Some(CpuEvent::Online(cpu)),
        "offline" | "remove" => Some(CpuEvent::Offline(cpu)),
        _ => None,
    }
}

/// Applies the profile to CPUs that come online (kernel uevents on a
/// netlink socket; nothing polls).
pub async fn uevents(shared: Arc<Shared>) {
    let socket = match uevent_socket() {
        Ok(socket) => socket,
        Err(err) => {
            eprintln!("gearshift-helper: no CPU hotplug events ({err}); profiles reach new CPUs at the next switch");
            return;
        }
    };
    // SAFETY: the AsyncFd owns the OwnedFd, which stays open and the same
    // descriptor for the AsyncFd's whole life.
    let Ok(socket) =
        (unsafe { tokio::io::unix::AsyncFd::register_with_interest(socket, tokio::io::Interest::READABLE) })
    else {
        return;
    };
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let Ok(mut ready) = socket.readable().await else { return };
        // SAFETY: recv into a buffer we own, of the length we pass.
        let n = unsafe { libc::recv(socket.get_ref().as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock {
                ready.clear_ready();
            }
            continue;
        }
        match parse_uevent(&buf[..n as usize]) {
            Some(CpuEvent::Online(cpu)) => shared.reapply(&format!("CPU {cpu} came online"), true).await,
            Some(CpuEvent::Offline(_)) => shared.reread_machine(),
            None => {}
        }
    }
}

fn uevent_socket() -> std::io::Result<OwnedFd> {
    // SAFETY: plain socket(2)/bind(2) calls on a descriptor we own; the
    // address struct is zeroed and filled with valid values.
    unsafe {
        let fd = libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
            libc::NETLINK_KOBJECT_UEVENT,
        );
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let fd = OwnedFd::from_raw_fd(fd);
        let mut addr: libc::sockaddr_nl = std::mem::zeroed();
        addr.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        addr.nl_groups = 1; // the kernel's own broadcast group
        let len = std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t;
        if libc::bind(fd.as_raw_fd(), std::ptr::addr_of!(addr).cast(), len) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(fd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages as the kernel sends them on NETLINK_KOBJECT_UEVENT.
    #[test]
    fn recorded_uevents() {
        let online = b"online@/devices/system/cpu/cpu3\0ACTION=online\0DEVPATH=/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0SEQNUM=4371\0";
        assert_eq!(parse_uevent(online), Some(CpuEvent::Online(3)));
        let offline = b"offline@/devices/system/cpu/cpu12\0ACTION=offline\0DEVPATH=/devices/system/cpu/cpu12\0SUBSYSTEM=cpu\0SEQNUM=4370\0";
        assert_eq!(parse_uevent(offline), Some(CpuEvent::Offline(12)));
        let add = b"add@/devices/system/cpu/cpu255\0ACTION=add\0DEVPATH=/devices/system/cpu/cpu255\0SUBSYSTEM=cpu\0SEQNUM=9\0";
        assert_eq!(parse_uevent(add), Some(CpuEvent::Online(255)));
        // Not a CPU, not a CPU coming or going, or not the kernel's.
        let usb = b"add@/devices/pci0000:00/usb1/1-1\0ACTION=add\0DEVPATH=/devices/pci0000:00/usb1/1-1\0SUBSYSTEM=usb\0SEQNUM=5\0";
        assert_eq!(parse_uevent(usb), None);
        let change =
            b"change@/devices/system/cpu/cpu3\0ACTION=change\0DEVPATH=/devices/system/cpu/cpu3\0SUBSYSTEM=cpu\0";
        assert_eq!(parse_uevent(change), None);
        let cpufreq = b"add@/devices/system/cpu/cpufreq/policy3\0ACTION=add\0DEVPATH=/devices/system/cpu/cpufreq/policy3\0SUBSYSTEM=cpu\0";
        assert_eq!(parse_uevent(cpufreq), None);
        let udev = b"libudev\0\xfe\xed\xca\xfe(\0\0\0(\0\0\0";
        assert_eq!(parse_uevent(udev), None);
        assert_eq!(parse_uevent(b""), None);
        assert_eq!(parse_uevent(b"\xff\xfe"), None);
    }
}
