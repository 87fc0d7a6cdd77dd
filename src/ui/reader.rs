//! The window's one thread for blocking reads of sysfs, /proc and its
//! data directory, so that the GTK main thread never waits on a file
//! (`gearshift::worker`: it sleeps between jobs, so a hidden window is
//! never woken by it).

use gearshift::worker::Worker;

static READS: Worker = Worker::new("gearshift-reads");

/// Runs `read` on the reading thread; `None` where it panicked or the
/// thread is gone (logged).
pub async fn blocking<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    match READS.run(read).await {
        Ok(value) => Some(value),
        Err(lost) => {
            log::warn!("a read of the machine's files failed: {lost}");
            None
        }
    }
}
