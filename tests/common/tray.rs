//! The tray for the tray test and the tray benchmark: the `gearshift --tray`
//! process, and a stand-in for the desktop's StatusNotifierWatcher (what a
//! panel with tray support serves), and the dbusmenu and tooltip read the
//! way a panel reads them.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zbus::zvariant::{OwnedValue, Value};

use super::bus::Bus;

/// Starts `gearshift --tray` on the snapshot copy `root`, linked to the
/// helper on `bus`, with the session bus at `session` and `config` as the
/// person's config directory (no system autostart entry).
pub fn spawn_tray(bus: &Bus, root: &Path, session: &str, config: &Path) -> TrayProcess {
    let child = bus
        .command(env!("CARGO_BIN_EXE_gearshift"))
        .args(["--tray", "--root", root.to_str().unwrap()])
        .env("DBUS_SESSION_BUS_ADDRESS", session)
        .env("XDG_CONFIG_HOME", config)
        .env("XDG_CONFIG_DIRS", config.join("none"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(config.join("tray-stderr.txt")).expect("the tray's stderr file"))
        .spawn()
        .expect("gearshift --tray");
    TrayProcess(child)
}

/// The `gearshift --tray` process, stopped when this is dropped: also when
/// a test fails before it would stop it, so that no tray outlives its test.
pub struct TrayProcess(Child);

impl std::ops::Deref for TrayProcess {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for TrayProcess {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for TrayProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits (up to 20 s) until an item registered with the watcher whose
/// `items` these are, and returns its bus name.
pub fn wait_for_item(runtime: &tokio::runtime::Runtime, items: &Mutex<Vec<String>>) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(name) = items.lock().unwrap().first() {
            return name.clone();
        }
        assert!(Instant::now() < deadline, "the tray never registered");
        runtime.block_on(async { tokio::time::sleep(Duration::from_millis(50)).await });
    }
}

/// A stand-in for the desktop's StatusNotifierWatcher.
pub struct Watcher {
    pub items: Arc<Mutex<Vec<String>>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    fn register_status_notifier_item(&self, service: &str, #[zbus(header)] header: zbus::message::Header<'_>) {
        // The item's bus name is the sender when it gives a path.
        let name = if service.starts_with('/') {
            header.sender().map(|s| s.to_string()).unwrap_or_default()
        } else {
            service.to_owned()
        };
        self.items.lock().unwrap().push(name);
    }

    fn register_status_notifier_host(&self, _service: &str) {}

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items.lock().unwrap().clone()
    }
}

impl Watcher {
    /// Serves a watcher on the session bus at `address`; the registered
    /// items' bus names collect in `items`.
    pub async fn serve(address: &str, items: Arc<Mutex<Vec<String>>>) -> zbus::Result<zbus::Connection> {
        zbus::connection::Builder::address(address)?
            .serve_at("/StatusNotifierWatcher", Watcher { items })?
            .name("org.kde.StatusNotifierWatcher")?
            .build()
            .await
    }
}

/// A dbusmenu item as a panel reads it: its id and properties.
pub struct Item {
    /// The item's id (for `Event`).
    pub id: i32,
    /// Its properties (`label`, `toggle-type`, `toggle-state`, ...).
    pub props: HashMap<String, OwnedValue>,
}

impl Item {
    /// A text property.
    pub fn text(&self, key: &str) -> Option<String> {
        self.props.get(key).and_then(|v| String::try_from(v.try_clone().ok()?).ok())
    }
    /// A number property.
    pub fn number(&self, key: &str) -> Option<i32> {
        self.props.get(key).and_then(|v| i32::try_from(v.try_clone().ok()?).ok())
    }

    /// The label as a person reads it (without the mnemonic's `_`).
    pub fn label(&self) -> String {
        self.text("label").unwrap_or_default().replace('_', "")
    }
}

fn flatten(value: &Value<'_>, out: &mut Vec<Item>) {
    let value = match value {
        Value::Value(inner) => inner.as_ref(),
        other => other,
    };
    let Value::Structure(s) = value else { return };
    let fields = s.fields();
    let (Some(Value::I32(id)), Some(Value::Dict(props)), Some(Value::Array(children))) =
        (fields.first(), fields.get(1), fields.get(2))
    else {
        return;
    };
    let props: HashMap<String, OwnedValue> = HashMap::try_from(props.try_clone().unwrap()).unwrap_or_default();
    out.push(Item { id: *id, props });
    for child in children.iter() {
        flatten(child, out);
    }
}

/// The whole menu, every item at every depth, as `GetLayout` gives it.
pub fn layout(runtime: &tokio::runtime::Runtime, conn: &zbus::Connection, service: &str) -> Vec<Item> {
    let reply = runtime
        .block_on(conn.call_method(
            Some(service),
            "/MenuBar",
            Some("com.canonical.dbusmenu"),
            "GetLayout",
            &(0i32, -1i32, Vec::<String>::new()),
        ))
        .expect("GetLayout");
    type Node = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);
    let (_revision, (id, props, children)): (u32, Node) = reply.body().deserialize().expect("(u(ia{sv}av))");
    let mut items = vec![Item { id, props }];
    for child in &children {
        flatten(child, &mut items);
    }
    items
}

/// The radio items: (label, toggle state, id).
pub fn radio_items(items: &[Item]) -> Vec<(String, i32, i32)> {
    items
        .iter()
        .filter(|i| i.text("toggle-type").as_deref() == Some("radio"))
        .map(|i| (i.label(), i.number("toggle-state").unwrap_or(0), i.id))
        .collect()
}

/// The item's tooltip: its title and text, a line each.
pub fn tooltip(runtime: &tokio::runtime::Runtime, conn: &zbus::Connection, service: &str) -> String {
    let reply = runtime
        .block_on(conn.call_method(
            Some(service),
            "/StatusNotifierItem",
            Some("org.freedesktop.DBus.Properties"),
            "Get",
            &("org.kde.StatusNotifierItem", "ToolTip"),
        ))
        .expect("the ToolTip property");
    let value: OwnedValue = reply.body().deserialize().expect("a variant");
    type Tip = (String, Vec<(i32, i32, Vec<u8>)>, String, String);
    let (_icon, _pixmaps, title, text): Tip = value.try_into().expect("(sa(iiay)ss)");
    format!("{title}\n{text}")
}

/// The label of the checked radio item.
pub fn checked(items: &[Item]) -> Option<String> {
    radio_items(items).into_iter().find(|(_, state, _)| *state == 1).map(|(label, _, _)| label)
}

/// Clicks item `id`, as a panel does.
pub fn click(runtime: &tokio::runtime::Runtime, conn: &zbus::Connection, service: &str, id: i32) {
    runtime
        .block_on(conn.call_method(
            Some(service),
            "/MenuBar",
            Some("com.canonical.dbusmenu"),
            "Event",
            &(id, "clicked", Value::from(0i32), 0u32),
        ))
        .expect("dbusmenu Event");
}
