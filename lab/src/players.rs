//! Players by name: engine player specs, `level:N` from `configs/levels.toml` (or a site's
//! file through `TAFL_LEVELS`), and the networks they load, shared between players.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tafl_engine::{
    search::{
        classic_evaluator, Evaluator, EvaluatorSpec, Heuristic, Layered, Levels, Player, PlayerSpec,
        SearchConfig, ThinkingLimit,
    },
    BitSet, Rules,
};
use tafl_nn::{Inference, NetEvaluator};

/// A resolved player spec with the temperature its level asks for.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The engine spec.
    pub spec: PlayerSpec,
    /// Temperature for choosing among searched moves.
    pub temperature: f32,
    /// Probability of a uniformly random move instead of the player's (a level's mistakes).
    pub exploration: f32,
    /// What reports call it (`level 4 (mcts:model=shipped:100, 20% random moves)`).
    pub label: String,
    /// What plays instead under rules with no shipped model (a level's `fallback`).
    pub fallback: Option<PlayerSpec>,
    /// How long it thinks: its simulations, or a level's `movetime`, or what the command line
    /// or a protocol host gives.
    pub limit: ThinkingLimit,
    /// Search threads.
    pub threads: usize,
    /// How the search threads share a move: merged trees (the default) or one shared tree.
    pub parallel: tafl_engine::search::Parallelism,
    /// Whether a protocol host's clock replaces the player's own limit (a level with
    /// `use_clock`, the strongest by default: it uses the time it is given), or only caps it
    /// (other levels and explicit player specs keep their budget, never more than the clock
    /// allows).
    pub follow_clock: bool,
    /// The engine of its network's forward passes (a level's `inference`); `None`: the
    /// process's default (`tafl --inference`).
    pub inference: Option<Inference>,
    /// The search config the player starts from (a level's `search` settings; the default
    /// otherwise); the spec's simulations and the thinking limit apply on top.
    pub search: SearchConfig,
}

impl Resolved {
    /// A player spec as it is, with no level's settings: no mistakes, its own simulations on
    /// one thread, the default search config and inference engine.
    pub fn plain(spec: PlayerSpec) -> Resolved {
        Resolved {
            label: spec.to_string(),
            spec,
            temperature: 0.0,
            exploration: 0.0,
            fallback: None,
            limit: ThinkingLimit::Simulations,
            threads: 1,
            parallel: tafl_engine::search::Parallelism::Root,
            follow_clock: false,
            inference: None,
            search: SearchConfig::default(),
        }
    }

    /// The player for `ruleset`: the level's fallback where its spec names the shipped model
    /// and none was trained for the game these rules describe (models are matched by the game,
    /// however the rules are spelled), else itself. Every player resolution goes through here
    /// (play, hints, analysis, the engine protocols), so they all play the same player.
    pub fn for_rules(&self, ruleset: &tafl_engine::Ruleset) -> Resolved {
        // A shipped model or shipped linear weights that these rules lack.
        let missing = match &self.spec {
            PlayerSpec::Mcts { evaluator, .. } => {
                let shipped = Some(tafl_models::shipped::SHIPPED_PATH);
                (evaluator.model_path() == shipped && tafl_models::shipped::for_rules(ruleset).is_err())
                    || (evaluator.linear_path() == shipped
                        && tafl_models::shipped::linear_for_rules(ruleset).is_err())
            }
            _ => false,
        };
        match &self.fallback {
            Some(f) if missing => Resolved {
                spec: f.clone(),
                temperature: self.temperature,
                exploration: self.exploration,
                label: format!(
                    "{} (no shipped model for `{}`: {})",
                    self.label,
                    ruleset.id(),
                    spec_text(f, self.limit)
                ),
                fallback: None,
                limit: self.limit,
                threads: self.threads,
                parallel: self.parallel,
                follow_clock: self.follow_clock,
                inference: self.inference,
                search: self.search.clone(),
            },
            _ => self.clone(),
        }
    }
}

impl Resolved {
    /// What judges positions for this player under `ruleset` (a level's fallback where
    /// nothing shipped fits), for a host's log: the shipped network or linear evaluation that
    /// plays and how it fits the rules (from another start, but for what a repetition does, a
    /// game it was measured on), a model or weights file named by path, or the spec's own
    /// evaluation.
    pub fn evaluation(&self, ruleset: &tafl_engine::Ruleset) -> String {
        let r = self.for_rules(ruleset);
        let PlayerSpec::Mcts { evaluator, .. } = &r.spec else {
            return format!("{} (no evaluation of its own)", r.spec);
        };
        let shipped = tafl_models::shipped::SHIPPED_PATH;
        let network = |path: &str| {
            if path != shipped {
                return format!("the network `{path}`");
            }
            match tafl_models::shipped::for_rules_fit(ruleset) {
                Ok((m, _, fit)) => format!("the shipped network `{}`, {}", m.name, fit.describe()),
                Err(e) => e,
            }
        };
        let linear = |path: &str| {
            if path != shipped {
                return format!("the linear evaluation `{path}`");
            }
            match tafl_models::shipped::linear_fit(ruleset) {
                Some((id, fit)) => format!("the shipped linear evaluation `{id}`, {}", fit.describe()),
                None => format!("no shipped linear evaluation for `{}`", ruleset.id()),
            }
        };
        let heuristic = "the hand-written evaluation (heuristic)".to_string();
        match evaluator {
            EvaluatorSpec::Model(path) => network(path),
            EvaluatorSpec::Linear(path) => linear(path),
            EvaluatorSpec::Hybrid { model, linear: fast } => format!(
                "{}; refined by {}",
                fast.as_deref().map_or(heuristic, linear),
                network(model)
            ),
            EvaluatorSpec::Heuristic => heuristic,
            other => other.to_string(),
        }
    }
}

/// Parses `level:N` or an engine player spec.
pub fn resolve(text: &str) -> Result<Resolved, String> {
    if let Some(n) = text.strip_prefix("level:") {
        let n: u32 = n
            .parse()
            .map_err(|_| format!("`{text}`: a level is `level:N` with N a number"))?;
        return level(n);
    }
    Ok(Resolved::plain(PlayerSpec::parse(text)?))
}

/// The environment variable naming a levels file that replaces `configs/levels.toml`.
pub const LEVELS_ENV: &str = "TAFL_LEVELS";

/// The AI levels: the file `TAFL_LEVELS` names (a game site's own), else the built-in ones.
pub fn levels() -> Result<Levels, String> {
    match std::env::var_os(LEVELS_ENV) {
        Some(p) if !p.is_empty() => {
            let path = std::path::Path::new(&p);
            let name = path.display().to_string();
            tafl_engine::input::read_text(path)
                .map_err(|e| format!("levels file `{name}`: {e}"))
                .and_then(|text| Levels::parse(&text, &name))
                .and_then(|levels| check_inference(&levels, &name).map(|()| levels))
                .map_err(|e| format!("{LEVELS_ENV}: {e}"))
        }
        _ => Ok(Levels::builtin()),
    }
}

/// Refuses a level whose `inference` names no engine, when the file is read (the engine crate
/// that parses levels files knows no inference engines).
fn check_inference(levels: &Levels, file: &str) -> Result<(), String> {
    for l in &levels.0 {
        if let Some(name) = &l.inference {
            name.parse::<Inference>()
                .map_err(|e| format!("{file}: level {}: {e}", l.level))?;
        }
    }
    Ok(())
}

/// AI level `n`.
pub fn level(n: u32) -> Result<Resolved, String> {
    let levels = levels()?;
    let l = levels.get(n)?;
    let spec = l.spec()?;
    let mistakes = if l.exploration > 0.0 {
        format!(", {:.0}% random moves", 100.0 * l.exploration)
    } else {
        String::new()
    };
    // A level of the shipped network plays under any rules: a site's levels file that names
    // no fallback gets the hand-written search with the same simulations.
    let fallback = match (l.fallback_spec()?, &spec) {
        (
            None,
            PlayerSpec::Mcts {
                evaluator,
                simulations,
            },
        ) if evaluator.model_path() == Some(tafl_models::shipped::SHIPPED_PATH) => Some(PlayerSpec::Mcts {
            evaluator: EvaluatorSpec::Heuristic,
            simulations: *simulations,
        }),
        (f, _) => f,
    };
    let limit = l.limit();
    let time = match limit {
        ThinkingLimit::Simulations => String::new(),
        other => format!(", {other}"),
    };
    let parallel = l.parallel.unwrap_or_default();
    let inference = match &l.inference {
        Some(name) => Some(name.parse::<Inference>().map_err(|e| format!("level {n}: {e}"))?),
        None => None,
    };
    let engine = match inference {
        Some(i) if i != Inference::Auto => format!(", {i}"),
        _ => String::new(),
    };
    let tree = match parallel {
        tafl_engine::search::Parallelism::Tree => ", one shared tree",
        tafl_engine::search::Parallelism::Root => "",
    };
    let search = l.search_config()?;
    let tuned = match l.search_text() {
        t if t.is_empty() => t,
        t => format!(", {t}"),
    };
    Ok(Resolved {
        label: format!(
            "level {n} ({}{time}{tree}{tuned}{engine}{mistakes})",
            spec_text(&spec, limit)
        ),
        spec,
        temperature: l.temperature,
        exploration: l.exploration,
        fallback,
        limit,
        threads: 1,
        parallel,
        follow_clock: l.use_clock,
        inference,
        search,
    })
}

type NetKey = (String, tafl_engine::GameKey, Inference);
type NetCache = Mutex<HashMap<NetKey, Arc<NetEvaluator>>>;

/// Networks loaded so far, by path and the game of the rules they were loaded for, whatever
/// its start (not the rules' id: two rulesets may share an id and differ, as an engine
/// protocol's rules may).
fn nets() -> std::sync::MutexGuard<'static, HashMap<NetKey, Arc<NetEvaluator>>> {
    static NETS: OnceLock<NetCache> = OnceLock::new();
    NETS.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Forgets the network of `path` (for every ruleset): once its players are dropped, its
/// weights and worker thread go. A sweep over many checkpoints calls it after each one, so
/// that at most one checkpoint's network is held at a time.
pub fn release_model(path: &str) {
    nets().retain(|(p, _, _), _| p != path);
}

/// Every game of a match shares one batched evaluator per network (cached by path, game and
/// inference engine, `None` being the process's default), so parallel games fill its batches
/// and the weights load once.
fn net(
    path: &str,
    ruleset: &tafl_engine::Ruleset,
    inference: Option<Inference>,
) -> Result<Arc<NetEvaluator>, String> {
    let inference = inference.unwrap_or_else(Inference::process_default);
    let mut nets = nets();
    // Without the start position: a network fits every position of its game, and a host
    // that sends each game's start (OpenTafl) must not load it again for each.
    let key = (path.to_string(), ruleset.game_key().without_start(), inference);
    if let Some(n) = nets.get(&key) {
        return Ok(n.clone());
    }
    let callers = rayon::current_num_threads();
    let (n, _) = tafl_models::load_evaluator_on(std::path::Path::new(path), ruleset, callers, inference)
        .map_err(|e| format!("model `{path}`: {e}"))?;
    nets.insert(key, n.clone());
    Ok(n)
}

/// Checks, before any game, that a player can be built: a network it names (other than
/// `shipped`, which falls back per ruleset) is loaded now, for the rules it was trained on,
/// so that a host refuses a bad path at start instead of failing every game with it. Other
/// programs are started only when a game needs them.
pub fn check(r: &Resolved) -> Result<(), String> {
    for spec in std::iter::once(&r.spec).chain(&r.fallback) {
        if let PlayerSpec::Mcts {
            evaluator: EvaluatorSpec::Linear(path),
            ..
        } = spec
        {
            if path != tafl_models::shipped::SHIPPED_PATH {
                tafl_engine::search::LinearWeights::load(std::path::Path::new(path))?;
            }
        }
        if let Some(path) = match spec {
            PlayerSpec::Mcts { evaluator, .. } => evaluator.model_path(),
            _ => None,
        } {
            if path == tafl_models::shipped::SHIPPED_PATH {
                continue;
            }
            let dir = tafl_models::checkpoint_dir(std::path::Path::new(path))
                .map_err(|e| format!("model `{path}`: {e}"))?;
            let manifest = tafl_nn::read_manifest(&dir).map_err(|e| format!("model `{path}`: {e}"))?;
            let ruleset = tafl_engine::Ruleset::from_file(manifest.ruleset)
                .map_err(|e| format!("model `{path}`: its rules: {e}"))?;
            net(path, &ruleset, r.inference)?;
        }
    }
    Ok(())
}

/// The evaluator of a spec for the rules in use: classic ones, or a model checked against the rules.
pub fn evaluator<B: BitSet>(e: &EvaluatorSpec, rules: &Rules<B>) -> Result<Arc<dyn Evaluator<B>>, String> {
    evaluator_on(e, rules, None)
}

/// [`evaluator`] with a model's forward passes on `inference` (`None`: the process's default).
pub fn evaluator_on<B: BitSet>(
    e: &EvaluatorSpec,
    rules: &Rules<B>,
    inference: Option<Inference>,
) -> Result<Arc<dyn Evaluator<B>>, String> {
    match e {
        EvaluatorSpec::Model(path) => Ok(net(path, &rules.ruleset, inference)? as Arc<dyn Evaluator<B>>),
        EvaluatorSpec::Hybrid { model, linear } => Ok(Arc::new(Layered {
            fast: match linear {
                None => Arc::new(Heuristic),
                Some(path) => Arc::new(linear_evaluation(path, rules)?),
            },
            slow: net(model, &rules.ruleset, inference)? as Arc<dyn Evaluator<B>>,
        })),
        EvaluatorSpec::Linear(path) => Ok(Arc::new(linear_evaluation(path, rules)?)),
        other => classic_evaluator(other),
    }
}

/// The linear evaluation of a weights file (`shipped`: the rules' own, built in) for the rules
/// in use.
fn linear_evaluation<B: BitSet>(path: &str, rules: &Rules<B>) -> Result<tafl_engine::search::Linear, String> {
    if path == tafl_models::shipped::SHIPPED_PATH {
        tafl_engine::search::Linear::new(tafl_models::shipped::linear_for_rules(&rules.ruleset)?, rules)
    } else {
        tafl_engine::search::Linear::load(std::path::Path::new(path), rules)
    }
}

/// Builds the player for the rules in use (a model is checked against them).
/// A level's fallback replaces it under rules with no shipped model.
pub fn build<B: BitSet>(r: &Resolved, seed: u64, rules: &Rules<B>) -> Result<Player<B>, String> {
    let r = &r.for_rules(&rules.ruleset);
    if let PlayerSpec::External { protocol, command } = &r.spec {
        let program = crate::external_player::start(*protocol, command, rules)?;
        let mut p = Player::external(&r.spec, program);
        p.limit = r.limit;
        return Ok(p);
    }
    let factory = |e: &EvaluatorSpec| evaluator_on(e, rules, r.inference);
    let mut p = Player::new(&r.spec, seed, &r.search, &factory)?;
    p.temperature = r.temperature;
    p.exploration = r.exploration;
    p.limit = r.limit;
    p.threads = r.threads.max(1);
    p.parallel = r.parallel;
    Ok(p)
}

impl Resolved {
    /// The player with a thinking limit and search threads given from outside (a command
    /// line, a request): a time limit replaces the player's own (`Simulations` keeps it);
    /// `threads`, when given, sets the search threads, which otherwise default to
    /// `default_threads` for a player that thinks by time, else to 1.
    pub fn thinking(
        mut self,
        limit: ThinkingLimit,
        threads: Option<usize>,
        default_threads: usize,
    ) -> Resolved {
        if limit != ThinkingLimit::Simulations {
            // The spec's simulations no longer apply: the label names the search without them.
            let timed = spec_text(&self.spec, limit);
            let label = self.label.replacen(&self.spec.to_string(), &timed, 1);
            self.label = format!("{label} at {limit}");
            self.limit = limit;
        }
        // More threads help a search that thinks by the clock; a fixed simulation count
        // would only be shared out among the trees (a level measured on one tree would play
        // a little differently), so such players keep one unless told otherwise.
        let default_threads = if self.limit == ThinkingLimit::Simulations {
            1
        } else {
            default_threads
        };
        self.threads = threads.unwrap_or(default_threads);
        self
    }
}

/// A spec as reports name it under `limit`: a search that thinks by time is named without
/// the simulations its spec would otherwise run (`mcts:heuristic`, not `mcts:heuristic:800`).
fn spec_text(spec: &PlayerSpec, limit: ThinkingLimit) -> String {
    match spec {
        PlayerSpec::Mcts { evaluator, .. } if limit != ThinkingLimit::Simulations => {
            format!("mcts:{evaluator}")
        }
        other => other.to_string(),
    }
}

/// The search threads of a single game (play, engine protocols): the cores, at most the 64 a
/// search may use.
pub fn cores() -> usize {
    crate::limits::cores().min(64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_players_inference_reaches_its_network() {
        // Where ONNX Runtime is installed (CI installs it before the tests): the same model
        // path at two engines is two evaluators, the int8 one saying so in its name.
        if Inference::Int8.resolve().is_err() {
            eprintln!("skipped: no ONNX Runtime (scripts/install-onnxruntime.sh)");
            return;
        }
        let ruleset = tafl_engine::Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&ruleset).unwrap();
        let shipped = EvaluatorSpec::Model(tafl_models::shipped::SHIPPED_PATH.into());
        let int8 = evaluator_on(&shipped, &rules, Some(Inference::Int8)).unwrap();
        let float = evaluator_on(&shipped, &rules, Some(Inference::OnnxRuntime)).unwrap();
        assert!(int8.name().ends_with("(int8)"), "{}", int8.name());
        assert!(!float.name().contains("int8"), "{}", float.name());
    }

    #[test]
    fn a_search_given_a_time_limit_is_named_without_its_simulations() {
        let timed = ThinkingLimit::MoveTime(Duration::from_secs(1));
        let p = resolve("mcts:heuristic:800").unwrap().thinking(timed, None, 2);
        assert_eq!(p.label, format!("mcts:heuristic at {timed}"));
        assert_eq!(p.threads, 2, "a timed search gets the default threads");
        // By simulations the spec keeps its count, and one tree.
        let p = resolve("mcts:heuristic:800")
            .unwrap()
            .thinking(ThinkingLimit::Simulations, None, 2);
        assert_eq!(p.label, "mcts:heuristic:800");
        assert_eq!(p.threads, 1);
        // Another program's spec has no simulations to drop.
        let p = resolve("htp:engine --flag").unwrap().thinking(timed, None, 2);
        assert_eq!(p.label, format!("htp:engine --flag at {timed}"));
    }

    #[test]
    fn a_player_is_built_on_its_search_config() {
        // A level's `search` settings reach the searches of the player built from it (the
        // spec's simulations on top); a plain spec gets the default config.
        let rules = tafl_engine::Rules::<u128>::new(&tafl_engine::Ruleset::builtin("brandubh")).unwrap();
        let mut r = resolve("mcts:heuristic:30").unwrap();
        let p = build(&r, 1, &rules).unwrap();
        assert_eq!(
            p.search_config(),
            Some(&SearchConfig {
                simulations: 30,
                ..SearchConfig::default()
            })
        );
        r.search = SearchConfig {
            batch_size: 5,
            fpu_reduction: 0.5,
            ..SearchConfig::default()
        };
        let p = build(&r, 1, &rules).unwrap();
        let used = p.search_config().unwrap();
        assert_eq!(
            (used.batch_size, used.fpu_reduction, used.simulations),
            (5, 0.5, 30)
        );
    }

    #[test]
    fn a_level_given_a_time_limit_is_named_without_its_simulations() {
        let timed = ThinkingLimit::MoveTime(Duration::from_secs(1));
        let p = level(5).unwrap().thinking(timed, None, 2);
        assert!(p.label.starts_with("level 5 (mcts:model=shipped"), "{}", p.label);
        assert!(!p.label.contains(":400"), "{}", p.label);
        assert!(p.label.ends_with(&format!("at {timed}")), "{}", p.label);
    }
}
