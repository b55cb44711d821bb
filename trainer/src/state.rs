//! A run's saved state, `RUN/state.json`: the iteration and phase it is in, its best and latest
//! checkpoints, and each finished iteration's figures (self-play, losses, arena, ladder). The
//! one file a run restarts from, with the shapes older runs wrote still read; it imports
//! nothing of the loop that writes it.

use crate::config::TeacherEvaluator;
use crate::selfplay::SelfPlayStats;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use tafl_engine::stats::Elo;
use tafl_models::run_dir::RunDir;
use tafl_nn::{write_atomic, EloInfo, EloResult};

/// The part of an iteration a run is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Learning recorded games before the first iteration (`[pretrain]`).
    Pretrain,
    /// Playing games with the best network.
    SelfPlay,
    /// Training the latest network on the replay window.
    Train,
    /// Candidate against best (and the ladder).
    Arena,
}

impl Phase {
    /// The name in messages, as in the state file.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Pretrain => "pretrain",
            Phase::SelfPlay => "self_play",
            Phase::Train => "train",
            Phase::Arena => "arena",
        }
    }
}

/// One iteration's figures, kept in the state and printed as its summary line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IterationSummary {
    /// The iteration.
    pub iteration: u32,
    /// Self-play tallies.
    pub selfplay: SelfPlayStats,
    /// Self-play games per hour.
    pub games_per_hour: f64,
    /// Mean training losses.
    pub loss: [f32; 4],
    /// Training samples per second.
    pub samples_per_second: f64,
    /// Share of positions whose most likely predicted result was the actual one.
    pub value_accuracy: f64,
    /// Mean entropy of the network's policy on recent positions.
    pub net_policy_entropy: f64,
    /// Candidate against best: Elo and its interval (`[elo, low, high]` in the file).
    #[serde(with = "elo_as_tuple")]
    pub arena_elo: Option<Elo>,
    /// Whether the candidate became the best.
    pub promoted: bool,
    /// The classic evaluator self-play searched with (`teacher` of the config), if not the
    /// network.
    #[serde(default)]
    pub teacher: Option<TeacherEvaluator>,
    /// Share of self-play's network evaluations answered by the evaluation cache (none for
    /// teacher iterations).
    #[serde(default)]
    pub eval_cache_hit_rate: Option<f64>,
    /// Ladder results for the best network.
    pub ladder: Vec<LadderResult>,
}

/// One ladder match of the best network: the anchor it played, its Elo against it and, for
/// ladders played since runs kept them, the games per side. Written in `state.json` as
/// `[anchor, elo, low, high]` (the shape runs have always written, still read) or, with the
/// games, as `{"anchor", "elo", "low", "high", "games", "as_attackers", "as_defenders"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "LadderResultFile", into = "LadderResultFile")]
pub struct LadderResult {
    /// The series: the anchor (a player spec or `checkpoint:N`), with how the games were
    /// played where that is not the ladder's main rule (`, exploration 0.1`, ` at 0.1 s`).
    pub anchor: String,
    /// The best network's Elo against it.
    pub elo: Elo,
    /// The games, per side of the best network (none in older runs).
    pub sides: Option<LadderSides>,
}

/// A ladder match's games from the best network's side: (wins, draws, losses) as attackers
/// and as defenders. Games ended by the ply limit count as draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LadderSides {
    /// As attackers.
    pub as_attackers: (u32, u32, u32),
    /// As defenders.
    pub as_defenders: (u32, u32, u32),
}

impl LadderSides {
    /// Games played.
    pub fn games(&self) -> u32 {
        let (a, b) = (self.as_attackers, self.as_defenders);
        a.0 + a.1 + a.2 + b.0 + b.1 + b.2
    }
    /// Mean score of the best network (win 1, draw 0.5).
    pub fn score(&self) -> f64 {
        let (a, b) = (self.as_attackers, self.as_defenders);
        let points = (a.0 + b.0) as f64 + 0.5 * (a.1 + b.1) as f64;
        points / self.games().max(1) as f64
    }
    /// `as attackers 12-3-5, as defenders 18-0-2 (W-D-L)`.
    pub fn text(&self) -> String {
        let (a, d) = (self.as_attackers, self.as_defenders);
        format!(
            "as attackers {}-{}-{}, as defenders {}-{}-{} (W-D-L)",
            a.0, a.1, a.2, d.0, d.1, d.2
        )
    }
}

impl From<(String, f64, f64, f64)> for LadderResult {
    /// A result without its games: `(anchor, elo, low, high)`.
    fn from((anchor, elo, low, high): (String, f64, f64, f64)) -> LadderResult {
        LadderResult {
            anchor,
            elo: Elo { elo, low, high },
            sides: None,
        }
    }
}

/// The two shapes of a ladder result in `state.json`.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum LadderResultFile {
    /// `[anchor, elo, low, high]`: runs before the games were kept.
    Elo(String, f64, f64, f64),
    /// With the games per side.
    Games {
        anchor: String,
        elo: f64,
        low: f64,
        high: f64,
        as_attackers: (u32, u32, u32),
        as_defenders: (u32, u32, u32),
    },
}

impl From<LadderResultFile> for LadderResult {
    fn from(f: LadderResultFile) -> LadderResult {
        match f {
            LadderResultFile::Elo(anchor, elo, low, high) => (anchor, elo, low, high).into(),
            LadderResultFile::Games {
                anchor,
                elo,
                low,
                high,
                as_attackers,
                as_defenders,
            } => LadderResult {
                anchor,
                elo: Elo { elo, low, high },
                sides: Some(LadderSides {
                    as_attackers,
                    as_defenders,
                }),
            },
        }
    }
}

impl From<LadderResult> for LadderResultFile {
    fn from(r: LadderResult) -> LadderResultFile {
        let Elo { elo, low, high } = r.elo;
        match r.sides {
            None => LadderResultFile::Elo(r.anchor, elo, low, high),
            Some(s) => LadderResultFile::Games {
                anchor: r.anchor,
                elo,
                low,
                high,
                as_attackers: s.as_attackers,
                as_defenders: s.as_defenders,
            },
        }
    }
}

/// The arena's Elo in `state.json`: `[elo, low, high]` or `null`, the shape runs have always
/// written, so that old runs resume.
mod elo_as_tuple {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use tafl_engine::stats::Elo;

    pub fn serialize<S: Serializer>(e: &Option<Elo>, s: S) -> Result<S::Ok, S::Error> {
        e.map(|e| (e.elo, e.low, e.high)).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Elo>, D::Error> {
        Ok(Option::<(f64, f64, f64)>::deserialize(d)?.map(|(elo, low, high)| Elo { elo, low, high }))
    }
}

/// A finished iteration with the best network before its arena and after it (see
/// [`RunState::promotions`]).
#[derive(Clone, Copy, Debug)]
pub struct Promotions<'a> {
    /// The iteration's summary.
    pub summary: &'a IterationSummary,
    /// The best network before its arena: its arena opponent.
    pub best_before: u32,
    /// The best network after its arena: the one its ladder measured.
    pub best_after: u32,
}

/// The ladder anchor that measures a network against the run's first checkpoint.
pub const ORIGIN_ANCHOR: &str = "checkpoint:0";

/// Where a checkpoint's Elo against checkpoint 0 comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EloSource {
    /// Checkpoint 0 itself: 0 by definition.
    Origin,
    /// The run's ladder game of this checkpoint, as the best network, against checkpoint 0.
    Ladder,
    /// The arena result of this checkpoint against the best network of its iteration, added
    /// to that network's Elo.
    Arena,
}

impl EloSource {
    /// The name in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            EloSource::Origin => "origin",
            EloSource::Ladder => "ladder",
            EloSource::Arena => "arena",
        }
    }
}

/// A checkpoint's Elo against checkpoint 0, as the run recorded it (see
/// [`RunState::elo_vs_origin`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OriginElo {
    /// Elo difference to checkpoint 0.
    pub elo: f64,
    /// How the run measured it.
    pub source: EloSource,
}

/// What `state.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// The iteration being worked on (1-based); past the config's count when the run is done.
    pub iteration: u32,
    /// Its phase.
    pub phase: Phase,
    /// Iteration whose checkpoint plays self-play (0 = the initial network).
    pub best: u32,
    /// The most recently trained checkpoint.
    pub latest: u32,
    /// Summaries of finished iterations.
    pub history: Vec<IterationSummary>,
    /// The iteration in progress, filled phase by phase.
    pub current: IterationSummary,
    /// What bootstrapping from recorded games did (`[pretrain]`), once done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pretrain: Option<PretrainSummary>,
}

/// What `[pretrain]` did: the games learned and the validation games' agreement before and
/// after, beside the hand-written evaluation's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PretrainSummary {
    /// The records read.
    pub records: String,
    /// Training games learned.
    pub train_games: usize,
    /// Their positions (samples before symmetries).
    pub train_samples: usize,
    /// Validation games scored.
    pub validation_games: usize,
    /// Optimizer steps.
    pub steps: u64,
    /// Seconds spent learning.
    pub seconds: f64,
    /// The initial network's prior and value on the validation games.
    pub before: crate::records::AgreementFigures,
    /// The pretrained network's.
    pub after: crate::records::AgreementFigures,
    /// The hand-written evaluation's (the baseline).
    pub heuristic: crate::records::AgreementFigures,
}

/// The Elo a training run recorded for the checkpoint folder `dir`: `Ok(None)` unless `dir`
/// is `RUN/checkpoints/iter-NNNN` of a run folder with a state file.
pub fn checkpoint_elo(dir: &Path) -> Result<Option<EloInfo>, String> {
    let Some((run, iteration)) = RunDir::of_checkpoint(dir) else {
        return Ok(None);
    };
    if !run.is_run() {
        return Ok(None);
    }
    let state = RunState::load(run.path())?;
    Ok(Some(state.elo_of(iteration)))
}

impl RunState {
    /// Reads `RUN/state.json`.
    pub fn load(dir: &Path) -> Result<RunState, String> {
        let p = RunDir::new(dir).state_file();
        let text = tafl_engine::input::read_text(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a run state: {e}", p.display()))
    }
    /// What this run measured of its network of `iteration`: the arena match in which it was
    /// the candidate, and the ladder matches played while it was the best network.
    pub fn elo_of(&self, iteration: u32) -> EloInfo {
        let result = |at: u32, opponent: &str, measured: Elo| EloResult {
            iteration: at,
            opponent: opponent.to_string(),
            measured,
        };
        let mut arena = None;
        let mut ladder = Vec::new();
        for Promotions {
            summary: s,
            best_before,
            best_after,
        } in self.promotions()
        {
            if s.iteration == iteration {
                arena = s
                    .arena_elo
                    .map(|e| result(s.iteration, &format!("iter-{best_before}"), e));
            }
            if best_after == iteration {
                ladder.extend(s.ladder.iter().map(|r| result(s.iteration, &r.anchor, r.elo)));
            }
        }
        EloInfo {
            iteration,
            best_in_run: self.best == iteration,
            arena,
            ladder,
        }
    }

    /// The finished iterations with the best network before and after each: the run's
    /// promotions replayed in order, the one place that knows who played whom. The arena
    /// opponent of an iteration is the best network before it; its ladder measures the best
    /// network after its arena.
    pub fn promotions(&self) -> impl Iterator<Item = Promotions<'_>> {
        let mut best = 0;
        self.history.iter().map(move |summary| {
            let best_before = best;
            if summary.promoted {
                best = summary.iteration;
            }
            Promotions {
                summary,
                best_before,
                best_after: best,
            }
        })
    }

    /// The Elo against checkpoint 0 of each checkpoint the run measured, by iteration.
    ///
    /// The run measures each candidate against the best network of its iteration (arena) and,
    /// on ladder iterations, the best network against anchors, possibly `checkpoint:0`. A
    /// direct ladder measurement of the checkpoint against checkpoint 0 is used when there is
    /// one; otherwise the arena result is added to the Elo of the network it was measured
    /// against, so the Elo chains along the run's best networks. Checkpoints with neither have
    /// none.
    pub fn elo_vs_origin(&self) -> BTreeMap<u32, OriginElo> {
        let mut elo = BTreeMap::from([(
            0,
            OriginElo {
                elo: 0.0,
                source: EloSource::Origin,
            },
        )]);
        for Promotions {
            summary: h,
            best_before,
            best_after,
        } in self.promotions()
        {
            let it = h.iteration;
            // The ladder plays the best network after the arena: this checkpoint only if promoted.
            let ladder = h
                .ladder
                .iter()
                .find(|r| r.anchor == ORIGIN_ANCHOR)
                .map(|r| r.elo.elo)
                .filter(|e| e.is_finite() && best_after == it);
            let arena = h
                .arena_elo
                .map(|e| e.elo)
                .filter(|e| e.is_finite())
                .and_then(|e| elo.get(&best_before).map(|b| b.elo + e));
            let measured = match (ladder, arena) {
                (Some(e), _) => Some((e, EloSource::Ladder)),
                (None, Some(e)) => Some((e, EloSource::Arena)),
                (None, None) => None,
            };
            if let Some((e, source)) = measured {
                // `+ 0.0` turns the -0 of an even match into 0.
                elo.insert(it, OriginElo { elo: e + 0.0, source });
            }
        }
        elo
    }

    /// Writes `RUN/state.json` (atomically).
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        write_atomic(&RunDir::new(dir).state_file(), text.as_bytes()).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model store reads a run's best checkpoint from this file without the loop's types:
    /// what this state saves is what it finds, and what `checkpoint_elo` reads back.
    #[test]
    fn the_model_store_finds_the_best_checkpoint_this_state_saves() {
        let dir = std::env::temp_dir().join(format!("tafl-state-best-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let promoted = |iteration, elo: f64| IterationSummary {
            iteration,
            promoted: true,
            arena_elo: Some(Elo {
                elo,
                low: elo - 50.0,
                high: elo + 50.0,
            }),
            ..IterationSummary::default()
        };
        let state = RunState {
            iteration: 4,
            phase: Phase::SelfPlay,
            best: 2,
            latest: 3,
            history: vec![
                promoted(1, 30.0),
                promoted(2, 20.0),
                IterationSummary {
                    iteration: 3,
                    ..IterationSummary::default()
                },
            ],
            current: IterationSummary::default(),
            pretrain: None,
        };
        state.save(&dir).unwrap();
        let run = RunDir::new(&dir);
        assert_eq!(tafl_models::checkpoint_dir(&dir), Ok(run.checkpoint(2)));
        let info = checkpoint_elo(&run.checkpoint(2)).unwrap().unwrap();
        assert!(info.best_in_run);
        assert_eq!(
            info.arena.map(|a| (a.opponent, a.measured.elo)),
            Some(("iter-1".to_string(), 20.0))
        );
        assert_eq!(checkpoint_elo(&dir.join("elsewhere")), Ok(None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
