//! The training config: one TOML file names the rules, the model, self-play, the replay
//! window, training and the arena. Every section has defaults; unknown keys are errors that
//! name the key, and bad values are refused by [`TrainConfig::validate`] with the key's path.

use serde::{Deserialize, Serialize};
use tafl_engine::{search::RootSelection, Ruleset};

/// How a candidate replaces the current best network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Promotion {
    /// After every iteration (the arena only measures).
    Always,
    /// Only when the candidate's Elo interval against the best lies above zero.
    Significant,
}

/// The network's shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelSection {
    /// Residual blocks.
    pub blocks: usize,
    /// Channels of the tower.
    pub channels: usize,
    /// Every k-th block is a global-pooling bias block (0: none).
    pub global_pool_every: usize,
    /// Whether the network predicts moves left.
    pub moves_left: bool,
    /// A trained model to start from instead of random weights: `shipped` (the model built
    /// into the program for the rules) or a checkpoint or run folder (its best checkpoint). Its
    /// shape must be this section's; it becomes the run's `checkpoint:0` (and its training step
    /// carries on), so a ladder anchor `checkpoint:0` measures the run against its start.
    pub start: Option<String>,
}

impl Default for ModelSection {
    fn default() -> Self {
        ModelSection {
            blocks: 6,
            channels: 64,
            global_pool_every: 3,
            moves_left: true,
            start: None,
        }
    }
}

/// Self-play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlaySection {
    /// Games per iteration.
    pub games_per_iteration: u32,
    /// Games played at once; their positions meet in one batched evaluator.
    pub parallel_games: u32,
    /// Games per replay shard (a shard is written when its games are done).
    pub games_per_shard: u32,
    /// A game reaching this many plies ends with no result.
    pub ply_limit: u32,
    /// Root selection: `puct` or `gumbel`.
    pub root: RootSelection,
    /// Simulations of a full search (its position becomes a training sample).
    pub simulations: u32,
    /// Playout-cap randomization: simulations of a fast search (not recorded).
    pub fast_simulations: u32,
    /// Probability that a move gets a full search.
    pub full_search_probability: f32,
    /// Leaves per evaluator call in one search.
    pub leaf_batch: u32,
    /// Temperature of move choice during the first `temperature_plies` plies (PUCT root).
    pub temperature: f32,
    /// Plies played with `temperature`; later moves take the best.
    pub temperature_plies: u32,
    /// Dirichlet noise concentration (PUCT root, full searches).
    pub dirichlet_alpha: f32,
    /// Share of noise in the root priors (0: none).
    pub dirichlet_epsilon: f32,
    /// Resign when the searched value for the side to move falls below this (-1: never).
    pub resign_threshold: f32,
    /// Share of games that never resign, to measure how often resigning would be wrong.
    pub resign_disabled_share: f32,
    /// First iteration in which games may resign: an untrained network's confident values
    /// would otherwise end games before anything is learned from them.
    pub resign_from_iteration: u32,
    /// Share of games in which the side that dominated the previous iteration's even games
    /// is handicapped (0: never). Where one side wins nearly every game between equals (as
    /// the defenders do in Brandubh), the other side's value targets never show a win and it
    /// cannot learn what winning looks like; handicapped games show it.
    pub handicap_share: f32,
    /// A side counts as dominant when it won more than this share of the previous
    /// iteration's even (unhandicapped) games.
    pub handicap_above: f32,
    /// Probability that the handicapped side plays a uniformly random legal move instead of
    /// its search's choice (a proven win is always taken).
    pub handicap_blunder: f32,
    /// Probability, each ply, that the side to move (either side alike) plays a uniformly
    /// random legal move instead of searching: the exploration rule of the balance study's
    /// skilled play and of the strength measurement (`tafl arena --exploration`). Under rules
    /// where one side wins nearly every game between error-free equals, such games still end
    /// both ways, so both sides' value targets show wins. These positions record no sample;
    /// the games keep their value targets, since both sides play by the same rule. 0: none.
    pub exploration: f32,
    /// Weight of the full search's root value in each sample's value target (lc0's
    /// "q ratio"): the target is `(1 - w)` times the game's result plus `w` times the
    /// searched value as a win/loss distribution. Under rules where one side wins nearly
    /// every game, the result says little about a position that the search's value does not
    /// say better: it separates a lost position from a nearly lost one. Only samples with a
    /// result get it (see trainer/src/selfplay.rs). 0: the result alone (AlphaZero).
    pub search_value_weight: f32,
    /// Network evaluations kept in the evaluation cache shared by self-play's searches (and
    /// the arena's): positions met again (transpositions, the openings every game passes
    /// through) cost a lookup instead of a forward pass. 0: no cache.
    pub eval_cache: u32,
    /// The engine of the network's forward passes in self-play and the arena: `auto` (ONNX
    /// Runtime where its library is installed, several times faster on CPU; else burn),
    /// `burn`, or `onnxruntime` (an error without the library). Training is burn's always.
    pub inference: tafl_nn::Inference,
    /// An opening suite (`tafl openings`; a path as written, read from the directory the
    /// run is started or resumed in) whose positions start a share of the self-play games:
    /// AlphaZero's games all start from one position, which under defender-favoured rules
    /// teaches the attackers little; a suite's positions are ones where they have chances.
    /// Use a suite other than the one strength is measured with.
    pub openings: Option<String>,
    /// The share of self-play games that start from a uniformly drawn position of `openings`.
    pub openings_share: f32,
}

impl SelfPlaySection {
    /// The positions of the `openings` suite under `rules` (none without one); the error names
    /// the key and the file.
    pub fn opening_positions<B: tafl_engine::BitSet>(
        &self,
        rules: &tafl_engine::Rules<B>,
    ) -> Result<Vec<tafl_engine::Position<B>>, String> {
        match &self.openings {
            None => Ok(Vec::new()),
            Some(path) => tafl_engine::formats::OpeningSuite::load(std::path::Path::new(path))
                .and_then(|suite| suite.positions(rules))
                .map_err(|e| format!("key `selfplay.openings`: {e}")),
        }
    }
}

impl Default for SelfPlaySection {
    fn default() -> Self {
        SelfPlaySection {
            games_per_iteration: 200,
            parallel_games: 32,
            games_per_shard: 25,
            ply_limit: 200,
            root: RootSelection::Gumbel,
            simulations: 32,
            fast_simulations: 8,
            full_search_probability: 0.25,
            leaf_batch: 8,
            temperature: 1.0,
            temperature_plies: 8,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            resign_threshold: -0.95,
            resign_disabled_share: 0.2,
            resign_from_iteration: 5,
            handicap_share: 0.0,
            handicap_above: 0.8,
            handicap_blunder: 0.5,
            exploration: 0.0,
            search_value_weight: 0.0,
            eval_cache: 200_000,
            inference: tafl_nn::Inference::Auto,
            openings: None,
            openings_share: 0.5,
        }
    }
}

/// The evaluator a teacher search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeacherEvaluator {
    /// The hand-written evaluation (`mcts:heuristic`).
    Heuristic,
    /// Random playouts (`mcts:rollout`).
    Rollout,
}

impl TeacherEvaluator {
    /// Its name in configs, logs and `state.json`.
    pub fn name(self) -> &'static str {
        match self {
            TeacherEvaluator::Heuristic => "heuristic",
            TeacherEvaluator::Rollout => "rollout",
        }
    }
}

/// A warm start: the first iterations' self-play searches with a classic evaluator instead of
/// the network, so the first networks learn from games far stronger than an untrained
/// network's (expert iteration). Classic evaluations cost microseconds, so these iterations
/// afford many more games and simulations than the network's. Later iterations are ordinary
/// self-play with the network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TeacherSection {
    /// The evaluator the teacher's search uses.
    pub evaluator: TeacherEvaluator,
    /// Self-play of iterations 1..=this searches with the teacher (0: no teacher).
    pub iterations: u32,
    /// Simulations of the teacher's full search; its fast searches scale with
    /// `selfplay.fast_simulations / selfplay.simulations`.
    pub simulations: u32,
    /// Games per teacher iteration.
    pub games_per_iteration: u32,
    /// `selfplay.search_value_weight` for the teacher's games (unset: the same as
    /// self-play's). Learning the teacher's searched values distils its search into the
    /// network: a network that evaluates a position as the teacher's deep search did
    /// needs fewer simulations for the same play.
    pub search_value_weight: Option<f32>,
}

impl Default for TeacherSection {
    fn default() -> Self {
        TeacherSection {
            evaluator: TeacherEvaluator::Heuristic,
            iterations: 0,
            simulations: 200,
            games_per_iteration: 400,
            search_value_weight: None,
        }
    }
}

/// Bootstrapping from recorded games: before the first iteration, the initial network learns
/// the moves and results of a game archive (read as `tafl records` reads it): the move played
/// is the policy target, the game's result the value target. Only the archive's training
/// games are learned; its validation games (one in ten, by game) measure the prior's agreement
/// with the move played before and after, which the run's state and log report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PretrainSection {
    /// A records file or folder (a path as written, read from the directory the run is
    /// started or resumed in, as `selfplay.openings`).
    pub records: String,
    /// Passes over the training games' positions (each position seen this many times on
    /// average, under a random symmetry).
    #[serde(default = "default_pretrain_epochs")]
    pub epochs: f32,
    /// Weight of the value loss against the policy's 1: a game's result says little of any
    /// one of its positions, and people's results are noisier than their moves.
    #[serde(default = "default_pretrain_value_weight")]
    pub value_weight: f32,
    /// Samples per batch (unset: `training.batch_size`).
    pub batch_size: Option<usize>,
    /// Learning rate (unset: `training.learning_rate`'s first).
    pub learning_rate: Option<f64>,
}

fn default_pretrain_epochs() -> f32 {
    2.0
}

fn default_pretrain_value_weight() -> f32 {
    0.5
}

/// The replay window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplaySection {
    /// Shards of the last this-many iterations are sampled.
    pub window_iterations: u32,
}

impl Default for ReplaySection {
    fn default() -> Self {
        ReplaySection { window_iterations: 4 }
    }
}

/// The learner.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainingSection {
    /// Samples per batch.
    pub batch_size: usize,
    /// Optimizer steps per iteration.
    pub steps_per_iteration: u32,
    /// Learning rate schedule: `[[iteration, rate], ...]`, each rate holding from its
    /// iteration on (the first entry must be iteration 0).
    pub learning_rate: Vec<(u32, f64)>,
    /// AdamW weight decay.
    pub weight_decay: f32,
}

impl Default for TrainingSection {
    fn default() -> Self {
        TrainingSection {
            batch_size: 256,
            steps_per_iteration: 150,
            learning_rate: vec![(0, 2e-3), (15, 1e-3)],
            weight_decay: 1e-4,
        }
    }
}

/// The arena after each iteration and the ladder of fixed anchors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ArenaSection {
    /// Games of candidate against best (whole colour-swapped pairs).
    pub games: u32,
    /// Simulations per move in arena and ladder games.
    pub simulations: u32,
    /// Promotion rule.
    pub promotion: Promotion,
    /// Play the ladder every this-many iterations (0: never).
    pub ladder_every: u32,
    /// Games against each anchor.
    pub ladder_games: u32,
    /// Fixed anchors (player specs); earlier checkpoints are added as `checkpoint:N`
    /// (the network of iteration N).
    pub ladder_anchors: Vec<String>,
    /// A game reaching this many plies ends with no result.
    pub ply_limit: u32,
    /// Uniformly random plies opening each pair of arena and ladder games (both games of a
    /// pair share it): networks without noise are deterministic, and without openings every
    /// pair would repeat the same two games.
    pub opening_plies: u32,
    /// Probability, each ply, that either player of a ladder game plays a uniformly random
    /// legal move instead of its own (the rule of `tafl arena --exploration` and of the
    /// balance study's skilled rows): where one side wins every game between competent
    /// players, random moves are what let a ladder measure strength. 0: none.
    pub ladder_exploration: f32,
    /// Where ladder games start: `suite` (the built-in opening suite of the rules, from
    /// `checkpoints/openings/`) or a suite file's path (read from the directory the run is
    /// started or resumed in): each pair from the suite's next position, no random plies.
    /// None: each pair from `opening_plies` random plies.
    pub ladder_openings: Option<String>,
    /// In addition, each anchor again from random openings with both players making random
    /// moves with this probability, a series of its own (`ANCHOR, exploration P`): the
    /// strength rule on 11x11, where random moves also separate players. 0: none.
    pub ladder_also_exploration: f32,
    /// Anchors the best network also plays at equal time: both players at `ladder_movetime`
    /// seconds a move, one search thread each (`ANCHOR, T s a move`).
    pub ladder_time_anchors: Vec<String>,
    /// Seconds a move of the time anchors' games (0: none are played).
    pub ladder_movetime: f64,
    /// Games against each time anchor.
    pub ladder_time_games: u32,
}

impl ArenaSection {
    /// Every ladder anchor with the key that names it: `ladder_anchors`, then
    /// `ladder_time_anchors`.
    pub fn all_anchors(&self) -> impl Iterator<Item = (&'static str, &String)> {
        let by_simulations = self.ladder_anchors.iter().map(|x| ("arena.ladder_anchors", x));
        let by_time = self
            .ladder_time_anchors
            .iter()
            .map(|x| ("arena.ladder_time_anchors", x));
        by_simulations.chain(by_time)
    }
}

impl Default for ArenaSection {
    fn default() -> Self {
        ArenaSection {
            games: 40,
            simulations: 32,
            promotion: Promotion::Always,
            ladder_every: 2,
            ladder_games: 20,
            ladder_anchors: vec![
                "mcts:rollout:32".into(),
                "heuristic".into(),
                "checkpoint:0".into(),
            ],
            ply_limit: 200,
            opening_plies: 4,
            ladder_exploration: 0.0,
            ladder_openings: None,
            ladder_also_exploration: 0.0,
            ladder_time_anchors: Vec::new(),
            ladder_movetime: 0.0,
            ladder_time_games: 40,
        }
    }
}

/// A whole training config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainConfig {
    /// Ruleset id or rules file.
    pub rules: String,
    /// Iterations to run (self-play, training, arena each).
    #[serde(default = "default_iterations")]
    pub iterations: u32,
    /// Seed of everything random in the run.
    #[serde(default)]
    pub seed: u64,
    /// The network.
    #[serde(default)]
    pub model: ModelSection,
    /// Self-play.
    #[serde(default)]
    pub selfplay: SelfPlaySection,
    /// Warm start with a classic evaluator.
    #[serde(default)]
    pub teacher: TeacherSection,
    /// Bootstrapping from recorded games before the first iteration (none when absent).
    #[serde(default)]
    pub pretrain: Option<PretrainSection>,
    /// Replay window.
    #[serde(default)]
    pub replay: ReplaySection,
    /// Learner.
    #[serde(default)]
    pub training: TrainingSection,
    /// Arena and ladder.
    #[serde(default)]
    pub arena: ArenaSection,
}

/// The most iterations of a run.
pub const MAX_ITERATIONS: u32 = 100_000;
/// The most self-play games of an iteration.
pub const MAX_GAMES: u32 = 10_000_000;
/// The most games played at once (one thread each).
pub const MAX_PARALLEL_GAMES: u32 = 1024;
/// The most games of an arena or of a ladder match.
pub const MAX_MATCH_GAMES: u32 = 1_000_000;

fn default_iterations() -> u32 {
    20
}

/// The default config, embedded: `configs/train/brandubh.toml`.
pub const DEFAULT_CONFIG: &str = include_str!("../../configs/train/brandubh.toml");

impl TrainConfig {
    /// The network's shape under `ruleset` (its board), as `[model]` gives it.
    pub fn net_config(&self, ruleset: &Ruleset) -> tafl_nn::NetConfig {
        tafl_nn::NetConfig::new(ruleset.size())
            .with_blocks(self.model.blocks)
            .with_channels(self.model.channels)
            .with_global_pool_every(self.model.global_pool_every)
            .with_moves_left(self.model.moves_left)
    }

    /// Parses a config; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<TrainConfig, String> {
        let c: TrainConfig =
            toml::from_str(text).map_err(|e| format!("config `{file}`: {}", e.to_string().trim_end()))?;
        c.validate().map_err(|e| format!("config `{file}`: {e}"))?;
        Ok(c)
    }

    /// The ruleset the config names.
    pub fn ruleset(&self) -> Result<Ruleset, String> {
        Ruleset::load(&self.rules).map_err(|e| format!("key `rules`: {e}"))
    }

    /// The self-play settings and teacher of an iteration: within `teacher.iterations` the
    /// teacher's simulations and games replace the network's, and the teacher is returned.
    pub fn selfplay_at(&self, iteration: u32) -> (SelfPlaySection, Option<TeacherEvaluator>) {
        let t = &self.teacher;
        if iteration > t.iterations {
            return (self.selfplay.clone(), None);
        }
        let s = &self.selfplay;
        // Keep the fast search's share of the full one, as the network's settings have it.
        let fast = (u64::from(s.fast_simulations) * u64::from(t.simulations) / u64::from(s.simulations))
            .clamp(1, u64::from(t.simulations)) as u32;
        let sp = SelfPlaySection {
            simulations: t.simulations,
            fast_simulations: fast,
            games_per_iteration: t.games_per_iteration,
            search_value_weight: t.search_value_weight.unwrap_or(s.search_value_weight),
            ..s.clone()
        };
        (sp, Some(t.evaluator))
    }

    /// The learning rate at an iteration.
    pub fn learning_rate(&self, iteration: u32) -> f64 {
        let mut lr = self.training.learning_rate.first().map_or(1e-3, |x| x.1);
        for &(from, rate) in &self.training.learning_rate {
            if iteration >= from {
                lr = rate;
            }
        }
        lr
    }

    /// Checks every value; errors name the key.
    pub fn validate(&self) -> Result<(), String> {
        fn check(ok: bool, key: &str, why: &str) -> Result<(), String> {
            if ok {
                Ok(())
            } else {
                Err(format!("key `{key}`: {why}"))
            }
        }
        self.ruleset()?;
        check(
            (1..=MAX_ITERATIONS).contains(&self.iterations),
            "iterations",
            &format!("must be within 1..={MAX_ITERATIONS}"),
        )?;
        let m = &self.model;
        check(
            (1..=40).contains(&m.blocks),
            "model.blocks",
            "must be within 1..=40",
        )?;
        check(
            (4..=512).contains(&m.channels),
            "model.channels",
            "must be within 4..=512",
        )?;
        check(
            m.global_pool_every <= m.blocks,
            "model.global_pool_every",
            "must not exceed model.blocks",
        )?;
        let s = &self.selfplay;
        check(
            (1..=MAX_GAMES).contains(&s.games_per_iteration),
            "selfplay.games_per_iteration",
            &format!("must be within 1..={MAX_GAMES}"),
        )?;
        check(
            (1..=MAX_PARALLEL_GAMES).contains(&s.parallel_games),
            "selfplay.parallel_games",
            &format!("must be within 1..={MAX_PARALLEL_GAMES} (each game in play is a thread)"),
        )?;
        check(
            s.games_per_shard >= 1,
            "selfplay.games_per_shard",
            "must be at least 1",
        )?;
        check(s.ply_limit >= 1, "selfplay.ply_limit", "must be at least 1")?;
        check(s.simulations >= 1, "selfplay.simulations", "must be at least 1")?;
        check(
            s.fast_simulations >= 1 && s.fast_simulations <= s.simulations,
            "selfplay.fast_simulations",
            "must be within 1..=selfplay.simulations",
        )?;
        check(
            (0.0..=1.0).contains(&s.full_search_probability) && s.full_search_probability > 0.0,
            "selfplay.full_search_probability",
            "must be within (0, 1]",
        )?;
        check(s.leaf_batch >= 1, "selfplay.leaf_batch", "must be at least 1")?;
        check(
            s.temperature.is_finite() && s.temperature >= 0.0,
            "selfplay.temperature",
            "must be >= 0",
        )?;
        check(
            s.dirichlet_alpha.is_finite() && s.dirichlet_alpha > 0.0,
            "selfplay.dirichlet_alpha",
            "must be > 0",
        )?;
        check(
            (0.0..=1.0).contains(&s.dirichlet_epsilon),
            "selfplay.dirichlet_epsilon",
            "must be within 0..=1",
        )?;
        check(
            (-1.0..=1.0).contains(&s.resign_threshold),
            "selfplay.resign_threshold",
            "must be within -1..=1 (-1: never resign)",
        )?;
        check(
            (0.0..=1.0).contains(&s.resign_disabled_share),
            "selfplay.resign_disabled_share",
            "must be within 0..=1",
        )?;
        check(
            (0.0..=1.0).contains(&s.handicap_share),
            "selfplay.handicap_share",
            "must be within 0..=1",
        )?;
        check(
            (0.5..=1.0).contains(&s.handicap_above),
            "selfplay.handicap_above",
            "must be within 0.5..=1",
        )?;
        check(
            (0.0..=1.0).contains(&s.handicap_blunder),
            "selfplay.handicap_blunder",
            "must be within 0..=1",
        )?;
        check(
            (0.0..=1.0).contains(&s.exploration),
            "selfplay.exploration",
            "must be within 0..=1",
        )?;
        check(
            (0.0..=1.0).contains(&s.openings_share),
            "selfplay.openings_share",
            "must be within 0..=1",
        )?;
        if s.openings.is_some() {
            let rs = self.ruleset()?;
            tafl_engine::with_board!(&rs, B, rules => s.opening_positions::<B>(&rules).map(|_| ()))?;
        }
        check(
            (0.0..=1.0).contains(&s.search_value_weight),
            "selfplay.search_value_weight",
            "must be within 0..=1",
        )?;
        check(
            s.eval_cache <= 20_000_000,
            "selfplay.eval_cache",
            "must be within 0..=20000000 (entries)",
        )?;
        if let Some(p) = &self.pretrain {
            check(
                p.epochs.is_finite() && p.epochs > 0.0 && p.epochs <= 1000.0,
                "pretrain.epochs",
                "must be within 0 (excluded) and 1000",
            )?;
            check(
                p.value_weight.is_finite() && (0.0..=10.0).contains(&p.value_weight),
                "pretrain.value_weight",
                "must be within 0..=10",
            )?;
            check(
                p.batch_size.is_none_or(|b| (1..=65536).contains(&b)),
                "pretrain.batch_size",
                "must be within 1..=65536",
            )?;
            check(
                p.learning_rate.is_none_or(|r| r.is_finite() && r > 0.0),
                "pretrain.learning_rate",
                "must be positive",
            )?;
            let rs = self.ruleset()?;
            tafl_engine::with_board!(&rs, B, rules => crate::records::read_records::<B>(&rules, std::path::Path::new(&p.records)).map(|_| ()))
                .map_err(|e| format!("key `pretrain.records`: {e}"))?;
        }
        let t = &self.teacher;
        check(
            t.iterations <= self.iterations,
            "teacher.iterations",
            "must not exceed iterations",
        )?;
        check(t.simulations >= 1, "teacher.simulations", "must be at least 1")?;
        check(
            t.search_value_weight.is_none_or(|w| (0.0..=1.0).contains(&w)),
            "teacher.search_value_weight",
            "must be within 0..=1",
        )?;
        check(
            (1..=MAX_GAMES).contains(&t.games_per_iteration),
            "teacher.games_per_iteration",
            &format!("must be within 1..={MAX_GAMES}"),
        )?;
        check(
            self.arena.opening_plies < self.arena.ply_limit,
            "arena.opening_plies",
            "must be below arena.ply_limit",
        )?;
        check(
            self.replay.window_iterations >= 1,
            "replay.window_iterations",
            "must be at least 1",
        )?;
        let t = &self.training;
        check(
            (1..=65536).contains(&t.batch_size),
            "training.batch_size",
            "must be within 1..=65536",
        )?;
        check(
            t.steps_per_iteration >= 1,
            "training.steps_per_iteration",
            "must be at least 1",
        )?;
        check(
            !t.learning_rate.is_empty() && t.learning_rate[0].0 == 0,
            "training.learning_rate",
            "must start with an entry for iteration 0, as [[0, 0.002], ...]",
        )?;
        check(
            t.learning_rate.windows(2).all(|w| w[0].0 < w[1].0),
            "training.learning_rate",
            "iterations must increase",
        )?;
        check(
            t.learning_rate.iter().all(|x| x.1.is_finite() && x.1 > 0.0),
            "training.learning_rate",
            "rates must be positive",
        )?;
        check(
            t.weight_decay.is_finite() && t.weight_decay >= 0.0,
            "training.weight_decay",
            "must be >= 0",
        )?;
        let a = &self.arena;
        check(a.simulations >= 1, "arena.simulations", "must be at least 1")?;
        check(
            a.games <= MAX_MATCH_GAMES,
            "arena.games",
            &format!("must be within 0..={MAX_MATCH_GAMES}"),
        )?;
        check(
            a.ladder_games <= MAX_MATCH_GAMES,
            "arena.ladder_games",
            &format!("must be within 0..={MAX_MATCH_GAMES}"),
        )?;
        check(a.ply_limit >= 1, "arena.ply_limit", "must be at least 1")?;
        check(
            (0.0..=1.0).contains(&a.ladder_exploration),
            "arena.ladder_exploration",
            "must be within 0..=1",
        )?;
        check(
            (0.0..=1.0).contains(&a.ladder_also_exploration),
            "arena.ladder_also_exploration",
            "must be within 0..=1",
        )?;
        check(
            a.ladder_movetime == 0.0 || (0.001..=60.0).contains(&a.ladder_movetime),
            "arena.ladder_movetime",
            "must be 0 (none) or within 0.001..=60 seconds",
        )?;
        check(
            a.ladder_time_games <= MAX_MATCH_GAMES,
            "arena.ladder_time_games",
            &format!("must be within 0..={MAX_MATCH_GAMES}"),
        )?;
        check(
            a.ladder_openings.as_ref().is_none_or(|o| !o.trim().is_empty()),
            "arena.ladder_openings",
            "must name a suite: `suite` (the built-in one of the rules) or a suite file",
        )?;
        for (key, anchor) in a.all_anchors() {
            if let Some(n) = anchor.strip_prefix("checkpoint:") {
                let Ok(n) = n.parse::<u32>() else {
                    return Err(format!("key `{key}`: `checkpoint:N` needs an iteration number"));
                };
                // A ladder at iteration `it` plays checkpoints of iterations before it.
                let last_ladder = match a.ladder_every {
                    0 => 0,
                    every => self.iterations - self.iterations % every,
                };
                if a.ladder_games > 0 && last_ladder > 0 && n >= last_ladder {
                    return Err(format!(
                        "key `{key}`: `{anchor}` is never played: the last ladder of this run is at iteration {last_ladder} (every {} of {} iterations), and a ladder plays checkpoints of earlier iterations",
                        a.ladder_every, self.iterations
                    ));
                }
            } else {
                tafl_engine::search::PlayerSpec::parse(anchor).map_err(|e| format!("key `{key}`: {e}"))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_config_parses() {
        let c = TrainConfig::parse(DEFAULT_CONFIG, "default").unwrap();
        assert_eq!(c.rules, "brandubh");
    }

    #[test]
    fn the_teacher_plays_its_iterations_with_its_own_simulations_and_games() {
        let c = TrainConfig::parse(
            "rules = \"tablut\"\niterations = 5\n[selfplay]\nsimulations = 32\nfast_simulations = 8\ngames_per_iteration = 80\n[teacher]\niterations = 2\nsimulations = 200\ngames_per_iteration = 1000\n",
            "x",
        )
        .unwrap();
        for it in [1, 2] {
            let (sp, t) = c.selfplay_at(it);
            assert_eq!(t, Some(TeacherEvaluator::Heuristic));
            assert_eq!(
                (sp.simulations, sp.fast_simulations, sp.games_per_iteration),
                (200, 50, 1000)
            );
            assert_eq!(
                sp.ply_limit, c.selfplay.ply_limit,
                "other settings are the network's"
            );
        }
        let (sp, t) = c.selfplay_at(3);
        assert_eq!(t, None);
        assert_eq!(sp, c.selfplay);
        // The teacher's searched-value weight is self-play's unless it sets its own.
        assert_eq!(c.selfplay_at(1).0.search_value_weight, 0.0);
        let own = TrainConfig::parse(
            "rules = \"tablut\"\niterations = 3\n[selfplay]\nsearch_value_weight = 0.25\n[teacher]\niterations = 1\nsearch_value_weight = 0.5\n",
            "x",
        )
        .unwrap();
        assert_eq!(own.selfplay_at(1).0.search_value_weight, 0.5);
        assert_eq!(own.selfplay_at(2).0.search_value_weight, 0.25);
        let none = TrainConfig::parse("rules = \"brandubh\"\n", "x").unwrap();
        assert_eq!(none.selfplay_at(1).1, None, "no teacher unless asked for");
    }

    #[test]
    fn an_opening_suite_is_checked_when_the_config_is_read() {
        let dir = std::env::temp_dir().join(format!("tafl-config-suite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let suite = dir.join("s.txt");
        let config = |path: &std::path::Path| {
            format!(
                "rules = \"brandubh\"\n[selfplay]\nopenings = \"{}\"\nopenings_share = 0.25\n",
                path.display()
            )
        };
        std::fs::write(
            &suite,
            "rules brandubh\n/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/ attackers\n",
        )
        .unwrap();
        let c = TrainConfig::parse(&config(&suite), "x").unwrap();
        assert_eq!(c.selfplay.openings_share, 0.25);
        std::fs::write(
            &suite,
            "rules tablut\n/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/ attackers\n",
        )
        .unwrap();
        let e = TrainConfig::parse(&config(&suite), "x").unwrap_err();
        assert!(
            e.contains("selfplay.openings") && e.contains("made for rules `tablut`"),
            "{e}"
        );
        let e = TrainConfig::parse(&config(&dir.join("missing.txt")), "x").unwrap_err();
        assert!(
            e.contains("selfplay.openings") && e.contains("missing.txt"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let e = TrainConfig::parse("rules = \"brandubh\"\n[selfplay]\nsimulatons = 3\n", "x").unwrap_err();
        assert!(e.contains("simulatons"), "{e}");
        let e = TrainConfig::parse("rules = \"brandubh\"\n[selfplay]\nsimulations = 0\n", "x").unwrap_err();
        assert!(e.contains("selfplay.simulations"), "{e}");
        let e = TrainConfig::parse("rules = \"nope\"\n", "x").unwrap_err();
        assert!(e.contains("rules"), "{e}");
        let e = TrainConfig::parse(
            "rules = \"brandubh\"\n[training]\nlearning_rate = [[3, 0.1]]\n",
            "x",
        )
        .unwrap_err();
        assert!(e.contains("training.learning_rate"), "{e}");
        let e =
            TrainConfig::parse("rules = \"brandubh\"\n[selfplay]\nroot = \"alphabeta\"\n", "x").unwrap_err();
        assert!(e.contains("root") && e.contains("gumbel"), "{e}");
        let e =
            TrainConfig::parse("rules = \"brandubh\"\n[selfplay]\nhandicap_above = 0.3\n", "x").unwrap_err();
        assert!(e.contains("selfplay.handicap_above"), "{e}");
        for (extra, key) in [
            (
                "[selfplay]\nsearch_value_weight = 1.5\n",
                "selfplay.search_value_weight",
            ),
            (
                "[teacher]\nsearch_value_weight = -0.1\n",
                "teacher.search_value_weight",
            ),
        ] {
            let e = TrainConfig::parse(&format!("rules = \"brandubh\"\n{extra}"), "x").unwrap_err();
            assert!(e.contains(key), "{e}");
        }
    }

    #[test]
    fn counts_that_no_run_reaches_or_that_wrap_are_refused() {
        for (extra, key) in [
            ("iterations = 4294967295\n", "iterations"),
            ("[selfplay]\nparallel_games = 100000\n", "selfplay.parallel_games"),
            (
                "[selfplay]\ngames_per_iteration = 4294967295\n",
                "selfplay.games_per_iteration",
            ),
            ("[arena]\nladder_games = 4294967295\n", "arena.ladder_games"),
            ("[arena]\ngames = 4294967295\n", "arena.games"),
        ] {
            let e = TrainConfig::parse(&format!("rules = \"brandubh\"\n{extra}"), "x").unwrap_err();
            assert!(e.contains(&format!("key `{key}`")), "{extra}: {e}");
        }
    }

    #[test]
    fn a_checkpoint_anchor_that_no_ladder_reaches_is_refused() {
        let text = |anchor: &str| {
            format!(
                "rules = \"brandubh\"\niterations = 12\n[arena]\nladder_every = 4\nladder_anchors = [\"{anchor}\"]\n"
            )
        };
        TrainConfig::parse(&text("checkpoint:11"), "x").unwrap();
        let e = TrainConfig::parse(&text("checkpoint:12"), "x").unwrap_err();
        assert!(
            e.contains("arena.ladder_anchors") && e.contains("checkpoint:12") && e.contains("never played"),
            "{e}"
        );
        let e = TrainConfig::parse(&text("checkpoint:99"), "x").unwrap_err();
        assert!(e.contains("checkpoint:99"), "{e}");
    }

    #[test]
    fn learning_rate_schedule_steps() {
        let c = TrainConfig::parse(
            "rules = \"brandubh\"\n[training]\nlearning_rate = [[0, 0.1], [5, 0.01]]\n",
            "x",
        )
        .unwrap();
        assert_eq!(c.learning_rate(0), 0.1);
        assert_eq!(c.learning_rate(4), 0.1);
        assert_eq!(c.learning_rate(5), 0.01);
    }

    #[test]
    fn ladder_exploration_defaults_to_none_and_is_a_probability() {
        let c = TrainConfig::parse("rules = \"brandubh\"\n", "x").unwrap();
        assert_eq!(c.arena.ladder_exploration, 0.0);
        let c = TrainConfig::parse("rules = \"brandubh\"\n[arena]\nladder_exploration = 0.1\n", "x").unwrap();
        assert_eq!(c.arena.ladder_exploration, 0.1);
        for bad in ["1.5", "-0.1", "nan"] {
            let e = TrainConfig::parse(
                &format!("rules = \"brandubh\"\n[arena]\nladder_exploration = {bad}\n"),
                "x",
            )
            .unwrap_err();
            assert!(
                e.contains("arena.ladder_exploration") && e.contains("0..=1"),
                "{bad}: {e}"
            );
        }
    }
}
