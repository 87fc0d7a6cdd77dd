//! `org.freedesktop.DBus.Properties` on the helper's three objects, in
//! place of zbus's own: zbus answers a property name it does not know by
//! repeating it ("Unknown property '<name>'"), whatever its length, and a
//! caller who never reads its replies leaves them with the bus daemon,
//! which then holds back the helper's other messages (a flood of such
//! calls took the helper to 1.9 GB and made root's calls time out). Here
//! a property name is at most 255 bytes (the D-Bus limit of a member
//! name), every answer quotes the caller's words bounded
//! (`request::quote`), and the rest is the interfaces' own getters and
//! setters, as zbus would call them.

use std::collections::HashMap;

use zbus::message::Header;
use zbus::names::InterfaceName;
use zbus::object_server::{DispatchResult2, Interface, SignalEmitter};
use zbus::zvariant::{OwnedValue, Value};
use zbus::{fdo, interface, Connection, ObjectServer};

use super::ppd::{HadessProfiles, UPowerProfiles, HADESS_NAME, HADESS_PATH, UPOWER_NAME, UPOWER_PATH};
use super::request::quote;
use super::service::Helper1;
use crate::dbus::{HELPER_INTERFACE, HELPER_PATH};

/// The longest property name taken (a D-Bus member name's limit).
pub const MAX_PROPERTY_NAME: usize = 255;

/// Which of the helper's interfaces an object serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    /// `io.github.gearshift.Helper1`.
    Helper1,
    /// `org.freedesktop.UPower.PowerProfiles`.
    UPower,
    /// `net.hadess.PowerProfiles`.
    Hadess,
}

impl Served {
    fn interface(self) -> &'static str {
        match self {
            Served::Helper1 => HELPER_INTERFACE,
            Served::UPower => UPOWER_NAME,
            Served::Hadess => HADESS_NAME,
        }
    }

    fn path(self) -> &'static str {
        match self {
            Served::Helper1 => HELPER_PATH,
            Served::UPower => UPOWER_PATH,
            Served::Hadess => HADESS_PATH,
        }
    }
}

/// The Properties interface of one of the helper's objects.
pub struct Properties {
    served: Served,
}

/// Replaces zbus's Properties interface on the object serving `served`
/// (registered before).
///
/// # Errors
/// The object is not there.
pub async fn serve(connection: &Connection, served: Served) -> zbus::Result<()> {
    let server = connection.object_server();
    server.remove::<fdo::Properties, _>(served.path()).await?;
    server.at(served.path(), Properties { served }).await?;
    Ok(())
}

fn unknown_property(name: &str) -> fdo::Error {
    fdo::Error::UnknownProperty(format!("there is no property {}", quote(name)))
}

/// The interface named, if it is the one this object serves.
fn check(served: Served, interface: &InterfaceName<'_>, property: Option<&str>) -> fdo::Result<bool> {
    if let Some(name) = property {
        if name.len() > MAX_PROPERTY_NAME {
            return Err(fdo::Error::InvalidArgs(format!(
                "the property name is {} bytes; a property name has at most {MAX_PROPERTY_NAME}",
                name.len()
            )));
        }
    }
    if interface.as_str() == served.interface() {
        return Ok(true);
    }
    // The standard interfaces every object has carry no properties.
    if ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer"]
        .contains(&interface.as_str())
    {
        return Ok(false);
    }
    Err(fdo::Error::UnknownInterface(format!("this object has no interface {}", quote(interface))))
}

/// Runs `$body` with `$iface` bound to the served interface's instance.
macro_rules! with_interface {
    ($served:expr, $server:expr, |$iface:ident| $body:expr) => {
        match $served {
            Served::Helper1 => with_interface!(@at $server, Helper1, HELPER_PATH, |$iface| $body),
            Served::UPower => with_interface!(@at $server, UPowerProfiles, UPOWER_PATH, |$iface| $body),
            Served::Hadess => with_interface!(@at $server, HadessProfiles, HADESS_PATH, |$iface| $body),
        }
    };
    (@at $server:expr, $type:ty, $path:expr, |$iface:ident| $body:expr) => {{
        let found = $server.interface::<_, $type>($path).await.map_err(zbus_error)?;
        let $iface = found.get().await;
        #[allow(clippy::let_and_return)]
        let result = $body;
        result
    }};
}

fn zbus_error(err: zbus::Error) -> fdo::Error {
    fdo::Error::Failed(format!("the object is not served now ({err})"))
}

#[interface(name = "org.freedesktop.DBus.Properties", introspection_docs = false)]
impl Properties {
    /// A property's value.
    async fn get(
        &self,
        interface_name: InterfaceName<'_>,
        property_name: &str,
        #[zbus(connection)] connection: &Connection,
        #[zbus(object_server)] server: &ObjectServer,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> fdo::Result<OwnedValue> {
        if !check(self.served, &interface_name, Some(property_name))? {
            return Err(unknown_property(property_name));
        }
        let value = with_interface!(self.served, server, |iface| {
            Interface::get(&*iface, property_name, server, connection, Some(&header), &emitter).await
        });
        value.unwrap_or_else(|| Err(unknown_property(property_name)))
    }

    /// Every property of an interface.
    async fn get_all(
        &self,
        interface_name: InterfaceName<'_>,
        #[zbus(connection)] connection: &Connection,
        #[zbus(object_server)] server: &ObjectServer,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> fdo::Result<HashMap<String, OwnedValue>> {
        if !check(self.served, &interface_name, None)? {
            return Ok(HashMap::new());
        }
        with_interface!(self.served, server, |iface| {
            Interface::get_all(&*iface, server, connection, Some(&header), &emitter).await
        })
    }

    /// Sets a property (the few that may be set check their caller).
    #[allow(clippy::too_many_arguments)]
    async fn set(
        &self,
        interface_name: InterfaceName<'_>,
        property_name: &str,
        value: Value<'_>,
        #[zbus(connection)] connection: &Connection,
        #[zbus(object_server)] server: &ObjectServer,
        #[zbus(header)] header: Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> fdo::Result<()> {
        if !check(self.served, &interface_name, Some(property_name))? {
            return Err(unknown_property(property_name));
        }
        // Every setter of the helper's takes `&self`: none needs the
        // interface's write lock.
        with_interface!(self.served, server, |iface| {
            let dispatched =
                Interface::set(&*iface, property_name, &value, server, connection, Some(&header), &emitter);
            let result = match dispatched {
                DispatchResult2::Async(set) => set.await,
                DispatchResult2::NotFound | DispatchResult2::RequiresMut => Err(unknown_property(property_name)),
            };
            result
        })
    }

    /// Announces changed properties (sent by the interfaces themselves).
    #[zbus(signal)]
    async fn properties_changed(
        emitter: &SignalEmitter<'_>,
        interface_name: InterfaceName<'_>,
        changed_properties: HashMap<&str, Value<'_>>,
        invalidated_properties: Vec<&str>,
    ) -> zbus::Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_measured_before_anything_repeats_them() {
        let iface = InterfaceName::try_from(HELPER_INTERFACE).unwrap();
        let long = "A".repeat(1_000_000);
        let Err(fdo::Error::InvalidArgs(text)) = check(Served::Helper1, &iface, Some(&long)) else { panic!() };
        assert_eq!(text, "the property name is 1000000 bytes; a property name has at most 255");
        assert!(unknown_property(&"A".repeat(255)).to_string().len() < 200);
        let other = InterfaceName::try_from(format!("a.{}", "b".repeat(250))).unwrap();
        let Err(fdo::Error::UnknownInterface(text)) = check(Served::UPower, &other, None) else { panic!() };
        assert!(text.len() < 120, "{text}");
        let peer = InterfaceName::try_from("org.freedesktop.DBus.Peer").unwrap();
        assert_eq!(check(Served::Hadess, &peer, Some("Version")).ok(), Some(false));
        assert_eq!(check(Served::Hadess, &InterfaceName::try_from(HADESS_NAME).unwrap(), None).ok(), Some(true));
    }
}
