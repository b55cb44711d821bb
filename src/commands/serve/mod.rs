//! `tafl serve`: the AI behind a web game, over HTTP, and a page to play it in a browser.
//!
//! Stateless per request (each carries its game), so that several instances can sit behind a
//! load balancer. Searches run on a fixed pool with a bounded queue (see [`limits`]); every
//! request is answered within the operator's deadline; the server binds to loopback unless told
//! otherwise, and answers cross-origin requests only from the origins the operator names (a
//! request from any other refused with 403, before it runs).

mod api;
mod connections;
mod limits;
mod metrics;
mod page;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use limits::{Caps, SearchPool};
use metrics::Metrics;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tafl_engine::Ruleset;
use tafl_lab::players::Resolved;

/// The options of `tafl serve`.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on. Loopback by default; give `0.0.0.0:8080` to serve other machines
    /// (behind a reverse proxy or load balancer). Port 0 picks a free port, printed at start.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Searches run at once, each on its own thread (default: one per core).
    #[arg(long, value_name = "N")]
    pub searches: Option<usize>,
    /// Searches that may wait for a thread; past that, requests for a move or an analysis are
    /// answered 503 with Retry-After at once (default: 4 per search thread). 0: none waits, so
    /// a search that finds every thread busy is answered 503 at once.
    #[arg(long, value_name = "N")]
    pub queue: Option<usize>,
    /// Every request is answered within this many seconds (searches stop in time; a search
    /// still waiting in the queue then is answered 503).
    #[arg(long, value_name = "SECONDS", default_value_t = 20.0)]
    pub request_timeout: f64,
    /// Longest `movetime` a request may ask for, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub max_movetime: f64,
    /// Most `simulations` a request may ask for.
    #[arg(long, value_name = "N", default_value_t = 5000)]
    pub max_simulations: u32,
    /// Most moves in a request's move list.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub max_moves: usize,
    /// Largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 65536)]
    pub max_body: usize,
    /// Connections open at once; past that a new one is closed at once (default: 512, or
    /// fewer where the process's file limit, `ulimit -n`, is lower). Each takes a file
    /// descriptor: a number the file limit cannot hold is refused at start.
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Connections open at once from one client address; 0 for no limit of its own. Behind a
    /// reverse proxy every connection comes from the proxy: give 0 there and let the proxy
    /// limit its clients.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub max_connections_per_address: usize,
    /// A connection that has not sent a complete request head within this many seconds (from
    /// when it opened, or from its last answer when kept alive) is closed. At most
    /// `--request-timeout` (default: 10, or `--request-timeout` if shorter).
    #[arg(long, value_name = "SECONDS")]
    pub idle_timeout: Option<f64>,
    /// Memory for search trees, in MiB, shared out equally among the search threads: a
    /// search stops growing its tree at its share (and answers with what it found). More than
    /// the machine has is refused at start, and more than half of it is warned of.
    #[arg(long, value_name = "MIB", default_value_t = 512)]
    pub search_memory: usize,
    /// An origin whose pages may call the API from a browser (`https://game.example`),
    /// repeatable; none by default (the embedded page is same-origin and needs none).
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,
    /// A player spec requests may ask for by name besides the levels (`mcts:heuristic:800`,
    /// `mcts:model=runs/x:200`), repeatable. Models are loaded from the paths given here, never
    /// from a request.
    #[arg(long = "allow-player", value_name = "SPEC")]
    pub allow_players: Vec<String>,
    /// A rules file (TOML, OpenTafl rules string or .otg) to offer besides the built-in
    /// rulesets, by its id; repeatable.
    #[arg(long = "rules", value_name = "FILE")]
    pub rules_files: Vec<String>,
}

/// What every handler shares: the operator's configuration, the search pool and the metrics.
pub struct Server {
    caps: Caps,
    /// Bounds on connections, for the accept loop.
    connections: connections::ConnectionLimits,
    /// Bytes of search tree each search may hold (the memory budget's share of one thread).
    tree_bytes_per_search: usize,
    pool: SearchPool,
    metrics: Arc<Metrics>,
    /// Levels: number, description, resolved player.
    levels: Vec<(u32, String, Resolved)>,
    /// Player specs the operator allowed, as written, and resolved.
    players: Vec<(String, Resolved)>,
    /// Rulesets offered by id: the built-in ones, then the operator's.
    rulesets: Vec<Ruleset>,
    cors_origins: Vec<HeaderValue>,
}

/// Connections open at once by default.
const DEFAULT_CONNECTIONS: usize = 512;
/// File descriptors the server keeps for itself besides its connections: the listener, the
/// standard streams, the runtime's, model and rules files read at start.
const RESERVED_FILES: u64 = 64;

/// `--max-connections` checked against the process's file limit `open_files` (`None`: not
/// known): one given that the limit cannot hold is refused; the default is lowered to what it
/// can, with a warning.
fn max_connections(given: Option<usize>, open_files: Option<u64>) -> Result<usize, String> {
    let room = open_files.map(|n| n.saturating_sub(RESERVED_FILES));
    match given {
        Some(n) if !(1..=1_000_000).contains(&n) => Err("--max-connections must be within 1..=1000000".into()),
        Some(n) => match room {
            Some(room) if n as u64 > room => Err(format!(
                "--max-connections {n}: this process may open only {} files (`ulimit -n`), {RESERVED_FILES} of them kept for the server itself; give at most {room}, or raise the limit",
                room + RESERVED_FILES
            )),
            _ => Ok(n),
        },
        None => match room {
            Some(room) if (DEFAULT_CONNECTIONS as u64) > room => {
                let n = (room as usize).max(1);
                eprintln!(
                    "warning: this process may open only {} files (`ulimit -n`): at most {n} connections at once, not {DEFAULT_CONNECTIONS}",
                    room + RESERVED_FILES
                );
                Ok(n)
            }
            _ => Ok(DEFAULT_CONNECTIONS),
        },
    }
}

/// `--search-memory` (MiB) checked against the memory the process may use (`None`: not
/// known): more than all of it is refused, more than half warned of (the process and the
/// machine need the rest).
fn check_search_memory(mib: usize, memory: Option<u64>) -> Result<(), String> {
    let Some(memory) = memory else {
        return Ok(());
    };
    let asked = (mib as u64).saturating_mul(1 << 20);
    let have = memory >> 20;
    if asked > memory {
        return Err(format!(
            "--search-memory {mib} MiB is more than the {have} MiB of memory this process may use; give at most half of it"
        ));
    }
    if asked > memory / 2 {
        eprintln!(
            "warning: --search-memory {mib} MiB is more than half of the {have} MiB of memory this process may use"
        );
    }
    Ok(())
}

fn seconds(flag: &str, v: f64, max: f64) -> Result<Duration, String> {
    if !(v.is_finite() && v > 0.0 && v <= max) {
        return Err(format!(
            "{flag}: {v} is not allowed; give seconds above 0, at most {max}"
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

impl Server {
    /// Checks the options and resolves what the server offers (levels, players, rulesets).
    pub fn new(args: &ServeArgs) -> Result<Server, String> {
        let request_timeout = seconds("--request-timeout", args.request_timeout, 3600.0)?;
        let max_movetime = seconds("--max-movetime", args.max_movetime, 3600.0)?;
        if max_movetime >= request_timeout {
            return Err(format!(
                "--max-movetime {} must be below --request-timeout {}",
                args.max_movetime, args.request_timeout
            ));
        }
        if args.max_simulations == 0 || args.max_moves == 0 || args.max_body < 64 {
            return Err(
                "--max-simulations and --max-moves must be at least 1, --max-body at least 64".into(),
            );
        }
        let searches = match args.searches {
            Some(0) => return Err("--searches must be at least 1".into()),
            Some(n) => {
                let (n, warning) = tafl_lab::limits::clamp_threads(n, tafl_lab::limits::cores());
                if let Some(w) = warning {
                    eprintln!("warning: {}", w.replace("--threads", "--searches"));
                }
                n
            }
            None => tafl_lab::players::cores(),
        };
        let queue = args.queue.unwrap_or(4 * searches).min(1_000_000);
        let idle = seconds(
            "--idle-timeout",
            args.idle_timeout.unwrap_or(args.request_timeout.min(10.0)),
            args.request_timeout,
        )?;
        let max_connections = max_connections(args.max_connections, tafl_lab::limits::open_files())?;
        check_search_memory(args.search_memory, tafl_lab::limits::memory())?;
        let tree_bytes_per_search = args
            .search_memory
            .checked_mul(1 << 20)
            .map(|b| b / searches)
            .filter(|&b| b / tafl_engine::search::NODE_BYTES >= tafl_engine::search::MIN_NODES)
            .ok_or_else(|| {
                format!(
                    "--search-memory {} MiB: too little for {searches} searches; give at least {} MiB",
                    args.search_memory,
                    (searches * tafl_engine::search::MIN_NODES * tafl_engine::search::NODE_BYTES)
                        .div_ceil(1 << 20)
                )
            })?;
        let caps = Caps {
            max_body: args.max_body,
            max_moves: args.max_moves,
            max_movetime,
            max_simulations: args.max_simulations,
            max_top: 20,
            request_timeout,
        };
        let levels = tafl_lab::players::levels()?;
        let mut resolved = Vec::new();
        for l in &levels.0 {
            resolved.push((l.level, l.description.clone(), tafl_lab::players::level(l.level)?));
        }
        let mut players = Vec::new();
        for spec in &args.allow_players {
            let resolved = tafl_lab::players::resolve(spec)
                .and_then(|r| tafl_lab::players::check(&r).map(|()| r))
                .map_err(|e| format!("--allow-player `{spec}`: {e}"))?;
            players.push((spec.clone(), resolved));
        }
        let mut rulesets: Vec<Ruleset> = tafl_engine::rules::BUILTIN_IDS
            .iter()
            .map(|id| Ruleset::builtin(id))
            .collect();
        for path in &args.rules_files {
            let rs = Ruleset::load(path).map_err(|e| format!("--rules: {e}"))?;
            if rulesets.iter().any(|r| r.id() == rs.id()) {
                return Err(format!(
                    "--rules `{path}`: a ruleset with id `{}` is already offered",
                    rs.id()
                ));
            }
            rulesets.push(rs);
        }
        let mut cors_origins = Vec::new();
        for o in &args.cors_origins {
            let ok = (o.starts_with("http://") || o.starts_with("https://")) && !o.ends_with('/');
            let v = HeaderValue::from_str(o).ok().filter(|_| ok).ok_or_else(|| {
                format!("--cors-origin `{o}`: give an origin as a browser sends it, `https://game.example` (scheme, host, port if any, no path)")
            })?;
            cors_origins.push(v);
        }
        let metrics = Arc::new(Metrics::default());
        metrics.set_budgets(tree_bytes_per_search * searches, max_connections);
        let pool = SearchPool::new(searches, queue, metrics.clone())?;
        Ok(Server {
            caps,
            connections: connections::ConnectionLimits {
                max: max_connections,
                per_address: args.max_connections_per_address,
                idle,
                grace: request_timeout,
            },
            tree_bytes_per_search,
            pool,
            metrics,
            levels: resolved,
            players,
            rulesets,
            cors_origins,
        })
    }
}

/// The routes, for the server and for tests.
pub fn router(server: Arc<Server>) -> Router {
    let max_body = server.caps.max_body;
    Router::new()
        .route("/", get(page::index))
        .route("/index.html", get(page::index))
        .route("/app.js", get(page::script))
        .route("/style.css", get(page::style))
        .route("/health", get(health))
        .route("/metrics", get(metrics_text))
        .route("/api/rulesets", get(api::rulesets))
        .route("/api/rulesets/{id}", get(api::ruleset))
        .route("/api/rules", post(api::rules))
        .route("/api/levels", get(api::levels))
        .route("/api/state", post(api::state))
        .route("/api/move", post(api::ai_move))
        .route("/api/analyze", post(api::analyze))
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(axum::extract::DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(server.clone(), guard))
        .with_state(server)
}

async fn not_found() -> api::ApiError {
    api::ApiError::new(
        StatusCode::NOT_FOUND,
        "no such endpoint; see `tafl serve --help` or the README",
    )
}

async fn wrong_method(method: Method) -> api::ApiError {
    api::ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method {method} is not allowed here"),
    )
}

async fn health(State(s): State<Arc<Server>>) -> impl IntoResponse {
    axum::Json(serde_json::json!({
        "status": "ok",
        "searches_in_flight": s.metrics.in_flight.load(Ordering::Relaxed),
        "queue_length": s.metrics.queued.load(Ordering::Relaxed),
        "queue_capacity": s.pool.queue_capacity(),
        "search_threads": s.pool.workers(),
    }))
}

async fn metrics_text(State(s): State<Arc<Server>>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        s.metrics.render(),
    )
}

/// The route templates metrics are kept by (a bounded set, whatever paths clients send).
const ROUTES: [&str; 13] = [
    "/",
    "/index.html",
    "/app.js",
    "/style.css",
    "/health",
    "/metrics",
    "/api/rulesets",
    "/api/rulesets/{id}",
    "/api/rules",
    "/api/levels",
    "/api/state",
    "/api/move",
    "/api/analyze",
];

/// Around every request: its deadline, CORS for the operator's origins, and its metrics.
async fn guard(State(s): State<Arc<Server>>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .and_then(|m| ROUTES.iter().find(|r| **r == m.as_str()).copied())
        .unwrap_or("other");
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .filter(|o| s.cors_origins.contains(o))
        .cloned();
    // A request from a page of another site that the operator did not name is refused before
    // it runs (a browser sends a simple JSON-less POST, and some fetches, without asking first;
    // refusing only the preflight would still run the search). The server's own page sends its
    // own origin, which is no cross-origin request.
    let foreign = origin.is_none()
        && req
            .headers()
            .get(header::ORIGIN)
            .is_some_and(|o| !same_origin(o, req.headers()));
    let mut response = if foreign {
        api::ApiError::new(
            StatusCode::FORBIDDEN,
            "cross-origin requests from this origin are not allowed (the operator names the allowed ones with --cors-origin)",
        )
        .into_response()
    } else if req.method() == Method::OPTIONS {
        // A preflight: allowed for the operator's origins only.
        match &origin {
            Some(_) => {
                let mut r = StatusCode::NO_CONTENT.into_response();
                let h = r.headers_mut();
                h.insert(
                    header::ACCESS_CONTROL_ALLOW_METHODS,
                    HeaderValue::from_static("GET, POST"),
                );
                h.insert(
                    header::ACCESS_CONTROL_ALLOW_HEADERS,
                    HeaderValue::from_static("content-type"),
                );
                h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
                r
            }
            None => api::ApiError::new(
                StatusCode::FORBIDDEN,
                "cross-origin requests from this origin are not allowed",
            )
            .into_response(),
        }
    } else if req.method() == Method::POST && !is_json(req.headers()) {
        // A browser sends `text/plain` and form types cross-site without asking first: the
        // API takes JSON only, so that a page on another site must ask (preflight), and is
        // refused unless the operator named its origin.
        api::ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "the request body must be JSON, sent with `content-type: application/json`",
        )
        .into_response()
    } else {
        // Whether the body has all come in: at the deadline, a request still sending it is
        // the client's delay (408), one being answered is the server's (504).
        let received = Arc::new(AtomicBool::new(false));
        let req = req.map(|body| axum::body::Body::new(Watched::new(body, received.clone())));
        match tokio::time::timeout(s.caps.request_timeout, next.run(req)).await {
            Ok(r) => r,
            Err(_) if !received.load(Ordering::Acquire) => {
                let mut r = api::ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request body did not arrive within the request deadline of {} s",
                        s.caps.request_timeout.as_secs_f64()
                    ),
                )
                .into_response();
                // The rest of the body is not read: the connection cannot carry another request.
                r.headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                r
            }
            Err(_) => api::ApiError::new(
                StatusCode::GATEWAY_TIMEOUT,
                format!(
                    "no answer within the request deadline of {} s",
                    s.caps.request_timeout.as_secs_f64()
                ),
            )
            .into_response(),
        }
    };
    if let Some(o) = origin {
        let h = response.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, o);
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    s.metrics
        .request(route, response.status().as_u16(), start.elapsed().as_secs_f64());
    response
}

/// A request body that says, through `received`, when it has all come in (at once for a
/// request without one).
struct Watched {
    inner: axum::body::Body,
    received: Arc<AtomicBool>,
}

impl Watched {
    fn new(inner: axum::body::Body, received: Arc<AtomicBool>) -> Watched {
        use hyper::body::Body as _;
        if inner.is_end_stream() {
            received.store(true, Ordering::Release);
        }
        Watched { inner, received }
    }
}

impl hyper::body::Body for Watched {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(polled, std::task::Poll::Ready(None)) || self.inner.is_end_stream() {
            self.received.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// Whether `origin` (an `Origin` header) is the site the request was sent to: its host and
/// port are the request's `Host`, or the `X-Forwarded-Host` a reverse proxy that rewrites
/// `Host` sets. The scheme is not compared: behind a TLS proxy the page is `https` and the
/// server sees plain HTTP.
fn same_origin(origin: &HeaderValue, headers: &axum::http::HeaderMap) -> bool {
    let Some(authority) = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, a)| a)
    else {
        // `null` (a sandboxed page, a file) and anything else that is no origin.
        return false;
    };
    let host = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            // A proxy chain lists every host; the first is the client's.
            .and_then(|v| v.split(',').next())
            .map(|v| v.trim().to_string())
    };
    [
        host(header::HOST),
        host(header::HeaderName::from_static("x-forwarded-host")),
    ]
    .into_iter()
    .flatten()
    .any(|h| !h.is_empty() && h.eq_ignore_ascii_case(authority))
}

/// Whether a request says its body is JSON (`application/json`, any parameters).
fn is_json(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// Runs `tafl serve` until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> Result<(), String> {
    let server = Arc::new(Server::new(&args)?);
    let searches = server.pool.workers();
    let queue = server.pool.queue_capacity();
    // The runtime only moves bytes; searches have their own threads.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.bind)
            .await
            .map_err(|e| format!("--bind {}: {e}", args.bind))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        if !addr.ip().is_loopback() {
            eprintln!("warning: serving {addr} to other machines (not loopback only)");
        }
        println!("listening on http://{addr} ({searches} search threads, queue of {queue})");
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let limits = server.connections;
        let metrics = server.metrics.clone();
        connections::serve(listener, router(server), limits, metrics, shutdown()).await;
        Ok(())
    })
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
