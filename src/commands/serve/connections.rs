//! The accept loop: how many connections may be open (in all and from one address), and how
//! long one may sit without sending a complete request head, new or kept alive.
//!
//! `axum::serve` bounds none of these: a client that opens connections and never finishes
//! its headers, or keeps idle ones alive, holds a file descriptor and some 20 KB each until
//! the process runs out of descriptors and stops answering everyone. Here every connection
//! needs a place (refused at once past the limits, so that the listen queue never fills
//! with them), and hyper closes one whose request head is not complete within the idle
//! timeout; its clock starts when the connection opens and again after each answer, so the
//! same timeout bounds half-open and idle keep-alive connections.

use super::metrics::Metrics;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};

/// The operator's bounds on connections.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Connections open at once, in all.
    pub max: usize,
    /// Connections open at once from one address; 0: no limit of its own.
    pub per_address: usize,
    /// How long a connection may go without a complete request head.
    pub idle: Duration,
    /// How long a shutdown waits for requests being answered.
    pub grace: Duration,
}

/// Open connections by client address, for the per-address limit.
#[derive(Default)]
struct ByAddress(Mutex<HashMap<IpAddr, usize>>);

/// A connection's place in [`ByAddress`], given back when it closes.
struct AddressPlace {
    table: Arc<ByAddress>,
    ip: IpAddr,
}

impl ByAddress {
    fn enter(table: &Arc<ByAddress>, ip: IpAddr, limit: usize) -> Option<AddressPlace> {
        let mut t = table.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = t.entry(ip).or_insert(0);
        if limit > 0 && *n >= limit {
            return None;
        }
        *n += 1;
        Some(AddressPlace {
            table: table.clone(),
            ip,
        })
    }
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        let mut t = self.table.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = t.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                t.remove(&self.ip);
            }
        }
    }
}

/// Serves `app` on `listener` within `limits` until `shutdown` completes; then stops
/// accepting, lets requests being answered finish (up to the grace time) and returns.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()>,
) {
    let places = Arc::new(Semaphore::new(limits.max));
    let by_address = Arc::new(ByAddress::default());
    let (stop_tx, stop_rx) = watch::channel(());
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors or memory, or a connection reset before it was
                    // accepted: none of these should stop the server. Back off a little
                    // so that a full descriptor table is not spun on.
                    eprintln!("warning: accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let refuse = || {
            metrics.connections_refused.fetch_add(1, Ordering::Relaxed);
        };
        let Ok(place) = places.clone().try_acquire_owned() else {
            refuse();
            continue;
        };
        let Some(address_place) = ByAddress::enter(&by_address, peer.ip(), limits.per_address) else {
            refuse();
            continue;
        };
        let _ = stream.set_nodelay(true);
        let metrics = metrics.clone();
        let service = TowerToHyperService::new(app.clone());
        let mut stop = stop_rx.clone();
        metrics.connections_open.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.idle)
                .keep_alive(true);
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(conn);
            let mut stopping = false;
            let result = loop {
                tokio::select! {
                    r = conn.as_mut() => break r,
                    _ = stop.changed(), if !stopping => {
                        // Finish the request being answered, if any, then close.
                        stopping = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
            };
            if let Err(e) = result {
                if e.is_timeout() {
                    metrics.connections_timed_out.fetch_add(1, Ordering::Relaxed);
                }
            }
            metrics.connections_open.fetch_sub(1, Ordering::Relaxed);
            drop(address_place);
            drop(place);
        });
    }
    drop(listener);
    let _ = stop_tx.send(());
    // Every place back means every connection closed.
    let all = u32::try_from(limits.max).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(limits.grace, places.acquire_many(all)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_places_back_when_its_connections_close() {
        let table = Arc::new(ByAddress::default());
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let other: IpAddr = "10.0.0.2".parse().unwrap();
        let a = ByAddress::enter(&table, ip, 2).unwrap();
        let b = ByAddress::enter(&table, ip, 2).unwrap();
        assert!(ByAddress::enter(&table, ip, 2).is_none());
        assert!(ByAddress::enter(&table, other, 2).is_some());
        drop(a);
        let c = ByAddress::enter(&table, ip, 2).unwrap();
        drop((b, c));
        assert!(table.0.lock().unwrap().is_empty(), "no entry is left behind");
        // 0: no limit of its own.
        let many: Vec<_> = (0..100)
            .map(|_| ByAddress::enter(&table, ip, 0).unwrap())
            .collect();
        assert_eq!(many.len(), 100);
    }
}
