//! `tafl rebalance`: the search of the rules' levers for even variants (lab's
//! [`tafl_lab::balance::rebalance`] does the work).

/// The arguments of `tafl rebalance`.
#[derive(clap::Args, Debug)]
pub struct RebalanceArgs {
    /// The base rules: a ruleset id or a rules file.
    #[arg(long)]
    rules: String,
    /// The levers: comma-separated knobs, each alone (every value but the base's) or with the
    /// values to try, `knob=a|b`. Default: first, king_armed, king_capture, escape,
    /// corner_hostile, empty_throne_hostile, shieldwall, exit_fort, encirclement, repetition.
    #[arg(long, value_name = "KNOB[=A|B],...")]
    levers: Option<String>,
    /// At most this many levers moved at once in a variant.
    #[arg(long, default_value_t = 2)]
    max_changes: u32,
    /// The racing player, both sides: `level:N` or a spec. Default: the hand-written search
    /// at 100 simulations (the same player under every variant).
    #[arg(long, default_value = tafl_lab::balance::rebalance::DEFAULT_SKILLED)]
    skilled: String,
    /// The stronger players the survivors of the race race again with, in turn (comma
    /// separated).
    #[arg(long, value_delimiter = ',', default_value = tafl_lab::balance::rebalance::DEFAULT_STRENGTHS)]
    strengths: Vec<String>,
    /// Each ply, the side to move plays a uniformly random legal move with this probability.
    #[arg(long, default_value_t = tafl_lab::balance::DEFAULT_EXPLORATION)]
    exploration: f32,
    /// End a game with no result after this many plies (0: no limit).
    #[arg(long, default_value_t = 400)]
    ply_limit: u32,
    /// Even means a defenders' share of decided games within 50% ± this.
    #[arg(long, default_value_t = 0.05)]
    band: f64,
    /// Play each finalist's measurements until their 95% interval lies within ± this of the
    /// share.
    #[arg(long, default_value_t = 0.05)]
    precision: f64,
    /// Play the race's survivors until their 95% interval lies within ± this (at least
    /// --precision): enough to rank them; only the closest are played on to --precision,
    /// ranked again until the --finalists closest all are.
    #[arg(long, default_value_t = tafl_lab::balance::rebalance::DEFAULT_RACE_PRECISION)]
    race_precision: f64,
    /// Variants that survive the race and are measured at every strength: the closest to
    /// even at the racing player; the best is the one that stays closest at every strength.
    #[arg(long, default_value_t = 5)]
    finalists: usize,
    /// Games per variant in the race's first round; the rounds then grow by about half, in
    /// whole first rounds (16, 32, 48, 80, 128, ...).
    #[arg(long, default_value_t = 16)]
    first_round: u64,
    /// At most this many games per variant and player.
    #[arg(long, default_value_t = 1024)]
    max_games: u64,
    /// Drop a variant whose share of undecided games (draws, no result) is surely above this.
    #[arg(long, default_value_t = 0.25)]
    max_undecided: f64,
    /// Uniformly random games for the random rows of the base and the best variant.
    #[arg(long, default_value_t = 10000)]
    random_games: u64,
    /// Drop nothing: play every variant to --precision (the baseline the race saves games on).
    #[arg(long)]
    exhaustive: bool,
    /// Drop a variant as playing like a simpler one (some of its changes) once this many of
    /// its games are move for move the simpler one's: the levers it adds changed none of them
    /// (0: never).
    #[arg(long, default_value_t = 64)]
    same_games: u64,
    /// Seed: every skilled game's seed derives from (seed, rules, player, game index), the same
    /// for every variant, so that a lever that changes nothing leaves the games as they were.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: all cores); the results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Folder for the outputs and the state a resumed search continues from.
    #[arg(long, default_value = "rebalance")]
    out: std::path::PathBuf,
}

impl RebalanceArgs {
    /// Runs `tafl rebalance`.
    pub fn run(self) -> Result<(), String> {
        let req = tafl_lab::balance::rebalance::RebalanceRequest {
            rules: self.rules,
            levers: self.levers,
            max_changes: self.max_changes,
            skilled: self.skilled,
            strengths: self
                .strengths
                .into_iter()
                .filter(|s| !s.trim().is_empty())
                .collect(),
            band: self.band,
            precision: self.precision,
            race_precision: self.race_precision,
            finalists: self.finalists,
            first_round: self.first_round,
            max_games: self.max_games,
            max_undecided: self.max_undecided,
            random_games: self.random_games,
            exhaustive: self.exhaustive,
            same_games: self.same_games,
            out: self.out,
            play: tafl_lab::study::StudyGames {
                seed: self.seed,
                ply_limit: self.ply_limit,
                exploration: self.exploration,
                threads: self.threads,
            },
        };
        tafl_lab::balance::rebalance::run(&req, tafl_lab::balance::stop_on_ctrl_c())
    }
}
