//! `tafl balance --strength-sweep`: balance against strength. One fixed-size self-play study
//! per checkpoint of a training run (or per configured level), each point with its defenders'
//! share, its 95% interval and its no-result share, so that a designer sees whether a ruleset
//! stays balanced as the players improve.
//!
//! A point's games are played exactly like the skilled rows of `tafl balance`: the point's
//! player on both sides, each side seeded from the game's seed, each playing a uniformly random
//! move with the exploration probability. Every game is seeded from (seed, ruleset, point), the
//! point being `iter-NNNN` or `level-N` rather than a path, so the outputs are byte-identical
//! whatever the thread count, and a point's games stay the same when `--every` thins the others.

use super::run::{row_seed, skilled_games, tally};
use super::{sweep_outputs, table, Play};
use crate::players::Resolved;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use tafl_engine::{
    board::GameTally,
    search::{EvaluatorSpec, PlayerSpec},
    with_board, Ruleset,
};
use tafl_models::run_dir::STATE_FILE;
use tafl_models::RunDir;
use tafl_trainer::run::{OriginElo, RunState};

/// Games per point unless `--games` says otherwise: enough for a ±7 percentage point interval
/// at an even share, cheap enough to sweep a few dozen checkpoints of a small run.
pub const DEFAULT_GAMES: u64 = 200;

/// The `--strength-sweep` value that sweeps the levels of `configs/levels.toml`.
pub const LEVELS: &str = "levels";

/// What `--x` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum XChoice {
    /// Elo when every point has one (and they differ), else the iteration (or level).
    Auto,
    /// Elo against checkpoint 0, as the run recorded it.
    Elo,
    /// The training iteration (the level when sweeping levels).
    Iteration,
    /// Optimizer steps the checkpoint had taken.
    Step,
}

/// What the x axis of the picture shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum XAxis {
    /// The training iteration of the checkpoint.
    Iteration,
    /// Optimizer steps of the checkpoint.
    Step,
    /// Elo against checkpoint 0.
    Elo,
    /// The level number.
    Level,
}

impl XAxis {
    /// The axis title.
    pub fn title(self) -> &'static str {
        match self {
            XAxis::Iteration => "training iteration",
            XAxis::Step => "training step (optimizer steps)",
            XAxis::Elo => "Elo vs checkpoint 0 (as recorded by the run)",
            XAxis::Level => "level (configs/levels.toml)",
        }
    }
}

/// What the points are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The checkpoints of a training run.
    Checkpoints,
    /// The built-in levels.
    Levels,
}

/// What the command line asks for.
#[derive(Clone, Debug)]
pub struct SweepRequest {
    /// A training run folder, or `levels`.
    pub source: String,
    /// `--rules`: must be the run's ruleset if given; needed (one ruleset) for levels.
    pub rules: Option<String>,
    /// Games per point.
    pub games: u64,
    /// Simulations per move of the checkpoints (default: the run's arena simulations).
    pub simulations: Option<u32>,
    /// Keep every K-th point (and the last).
    pub every: u32,
    /// Output folder.
    pub out: PathBuf,
    /// The x axis asked for.
    pub x: XChoice,
    /// How the games are played: seed, ply limit, exploration, threads.
    pub play: crate::study::StudyGames,
}

/// Every setting that decides the figures, as written into `balance-vs-strength.json` (the
/// thread count and the output folder are left out: they change nothing).
#[derive(Clone, Debug, Serialize)]
pub struct SweepSettings {
    /// `--strength-sweep` as given: the run folder or `levels`.
    pub strength_sweep: String,
    /// What the points are.
    pub source: Source,
    /// The ruleset's id.
    pub rules: String,
    /// Games per point.
    pub games: u64,
    /// Simulations per move of the checkpoints (`None` for levels: each level has its own).
    pub simulations: Option<u32>,
    /// Every K-th checkpoint or level is played, and the last.
    pub every: u32,
    /// Ply limit (`None`: no limit).
    pub ply_limit: Option<u32>,
    /// The sweep's seed.
    pub seed: u64,
    /// Probability of a uniformly random move each ply.
    pub exploration: f32,
    /// `--x` as given.
    pub x: XChoice,
    /// The x axis it resolved to.
    pub x_axis: XAxis,
}

/// One point of the sweep: a checkpoint or a level.
#[derive(Clone, Debug)]
pub struct Point {
    /// `iter-0003` or `level-2`: the name in tables, and part of the games' seeds.
    pub key: String,
    /// The checkpoint's iteration.
    pub iteration: Option<u32>,
    /// The level.
    pub level: Option<u32>,
    /// Optimizer steps of the checkpoint (from its manifest).
    pub training_step: Option<u64>,
    /// Elo against checkpoint 0, if the run recorded one.
    pub elo: Option<OriginElo>,
    /// The player of both sides.
    pub player: Resolved,
    /// The network the player loads, released once the point is played.
    pub model: Option<String>,
}

impl Point {
    /// The point's position on an axis.
    pub fn x(&self, axis: XAxis) -> Option<f64> {
        match axis {
            XAxis::Iteration => self.iteration.map(f64::from),
            XAxis::Step => self.training_step.map(|s| s as f64),
            XAxis::Elo => self.elo.map(|e| e.elo),
            XAxis::Level => self.level.map(f64::from),
        }
    }
}

/// A validated sweep: settings, rules and points in order of strength.
#[derive(Clone, Debug)]
pub struct SweepPlan {
    /// The settings.
    pub settings: SweepSettings,
    /// The rules every point plays.
    pub ruleset: Ruleset,
    /// The points, weakest (earliest) first.
    pub points: Vec<Point>,
}

impl SweepPlan {
    /// Checks every input before any game is played; errors name the flag and the path.
    pub fn new(req: &SweepRequest) -> Result<SweepPlan, String> {
        if req.games == 0 {
            return Err("--games must be at least 1".into());
        }
        crate::limits::at_most("--games", req.games, crate::limits::MAX_PLAYED_GAMES)?;
        if req.every == 0 {
            return Err("--every must be at least 1".into());
        }
        if req.simulations == Some(0) {
            return Err("--simulations must be at least 1".into());
        }
        req.play.check(false)?;
        let source = req.source.trim();
        let (kind, ruleset, simulations, points) = if source == LEVELS {
            let (ruleset, points) = level_points(req)?;
            (Source::Levels, ruleset, None, points)
        } else {
            let (ruleset, sims, points) = checkpoint_points(Path::new(source), req)?;
            (Source::Checkpoints, ruleset, Some(sims), points)
        };
        let points = thin(points, req.every);
        let x_axis = x_axis(req.x, kind, &points)?;
        for p in &points {
            // A player the board cannot build (a model for other rules) fails here, not midway.
            let built = with_board!(&ruleset, B, rules => crate::players::build::<B>(&p.player, 0, &rules).map(|_| ()));
            // Loaded again when its point is played, so that one network is held at a time.
            if let Some(m) = &p.model {
                crate::players::release_model(m);
            }
            built.map_err(|e| format!("--strength-sweep: {}: {e}", p.key))?;
        }
        let settings = SweepSettings {
            strength_sweep: source.to_string(),
            source: kind,
            rules: ruleset.id().to_string(),
            games: req.games,
            simulations,
            every: req.every,
            ply_limit: req.play.limit(),
            seed: req.play.seed,
            exploration: req.play.exploration,
            x: req.x,
            x_axis,
        };
        Ok(SweepPlan {
            settings,
            ruleset,
            points,
        })
    }

    /// The seed every game of a point derives from: (sweep seed, ruleset, point).
    pub fn point_seed(&self, point: &Point) -> u64 {
        // The rows' hash with a changes text no `--set` label can take, so no point shares
        // its games with a row of a plain study.
        row_seed(
            self.settings.seed,
            self.ruleset.id(),
            &format!("strength sweep: {}", point.key),
            Play::Skilled,
        )
    }

    /// The command line that reproduces the sweep.
    pub fn command_line(&self) -> String {
        let s = &self.settings;
        let mut cmd = format!(
            "tafl balance --strength-sweep {} --rules {} --games {}",
            s.strength_sweep, s.rules, s.games
        );
        if let Some(sims) = s.simulations {
            cmd.push_str(&format!(" --simulations {sims}"));
        }
        let x = match s.x {
            XChoice::Auto => "auto",
            XChoice::Elo => "elo",
            XChoice::Iteration => "iteration",
            XChoice::Step => "step",
        };
        cmd.push_str(&format!(
            " --every {} --ply-limit {} --seed {} --exploration {} --x {x}",
            s.every,
            s.ply_limit.unwrap_or(0),
            s.seed,
            s.exploration
        ));
        cmd
    }
}

/// The levels of `configs/levels.toml` under the one ruleset of `--rules`.
fn level_points(req: &SweepRequest) -> Result<(Ruleset, Vec<Point>), String> {
    let Some(rules) = &req.rules else {
        return Err(
            "--strength-sweep levels: name the ruleset to play with --rules (one ruleset, for example --rules brandubh)"
                .into(),
        );
    };
    let ids: Vec<&str> = rules
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let [id] = ids.as_slice() else {
        return Err(format!(
            "--rules `{rules}`: --strength-sweep plays one ruleset; name exactly one"
        ));
    };
    if req.simulations.is_some() {
        return Err(
            "--simulations: each level has its own simulations (configs/levels.toml); leave it out with --strength-sweep levels"
                .into(),
        );
    }
    let ruleset = Ruleset::load(id).map_err(|e| format!("--rules: {e}"))?;
    let points = crate::players::levels()?
        .0
        .iter()
        .map(|l| {
            let player = crate::players::level(l.level)?.for_rules(&ruleset);
            Ok(Point {
                key: format!("level-{}", l.level),
                iteration: None,
                level: Some(l.level),
                training_step: None,
                elo: None,
                model: model_path(&player.spec),
                player,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((ruleset, points))
}

/// The network path of a model player.
fn model_path(spec: &PlayerSpec) -> Option<String> {
    match spec {
        PlayerSpec::Mcts {
            evaluator: EvaluatorSpec::Model(p),
            ..
        } => Some(p.clone()),
        _ => None,
    }
}

/// The checkpoints of the run in `dir`, in order of iteration, with the run's rules and the
/// simulations they play with.
fn checkpoint_points(dir: &Path, req: &SweepRequest) -> Result<(Ruleset, u32, Vec<Point>), String> {
    let shown = dir.display();
    if !dir.is_dir() {
        return Err(format!(
            "--strength-sweep `{shown}`: no such folder; expected a training run folder (with {STATE_FILE}) or `{LEVELS}`"
        ));
    }
    let run = RunDir::new(dir);
    if !run.is_run() {
        return Err(format!(
            "--strength-sweep `{shown}`: not a training run folder (it has no {STATE_FILE}); expected a folder made by `tafl train`, or `{LEVELS}`"
        ));
    }
    let state = RunState::load(dir).map_err(|e| format!("--strength-sweep `{shown}`: {e}"))?;
    let config_file = run.config_file();
    let text = tafl_engine::input::read_text(&config_file)
        .map_err(|e| format!("--strength-sweep `{shown}`: {}: {e}", config_file.display()))?;
    let config = tafl_trainer::TrainConfig::parse(&text, &config_file.display().to_string())
        .map_err(|e| format!("--strength-sweep `{shown}`: {e}"))?;
    let ruleset = config
        .ruleset()
        .map_err(|e| format!("--strength-sweep `{shown}`: {}: {e}", config_file.display()))?;
    if let Some(rules) = &req.rules {
        let asked = Ruleset::load(rules.trim()).map_err(|e| format!("--rules: {e}"))?;
        if asked != ruleset {
            return Err(format!(
                "--rules `{}`: the run `{shown}` was trained under `{}`, and its checkpoints play only those rules; leave --rules out",
                rules.trim(),
                ruleset.id()
            ));
        }
    }
    let sims = req.simulations.unwrap_or(config.arena.simulations);
    let iterations = checkpoint_iterations(&run)?;
    let elos = state.elo_vs_origin();
    let points = iterations
        .into_iter()
        .map(|it| {
            let ckpt = run.checkpoint(it);
            let manifest =
                tafl_nn::read_manifest(&ckpt).map_err(|e| format!("--strength-sweep `{shown}`: {e}"))?;
            manifest.check(&ruleset).map_err(|e| {
                format!(
                    "--strength-sweep `{shown}`: checkpoint `{}` does not fit the run's rules: {e}",
                    ckpt.display()
                )
            })?;
            let path = ckpt.to_str().ok_or_else(|| {
                format!(
                    "--strength-sweep: the path `{}` is not valid UTF-8, which a player spec needs",
                    ckpt.display()
                )
            })?;
            let spec = PlayerSpec::parse(&format!("mcts:model={path}:{sims}"))?;
            Ok(Point {
                key: format!("iter-{it:04}"),
                iteration: Some(it),
                level: None,
                training_step: Some(manifest.training_step),
                elo: elos.get(&it).copied(),
                model: Some(path.to_string()),
                player: Resolved::plain(spec),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((ruleset, sims, points))
}

/// The iterations of `RUN/checkpoints/iter-NNNN/` that hold a manifest, in order.
fn checkpoint_iterations(run: &RunDir) -> Result<Vec<u32>, String> {
    let folder = run.checkpoints_dir();
    // A checkpoint being written has no manifest yet: it is not a point.
    let its = run.checkpoint_iterations().map_err(|e| {
        format!(
            "--strength-sweep `{}`: {}: {e}",
            run.path().display(),
            folder.display()
        )
    })?;
    if its.is_empty() {
        return Err(format!(
            "--strength-sweep `{}`: no checkpoints in {}",
            run.path().display(),
            folder.display()
        ));
    }
    Ok(its)
}

/// Every K-th point from the first, and the last one (the strongest player is the point of
/// the sweep).
fn thin(points: Vec<Point>, every: u32) -> Vec<Point> {
    let last = points.len().saturating_sub(1);
    points
        .into_iter()
        .enumerate()
        .filter(|(i, p)| {
            let n = p.iteration.or(p.level.map(|l| l - 1)).unwrap_or(*i as u32);
            n % every == 0 || *i == last
        })
        .map(|(_, p)| p)
        .collect()
}

/// The axis `--x` resolves to for these points.
fn x_axis(choice: XChoice, source: Source, points: &[Point]) -> Result<XAxis, String> {
    if source == Source::Levels {
        return match choice {
            XChoice::Auto | XChoice::Iteration => Ok(XAxis::Level),
            XChoice::Elo | XChoice::Step => Err(format!(
                "--x {}: levels have no {}; use --x iteration (the level) or leave --x out",
                if choice == XChoice::Elo { "elo" } else { "step" },
                if choice == XChoice::Elo {
                    "recorded Elo"
                } else {
                    "training step"
                }
            )),
        };
    }
    let missing: Vec<&str> = points
        .iter()
        .filter(|p| p.elo.is_none())
        .map(|p| p.key.as_str())
        .collect();
    match choice {
        XChoice::Iteration => Ok(XAxis::Iteration),
        XChoice::Step => Ok(XAxis::Step),
        XChoice::Elo if missing.is_empty() => Ok(XAxis::Elo),
        XChoice::Elo => Err(format!(
            "--x elo: the run recorded no Elo against checkpoint 0 for {}; use --x iteration",
            missing.join(", ")
        )),
        XChoice::Auto => {
            // Elo only when it spreads the points: equal Elo would draw them all at one x.
            let first = points.first().and_then(|p| p.x(XAxis::Elo));
            let spread = points.iter().any(|p| p.x(XAxis::Elo) != first);
            Ok(if missing.is_empty() && spread {
                XAxis::Elo
            } else {
                XAxis::Iteration
            })
        }
    }
}

/// Runs the sweep: plays the points in order, rewrites the outputs after each, prints the table.
/// Raising `stop` ends it after the games in flight, keeping the points already finished.
pub fn run(req: &SweepRequest, stop: &AtomicBool) -> Result<(), String> {
    let pool = req.play.pool()?;
    // Planned inside the pool: networks loaded to check the plan are sized for its threads.
    let plan = pool.install(|| SweepPlan::new(req))?;
    std::fs::create_dir_all(&req.out)
        .map_err(|e| format!("--out `{}`: cannot create the folder: {e}", req.out.display()))?;
    let mut done: Vec<GameTally> = Vec::new();
    for point in &plan.points {
        let played = pool.install(|| play_point(&plan, point, stop));
        if let Some(m) = &point.model {
            crate::players::release_model(m);
        }
        let Some(stats) = played? else { break };
        done.push(stats);
        sweep_outputs::write_all(&req.out, &plan, &done)?;
    }
    sweep_outputs::write_all(&req.out, &plan, &done)?;
    print!("{}", sweep_outputs::markdown(&plan, &done));
    if done.len() < plan.points.len() {
        return Err(format!(
            "interrupted: {} of {} points finished; their outputs are in `{}`",
            done.len(),
            plan.points.len(),
            req.out.display()
        ));
    }
    eprintln!(
        "wrote balance-vs-strength.md, .csv, .json and .png to `{}`",
        req.out.display()
    );
    Ok(())
}

/// Plays one point with a progress bar; `None` when `stop` was raised before it ended.
fn play_point(plan: &SweepPlan, point: &Point, stop: &AtomicBool) -> Result<Option<GameTally>, String> {
    let s = &plan.settings;
    let bar = crate::work::progress_bar(s.games, &point.key);
    let seed = plan.point_seed(point);
    let t0 = Instant::now();
    let stats = with_board!(&plan.ruleset, B, rules => skilled_games::<B>(&rules, &point.player, s.exploration, 0..s.games, seed, s.ply_limit, &[], &bar, stop))?
        .map(|g| tally(&g));
    bar.finish_and_clear();
    if let Some(st) = &stats {
        let sh = table::RowShares::of(st);
        eprintln!(
            "{}: {} games, defenders win {}, no result {}, in {:.2} s",
            point.key,
            st.games,
            table::share_cell(&sh.defenders),
            table::pct(sh.no_result.share),
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_trainer::run::{EloSource, IterationSummary, Phase, ORIGIN_ANCHOR};

    fn summary(it: u32, arena: Option<f64>, promoted: bool, ladder0: Option<f64>) -> IterationSummary {
        IterationSummary {
            iteration: it,
            arena_elo: arena.map(|e| tafl_engine::stats::Elo {
                elo: e,
                low: e - 50.0,
                high: e + 50.0,
            }),
            promoted,
            ladder: ladder0
                .map(|e| vec![(ORIGIN_ANCHOR.to_string(), e, e - 50.0, e + 50.0).into()])
                .unwrap_or_default(),
            ..Default::default()
        }
    }

    fn state(history: Vec<IterationSummary>) -> RunState {
        RunState {
            iteration: history.len() as u32 + 1,
            phase: Phase::SelfPlay,
            best: 0,
            latest: 0,
            history,
            current: IterationSummary::default(),
            pretrain: None,
        }
    }

    #[test]
    fn elo_chains_along_the_best_networks_and_prefers_the_ladder() {
        let s = state(vec![
            summary(1, Some(100.0), true, None),
            // Not promoted: measured against iteration 1, the best then.
            summary(2, Some(-20.0), false, None),
            // Measured against iteration 1 again; promoted, and laddered against checkpoint 0.
            summary(3, Some(50.0), true, Some(130.0)),
            // The ladder of a best network that is not this checkpoint says nothing about it.
            summary(4, None, false, Some(140.0)),
            summary(5, Some(f64::INFINITY), true, None),
        ]);
        let e = s.elo_vs_origin();
        let get = |it| e.get(&it).map(|e| (e.elo, e.source));
        assert_eq!(get(0), Some((0.0, EloSource::Origin)));
        assert_eq!(get(1), Some((100.0, EloSource::Arena)));
        assert_eq!(get(2), Some((80.0, EloSource::Arena)));
        assert_eq!(get(3), Some((130.0, EloSource::Ladder)));
        assert_eq!(get(4), None);
        assert_eq!(get(5), None, "an infinite Elo is no measurement");
        let even = state(vec![summary(1, Some(-0.0), true, None)]).elo_vs_origin();
        assert!(even[&1].elo.is_sign_positive());
    }

    fn point(it: u32, elo: Option<f64>) -> Point {
        Point {
            key: format!("iter-{it:04}"),
            iteration: Some(it),
            level: None,
            training_step: Some(3 * it as u64),
            elo: elo.map(|elo| OriginElo {
                elo,
                source: EloSource::Arena,
            }),
            player: Resolved::plain(PlayerSpec::Random),
            model: None,
        }
    }

    #[test]
    fn thinning_keeps_every_kth_and_the_last() {
        let pts: Vec<Point> = (0..8).map(|i| point(i, None)).collect();
        let kept: Vec<u32> = thin(pts.clone(), 3).iter().filter_map(|p| p.iteration).collect();
        assert_eq!(kept, [0, 3, 6, 7]);
        assert_eq!(thin(pts, 1).len(), 8);
    }

    #[test]
    fn the_axis_is_elo_only_when_every_point_has_a_distinct_one() {
        let all = [point(0, Some(0.0)), point(1, Some(40.0))];
        let some = [point(0, Some(0.0)), point(1, None)];
        let flat = [point(0, Some(0.0)), point(1, Some(0.0))];
        let cp = Source::Checkpoints;
        assert_eq!(x_axis(XChoice::Auto, cp, &all), Ok(XAxis::Elo));
        assert_eq!(x_axis(XChoice::Auto, cp, &some), Ok(XAxis::Iteration));
        assert_eq!(x_axis(XChoice::Auto, cp, &flat), Ok(XAxis::Iteration));
        assert_eq!(x_axis(XChoice::Elo, cp, &flat), Ok(XAxis::Elo));
        assert_eq!(x_axis(XChoice::Step, cp, &some), Ok(XAxis::Step));
        let e = x_axis(XChoice::Elo, cp, &some).unwrap_err();
        assert!(e.contains("iter-0001") && e.contains("--x iteration"), "{e}");
        assert_eq!(x_axis(XChoice::Auto, Source::Levels, &[]), Ok(XAxis::Level));
        assert!(x_axis(XChoice::Elo, Source::Levels, &[]).is_err());
    }
}
