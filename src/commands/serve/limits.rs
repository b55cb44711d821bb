//! The limits that protect the host: a fixed pool of search threads with a bounded queue in
//! front of it, and the caps on what one request may ask for.
//!
//! Searches are CPU work and must not run on the async runtime's threads. Each is a job sent
//! to the pool; a full queue refuses it at once (the caller answers 503 with `Retry-After`)
//! instead of letting a backlog grow without bound, and a job whose request's deadline passed
//! while it waited is dropped unrun.

use super::metrics::Metrics;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What one request may ask for, set by the operator at start.
#[derive(Clone, Debug)]
pub struct Caps {
    /// Largest request body in bytes.
    pub max_body: usize,
    /// Most moves in a request's move list.
    pub max_moves: usize,
    /// Longest thinking time a request may ask for.
    pub max_movetime: Duration,
    /// Most simulations a request may ask for.
    pub max_simulations: u32,
    /// Most lines of an analysis.
    pub max_top: usize,
    /// Every request is answered within this time, an error if need be.
    pub request_timeout: Duration,
}

impl Caps {
    /// When a search for a request that arrived at `start` must stop: a little before the
    /// request's own deadline, so that its answer is still sent in time.
    pub fn search_cutoff(&self, start: Instant) -> Instant {
        let margin = (self.request_timeout / 10).min(Duration::from_millis(500));
        start + self.request_timeout.saturating_sub(margin)
    }
}

/// Why a job was not run.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// The queue was full: come back later.
    QueueFull,
    /// The request's deadline passed before a search thread was free.
    Expired,
    /// The job panicked (a bug): the worker survived, the request gets a 500.
    Failed,
}

type Job = Box<dyn FnOnce() + Send>;

/// A fixed number of search threads fed from a bounded queue.
pub struct SearchPool {
    sender: SyncSender<Job>,
    workers: usize,
    queue: usize,
    /// Jobs admitted and not yet finished (running or waiting): at most `workers + queue`.
    /// Counted apart from the channel so that a finished job frees its place before its
    /// answer goes out, and its client's next request finds the place free.
    admitted: Arc<AtomicUsize>,
    metrics: Arc<Metrics>,
}

impl SearchPool {
    /// Starts `workers` threads (at least one) behind a queue of `queue` waiting jobs.
    pub fn new(workers: usize, queue: usize, metrics: Arc<Metrics>) -> Result<SearchPool, String> {
        let workers = workers.max(1);
        let (sender, receiver) = sync_channel::<Job>(queue + workers);
        let receiver = Arc::new(Mutex::new(receiver));
        for i in 0..workers {
            let rx = receiver.clone();
            std::thread::Builder::new()
                .name(format!("search-{i}"))
                .spawn(move || work(&rx))
                .map_err(|e| format!("cannot start search thread {i}: {e}"))?;
        }
        metrics.set_pool(workers, queue);
        Ok(SearchPool {
            sender,
            workers,
            queue,
            admitted: Arc::new(AtomicUsize::new(0)),
            metrics,
        })
    }

    /// Search threads.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Jobs that may wait for a thread.
    pub fn queue_capacity(&self) -> usize {
        self.queue
    }

    /// Runs `f` on a search thread unless the queue is full, or `deadline` passes before a
    /// thread takes it, or the caller stopped waiting (its client went away).
    pub async fn run<T: Send + 'static>(
        &self,
        deadline: Instant,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refused> {
        let capacity = self.workers + self.queue;
        let refuse = |metrics: &Metrics| {
            metrics.rejected.fetch_add(1, Ordering::Relaxed);
            Err(Refused::QueueFull)
        };
        if self
            .admitted
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < capacity).then_some(n + 1)
            })
            .is_err()
        {
            return refuse(&self.metrics);
        }
        let (tx, rx) = tokio::sync::oneshot::channel::<Result<T, Refused>>();
        let metrics = self.metrics.clone();
        let admitted = self.admitted.clone();
        let job: Job = Box::new(move || {
            metrics.queued.fetch_sub(1, Ordering::Relaxed);
            let out = if tx.is_closed() {
                None
            } else if Instant::now() >= deadline {
                metrics.expired.fetch_add(1, Ordering::Relaxed);
                Some(Err(Refused::Expired))
            } else {
                metrics.in_flight.fetch_add(1, Ordering::Relaxed);
                let started = Instant::now();
                let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
                metrics.search_seconds.observe(started.elapsed().as_secs_f64());
                metrics.in_flight.fetch_sub(1, Ordering::Relaxed);
                Some(out.map_err(|_| Refused::Failed))
            };
            admitted.fetch_sub(1, Ordering::AcqRel);
            if let Some(out) = out {
                let _ = tx.send(out);
            }
        });
        // Counted before sending, so that a worker's decrement never comes first.
        self.metrics.queued.fetch_add(1, Ordering::Relaxed);
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = self.sender.try_send(job) {
            self.metrics.queued.fetch_sub(1, Ordering::Relaxed);
            self.admitted.fetch_sub(1, Ordering::AcqRel);
            return refuse(&self.metrics);
        }
        rx.await.unwrap_or(Err(Refused::Failed))
    }
}

fn work(rx: &Mutex<Receiver<Job>>) {
    loop {
        // The lock is held only while waiting for the next job, never while running one.
        let job = match rx.lock() {
            Ok(r) => r.recv(),
            Err(poisoned) => poisoned.into_inner().recv(),
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_full_queue_refuses_at_once_and_the_pool_recovers() {
        let metrics = Arc::new(Metrics::default());
        let pool = Arc::new(SearchPool::new(1, 1, metrics.clone()).unwrap());
        let rt = runtime();
        rt.block_on(async {
            let far = Instant::now() + Duration::from_secs(30);
            let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
            let (started_tx, started_rx) = std::sync::mpsc::channel::<()>();
            // One job holds the only thread, one waits in the queue, the third is refused.
            let p = pool.clone();
            let busy = tokio::spawn(async move {
                p.run(far, move || {
                    started_tx.send(()).unwrap();
                    release_rx.recv().unwrap();
                    1
                })
                .await
            });
            started_rx.recv_timeout(Duration::from_secs(10)).unwrap();
            let p = pool.clone();
            let waiting = tokio::spawn(async move { p.run(far, || 2).await });
            while metrics.queued.load(Ordering::Relaxed) < 1 {
                tokio::task::yield_now().await;
            }
            assert_eq!(pool.run(far, || 3).await, Err(Refused::QueueFull));
            assert_eq!(metrics.rejected.load(Ordering::Relaxed), 1);
            release_tx.send(()).unwrap();
            assert_eq!(busy.await.unwrap(), Ok(1));
            assert_eq!(waiting.await.unwrap(), Ok(2));
            assert_eq!(pool.run(far, || 4).await, Ok(4));
            // A job whose deadline passed before it started is not run.
            assert_eq!(pool.run(Instant::now(), || 5).await, Err(Refused::Expired));
            // A panic is a failed job, and the thread goes on.
            assert_eq!(
                pool.run(far, || -> i32 { panic!("boom") }).await,
                Err(Refused::Failed)
            );
            assert_eq!(pool.run(far, || 6).await, Ok(6));
            assert_eq!(metrics.queued.load(Ordering::Relaxed), 0);
            assert_eq!(metrics.in_flight.load(Ordering::Relaxed), 0);
        });
    }
}
