//! The tray for the tray test and the tray benchmark: the `gearshift --tray`
//! process, and a stand-in for the desktop's StatusNotifierWatcher (what a
//! panel with tray support serves).

use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::bus::Bus;

/// Starts `gearshift --tray` on the snapshot copy `root`, linked to the
/// helper on `bus`, with the session bus at `session` and `config` as the
/// person's config directory (no system autostart entry).
pub fn spawn_tray(bus: &Bus, root: &Path, session: &str, config: &Path) -> Child {
    bus.command(env!("CARGO_BIN_EXE_gearshift"))
        .args(["--tray", "--root", root.to_str().unwrap()])
        .env("DBUS_SESSION_BUS_ADDRESS", session)
        .env("XDG_CONFIG_HOME", config)
        .env("XDG_CONFIG_DIRS", config.join("none"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(config.join("tray-stderr.txt")).expect("the tray's stderr file"))
        .spawn()
        .expect("gearshift --tray")
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
