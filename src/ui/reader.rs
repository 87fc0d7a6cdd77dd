//! The window's one thread for blocking reads of sysfs, /proc and its
//! data directory, so that the GTK main thread never waits on a file.
//!
//! One thread, started at the first read, that sleeps in `recv` between
//! jobs: unlike tokio's blocking pool, whose idle threads end after ten
//! seconds and so wake a hidden window up, it costs nothing while idle.

use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

static JOBS: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();

fn jobs() -> mpsc::Sender<Job> {
    let sender = JOBS.get_or_init(|| {
        let (sender, receiver) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new().name("gearshift-reads".into()).spawn(move || {
            while let Ok(job) = receiver.recv() {
                job();
            }
        });
        if let Err(err) = started {
            log::warn!("no thread for reading the machine's files: {err}");
        }
        Mutex::new(sender)
    });
    sender.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
}

/// Runs `read` on the reading thread; `None` where it panicked or the
/// thread is gone (logged).
pub async fn blocking<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (done, result) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let value = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
        let _ = done.send(value.ok());
    });
    if jobs().send(job).is_err() {
        log::warn!("the thread that reads the machine's files is gone");
        return None;
    }
    let value = result.await.ok().flatten();
    if value.is_none() {
        log::warn!("a read of the machine's files failed");
    }
    value
}
