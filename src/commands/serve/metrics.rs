//! What `/metrics` reports, in the Prometheus text format: requests by route and status,
//! searches in flight, the queue's length, refusals, and latency histograms.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Upper bounds of the latency buckets, in seconds (searches take from a millisecond to the
/// longest thinking time allowed).
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// A latency histogram with fixed buckets.
#[derive(Default)]
pub struct Histogram {
    counts: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    /// The sum in microseconds (an integer, so that it can be atomic).
    sum_us: AtomicU64,
}

impl Histogram {
    /// Records one observation of `seconds`.
    pub fn observe(&self, seconds: f64) {
        if let Some(i) = BUCKETS.iter().position(|&b| seconds <= b) {
            self.counts[i].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_us
            .fetch_add((seconds.max(0.0) * 1e6) as u64, Ordering::Relaxed);
    }

    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (b, c) in BUCKETS.iter().zip(&self.counts) {
            cumulative += c.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{b}\"}} {cumulative}");
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {count}");
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let sum = self.sum_us.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum{braces} {sum}");
        let _ = writeln!(out, "{name}_count{braces} {count}");
    }
}

/// The server's counters and gauges.
#[derive(Default)]
pub struct Metrics {
    /// Requests answered, by route template and status code.
    requests: Mutex<BTreeMap<(&'static str, u16), u64>>,
    /// Request latency by route template.
    latency: Mutex<BTreeMap<&'static str, std::sync::Arc<Histogram>>>,
    /// Searches running now.
    pub in_flight: AtomicUsize,
    /// Searches waiting for a thread.
    pub queued: AtomicUsize,
    /// Searches refused because the queue was full (503).
    pub rejected: AtomicU64,
    /// Searches dropped because their request's deadline passed while they waited.
    pub expired: AtomicU64,
    /// How long searches ran.
    pub search_seconds: Histogram,
    /// Connections open now.
    pub connections_open: AtomicUsize,
    /// Connections closed at once because the server or the client's address had as many
    /// open as allowed.
    pub connections_refused: AtomicU64,
    /// Connections closed because no complete request head came in time.
    pub connections_timed_out: AtomicU64,
    /// The most bytes a finished search's trees held.
    pub tree_bytes_peak: AtomicUsize,
    workers: AtomicUsize,
    queue_capacity: AtomicUsize,
    memory_budget: AtomicUsize,
    max_connections: AtomicUsize,
}

impl Metrics {
    /// Records the pool's size.
    pub fn set_pool(&self, workers: usize, queue: usize) {
        self.workers.store(workers, Ordering::Relaxed);
        self.queue_capacity.store(queue, Ordering::Relaxed);
    }

    /// Records the operator's budgets: bytes for search trees, open connections.
    pub fn set_budgets(&self, memory: usize, connections: usize) {
        self.memory_budget.store(memory, Ordering::Relaxed);
        self.max_connections.store(connections, Ordering::Relaxed);
    }

    /// Records the bytes a finished search's trees held.
    pub fn tree_finished(&self, bytes: usize) {
        self.tree_bytes_peak.fetch_max(bytes, Ordering::Relaxed);
    }

    /// Records one answered request.
    pub fn request(&self, route: &'static str, status: u16, seconds: f64) {
        let mut r = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *r.entry((route, status)).or_insert(0) += 1;
        drop(r);
        let h = self
            .latency
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(route)
            .or_default()
            .clone();
        h.observe(seconds);
    }

    /// The Prometheus text exposition of everything.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP tafl_http_requests_total HTTP requests answered, by route and status.\n");
        out.push_str("# TYPE tafl_http_requests_total counter\n");
        for ((route, status), n) in self.requests.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = writeln!(
                out,
                "tafl_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str("# HELP tafl_http_request_duration_seconds Time to answer a request, by route.\n");
        out.push_str("# TYPE tafl_http_request_duration_seconds histogram\n");
        for (route, h) in self.latency.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            h.write(
                &mut out,
                "tafl_http_request_duration_seconds",
                &format!("route=\"{route}\""),
            );
        }
        let gauge = |out: &mut String, name: &str, help: &str, kind: &str, v: u64| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}");
        };
        let load = |a: &AtomicUsize| a.load(Ordering::Relaxed) as u64;
        gauge(
            &mut out,
            "tafl_searches_in_flight",
            "Searches running now.",
            "gauge",
            load(&self.in_flight),
        );
        gauge(
            &mut out,
            "tafl_search_queue_length",
            "Searches waiting for a search thread.",
            "gauge",
            load(&self.queued),
        );
        gauge(
            &mut out,
            "tafl_search_queue_capacity",
            "Searches that may wait before requests are refused with 503.",
            "gauge",
            load(&self.queue_capacity),
        );
        gauge(
            &mut out,
            "tafl_search_threads",
            "Search threads (searches run at once).",
            "gauge",
            load(&self.workers),
        );
        gauge(
            &mut out,
            "tafl_searches_rejected_total",
            "Searches refused with 503 because the queue was full.",
            "counter",
            self.rejected.load(Ordering::Relaxed),
        );
        gauge(
            &mut out,
            "tafl_searches_expired_total",
            "Searches dropped because their request's deadline passed while they waited.",
            "counter",
            self.expired.load(Ordering::Relaxed),
        );
        gauge(
            &mut out,
            "tafl_search_memory_budget_bytes",
            "Bytes the search trees of all running searches may hold together (--search-memory).",
            "gauge",
            load(&self.memory_budget),
        );
        gauge(
            &mut out,
            "tafl_search_tree_bytes_peak",
            "The most bytes one search's trees held when it finished.",
            "gauge",
            load(&self.tree_bytes_peak),
        );
        gauge(
            &mut out,
            "tafl_connections_open",
            "HTTP connections open now.",
            "gauge",
            load(&self.connections_open),
        );
        gauge(
            &mut out,
            "tafl_connections_max",
            "HTTP connections that may be open at once (--max-connections).",
            "gauge",
            load(&self.max_connections),
        );
        gauge(
            &mut out,
            "tafl_connections_refused_total",
            "Connections closed at once: the server or the client's address had as many open as allowed.",
            "counter",
            self.connections_refused.load(Ordering::Relaxed),
        );
        gauge(
            &mut out,
            "tafl_connections_timed_out_total",
            "Connections closed because no complete request head came within --idle-timeout.",
            "counter",
            self.connections_timed_out.load(Ordering::Relaxed),
        );
        out.push_str("# HELP tafl_search_duration_seconds Time a search ran on its thread.\n");
        out.push_str("# TYPE tafl_search_duration_seconds histogram\n");
        self.search_seconds
            .write(&mut out, "tafl_search_duration_seconds", "");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_counters_gauges_and_cumulative_buckets() {
        let m = Metrics::default();
        m.set_pool(2, 8);
        m.request("/api/move", 200, 0.003);
        m.request("/api/move", 200, 0.2);
        m.request("/api/move", 503, 0.0001);
        let text = m.render();
        assert!(
            text.contains("tafl_http_requests_total{route=\"/api/move\",status=\"200\"} 2"),
            "{text}"
        );
        assert!(text.contains("tafl_http_requests_total{route=\"/api/move\",status=\"503\"} 1"));
        assert!(
            text.contains("tafl_http_request_duration_seconds_bucket{route=\"/api/move\",le=\"0.001\"} 1")
        );
        assert!(
            text.contains("tafl_http_request_duration_seconds_bucket{route=\"/api/move\",le=\"0.005\"} 2")
        );
        assert!(text.contains("tafl_http_request_duration_seconds_bucket{route=\"/api/move\",le=\"+Inf\"} 3"));
        assert!(text.contains("tafl_http_request_duration_seconds_count{route=\"/api/move\"} 3"));
        assert!(text.contains("tafl_search_queue_capacity 8"));
        assert!(text.contains("tafl_search_threads 2"));
        assert!(text.contains("tafl_searches_in_flight 0"));
        // Every sample line is `name{labels} value` or `name value`.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }
}
