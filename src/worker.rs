//! One thread for blocking work, for the helper's disk and /proc work and
//! the window's reads of sysfs, so that neither async runtime nor GTK's
//! main loop ever waits on a file.
//!
//! The thread starts at the first job and sleeps in `recv` between jobs
//! for as long as the process lives. Tokio's blocking pool instead starts
//! a thread when none is idle and ends it after its keep-alive: a short
//! keep-alive costs a thread start (about twenty system calls) for each
//! switch a person makes, a long one wakes an idle process up when the
//! thread ends. One sleeping thread costs neither (docs/performance.md).

use std::sync::mpsc;
use std::sync::OnceLock;

type Job = Box<dyn FnOnce() + Send>;

/// Why a job gave no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Lost {
    /// The job panicked.
    #[error("the work panicked")]
    Panicked,
    /// The thread could not start or is gone.
    #[error("the thread for blocking work is gone")]
    Gone,
}

/// A named thread that runs jobs one after the other, in the order sent.
pub struct Worker {
    name: &'static str,
    jobs: OnceLock<Option<mpsc::Sender<Job>>>,
}

impl Worker {
    /// A worker whose thread (named `name`) starts at its first job.
    pub const fn new(name: &'static str) -> Worker {
        Worker { name, jobs: OnceLock::new() }
    }

    fn sender(&self) -> Option<&mpsc::Sender<Job>> {
        self.jobs
            .get_or_init(|| {
                let (sender, receiver) = mpsc::channel::<Job>();
                let started = std::thread::Builder::new().name(self.name.into()).spawn(move || {
                    while let Ok(job) = receiver.recv() {
                        job();
                    }
                });
                match started {
                    Ok(_) => Some(sender),
                    Err(err) => {
                        log::warn!("no thread for blocking work ({}): {err}", self.name);
                        None
                    }
                }
            })
            .as_ref()
    }

    /// Runs `work` on the thread and waits for its result without
    /// blocking the caller's runtime.
    pub async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T, Lost> {
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let value = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
            let _ = done.send(value.map_err(|_| Lost::Panicked));
        });
        self.sender().ok_or(Lost::Gone)?.send(job).map_err(|_| Lost::Gone)?;
        result.await.map_err(|_| Lost::Gone)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    #[test]
    fn jobs_run_in_order_on_one_named_thread() {
        static WORKER: Worker = Worker::new("gearshift-test-worker");
        let names: Vec<String> = (0..5)
            .map(|i| {
                block_on(WORKER.run(move || format!("{i} {}", std::thread::current().name().unwrap_or_default())))
                    .unwrap()
            })
            .collect();
        let expected: Vec<String> = (0..5).map(|i| format!("{i} gearshift-test-worker")).collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn a_panicking_job_is_an_error_and_the_thread_goes_on() {
        static WORKER: Worker = Worker::new("gearshift-test-panics");
        let lost = block_on(WORKER.run(|| -> u8 { panic!("a broken job (this test's own panic)") }));
        assert_eq!(lost, Err(Lost::Panicked));
        assert_eq!(block_on(WORKER.run(|| 7)), Ok(7));
    }
}
