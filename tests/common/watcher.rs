//! A stand-in for the desktop's StatusNotifierWatcher (what a panel with
//! tray support serves), for the tray test and the tray benchmark.

use std::sync::{Arc, Mutex};

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
