//! What the helper listens to, without any timer: UPower's `OnBattery`,
//! logind's `PrepareForSleep`, bus names leaving (holders), kernel uevents
//! for CPUs coming online, and who owns the desktop power panel's names.
//! A signal is believed only from the current owner of the name that may
//! send it (docs/dbus-api.md, "What the helper follows").

use std::collections::HashMap;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;

use futures_util::StreamExt;
use zbus::fdo::{DBusProxy, RequestNameFlags, RequestNameReply};
use zbus::names::BusName;
use zbus::zvariant::OwnedValue;
use zbus::{MatchRule, MessageStream};

use super::engine::Engine;
use super::ppd::{HADESS_NAME, UPOWER_NAME};
use crate::core::conflicts::Program;
use crate::core::paths::numbered;

const UPOWER: &str = "org.freedesktop.UPower";
/// UPower's summary of the batteries, whose `Percentage` is the level.
const DISPLAY_DEVICE: &str = "/org/freedesktop/UPower/devices/DisplayDevice";
const UPOWER_DEVICE: &str = "org.freedesktop.UPower.Device";
const LOGIN1: &str = "org.freedesktop.login1";
const BUS_DAEMON: &str = "org.freedesktop.DBus";

/// Whether another program serves the desktop power panel's names; if so,
/// records who (the start then leaves the machine alone) and the helper
/// takes neither name (two daemons behind the two names would fight over
/// the same files).
pub async fn panel_names_served_elsewhere(engine: &Engine) -> bool {
    let Ok(dbus) = DBusProxy::new(&engine.connection).await else { return false };
    let mut taken = false;
    for name in [UPOWER_NAME, HADESS_NAME] {
        let Ok(bus_name) = BusName::try_from(name) else { continue };
        if dbus.name_has_owner(bus_name.clone()).await.unwrap_or(false) {
            let who = owner_id(&dbus, bus_name).await;
            log::info!("{name} belongs to {who}: leaving the power panel's names alone");
            engine.add_conflict(&who);
            taken = true;
        }
    }
    taken
}

/// Takes the desktop power panel's names, once the start has applied: a
/// desktop (or power-profiles-daemon's test suite) that sees them reads a
/// profile already in effect. Another program that took one meanwhile
/// keeps it, and the helper gives back what it holds.
pub async fn take_panel_names(engine: &Engine) {
    let connection = &engine.connection;
    for name in [UPOWER_NAME, HADESS_NAME] {
        match connection.request_name_with_flags(name, RequestNameFlags::DoNotQueue.into()).await {
            Ok(RequestNameReply::PrimaryOwner | RequestNameReply::AlreadyOwner) => {}
            Ok(_) => {
                // Someone took it a moment ago: give back what we hold.
                let who = match (DBusProxy::new(connection).await, BusName::try_from(name)) {
                    (Ok(dbus), Ok(bus_name)) => owner_id(&dbus, bus_name).await,
                    _ => Program::PowerProfilesDaemon.name().to_owned(),
                };
                engine.add_conflict(&who);
                for mine in [UPOWER_NAME, HADESS_NAME] {
                    let _ = connection.release_name(mine).await;
                }
                return;
            }
            Err(err) => log::warn!("cannot own {name}: {err}"),
        }
    }
}

/// Which program a bus name's owner is (`tlp-pd`, `tuned-ppd`...): where
/// the bus cannot say, power-profiles-daemon, whose API it serves.
async fn owner_id(dbus: &DBusProxy<'_>, name: BusName<'_>) -> String {
    crate::dbus::proxy::owner_program(dbus, name)
        .await
        .unwrap_or_else(|| Program::PowerProfilesDaemon.name().to_owned())
}

/// Something a trusted signal asked for, handled in order by one worker.
#[derive(Debug)]
enum Event {
    /// logind: the machine resumed.
    Resumed,
    /// UPower: the power source is (now) battery or not.
    PowerSource(bool),
    /// UPower: the battery's level (its display device), in percent.
    BatteryLevel(f64),
    /// UPower has a (new) owner: ask it for the power source.
    UPowerAt(String),
    /// UPower left the bus: the power source is unknown.
    UPowerGone,
    /// A holder's unique name left the bus.
    HolderGone(String),
}

/// Who may send each signal the helper believes: the bus daemon itself,
/// and the current owners of logind's and UPower's names. Any local user
/// may send a signal with any interface and member, unicast to the helper,
/// so a signal counts only when its sender is the name's owner right now.
#[derive(Debug, Default)]
struct Senders {
    login1: Option<String>,
    upower: Option<String>,
}

fn rule(
    sender: &'static str,
    path: &'static str,
    interface: &'static str,
    member: &'static str,
) -> zbus::Result<MatchRule<'static>> {
    Ok(MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender(sender)?
        .path(path)?
        .interface(interface)?
        .member(member)?
        .build())
}

/// The signals the helper acts on, subscribed: their messages wait in the
/// streams until [`Signals::follow`] runs.
pub struct Signals {
    engine: Arc<Engine>,
    dbus: DBusProxy<'static>,
    owners: MessageStream,
    sleep: MessageStream,
    power: MessageStream,
    level: MessageStream,
}

/// Subscribes to the signals the helper acts on. Done before the helper
/// takes its name, so that no signal sent after a client found the helper
/// is lost; they are acted on from [`Signals::follow`], after the start.
///
/// # Errors
/// The bus refused a subscription or broke.
pub async fn subscribe(engine: Arc<Engine>) -> anyhow::Result<Signals> {
    let connection = engine.connection.clone();
    let dbus = DBusProxy::new(&connection).await?;
    let stream = |sender, path, interface, member| {
        let connection = &connection;
        async move {
            anyhow::Ok(MessageStream::for_match_rule(rule(sender, path, interface, member)?, connection, None).await?)
        }
    };
    let owners = stream(BUS_DAEMON, "/org/freedesktop/DBus", BUS_DAEMON, "NameOwnerChanged").await?;
    let sleep = stream(LOGIN1, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep").await?;
    let power =
        stream(UPOWER, "/org/freedesktop/UPower", "org.freedesktop.DBus.Properties", "PropertiesChanged").await?;
    let level = stream(UPOWER, DISPLAY_DEVICE, "org.freedesktop.DBus.Properties", "PropertiesChanged").await?;
    Ok(Signals { engine, dbus, owners, sleep, power, level })
}

impl Signals {
    /// Follows the signals, without any timer: UPower's `OnBattery` (also
    /// when UPower starts later), logind's `PrepareForSleep(false)` (resume:
    /// firmware may have reset EPP), and bus names leaving (their holds
    /// end). Forged signals cost a comparison and are dropped; the work they
    /// would ask for runs on a worker task, so that this loop keeps draining
    /// the bus and never holds up a method call.
    ///
    /// # Errors
    /// The bus connection closed or broke: the helper must then exit (D-Bus
    /// activation or systemd starts it again) rather than live on off the
    /// bus.
    pub async fn follow(self) -> anyhow::Result<()> {
        let Signals { engine, dbus, mut owners, mut sleep, mut power, mut level } = self;
        // Subscribed first, asked second: no owner change falls between.
        let owner = |name: &'static str| {
            let dbus = &dbus;
            async move {
                let name = BusName::try_from(name).ok()?;
                dbus.get_name_owner(name).await.ok().map(|o| o.to_string())
            }
        };
        let mut senders = Senders { login1: owner(LOGIN1).await, upower: owner(UPOWER).await };
        let (events, queue) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(work(engine.clone(), queue));
        if let Some(upower) = senders.upower.as_ref().filter(|_| !engine.blocklist.upower_disabled) {
            let _ = events.send(Event::UPowerAt(upower.clone()));
        }
        loop {
            let message = tokio::select! {
                m = owners.next() => m,
                m = sleep.next() => m,
                m = power.next() => m,
                m = level.next() => m,
            };
            let message = match message {
                Some(Ok(message)) => message,
                Some(Err(err)) => anyhow::bail!("the system bus connection failed: {err}"),
                None => anyhow::bail!("the system bus connection closed"),
            };
            match trusted_event(&message, &mut senders, &engine) {
                Some(event) => {
                    let _ = events.send(event);
                }
                None => {
                    // For tests: proof that a forged signal was seen and dropped.
                    if super::journal::enabled() {
                        let header = message.header();
                        let member = header.member().map_or("", |m| m.as_str());
                        let sender = header.sender().map_or("", |s| s.as_str());
                        // Its first argument where it is a string: the name of a
                        // NameOwnerChanged.
                        let about = message.body().deserialize::<(String, String, String)>().map(|(n, _, _)| n);
                        let about = about.map(|n| format!(" ({n})")).unwrap_or_default();
                        super::journal::handled(format_args!("signal not acted on: {member} from {sender}{about}"));
                    }
                }
            }
        }
    }
}

/// The event a signal stands for, when its sender may send it.
fn trusted_event(message: &zbus::Message, senders: &mut Senders, engine: &Engine) -> Option<Event> {
    let header = message.header();
    let sender = header.sender()?.as_str();
    let member = header.member()?.as_str();
    match member {
        "NameOwnerChanged" if sender == BUS_DAEMON => {
            let (name, _old, new): (String, String, String) = message.body().deserialize().ok()?;
            let new = Some(new).filter(|n| !n.is_empty());
            match name.as_str() {
                LOGIN1 => {
                    senders.login1 = new;
                    None
                }
                UPOWER if engine.blocklist.upower_disabled => {
                    senders.upower = new;
                    None
                }
                UPOWER => {
                    senders.upower.clone_from(&new);
                    Some(new.map_or(Event::UPowerGone, Event::UPowerAt))
                }
                unique if new.is_none() && unique.starts_with(':') => {
                    engine.authority.forget(unique);
                    let held = engine.holds().iter().any(|h| h.holder == unique)
                        || engine.lease_holder().as_deref() == Some(unique);
                    held.then_some(Event::HolderGone(name))
                }
                _ => None,
            }
        }
        "PrepareForSleep" if senders.login1.as_deref() == Some(sender) && !engine.blocklist.logind_disabled => {
            // true: going to sleep; false: resumed.
            matches!(message.body().deserialize::<bool>(), Ok(false)).then_some(Event::Resumed)
        }
        "PropertiesChanged" if senders.upower.as_deref() == Some(sender) && !engine.blocklist.upower_disabled => {
            let (interface, changed, _): (String, HashMap<String, OwnedValue>, Vec<String>) =
                message.body().deserialize().ok()?;
            match (header.path().map(|p| p.as_str()), interface.as_str()) {
                (Some(DISPLAY_DEVICE), UPOWER_DEVICE) => {
                    let level = f64::try_from(changed.get("Percentage")?).ok()?;
                    (0.0..=100.0).contains(&level).then_some(Event::BatteryLevel(level))
                }
                (Some("/org/freedesktop/UPower"), UPOWER) => {
                    let on_battery = bool::try_from(changed.get("OnBattery")?).ok()?;
                    Some(Event::PowerSource(on_battery))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A property of UPower's, asked of the owner itself by its unique name
/// (`Get` answers a variant holding the value).
async fn upower_property(engine: &Engine, owner: &str, path: &str, interface: &str, name: &str) -> Option<OwnedValue> {
    let reply = engine
        .connection
        .call_method(Some(owner), path, Some("org.freedesktop.DBus.Properties"), "Get", &(interface, name))
        .await
        .ok()?;
    reply.body().deserialize::<OwnedValue>().ok()
}

/// Handles events one at a time, in the order they came.
async fn work(engine: Arc<Engine>, mut queue: tokio::sync::mpsc::UnboundedReceiver<Event>) {
    while let Some(event) = queue.recv().await {
        match event {
            Event::Resumed => {
                engine.resumed().await;
                super::journal::handled(format_args!("resumed"));
            }
            Event::PowerSource(on_battery) => {
                engine.power_source(on_battery).await;
                super::journal::handled(format_args!("power source: on battery {on_battery}"));
            }
            Event::UPowerGone => {
                engine.power_source_lost().await;
                super::journal::handled(format_args!("power source unknown: UPower left"));
            }
            Event::BatteryLevel(level) => {
                engine.battery_level(level).await;
                super::journal::handled(format_args!("battery level: {level}"));
            }
            Event::HolderGone(name) => {
                engine.holder_gone(&name).await;
                super::journal::handled(format_args!("holder gone: {name}"));
            }
            Event::UPowerAt(owner) => {
                let on_battery = upower_property(&engine, &owner, "/org/freedesktop/UPower", UPOWER, "OnBattery")
                    .await
                    .and_then(|v| bool::try_from(&v).ok());
                if let Some(on_battery) = on_battery {
                    engine.power_source(on_battery).await;
                }
                let level = upower_property(&engine, &owner, DISPLAY_DEVICE, UPOWER_DEVICE, "Percentage")
                    .await
                    .and_then(|v| f64::try_from(&v).ok())
                    .filter(|l| (0.0..=100.0).contains(l));
                if let Some(level) = level {
                    engine.battery_level(level).await;
                }
                super::journal::handled(format_args!("power source asked: on battery {on_battery:?}"));
            }
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
    /// A platform profile handler came or went (its class device, Linux
    /// 6.14+), a module loaded (before 6.14 a late platform profile
    /// driver announces itself no other way), or a power supply came or
    /// went (trickle charge).
    Firmware,
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
    match (subsystem, action) {
        (Some("platform-profile"), Some("add" | "remove" | "change"))
        | (Some("module"), Some("add"))
        | (Some("power_supply"), Some("add" | "remove"))
        | (Some("drm"), Some("add" | "change")) => return Some(CpuEvent::Firmware),
        (Some("cpu"), _) => {}
        _ => return None,
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
/// The socket is made by [`listen_uevents`] before the helper applies
/// anything at start, so that no event between the two is lost.
pub async fn uevents(engine: Arc<Engine>, socket: Option<OwnedFd>) {
    let Some(socket) = socket else { return };
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
        // SAFETY: an all-zero sockaddr_nl is a valid value.
        let mut from: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        let mut from_len = std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t;
        // SAFETY: recvfrom into a buffer and an address we own, of the
        // lengths we pass.
        let n = unsafe {
            libc::recvfrom(
                socket.get_ref().as_raw_fd(),
                buf.as_mut_ptr().cast(),
                buf.len(),
                0,
                std::ptr::addr_of_mut!(from).cast(),
                &mut from_len,
            )
        };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock {
                ready.clear_ready();
            }
            continue;
        }
        if !from_the_kernel(&from, from_len) {
            // Root in the helper's network namespace may send on the
            // uevent group too: only the kernel's own word counts (udev
            // learned it with CVE-2009-1185).
            log::debug!("a uevent from user space (port {}) was ignored", from.nl_pid);
            super::journal::handled(format_args!("uevent ignored: from user space"));
            continue;
        }
        let event = parse_uevent(&buf[..n as usize]);
        match event {
            Some(CpuEvent::Online(cpu)) => engine.reapply(&format!("CPU {cpu} came online"), true).await,
            Some(CpuEvent::Offline(_)) => engine.reread().await,
            Some(CpuEvent::Firmware) => {
                engine.rewatch_firmware.notify_one();
                engine.firmware_changed().await;
            }
            None => {}
        }
        super::journal::handled(format_args!("uevent: {event:?}"));
    }
}

/// True when a netlink message came from the kernel: its sender's port id
/// is 0 (every user-space socket has another).
fn from_the_kernel(from: &libc::sockaddr_nl, len: libc::socklen_t) -> bool {
    usize::try_from(len).is_ok_and(|l| l >= std::mem::size_of::<libc::sockaddr_nl>())
        && i32::from(from.nl_family) == libc::AF_NETLINK
        && from.nl_pid == 0
}

/// The kernel's uevent socket, bound now; `None` (logged) where there is none.
pub fn listen_uevents() -> Option<OwnedFd> {
    match uevent_socket() {
        Ok(socket) => Some(socket),
        Err(err) => {
            log::warn!("no CPU hotplug events ({err}); profiles reach new CPUs at the next switch");
            None
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
mod tests;
