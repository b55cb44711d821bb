//! `tafl balance`: the win-rate study of rulesets, or the balance-against-strength sweep (lab's
//! [`tafl_lab::balance`] does the work).

/// The arguments of `tafl balance`.
#[derive(clap::Args, Debug)]
pub struct BalanceArgs {
    /// Rulesets (comma separated ids or rules files). Default: brandubh,tablut,hnefatafl;
    /// with --strength-sweep RUN_DIR, the run's ruleset; with `--strength-sweep levels`,
    /// exactly one ruleset is needed.
    #[arg(long)]
    rules: Option<String>,
    /// Uniformly random games per ruleset (0: no random rows).
    #[arg(long, default_value_t = 33000)]
    random_games: u64,
    /// Skilled games per ruleset (0: no skilled rows).
    #[arg(long, default_value_t = 500)]
    skilled_games: u64,
    /// End a game with no result after this many plies (0: no limit).
    #[arg(long, default_value_t = 400)]
    ply_limit: u32,
    /// Seed of the study: every game's seed derives from (seed, ruleset, row, game index).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads (default: all cores); the results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Folder for balance.md, balance.csv, balance.json and balance.png.
    #[arg(long, default_value = "balance")]
    out: std::path::PathBuf,
    /// The player of both sides in skilled rows: `level:N` or a spec (`mcts:heuristic:200`,
    /// `mcts:model=RUN:SIMS`, `mcts:model=shipped:200`). Default: tree search with the
    /// hand-written evaluation at 1600 simulations, the same player under every ruleset.
    #[arg(long, default_value = tafl_lab::balance::DEFAULT_SKILLED)]
    skilled: String,
    /// Exploration rule of skilled rows: each ply, the side to move plays a uniformly random
    /// legal move with this probability (0 to 1); a level that makes more mistakes keeps its own.
    #[arg(long, default_value_t = tafl_lab::balance::DEFAULT_EXPLORATION)]
    exploration: f32,
    /// Change a rule for this run, `KNOB=VALUE` as in the rules files (repeatable), for
    /// example `--set repetition=defenders_lose --set encirclement=yes`.
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    sets: Vec<String>,
    /// Play the rules as given and as changed by --set, side by side, with the change in each
    /// share and whether its 95% interval excludes zero.
    #[arg(long)]
    compare: bool,
    /// An opening suite for the skilled rows of the ruleset its file names (repeatable, one
    /// per ruleset; checkpoints/openings/ ships them): skilled game i starts from its
    /// position i % len instead of the start.
    #[arg(long, value_name = "FILE", conflicts_with = "strength_sweep")]
    openings: Vec<std::path::PathBuf>,
    /// Balance against strength: a training run folder (each of its checkpoints plays both
    /// sides, `mcts:model=CHECKPOINT:SIMS`) or `levels` (each level of configs/levels.toml).
    /// Each point is --games games under the run's rules, with the exploration rule of
    /// skilled rows. Writes balance-vs-strength.md, .csv, .json and .png to --out.
    #[arg(
        long,
        value_name = "RUN_DIR|levels",
        conflicts_with_all = ["random_games", "skilled_games", "skilled", "sets", "compare"]
    )]
    strength_sweep: Option<String>,
    /// Games per point of --strength-sweep.
    #[arg(long, default_value_t = tafl_lab::balance::sweep::DEFAULT_GAMES, requires = "strength_sweep")]
    games: u64,
    /// Simulations per move of the checkpoints in --strength-sweep (default: the run's
    /// arena simulations, the strength its Elo was measured at).
    #[arg(long, requires = "strength_sweep")]
    simulations: Option<u32>,
    /// Sweep every K-th checkpoint (or level): 0, K, 2K, ... and always the last.
    #[arg(long, default_value_t = 1, requires = "strength_sweep")]
    every: u32,
    /// The x axis of balance-vs-strength.png: Elo when every point has one, else the
    /// iteration (auto); or elo, iteration or step (training steps).
    #[arg(long = "x", value_enum, default_value_t = tafl_lab::balance::sweep::XChoice::Auto, requires = "strength_sweep")]
    x_axis: tafl_lab::balance::sweep::XChoice,
}

impl BalanceArgs {
    /// Runs `tafl balance`.
    pub fn run(self) -> Result<(), String> {
        let BalanceArgs {
            rules,
            random_games,
            skilled_games,
            ply_limit,
            seed,
            threads,
            out,
            skilled,
            exploration,
            sets,
            compare,
            openings,
            strength_sweep,
            games,
            simulations,
            every,
            x_axis,
        } = self;
        let play = tafl_lab::study::StudyGames {
            seed,
            ply_limit,
            exploration,
            threads,
        };
        let stop = tafl_lab::balance::stop_on_ctrl_c();
        match strength_sweep {
            Some(source) => {
                let req = tafl_lab::balance::sweep::SweepRequest {
                    source,
                    rules,
                    games,
                    simulations,
                    every,
                    out,
                    x: x_axis,
                    play,
                };
                tafl_lab::balance::sweep::run(&req, stop)
            }
            None => {
                let req = tafl_lab::balance::BalanceRequest {
                    rules: rules.unwrap_or_else(|| tafl_lab::balance::DEFAULT_RULES.to_string()),
                    random_games,
                    skilled_games,
                    out,
                    skilled,
                    sets,
                    compare,
                    openings,
                    play,
                };
                tafl_lab::balance::run(&req, stop)
            }
        }
    }
}
