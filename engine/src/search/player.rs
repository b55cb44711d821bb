//! Players built from text specs (`random`, `heuristic`, `mcts:rollout:800`, ...) and AI
//! levels defined in `configs/levels.toml`.

use super::classic::{Rollout, Uniform};
use super::config::SearchConfig;
use super::evaluator::Evaluator;
use super::external::{EngineProtocol, ExternalPlayer, Stop, MAX_COMMAND_LEN};
use super::heuristic::Heuristic;
use super::mcts::{merge_results, Search, SearchResult};
use super::time::{Clock, Deadline, ThinkingLimit};
use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::game::Game;
use crate::position::Move;
use crate::side::Side;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which evaluator an MCTS player searches with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvaluatorSpec {
    /// [`Uniform`].
    Uniform,
    /// [`Rollout`].
    Rollout,
    /// [`Heuristic`].
    Heuristic,
    /// A trained model at a path; built by the caller's factory (the engine has no network).
    Model(String),
    /// A fast evaluation for every leaf and a trained model at a path for the nodes the
    /// search visits often: a [`Layered`](super::Layered) evaluator, built by the caller's
    /// factory.
    Hybrid {
        /// The trained model that refines the nodes visited often.
        model: String,
        /// The fast layer: a [`Linear`](super::Linear) weights file (`shipped`: the rules'
        /// own), or `None` for the [`Heuristic`].
        linear: Option<String>,
    },
    /// A [`Linear`](super::Linear) evaluation read from a weights file (`tafl tune`), built
    /// for the rules in use by the caller's factory.
    Linear(String),
}

impl EvaluatorSpec {
    /// The path of the trained model this evaluator loads, if any.
    pub fn model_path(&self) -> Option<&str> {
        match self {
            EvaluatorSpec::Model(p) | EvaluatorSpec::Hybrid { model: p, .. } => Some(p),
            _ => None,
        }
    }

    /// The linear weights file this evaluator reads, if any (alone, or as a hybrid's fast layer).
    pub fn linear_path(&self) -> Option<&str> {
        match self {
            EvaluatorSpec::Linear(p) => Some(p),
            EvaluatorSpec::Hybrid { linear, .. } => linear.as_deref(),
            _ => None,
        }
    }
}

/// A player as text: `random`, `greedy` (also read under its older name `heuristic`), `mcts:<uniform|rollout|heuristic|model=PATH|hybrid=PATH[,linear=FILE]|linear=FILE>[:SIMS]`,
/// or another program: `htp:COMMAND`, `htp-host:COMMAND`, `otep:COMMAND`.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random legal moves.
    Random,
    /// One ply of lookahead with the [`Heuristic`] evaluation (immediate wins first): the
    /// greedy player, written `greedy`.
    Greedy,
    /// Tree search.
    Mcts {
        /// The evaluator.
        evaluator: EvaluatorSpec,
        /// Simulations per move.
        simulations: u32,
    },
    /// Another program behind an engine protocol, started by the host for each game.
    External {
        /// The protocol it speaks.
        protocol: EngineProtocol,
        /// Its command line: the program and its arguments (quotes group words).
        command: String,
    },
}

impl PlayerSpec {
    /// Parses a spec; the error lists the accepted forms.
    pub fn parse(text: &str) -> Result<PlayerSpec, String> {
        let forms = "accepted: random, greedy, mcts:uniform[:SIMS], mcts:rollout[:SIMS], mcts:heuristic[:SIMS], mcts:model=PATH[:SIMS], mcts:hybrid=PATH[,linear=FILE][:SIMS], mcts:linear=FILE[:SIMS], htp:COMMAND, htp-host:COMMAND, otep:COMMAND";
        let t = text.trim();
        if let Some((protocol, command)) = EngineProtocol::split_spec(t) {
            let command = command.trim();
            if command.is_empty() || command.len() > MAX_COMMAND_LEN {
                return Err(format!(
                    "player `{protocol}:...`: the command must hold 1 to {MAX_COMMAND_LEN} bytes"
                ));
            }
            return Ok(PlayerSpec::External {
                protocol,
                command: command.to_string(),
            });
        }
        match t {
            "random" => return Ok(PlayerSpec::Random),
            // `heuristic` was the greedy player's name before the evaluator took it; levels
            // files and scripts that still say so keep working.
            "greedy" | "heuristic" => return Ok(PlayerSpec::Greedy),
            _ => {}
        }
        let Some(rest) = t.strip_prefix("mcts:") else {
            return Err(format!("player `{t}` is not a player spec; {forms}"));
        };
        // A model path may itself hold `:`; the simulation count is the part after the last one.
        let (eval_text, sims) = match rest.rsplit_once(':') {
            Some((e, s)) if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) => {
                let n: u32 = s
                    .parse()
                    .map_err(|_| format!("player `{t}`: simulations `{s}` is too large"))?;
                (e, n)
            }
            _ => (rest, SearchConfig::default().simulations),
        };
        if sims == 0 {
            return Err(format!("player `{t}`: simulations must be at least 1"));
        }
        let evaluator = match eval_text {
            "uniform" => EvaluatorSpec::Uniform,
            "rollout" => EvaluatorSpec::Rollout,
            "heuristic" => EvaluatorSpec::Heuristic,
            e => match (
                e.strip_prefix("model="),
                e.strip_prefix("hybrid="),
                e.strip_prefix("linear="),
            ) {
                (Some(path), _, _) if !path.is_empty() => EvaluatorSpec::Model(path.to_string()),
                (_, Some(path), _) if !path.is_empty() => match path.split_once(",linear=") {
                    None => EvaluatorSpec::Hybrid {
                        model: path.to_string(),
                        linear: None,
                    },
                    Some((model, linear)) if !model.is_empty() && !linear.is_empty() => EvaluatorSpec::Hybrid {
                        model: model.to_string(),
                        linear: Some(linear.to_string()),
                    },
                    Some(_) => {
                        return Err(format!(
                            "player `{t}`: a hybrid names its model and its linear weights: hybrid=PATH,linear=FILE"
                        ))
                    }
                },
                (_, _, Some(path)) if !path.is_empty() => EvaluatorSpec::Linear(path.to_string()),
                _ => return Err(format!("player `{t}`: unknown evaluator `{e}`; {forms}")),
            },
        };
        Ok(PlayerSpec::Mcts {
            evaluator,
            simulations: sims,
        })
    }
}

impl std::fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerSpec::Random => f.write_str("random"),
            PlayerSpec::Greedy => f.write_str("greedy"),
            PlayerSpec::External { protocol, command } => write!(f, "{protocol}:{command}"),
            PlayerSpec::Mcts {
                evaluator,
                simulations,
            } => write!(f, "mcts:{evaluator}:{simulations}"),
        }
    }
}

/// The evaluator part of a spec as written (`heuristic`, `model=PATH`).
impl std::fmt::Display for EvaluatorSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvaluatorSpec::Uniform => f.write_str("uniform"),
            EvaluatorSpec::Rollout => f.write_str("rollout"),
            EvaluatorSpec::Heuristic => f.write_str("heuristic"),
            EvaluatorSpec::Model(p) => write!(f, "model={p}"),
            EvaluatorSpec::Hybrid { model, linear: None } => write!(f, "hybrid={model}"),
            EvaluatorSpec::Hybrid {
                model,
                linear: Some(w),
            } => write!(f, "hybrid={model},linear={w}"),
            EvaluatorSpec::Linear(p) => write!(f, "linear={p}"),
        }
    }
}

/// Builds the evaluator of a spec; the engine's own builds the classic ones and refuses models.
pub type EvaluatorFactory<'a, B> = &'a dyn Fn(&EvaluatorSpec) -> Result<Arc<dyn Evaluator<B>>, String>;

/// The classic evaluators; models need a factory from a crate that has a network.
pub fn classic_evaluator<B: BitSet>(spec: &EvaluatorSpec) -> Result<Arc<dyn Evaluator<B>>, String> {
    match spec {
        EvaluatorSpec::Uniform => Ok(Arc::new(Uniform)),
        EvaluatorSpec::Rollout => Ok(Arc::new(Rollout::default())),
        EvaluatorSpec::Heuristic => Ok(Arc::new(Heuristic)),
        EvaluatorSpec::Model(p) | EvaluatorSpec::Hybrid { model: p, .. } => {
            Err(format!("model `{p}`: this build has no network support"))
        }
        EvaluatorSpec::Linear(p) => Err(format!(
            "linear weights `{p}`: built for the rules in use by the program's player factory, not here"
        )),
    }
}

enum Kind<B: BitSet> {
    Random,
    Greedy,
    Mcts {
        config: SearchConfig,
        evaluator: Arc<dyn Evaluator<B>>,
        /// One tree per search thread, each kept between moves.
        searches: Vec<Search<B>>,
    },
    External(Box<dyn ExternalPlayer<B>>),
}

/// A player that picks moves for either side.
pub struct Player<B: BitSet> {
    spec: PlayerSpec,
    kind: Kind<B>,
    rng: ChaCha8Rng,
    seed: u64,
    /// How the game ended when an external player's program forfeited it or its own rules
    /// ended it (the match reports it); `None` otherwise.
    pub stopped: Option<Stop>,
    /// Temperature for choosing among searched moves (0: the best).
    pub temperature: f32,
    /// Probability of a uniformly random move instead of the player's own, each ply
    /// (the exploration rule of balance studies).
    pub exploration: f32,
    /// How long a search player thinks: its simulations (the default), a time per move, or a
    /// game clock. Under a time limit the spec's simulations no longer bound the search.
    pub limit: ThinkingLimit,
    /// The player's clock, kept by whoever keeps time (a match, a protocol host); `None`
    /// until set, when a clock limit's base time is assumed. With a simulations limit the
    /// clock only caps the search, so that the player never runs out of time.
    pub clock: Option<Clock>,
    /// Search threads. 1 by default; a game against a person can use every core.
    pub threads: usize,
    /// How the threads share a move's search: independent trees merged at the root (the
    /// default), or one shared tree.
    pub parallel: super::config::Parallelism,
    /// A time past which no search goes, whatever the limit (a server's deadline for the
    /// request that asked for the move); `None` by default.
    pub cutoff: Option<std::time::Instant>,
}

impl<B: BitSet> Player<B> {
    /// A player from its spec; `factory` builds evaluators (use [`classic_evaluator`] when no
    /// network is available). `config` is the search's base config (simulations come from the spec).
    pub fn new(
        spec: &PlayerSpec,
        seed: u64,
        config: &SearchConfig,
        factory: EvaluatorFactory<'_, B>,
    ) -> Result<Player<B>, String> {
        let kind = match spec {
            PlayerSpec::Random => Kind::Random,
            PlayerSpec::Greedy => Kind::Greedy,
            PlayerSpec::External { .. } => {
                return Err(format!(
                    "player `{spec}` runs another program: build it with Player::external"
                ))
            }
            PlayerSpec::Mcts {
                evaluator,
                simulations,
            } => {
                let mut config = config.clone();
                config.simulations = *simulations;
                config.validate()?;
                Kind::Mcts {
                    config,
                    evaluator: factory(evaluator)?,
                    searches: Vec::new(),
                }
            }
        };
        Ok(Player {
            spec: spec.clone(),
            kind,
            rng: ChaCha8Rng::seed_from_u64(seed),
            seed,
            stopped: None,
            temperature: 0.0,
            exploration: 0.0,
            limit: ThinkingLimit::Simulations,
            clock: None,
            threads: 1,
            parallel: super::config::Parallelism::Root,
            cutoff: None,
        })
    }

    /// A player whose moves come from another program, which `spec` names
    /// ([`PlayerSpec::External`]); the host has started it.
    pub fn external(spec: &PlayerSpec, program: Box<dyn ExternalPlayer<B>>) -> Player<B> {
        Player {
            spec: spec.clone(),
            kind: Kind::External(program),
            rng: ChaCha8Rng::seed_from_u64(0),
            seed: 0,
            stopped: None,
            temperature: 0.0,
            exploration: 0.0,
            limit: ThinkingLimit::Simulations,
            clock: None,
            threads: 1,
            parallel: super::config::Parallelism::Root,
            cutoff: None,
        }
    }

    /// Times the next move by a host's game clock (an engine protocol's): with `follow` the
    /// clock replaces `own`, the player's own limit (a level meant to use the time it is
    /// given); without, `own` stays and the clock only caps the search; `None` gives `own`
    /// back.
    pub fn host_clock(&mut self, clock: Option<Clock>, own: ThinkingLimit, follow: bool) {
        self.limit = match clock {
            Some(c) if follow => ThinkingLimit::Clock {
                base: c.remaining,
                increment: c.increment,
            },
            _ => own,
        };
        self.clock = clock;
    }

    /// The deadline of the next move under the player's limit, `ply` plies into the game.
    pub fn deadline(&self, ply: u32) -> Deadline {
        self.limit.deadline(self.clock, ply).cut_at(self.cutoff)
    }

    /// Limits each of the player's search trees to `nodes` nodes (see
    /// [`SearchConfig::max_nodes`]); no effect on a player that does not search.
    pub fn set_max_nodes(&mut self, nodes: usize) -> Result<(), String> {
        if let Kind::Mcts { config, searches, .. } = &mut self.kind {
            let mut c = config.clone();
            c.max_nodes = nodes;
            c.validate()?;
            *config = c;
            searches.clear();
        }
        Ok(())
    }

    /// Bytes the player's search trees hold now (0 for a player that does not search).
    pub fn tree_bytes(&self) -> usize {
        match &self.kind {
            Kind::Mcts { searches, .. } => searches.iter().map(Search::tree_bytes).sum(),
            _ => 0,
        }
    }

    /// The spec the player was built from.
    pub fn spec(&self) -> &PlayerSpec {
        &self.spec
    }

    /// The config of a search player's searches (`None` for a player that does not search).
    pub fn search_config(&self) -> Option<&SearchConfig> {
        match &self.kind {
            Kind::Mcts { config, .. } => Some(config),
            _ => None,
        }
    }

    /// A move for the side to move in `game`, with the search's result when it searched.
    /// `None` when the game is over.
    pub fn choose(&mut self, rules: &Rules<B>, game: &Game<B>) -> Option<(Move, Option<SearchResult>)> {
        if game.outcome().is_some() {
            return None;
        }
        let pos = *game.position();
        if self.exploration > 0.0 && self.rng.random::<f32>() < self.exploration {
            let mv = game.pick_move(rules, |c| self.rng.random_range(0..c))?;
            return Some((mv, None));
        }
        let deadline = self.deadline(game.ply());
        match &mut self.kind {
            Kind::Random => Some((game.pick_move(rules, |c| self.rng.random_range(0..c))?, None)),
            Kind::External(program) => match program.choose(rules, game, self.limit, self.clock) {
                Ok(mv) => Some((mv, None)),
                Err(stop) => {
                    self.stopped = Some(stop);
                    None
                }
            },
            Kind::Greedy => {
                let moves = game.moves(rules);
                let me = pos.to_move();
                let mut best: Vec<Move> = Vec::new();
                let mut best_score = f32::NEG_INFINITY;
                for &mv in moves.iter() {
                    let mut g = game.clone();
                    let score = match g.play_unchecked(rules, mv) {
                        Some(o) if o.winner == Some(me) => 10.0,
                        Some(o) if o.winner.is_some() => -10.0,
                        Some(_) => 0.0,
                        None => {
                            let d = Heuristic::defender_score(rules, g.position());
                            if me == Side::Defenders {
                                d
                            } else {
                                -d
                            }
                        }
                    };
                    if score > best_score + 1e-6 {
                        best_score = score;
                        best.clear();
                    }
                    if (score - best_score).abs() <= 1e-6 {
                        best.push(mv);
                    }
                }
                let pick = *best.get(self.rng.random_range(0..best.len().max(1)))?;
                Some((pick, None))
            }
            Kind::Mcts {
                config,
                evaluator,
                searches,
            } => {
                let threads = self.threads.clamp(1, 256);
                // One tree searched by every thread, or one tree a thread.
                let (threads, shared) = match self.parallel {
                    super::config::Parallelism::Tree => (1, threads),
                    super::config::Parallelism::Root => (threads, 1),
                };
                let timed = self.limit != ThinkingLimit::Simulations;
                let mut cfg = config.clone();
                if timed {
                    // The clock bounds the search (and `max_nodes` its memory); sequential
                    // halving needs its budget in advance, so timed searches use PUCT.
                    cfg.simulations = u32::MAX;
                    cfg.root = super::config::RootSelection::Puct;
                } else {
                    // The simulations are shared out among the trees.
                    cfg.simulations = cfg.simulations.div_ceil(threads as u32).max(1);
                }
                if searches.len() != threads {
                    searches.clear();
                }
                if searches.is_empty() {
                    for t in 0..threads {
                        let seed =
                            self.seed ^ game.ply() as u64 ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                        searches.push(Search::new(cfg.clone(), game, seed));
                    }
                } else {
                    for s in searches.iter_mut() {
                        s.set_config(cfg.clone());
                        s.sync(rules, game);
                    }
                }
                let temperature = self.temperature;
                let result = if threads == 1 {
                    searches[0].run_shared(rules, evaluator.as_ref(), temperature, deadline, shared)?
                } else {
                    let eval = evaluator.as_ref();
                    let results: Vec<Option<SearchResult>> = std::thread::scope(|scope| {
                        let handles: Vec<_> = searches
                            .iter_mut()
                            .map(|s| scope.spawn(move || s.run_until(rules, eval, 0.0, deadline)))
                            .collect();
                        handles.into_iter().map(|h| h.join().ok().flatten()).collect()
                    });
                    let results: Option<Vec<SearchResult>> = results.into_iter().collect();
                    merge_results(results?, temperature, &mut self.rng)?
                };
                // The trees are kept for the next move and moved to it then (`sync` follows
                // this move and the reply), not here: rerooting a large tree takes time and
                // memory that a player asked for one move (a server's) must not spend.
                Some((result.best, Some(result)))
            }
        }
    }
}

/// One AI level of `configs/levels.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Level {
    /// The level number, 1 = weakest.
    pub level: u32,
    /// Player spec without the simulation count (`random`, `heuristic`, `mcts:rollout`, ...).
    pub player: String,
    /// Simulations per move for search players.
    #[serde(default)]
    pub simulations: Option<u32>,
    /// Temperature for choosing among searched moves.
    #[serde(default)]
    pub temperature: f32,
    /// Probability of a deliberate mistake each move: a uniformly random legal move instead
    /// of the player's choice. Under rules where one side wins nearly every game between
    /// competent players, mistakes are what make a level beatable, and weaker than the next.
    #[serde(default)]
    pub exploration: f32,
    /// Seconds of thinking a move, instead of `simulations` (a level defined by time: its
    /// strength then follows the machine). Search players only.
    #[serde(default)]
    pub movetime: Option<f64>,
    /// Whether a host's game clock (OTEP's `clock`, HTP's `time_settings fischer`) replaces
    /// the level's own budget, so that it thinks as long as the clock allows (the strongest
    /// level); otherwise the clock only caps it, and the level keeps the strength it was
    /// measured at.
    #[serde(default)]
    pub use_clock: bool,
    /// How the level's search threads share a move when it has more than one (it thinks by
    /// time): `root` (merged trees, the default) or `tree` (one shared tree).
    #[serde(default)]
    pub parallel: Option<crate::search::Parallelism>,
    /// What a user reads in menus.
    #[serde(default)]
    pub description: String,
    /// The player (with the same simulations) under rules that no model named by `player`
    /// was trained for: a network level still plays a ruleset that ships no network.
    #[serde(default)]
    pub fallback: Option<String>,
    /// The engine of the level's network forward passes where it is not the process's own
    /// (`tafl --inference`): `auto`, `burn`, `onnxruntime` or `int8`. The engine has no
    /// network: the host that loads one checks the name.
    #[serde(default)]
    pub inference: Option<String>,
    /// Search settings of the level that differ from [`SearchConfig::default`]: any field of
    /// it but `simulations` (the level's own), as in `search = { batch_size = 32 }`. Checked
    /// when the file is read; see [`Level::search_config`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<toml::Table>,
}

impl Level {
    /// The search config the level's player starts from: [`SearchConfig::default`] with the
    /// level's `search` settings. An unknown field, a wrong type or a value out of range is
    /// an error naming the field; so is `simulations`, which belongs to the level itself.
    pub fn search_config(&self) -> Result<SearchConfig, String> {
        let Some(table) = &self.search else {
            return Ok(SearchConfig::default());
        };
        if table.contains_key("simulations") {
            return Err(format!(
                "level {}: search: `simulations` is set by the level's own `simulations` (or `movetime`), not in `search`",
                self.level
            ));
        }
        // One field at a time first, so that a wrong type or an unknown name is reported
        // with the field it is in (serde's message for a table does not say).
        for (key, value) in table {
            let one = toml::Table::from_iter([(key.clone(), value.clone())]);
            SearchConfig::deserialize(toml::Value::Table(one))
                .map_err(|e| format!("level {}: search field `{key}`: {}", self.level, e.message()))?;
        }
        let config = SearchConfig::deserialize(toml::Value::Table(table.clone()))
            .map_err(|e| format!("level {}: search: {}", self.level, e.message()))?;
        config
            .validate()
            .map_err(|e| format!("level {}: {e}", self.level))?;
        Ok(config)
    }

    /// The level's `search` settings as reports name them (`batch_size=32, c_puct=2`); empty
    /// when it has none.
    pub fn search_text(&self) -> String {
        self.search
            .iter()
            .flatten()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// How long the level thinks: its `movetime`, else its simulations.
    pub fn limit(&self) -> ThinkingLimit {
        match self.movetime {
            Some(t) if t.is_finite() && t > 0.0 => {
                ThinkingLimit::MoveTime(std::time::Duration::from_secs_f64(t.min(3600.0)))
            }
            _ => ThinkingLimit::Simulations,
        }
    }

    /// The full player spec of the level.
    pub fn spec(&self) -> Result<PlayerSpec, String> {
        let text = match self.simulations {
            Some(s) => format!("{}:{s}", self.player),
            None => self.player.clone(),
        };
        PlayerSpec::parse(&text).map_err(|e| format!("level {}: {e}", self.level))
    }

    /// The full player spec of the fallback, if the level has one.
    pub fn fallback_spec(&self) -> Result<Option<PlayerSpec>, String> {
        let Some(f) = &self.fallback else {
            return Ok(None);
        };
        let text = match self.simulations {
            Some(s) if f.starts_with("mcts:") => format!("{f}:{s}"),
            _ => f.clone(),
        };
        let spec = PlayerSpec::parse(&text).map_err(|e| format!("level {} fallback: {e}", self.level))?;
        if matches!(&spec, PlayerSpec::Mcts { evaluator, .. } if evaluator.model_path().is_some()) {
            return Err(format!(
                "level {} fallback: `{f}` needs a model itself; a fallback must play under any rules",
                self.level
            ));
        }
        Ok(Some(spec))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelsFile {
    level: Vec<Level>,
}

/// The AI levels, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels(pub Vec<Level>);

impl Levels {
    /// The levels shipped in `configs/levels.toml`.
    pub fn builtin() -> Levels {
        match Levels::parse(include_str!("../../levels.toml"), "configs/levels.toml") {
            Ok(l) => l,
            Err(e) => panic!("{e}"),
        }
    }

    /// Parses a levels file; `file` names it in errors. Levels must be numbered 1..N in order.
    pub fn parse(text: &str, file: &str) -> Result<Levels, String> {
        let f: LevelsFile = toml::from_str(text).map_err(|e| format!("levels file `{file}`: {e}"))?;
        for (i, l) in f.level.iter().enumerate() {
            if l.level as usize != i + 1 {
                return Err(format!(
                    "levels file `{file}`: level {} is listed in place {}; number them 1..N in order",
                    l.level,
                    i + 1
                ));
            }
            l.spec().map_err(|e| format!("levels file `{file}`: {e}"))?;
            l.fallback_spec()
                .map_err(|e| format!("levels file `{file}`: {e}"))?;
            l.search_config()
                .map_err(|e| format!("levels file `{file}`: {e}"))?;
            if !(l.temperature.is_finite() && l.temperature >= 0.0) {
                return Err(format!(
                    "levels file `{file}`: level {}: temperature must be >= 0",
                    l.level
                ));
            }
            if let Some(t) = l.movetime {
                if !(t.is_finite() && t > 0.0 && t <= 3600.0) {
                    return Err(format!(
                        "levels file `{file}`: level {}: movetime must be a number of seconds within (0, 3600]",
                        l.level
                    ));
                }
                // Another program is given the time by its protocol.
                if !l.player.starts_with("mcts") && EngineProtocol::split_spec(&l.player).is_none() {
                    return Err(format!(
                        "levels file `{file}`: level {}: movetime needs a search player (mcts:...) or another program (htp:..., otep:...), not `{}`",
                        l.level, l.player
                    ));
                }
            }
            if l.simulations.is_some() && EngineProtocol::split_spec(&l.player).is_some() {
                return Err(format!(
                    "levels file `{file}`: level {}: simulations are for search players; another program ({}) thinks by its own settings or a movetime",
                    l.level, l.player
                ));
            }
            if !(0.0..=1.0).contains(&l.exploration) {
                return Err(format!(
                    "levels file `{file}`: level {}: exploration must be within 0..=1",
                    l.level
                ));
            }
        }
        Ok(Levels(f.level))
    }

    /// Reads a levels file (a game site's own levels, `TAFL_LEVELS`).
    pub fn load(path: &std::path::Path) -> Result<Levels, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("levels file `{}`: {e}", path.display()))?;
        Levels::parse(&text, &path.display().to_string())
    }

    /// Level `n` (1-based).
    pub fn get(&self, n: u32) -> Result<&Level, String> {
        self.0
            .iter()
            .find(|l| l.level == n)
            .ok_or_else(|| format!("no level {n}; levels are 1..={}", self.0.len()))
    }
}
