//! The JSON API: rulesets and their rules panels, legal moves and the game's status, the AI's
//! move and an analysis. Every request carries the whole game (a ruleset and a move list, or a
//! position record), so that any instance behind a load balancer can answer it.
//!
//! Nothing in a request names a file: rules are a built-in id, an id the operator loaded at
//! start, or an OpenTafl rules string; players are the configured levels or the specs the
//! operator allowed.

use super::limits::Refused;
use super::metrics::Metrics;
use super::Server;
use crate::commands::analyze::{analyse, game_from};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tafl_engine::{
    formats::{board_record, played_text, ruleset_from_opentafl, ruleset_to_opentafl},
    rules::rules_panel,
    search::{PlayerSpec, Proven, ThinkingLimit},
    square_name, with_board, BitSet, Game, Move, Piece, Rules, Ruleset, Side,
};
use tafl_lab::players::Resolved;

/// An error answer: a status and a JSON body `{"error": "..."}` that says what was wrong.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What was wrong, for the site's developer.
    pub message: String,
    /// Seconds to wait before trying again (503).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// A 400 Bad Request.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
    /// An error with any status.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.status, Json(json!({ "error": self.message }))).into_response();
        if let Some(s) = self.retry_after {
            r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        r
    }
}

type Answer = Result<Json<Value>, ApiError>;

/// Parses a JSON body into `T`; a body over the limit, not JSON, or of the wrong shape gets a
/// 4xx naming the problem (serde names the field and where it is).
fn parse<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body.map_err(|e| ApiError::new(e.status(), e.body_text()))?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError::bad(format!("request body: {e}")))
}

/// The game part of a request.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GameRequest {
    rules: String,
    #[serde(default)]
    moves: Vec<String>,
    position: Option<String>,
    to_move: Option<Side>,
}

/// A request for the AI's move (`/api/move`) or an analysis (`/api/analyze`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchRequest {
    rules: String,
    #[serde(default)]
    moves: Vec<String>,
    position: Option<String>,
    to_move: Option<Side>,
    level: Option<u32>,
    player: Option<String>,
    movetime: Option<f64>,
    simulations: Option<u32>,
    seed: Option<u64>,
    top: Option<usize>,
}

impl SearchRequest {
    fn game(&self) -> GameRequest {
        GameRequest {
            rules: self.rules.clone(),
            moves: self.moves.clone(),
            position: self.position.clone(),
            to_move: self.to_move,
        }
    }
}

impl Server {
    /// The ruleset a request names: a built-in or operator-loaded id, or an OpenTafl rules
    /// string (never a file).
    fn ruleset(&self, text: &str) -> Result<Ruleset, ApiError> {
        if let Some(rs) = self.rulesets.iter().find(|r| r.id() == text) {
            return Ok(rs.clone());
        }
        if text.contains(':') {
            return ruleset_from_opentafl(text)
                .map_err(|e| ApiError::bad(format!("rules (OpenTafl rules string): {e}")));
        }
        Err(ApiError::bad(format!(
            "rules `{}`: no such ruleset; give one of {} or an OpenTafl rules string",
            tafl_engine::input::quote(text),
            self.ids().join(", ")
        )))
    }

    fn ids(&self) -> Vec<&str> {
        self.rulesets.iter().map(|r| r.id()).collect()
    }

    fn check_moves(&self, moves: &[String]) -> Result<(), ApiError> {
        let max = self.caps.max_moves;
        if moves.len() > max {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("moves: {} moves; at most {max}", moves.len()),
            ));
        }
        Ok(())
    }

    /// The player a search request asks for, with the thinking budget it asks for (within the
    /// operator's caps).
    fn player(&self, req: &SearchRequest, default_level: Option<u32>) -> Result<Resolved, ApiError> {
        let mut player = match (req.level, &req.player, default_level) {
            (Some(_), Some(_), _) => return Err(ApiError::bad("give `level` or `player`, not both")),
            (Some(n), None, _) | (None, None, Some(n)) => self
                .levels
                .iter()
                .find(|(l, _, _)| *l == n)
                .map(|(_, _, r)| r.clone())
                .ok_or_else(|| {
                    ApiError::bad(format!(
                        "level: no level {n}; levels are 1..={}",
                        self.levels.len()
                    ))
                })?,
            (None, Some(spec), _) => self
                .players
                .iter()
                .find(|(s, _)| s == spec)
                .map(|(_, r)| r.clone())
                .ok_or_else(|| {
                    ApiError::bad(format!(
                        "player `{}` is not offered by this server; {}",
                        tafl_engine::input::quote(spec),
                        if self.players.is_empty() {
                            "ask for a `level`".to_string()
                        } else {
                            format!(
                                "offered: {}",
                                self.players
                                    .iter()
                                    .map(|(s, _)| s.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        }
                    ))
                })?,
            (None, None, None) => {
                return Err(ApiError::bad("give a `level` (or a `player` the server offers)"))
            }
        };
        if let Some(t) = req.movetime {
            let max = self.caps.max_movetime.as_secs_f64();
            if !(t.is_finite() && t > 0.0) {
                return Err(ApiError::bad(format!(
                    "movetime: {} is not a number of seconds above 0",
                    tafl_engine::input::quote_number(t)
                )));
            }
            if t > max {
                return Err(ApiError::bad(format!(
                    "movetime: {} s is too long; at most {max} s",
                    tafl_engine::input::quote_number(t)
                )));
            }
            if !matches!(player.spec, PlayerSpec::Mcts { .. }) {
                return Err(ApiError::bad(format!(
                    "movetime: {} does not search",
                    player.label
                )));
            }
            player.limit = ThinkingLimit::MoveTime(Duration::from_secs_f64(t));
        }
        if let Some(s) = req.simulations {
            let max = self.caps.max_simulations;
            if req.movetime.is_some() {
                return Err(ApiError::bad("give `movetime` or `simulations`, not both"));
            }
            if s == 0 || s > max {
                return Err(ApiError::bad(format!("simulations: {s}; allowed 1 to {max}")));
            }
            let with = |spec: &PlayerSpec| match spec {
                PlayerSpec::Mcts { evaluator, .. } => Some(PlayerSpec::Mcts {
                    evaluator: evaluator.clone(),
                    simulations: s,
                }),
                _ => None,
            };
            player.spec = with(&player.spec)
                .ok_or_else(|| ApiError::bad(format!("simulations: {} does not search", player.label)))?;
            player.fallback = player.fallback.as_ref().and_then(with);
            player.limit = ThinkingLimit::Simulations;
        }
        Ok(player)
    }
}

fn piece_name(p: Piece) -> &'static str {
    match p {
        Piece::Attacker => "attacker",
        Piece::Defender => "defender",
        Piece::King => "king",
    }
}

fn line_text(n: usize, line: &[Move]) -> Vec<String> {
    line.iter().map(|m| m.text(n)).collect()
}

/// The state of a game as the page and a site need it: the board, whose move, the moves so far
/// (with their captures), the legal moves by square, and the outcome.
fn state_json<B: BitSet>(rules: &Rules<B>, game: &Game<B>) -> Value {
    let n = rules.n;
    let pos = game.position();
    let mut side = game.start().to_move();
    let moves: Vec<Value> = game
        .history()
        .iter()
        .map(|p| {
            let v = json!({
                "move": p.mv.text(n),
                "text": played_text(n, p),
                "side": side.name(),
                "captures": p.captures().into_iter().map(|s| square_name(n, s).to_string()).collect::<Vec<_>>(),
            });
            side = side.opponent();
            v
        })
        .collect();
    let mut legal: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    if game.outcome().is_none() {
        for m in game.moves(rules).iter() {
            legal
                .entry(square_name(n, m.from).to_string())
                .or_default()
                .push(square_name(n, m.to).to_string());
        }
    }
    let outcome = game.outcome().map(|o| {
        json!({
            "winner": o.winner.map(|s| s.name()),
            "reason": o.reason.name(),
            "result": o.result_text(),
            "text": o.to_string(),
        })
    });
    json!({
        "rules": rules.ruleset.id(),
        "size": n,
        "to_move": pos.to_move().name(),
        "ply": game.ply(),
        // The board as the game shows it: a captured king is off it, in both.
        "pieces": game.board().iter().map(|&(s, p)| json!({"square": square_name(n, s).to_string(), "piece": piece_name(p)})).collect::<Vec<_>>(),
        "position": board_record(rules, game),
        "moves": moves,
        "last": game.history().last().map(|p| json!({"move": p.mv.text(n), "from": square_name(n, p.mv.from).to_string(), "to": square_name(n, p.mv.to).to_string()})),
        "legal": legal,
        "outcome": outcome,
    })
}

/// A ruleset for a site: its rules panel (the text of `tafl rules`), its knobs, the start
/// diagram, and its OpenTafl rules string.
fn describe(rs: &Ruleset) -> Value {
    let n = rs.size();
    json!({
        "id": rs.id(),
        "name": rs.file.name,
        "size": n,
        "first": rs.file.first.name(),
        "panel": rules_panel(rs),
        "knobs": serde_json::to_value(&rs.file).unwrap_or(Value::Null),
        "toml": rs.to_toml(),
        "opentafl": ruleset_to_opentafl(rs),
        "corners": rs.corners.iter().map(|&s| square_name(n, s).to_string()).collect::<Vec<_>>(),
        "throne": rs.throne.map(|s| square_name(n, s).to_string()),
    })
}

fn game_of<B: BitSet>(rules: &Rules<B>, req: &GameRequest) -> Result<Game<B>, ApiError> {
    game_from(
        rules,
        req.position.as_deref(),
        req.to_move,
        &req.moves,
        ("position", "to_move", "moves"),
    )
    .map_err(ApiError::bad)
}

/// The game of a search request, which must not be over (409: there is no move to find).
fn game_in_play<B: BitSet>(rules: &Rules<B>, req: &GameRequest) -> Result<Game<B>, ApiError> {
    let game = game_of(rules, req)?;
    match game.outcome() {
        Some(o) => Err(ApiError::new(
            StatusCode::CONFLICT,
            format!("the game is over: {o}"),
        )),
        None => Ok(game),
    }
}

/// `GET /api/rulesets`: the rulesets offered, by id.
pub async fn rulesets(State(s): State<Arc<Server>>) -> Json<Value> {
    let list: Vec<Value> = s
        .rulesets
        .iter()
        .map(|r| json!({"id": r.id(), "name": r.file.name, "size": r.size()}))
        .collect();
    Json(json!({ "rulesets": list }))
}

/// `GET /api/rulesets/{id}`: one ruleset's description.
pub async fn ruleset(State(s): State<Arc<Server>>, Path(id): Path<String>) -> Answer {
    match s.rulesets.iter().find(|r| r.id() == id) {
        Some(rs) => Ok(Json(describe(rs))),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!(
                "no ruleset `{}`; offered: {}",
                tafl_engine::input::quote(&id),
                s.ids().join(", ")
            ),
        )),
    }
}

/// `POST /api/rules` `{"rules": ID or OpenTafl rules string}`: the description of any rules.
pub async fn rules(State(s): State<Arc<Server>>, body: Result<Bytes, BytesRejection>) -> Answer {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Req {
        rules: String,
    }
    let req: Req = parse(body)?;
    Ok(Json(describe(&s.ruleset(&req.rules)?)))
}

/// `GET /api/levels`: the AI levels, the player specs the operator allows, and the caps.
pub async fn levels(State(s): State<Arc<Server>>) -> Json<Value> {
    let levels: Vec<Value> = s
        .levels
        .iter()
        .map(|(n, description, r)| {
            json!({
                "level": n,
                "description": description,
                "player": r.label,
                "searches": matches!(r.spec, PlayerSpec::Mcts { .. }),
                "timed": r.limit != ThinkingLimit::Simulations,
            })
        })
        .collect();
    Json(json!({
        "levels": levels,
        "players": s.players.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        "max_movetime": s.caps.max_movetime.as_secs_f64(),
        "max_simulations": s.caps.max_simulations,
        "max_moves": s.caps.max_moves,
        "max_top": s.caps.max_top,
    }))
}

/// `POST /api/state`: legal moves and the status of a game.
pub async fn state(State(s): State<Arc<Server>>, body: Result<Bytes, BytesRejection>) -> Answer {
    let req: GameRequest = parse(body)?;
    s.check_moves(&req.moves)?;
    let rs = s.ruleset(&req.rules)?;
    with_board!(&rs, B, rules => {
        let game = game_of(&rules, &req)?;
        Ok(Json(state_json(&rules, &game)))
    })
}

fn refused(e: Refused) -> ApiError {
    match e {
        Refused::QueueFull => ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: "every search thread is busy and the queue is full; try again shortly".into(),
            retry_after: Some(1),
        },
        Refused::Expired => ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: "no search thread came free before the request's deadline; try again shortly".into(),
            retry_after: Some(2),
        },
        Refused::Failed => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the search failed (a bug: see the server's log)",
        ),
    }
}

/// `POST /api/move`: the AI's move for a level (or an allowed player spec), with its value and
/// principal variation, and the game's state after it.
pub async fn ai_move(State(s): State<Arc<Server>>, body: Result<Bytes, BytesRejection>) -> Answer {
    let start = Instant::now();
    let req: SearchRequest = parse(body)?;
    if req.top.is_some() {
        return Err(ApiError::bad("top: only for /api/analyze"));
    }
    s.check_moves(&req.moves)?;
    let rs = s.ruleset(&req.rules)?;
    let player = s.player(&req, None)?;
    let game_req = req.game();
    let cutoff = s.caps.search_cutoff(start);
    with_board!(&rs, B, rules => {
        let game = game_in_play(&rules, &game_req)?;
        // A fresh seed unless the request gives one: the levels' deliberate random moves and
        // the random level must vary from game to game (the answer names the seed, so that
        // a game can be replayed).
        let seed = req.seed.unwrap_or_else(rand::random);
        let tree_bytes = s.tree_bytes_per_search;
        let metrics = s.metrics.clone();
        let answer = s
            .pool
            .run(cutoff, move || search_move(rules, game, player, seed, cutoff, start, tree_bytes, &metrics))
            .await
            .map_err(refused)?;
        answer.map(Json)
    })
}

/// The most nodes a search tree may hold within `bytes` (at least the fewest a search needs,
/// which the server's start checked the budget for; at most the engine's cap).
fn nodes_within(bytes: usize) -> usize {
    (bytes / tafl_engine::search::NODE_BYTES)
        .clamp(tafl_engine::search::MIN_NODES, tafl_engine::search::MAX_NODES)
}

/// The search of one `/api/move`, on a search thread: its trees within `tree_bytes`.
#[allow(clippy::too_many_arguments)]
fn search_move<B: BitSet>(
    rules: Rules<B>,
    mut game: Game<B>,
    player: Resolved,
    seed: u64,
    cutoff: Instant,
    start: Instant,
    tree_bytes: usize,
    metrics: &Metrics,
) -> Result<Value, ApiError> {
    let n = rules.n;
    let label = player.for_rules(&rules.ruleset).label;
    let internal = |e: String| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e);
    let mut p = tafl_lab::players::build(&player, seed, &rules).map_err(internal)?;
    p.cutoff = Some(cutoff);
    // The thread's share of the memory budget, split among the player's own trees (one a
    // thread under root parallelism, one shared tree under tree parallelism).
    let trees = match p.parallel {
        tafl_engine::search::Parallelism::Root => p.threads.max(1),
        tafl_engine::search::Parallelism::Tree => 1,
    };
    p.set_max_nodes(nodes_within(tree_bytes / trees))
        .map_err(internal)?;
    let chosen = p.choose(&rules, &game);
    metrics.tree_finished(p.tree_bytes());
    drop(p);
    let (mv, result) = chosen.ok_or_else(|| ApiError::new(StatusCode::CONFLICT, "the game is over"))?;
    game.play(&rules, mv)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let text = game
        .history()
        .last()
        .map(|p| played_text(n, p))
        .unwrap_or_default();
    Ok(json!({
        "move": mv.text(n),
        "text": text,
        "player": label,
        "searched": result.is_some(),
        "value": result.as_ref().map(|r| r.value),
        "pv": result.as_ref().map(|r| line_text(n, &r.pv)).unwrap_or_default(),
        "simulations": result.as_ref().map_or(0, |r| r.simulations),
        "seed": seed,
        "seconds": start.elapsed().as_secs_f64(),
        "state": state_json(&rules, &game),
    }))
}

/// `POST /api/analyze`: the top moves of the position with their visit shares, values and
/// lines (the hint of a game page); the strongest level unless the request names one.
pub async fn analyze(State(s): State<Arc<Server>>, body: Result<Bytes, BytesRejection>) -> Answer {
    let start = Instant::now();
    let req: SearchRequest = parse(body)?;
    s.check_moves(&req.moves)?;
    let top = req.top.unwrap_or(3);
    if top == 0 || top > s.caps.max_top {
        return Err(ApiError::bad(format!(
            "top: {top}; allowed 1 to {}",
            s.caps.max_top
        )));
    }
    let rs = s.ruleset(&req.rules)?;
    // The strongest level that thinks by simulations: a level that thinks by time would make
    // the same request give different hints on different machines and loads.
    let by_simulations = |r: &Resolved| r.limit == ThinkingLimit::Simulations;
    let strongest = s
        .levels
        .iter()
        .filter(|(_, _, r)| by_simulations(r))
        .map(|(n, _, _)| *n)
        .max()
        .or_else(|| s.levels.iter().map(|(n, _, _)| *n).max());
    let player = s.player(&req, strongest)?;
    if !matches!(player.spec, PlayerSpec::Mcts { .. }) {
        return Err(ApiError::bad(format!(
            "{} does not search; analysis needs a level that searches",
            player.label
        )));
    }
    let game_req = req.game();
    let cutoff = s.caps.search_cutoff(start);
    with_board!(&rs, B, rules => {
        let game = game_in_play(&rules, &game_req)?;
        // Hints are reproducible: the same request gives the same analysis.
        let seed = req.seed.unwrap_or(0);
        let max_nodes = nodes_within(s.tree_bytes_per_search);
        let metrics = s.metrics.clone();
        let answer = s
            .pool
            .run(cutoff, move || {
                let n = rules.n;
                let label = player.for_rules(&rules.ruleset).label;
                let a = analyse(&rules, &game, &player, ThinkingLimit::Simulations, seed, top, Some(cutoff), max_nodes)
                    .map_err(ApiError::bad)?
                    .ok_or_else(|| ApiError::new(StatusCode::CONFLICT, "the game is over"))?;
                metrics.tree_finished(a.tree_bytes);
                Ok::<Value, ApiError>(json!({
                    "player": label,
                    "to_move": game.position().to_move().name(),
                    "value": a.value,
                    "simulations": a.simulations,
                    "proven": a.proven.map(Proven::sign),
                    "lines": a.lines.iter().map(|l| json!({
                        "move": l.mv.text(n),
                        "chosen": l.chosen,
                        "share": l.share,
                        "value": l.value,
                        "prior": l.prior,
                        "pv": line_text(n, &l.pv),
                        "proven": l.proven.map(Proven::sign),
                    })).collect::<Vec<_>>(),
                    "seconds": start.elapsed().as_secs_f64(),
                }))
            })
            .await
            .map_err(refused)?;
        answer.map(Json)
    })
}
