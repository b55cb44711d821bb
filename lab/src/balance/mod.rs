//! `tafl balance`: the reproducible win-rate study of rulesets under random and skilled play,
//! with 95% intervals and an optional before/after of rule changes.
//!
//! A study is a list of rows (ruleset, rules as given or changed, play kind). Every game of a
//! row is seeded from (seed, ruleset, changes, play kind, game index) alone, so the outputs are
//! byte-identical whatever the thread count, and a row of a `--compare` run equals the same
//! row of a plain run. Outputs are rewritten after every finished row; `Ctrl-C` stops the row
//! in progress and leaves the outputs of the finished ones.

mod intervals;
mod knobs;
mod outputs;
mod plot;
pub mod rebalance;
mod rebalance_outputs;
mod run;
pub mod sweep;
mod sweep_outputs;
mod sweep_plot;
mod table;

pub use intervals::Share;
pub use knobs::{parse_sets, KnobSetting};
pub use run::stop_on_ctrl_c;

use crate::players::Resolved;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use tafl_engine::{board::GameTally, with_board, Ruleset};

/// The rulesets of the default study.
pub const DEFAULT_RULES: &str = "brandubh,tablut,hnefatafl";

/// The skilled player of the default study: tree search with the hand-written evaluation at
/// 1600 simulations. Named as a spec rather than a level because it must be the same player
/// under every ruleset (a network level is a different network per ruleset, and its
/// hand-written fallback where none is shipped).
pub const DEFAULT_SKILLED: &str = "mcts:heuristic:1600";

/// The default exploration rule of skilled play: a uniformly random move with this probability
/// each ply. Deterministic self-play of equal players repeats one game and, with no repetition
/// rule, never ends: the published study injects random moves for that reason.
pub const DEFAULT_EXPLORATION: f32 = 0.1;

/// What the command line asks for.
#[derive(Clone, Debug)]
pub struct BalanceRequest {
    /// Comma-separated ruleset ids or files.
    pub rules: String,
    /// Random games per row (0: no random rows).
    pub random_games: u64,
    /// Skilled games per row (0: no skilled rows).
    pub skilled_games: u64,
    /// Output folder.
    pub out: PathBuf,
    /// Skilled player: `level:N` or a player spec.
    pub skilled: String,
    /// `--set knob=value` texts.
    pub sets: Vec<String>,
    /// Play the rules as given and as changed, side by side.
    pub compare: bool,
    /// Opening suites for the skilled rows, each for the ruleset its file names: skilled
    /// game `i` of that ruleset starts from the suite's position `i % len` instead of the
    /// start position.
    pub openings: Vec<PathBuf>,
    /// How the games are played: seed, ply limit, exploration, threads.
    pub play: crate::study::StudyGames,
}

/// How a row's games are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Play {
    /// Each legal move equally likely.
    Random,
    /// Both sides played by the skilled player, with the exploration rule.
    Skilled,
}

impl Play {
    /// The name in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Play::Random => "random",
            Play::Skilled => "skilled",
        }
    }
}

/// Every setting that decides the figures, as written into `balance.json` (the thread count
/// and the output folder are left out: they change nothing).
#[derive(Clone, Debug, Serialize)]
pub struct BalanceSettings {
    /// Ruleset ids (or files) as given.
    pub rules: Vec<String>,
    /// Random games per row.
    pub random_games: u64,
    /// Skilled games per row.
    pub skilled_games: u64,
    /// Ply limit (`None`: no limit).
    pub ply_limit: Option<u32>,
    /// The study's seed.
    pub seed: u64,
    /// The skilled player as asked for (`level:3`, `mcts:heuristic:200`).
    pub skilled: String,
    /// What the skilled player is (`level 3 (mcts:heuristic:200)`).
    pub skilled_player: String,
    /// The skilled player's engine spec.
    pub skilled_spec: String,
    /// Temperature of the skilled player's move choice.
    pub skilled_temperature: f32,
    /// Probability of a uniformly random move each ply in skilled games.
    pub exploration: f32,
    /// Rule changes, sorted by knob.
    pub set: Vec<String>,
    /// Whether the rules as given are played too, for a before/after.
    pub compare: bool,
    /// The opening suites of the skilled rows, as given.
    pub openings: Vec<String>,
}

/// One ruleset of the study: as given, and as changed by `--set`.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The ruleset's id.
    pub id: String,
    /// The rules as given.
    pub baseline: Ruleset,
    /// The rules with the changes (`None` without `--set`).
    pub changed: Option<Ruleset>,
    /// The opening suite of its skilled rows (`None`: they start from the start position).
    pub openings: Option<tafl_engine::formats::OpeningSuite>,
}

/// One row of the study.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowSpec {
    /// Index into [`Plan::variants`].
    pub variant: usize,
    /// Whether the rules are the changed ones.
    pub changed: bool,
    /// How the games are played.
    pub play: Play,
}

/// A validated study: settings, rulesets and rows in table order.
#[derive(Clone, Debug)]
pub struct BalancePlan {
    /// The settings.
    pub settings: BalanceSettings,
    /// The rule changes.
    pub sets: Vec<KnobSetting>,
    /// The rulesets.
    pub variants: Vec<Variant>,
    /// Rows in table order: by ruleset, then play kind, then as given before changed.
    pub rows: Vec<RowSpec>,
    /// The skilled player.
    pub skilled: Resolved,
}

/// A finished row.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// Which row.
    pub spec: RowSpec,
    /// Its tallies.
    pub stats: GameTally,
}

impl BalancePlan {
    /// Checks every input before any game is played; errors name the flag.
    pub fn new(req: &BalanceRequest) -> Result<BalancePlan, String> {
        let ids: Vec<String> = req
            .rules
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        if ids.is_empty() {
            return Err("--rules: name at least one ruleset".into());
        }
        if req.random_games == 0 && req.skilled_games == 0 {
            return Err("--random-games and --skilled-games are both 0: nothing to play".into());
        }
        use crate::limits::{at_most, MAX_PLAYED_GAMES, MAX_RANDOM_GAMES};
        at_most("--random-games", req.random_games, MAX_RANDOM_GAMES)?;
        at_most("--skilled-games", req.skilled_games, MAX_PLAYED_GAMES)?;
        req.play.check(req.skilled_games > 0)?;
        let sets = parse_sets(&req.sets)?;
        if req.compare && sets.is_empty() {
            return Err("--compare needs at least one --set KNOB=VALUE to compare with".into());
        }
        let skilled = crate::players::resolve(&req.skilled).map_err(|e| format!("--skilled: {e}"))?;
        let mut variants: Vec<Variant> = Vec::new();
        for id in &ids {
            let baseline = Ruleset::load(id).map_err(|e| format!("--rules: {e}"))?;
            if variants.iter().any(|v| v.id == baseline.id()) {
                return Err(format!("--rules: `{}` is listed twice", baseline.id()));
            }
            let changed = if sets.is_empty() {
                None
            } else {
                let c = knobs::apply(&baseline, &sets)?;
                if c == baseline {
                    eprintln!(
                        "note: `{}` already has {}: the changed rules are the same",
                        baseline.id(),
                        knobs::label(&sets)
                    );
                }
                Some(c)
            };
            if req.skilled_games > 0 {
                // A spec the board cannot build (a model without network support) fails here.
                with_board!(&baseline, B, rules => crate::players::build::<B>(&skilled, 0, &rules).map(|_| ()))
                    .map_err(|e| format!("--skilled: {e}"))?;
            }
            variants.push(Variant {
                id: baseline.id().to_string(),
                baseline,
                changed,
                openings: None,
            });
        }
        for path in &req.openings {
            let suite =
                tafl_engine::formats::OpeningSuite::load(path).map_err(|e| format!("--openings: {e}"))?;
            let Some(v) = variants.iter_mut().find(|v| v.id == suite.rules) else {
                return Err(format!(
                    "--openings: `{}` is a suite for `{}`, which the study does not play",
                    path.display(),
                    suite.rules
                ));
            };
            if v.openings.is_some() {
                return Err(format!("--openings: two suites for `{}`", suite.rules));
            }
            // Every position must stand under the rules as given and as changed.
            for rs in std::iter::once(&v.baseline).chain(v.changed.as_ref()) {
                with_board!(rs, B, rules => suite.positions::<B>(&rules).map(|_| ()))
                    .map_err(|e| format!("--openings: `{}`: {e}", path.display()))?;
            }
            v.openings = Some(suite);
        }
        let mut plays = Vec::new();
        if req.random_games > 0 {
            plays.push(Play::Random);
        }
        if req.skilled_games > 0 {
            plays.push(Play::Skilled);
        }
        let mut rows = Vec::new();
        for (variant, v) in variants.iter().enumerate() {
            for &play in &plays {
                if v.changed.is_none() || req.compare {
                    rows.push(RowSpec {
                        variant,
                        changed: false,
                        play,
                    });
                }
                if v.changed.is_some() {
                    rows.push(RowSpec {
                        variant,
                        changed: true,
                        play,
                    });
                }
            }
        }
        let settings = BalanceSettings {
            rules: ids,
            random_games: req.random_games,
            skilled_games: req.skilled_games,
            ply_limit: req.play.limit(),
            seed: req.play.seed,
            skilled: req.skilled.trim().to_string(),
            skilled_player: skilled.label.clone(),
            skilled_spec: skilled.spec.to_string(),
            skilled_temperature: skilled.temperature,
            exploration: req.play.exploration,
            set: sets.iter().map(|s| s.to_string()).collect(),
            compare: req.compare,
            openings: req.openings.iter().map(|p| p.display().to_string()).collect(),
        };
        Ok(BalancePlan {
            settings,
            sets,
            variants,
            rows,
            skilled,
        })
    }

    /// The ruleset a row plays.
    pub fn ruleset(&self, row: &RowSpec) -> &Ruleset {
        let v = &self.variants[row.variant];
        match (&v.changed, row.changed) {
            (Some(c), true) => c,
            _ => &v.baseline,
        }
    }

    /// The row's name in tables: `hnefatafl` or `hnefatafl (changed)`.
    pub fn variant_label(&self, row: &RowSpec) -> String {
        let id = &self.variants[row.variant].id;
        if row.changed {
            format!("{id} (changed)")
        } else {
            id.clone()
        }
    }

    /// Games per row of a play kind.
    pub fn games(&self, play: Play) -> u64 {
        match play {
            Play::Random => self.settings.random_games,
            Play::Skilled => self.settings.skilled_games,
        }
    }

    /// The seed every game of a row derives from: (study seed, ruleset, changes, play kind).
    pub fn row_seed(&self, row: &RowSpec) -> u64 {
        let changes = if row.changed {
            knobs::label(&self.sets)
        } else {
            String::new()
        };
        run::row_seed(
            self.settings.seed,
            &self.variants[row.variant].id,
            &changes,
            row.play,
        )
    }

    /// The command line that reproduces the study.
    pub fn command_line(&self) -> String {
        let s = &self.settings;
        let mut cmd = format!(
            "tafl balance --rules {} --random-games {} --skilled-games {} --ply-limit {} --seed {} --skilled {} --exploration {}",
            s.rules.join(","),
            s.random_games,
            s.skilled_games,
            s.ply_limit.unwrap_or(0),
            s.seed,
            s.skilled,
            s.exploration
        );
        for k in &s.set {
            cmd.push_str(&format!(" --set {k}"));
        }
        for o in &s.openings {
            cmd.push_str(&format!(" --openings {o}"));
        }
        if s.compare {
            cmd.push_str(" --compare");
        }
        cmd
    }
}

/// Runs the study: plays the rows (random rows first, they are quick), rewrites the outputs
/// after each, and prints the table. Raising `stop` (as [`stop_on_ctrl_c`]'s handler does)
/// ends it after the games in flight, keeping the rows already finished.
pub fn run(req: &BalanceRequest, stop: &AtomicBool) -> Result<(), String> {
    let pool = req.play.pool()?;
    // Planned inside the pool: a model player's network, loaded while checking the plan, is
    // sized for the pool's threads, so its batches fill instead of waiting out a timeout.
    let plan = pool.install(|| BalancePlan::new(req))?;
    std::fs::create_dir_all(&req.out)
        .map_err(|e| format!("--out `{}`: cannot create the folder: {e}", req.out.display()))?;
    let mut done: Vec<Option<GameTally>> = vec![None; plan.rows.len()];
    let order: Vec<usize> = (0..plan.rows.len())
        .filter(|&i| plan.rows[i].play == Play::Random)
        .chain((0..plan.rows.len()).filter(|&i| plan.rows[i].play == Play::Skilled))
        .collect();
    for i in order {
        let Some(stats) = pool.install(|| run::play_row(&plan, &plan.rows[i], stop))? else {
            break;
        };
        done[i] = Some(stats);
        outputs::write_all(&req.out, &plan, &finished(&plan, &done))?;
    }
    let rows = finished(&plan, &done);
    outputs::write_all(&req.out, &plan, &rows)?;
    print!("{}", table::markdown(&plan, &rows));
    if rows.len() < plan.rows.len() {
        return Err(format!(
            "interrupted: {} of {} rows finished; their outputs are in `{}`",
            rows.len(),
            plan.rows.len(),
            req.out.display()
        ));
    }
    eprintln!(
        "wrote balance.md, balance.csv, balance.json and balance.png to `{}`",
        req.out.display()
    );
    Ok(())
}

/// The finished rows in table order.
fn finished(plan: &BalancePlan, done: &[Option<GameTally>]) -> Vec<Row> {
    plan.rows
        .iter()
        .zip(done)
        .filter_map(|(spec, s)| s.map(|stats| Row { spec: *spec, stats }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_study_whose_stop_flag_is_raised_keeps_only_its_finished_rows() {
        let out = std::env::temp_dir().join(format!("tafl-lab-stop-{}", std::process::id()));
        let req = BalanceRequest {
            rules: "brandubh,tablut".into(),
            random_games: 20,
            skilled_games: 0,
            out: out.clone(),
            skilled: "level:2".into(),
            sets: Vec::new(),
            compare: false,
            openings: Vec::new(),
            play: crate::study::StudyGames {
                seed: 1,
                ply_limit: 400,
                exploration: 0.1,
                threads: Some(1),
            },
        };
        // The caller's flag, not a process-wide handler: raised before the first row.
        let stop = AtomicBool::new(true);
        let e = run(&req, &stop).unwrap_err();
        assert!(e.contains("interrupted: 0 of 2 rows"), "{e}");
        run(&req, &AtomicBool::new(false)).unwrap();
        assert!(out.join("balance.json").exists());
        let _ = std::fs::remove_dir_all(&out);
    }
}
