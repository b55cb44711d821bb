//! The ladder: the run's best network against anchors that never move, the run's learning
//! curve. A loop can beat its previous network forever and get no stronger; only opponents
//! fixed for the whole run (an early checkpoint of the run, the hand-written search at equal
//! simulations, a player at a fixed time a move) show whether it climbs.
//!
//! Each anchor is one series of the curve (`RUN/learning-curve.png`), played by the rule the
//! config gives (`[arena]`):
//!
//! ```text
//!   ladder_openings = "suite"      each pair from the next position of an opening suite (the
//!                                  built-in one of the rules, or a file), no random moves:
//!                                  where equal players score about even, the stronger shows
//!   (none)                         each pair from `opening_plies` random plies, both players
//!                                  making random moves with `ladder_exploration` (old runs)
//!   ladder_also_exploration = 0.1  in addition, each anchor again from random openings with
//!                                  10% random moves (the 11x11 strength rule): a series of its
//!                                  own, labelled `ANCHOR, exploration 0.1`
//!   ladder_time_anchors = [..]     in addition, the best network as a player at
//!     ladder_movetime = 0.1        `ladder_movetime` seconds a move against each of these at the
//!                                  same time (one search thread each), labelled
//!                                  `ANCHOR, 0.1 s a move`: is the player stronger, not only the
//!                                  evaluation
//! ```

use crate::arena::{play_suite_match, Contender};
use crate::config::ArenaSection;
use crate::state::{IterationSummary, LadderResult, LadderSides};
use std::sync::Arc;
use std::time::Duration;
use tafl_engine::{
    search::{Evaluator, MatchSettings, Openings, ThinkingLimit},
    BitSet, Position, Rules, Ruleset,
};
use tafl_models::run_dir::RunDir;

/// Which finished iterations `tafl ladder` measures, and whether again.
#[derive(Clone, Debug, Default)]
pub struct LadderRequest {
    /// These iterations; empty: every `every`-th.
    pub at: Vec<u32>,
    /// Every this-many iterations when `at` is empty; `None`: the config's `ladder_every`.
    pub every: Option<u32>,
    /// Play series that already have a result again, replacing it.
    pub again: bool,
}

/// How one series' games are played.
#[derive(Clone, Debug, PartialEq)]
pub enum How {
    /// By simulations (the network at `arena.simulations`, the anchor at its own), from the
    /// suite named (see [`crate::suites::positions`]) or, without one, from random openings,
    /// both players making random moves with this probability.
    Simulations {
        /// The opening suite, if any.
        suite: Option<String>,
        /// Random moves of both players, per move.
        exploration: f32,
    },
    /// Both players at this time a move, one search thread each, from the suite if any.
    MoveTime {
        /// The opening suite, if any.
        suite: Option<String>,
        /// Seconds a move.
        seconds: f64,
    },
}

/// One series of the ladder: an anchor and how it is played.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The anchor: a player spec or `checkpoint:N`.
    pub anchor: String,
    /// The series' name on the curve and in the state file.
    pub label: String,
    /// How its games are played.
    pub how: How,
    /// Games a point (whole colour-swapped pairs).
    pub games: u32,
    /// Mixed into the ladder's seed for this series' games.
    seed: u64,
}

/// The series the config's ladder plays, in order: each anchor by the main rule, then each
/// again under the exploration rule if asked, then the time anchors.
pub fn series(a: &ArenaSection) -> Vec<Series> {
    let suite = a.ladder_openings.clone();
    let mut out: Vec<Series> = a
        .ladder_anchors
        .iter()
        .map(|anchor| Series {
            anchor: anchor.clone(),
            label: anchor.clone(),
            how: How::Simulations {
                suite: suite.clone(),
                exploration: a.ladder_exploration,
            },
            games: a.ladder_games,
            // The seed every ladder has used, so that a run's ladder replays as before.
            seed: 0x1ADD,
        })
        .collect();
    if a.ladder_also_exploration > 0.0 {
        out.extend(a.ladder_anchors.iter().map(|anchor| Series {
            anchor: anchor.clone(),
            label: format!("{anchor}, exploration {}", a.ladder_also_exploration),
            how: How::Simulations {
                suite: None,
                exploration: a.ladder_also_exploration,
            },
            games: a.ladder_games,
            seed: 0x1ADD ^ 0xE4,
        }));
    }
    if a.ladder_movetime > 0.0 {
        out.extend(a.ladder_time_anchors.iter().map(|anchor| Series {
            anchor: anchor.clone(),
            label: format!("{anchor}, {} s a move", a.ladder_movetime),
            how: How::MoveTime {
                suite: suite.clone(),
                seconds: a.ladder_movetime,
            },
            games: a.ladder_time_games,
            seed: 0x1ADD ^ 0x71E,
        }));
    }
    out
}

impl How {
    /// How the games were played, as the run log and the chart say it.
    pub fn text(&self, simulations: u32) -> String {
        let from = |suite: &Option<String>| match suite {
            Some(s) if s == crate::suites::BUILT_IN => "from the opening suite".to_string(),
            Some(s) => format!("from the opening suite `{s}`"),
            None => "from random openings".to_string(),
        };
        match self {
            How::Simulations { suite, exploration } => format!(
                "{simulations} simulations, {}, exploration {exploration}",
                from(suite)
            ),
            How::MoveTime { suite, seconds } => format!("{seconds} s a move, {}", from(suite)),
        }
    }
}

/// The chart's subtitle: how each kind of series was played.
pub fn subtitle(a: &ArenaSection, ruleset: &Ruleset) -> String {
    let mut kinds: Vec<String> = Vec::new();
    for s in series(a) {
        let t = format!("{} games, {}", s.games.div_ceil(2) * 2, s.how.text(a.simulations));
        if !kinds.contains(&t) {
            kinds.push(t);
        }
    }
    format!("{}: {}", ruleset.id(), kinds.join("; "))
}

/// Counts one finished game of a ladder match (a progress bar's tick).
pub type Tick = Box<dyn Fn() + Sync>;

/// What a ladder needs of the run playing it.
pub struct Ladder<'a, B: BitSet> {
    /// The rules in play.
    pub rules: &'a Rules<B>,
    /// Their ruleset (model anchors load under it).
    pub ruleset: &'a Ruleset,
    /// The config's arena section.
    pub arena: &'a ArenaSection,
    /// The run folder (checkpoint anchors).
    pub run_dir: &'a RunDir,
    /// The ladder's seed for this iteration.
    pub seed: u64,
    /// Games at once by simulations (network evaluators batch across them).
    pub threads: usize,
    /// Loads the network of an iteration into an evaluator batching that many callers.
    pub load_net: &'a dyn Fn(u32, usize) -> Result<Arc<dyn Evaluator<B>>, String>,
    /// Says a line in the run log (and on the terminal when the second argument is true).
    pub log: &'a dyn Fn(&str, bool),
    /// Progress: a counter for `len` games named by the text; `inc` once per game.
    pub progress: &'a dyn Fn(u64, &str) -> Tick,
}

impl<B: BitSet> Ladder<'_, B> {
    /// Plays every series for the network of iteration `best` as the ladder of iteration `it`
    /// (checkpoint anchors of iteration `it` or later are skipped, as are missing ones, with a
    /// warning). `me` is that network's evaluator for `threads` callers, when already loaded.
    pub fn play(
        &self,
        it: u32,
        best: u32,
        me: Option<Arc<dyn Evaluator<B>>>,
    ) -> Result<Vec<LadderResult>, String> {
        self.play_some(it, best, me, &|_| true)
    }

    /// [`Ladder::play`] for the series `wanted` picks.
    pub fn play_some(
        &self,
        it: u32,
        best: u32,
        me: Option<Arc<dyn Evaluator<B>>>,
        wanted: &dyn Fn(&Series) -> bool,
    ) -> Result<Vec<LadderResult>, String> {
        let a = self.arena;
        let mut out = Vec::new();
        let mut suites: Vec<(String, Vec<Position<B>>)> = Vec::new();
        let me = match me {
            Some(m) => m,
            None => (self.load_net)(best, self.threads)?,
        };
        let time_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut me_timed: Option<Arc<dyn Evaluator<B>>> = None;
        for s in series(a).into_iter().filter(|s| s.games > 0 && wanted(s)) {
            let timed = matches!(s.how, How::MoveTime { .. });
            let threads = if timed { time_threads } else { self.threads };
            let Some(opponent) = self.opponent(&s.anchor, it, threads)? else {
                continue;
            };
            let net = if timed {
                match &me_timed {
                    Some(n) => n.clone(),
                    None => {
                        let n = (self.load_net)(best, threads)?;
                        me_timed = Some(n.clone());
                        n
                    }
                }
            } else {
                me.clone()
            };
            let player = Contender::net(&format!("iter-{best}"), net, a.simulations);
            let (suite, exploration, limit) = match &s.how {
                How::Simulations { suite, exploration } => {
                    (suite.clone(), *exploration, ThinkingLimit::Simulations)
                }
                How::MoveTime { suite, seconds } => (
                    suite.clone(),
                    a.ladder_exploration,
                    ThinkingLimit::MoveTime(Duration::from_secs_f64(*seconds)),
                ),
            };
            let positions: &[Position<B>] = match &suite {
                None => &[],
                Some(name) => {
                    if !suites.iter().any(|(n, _)| n == name) {
                        let p = crate::suites::positions(name, self.rules)
                            .map_err(|e| format!("key `arena.ladder_openings`: {e}"))?;
                        suites.push((name.clone(), p));
                    }
                    &suites.iter().find(|(n, _)| n == name).expect("just added").1
                }
            };
            let openings = match suite {
                Some(_) => Openings::Suite(positions),
                None => Openings::Random,
            };
            let settings = MatchSettings {
                games: s.games,
                ply_limit: Some(a.ply_limit),
                opening_plies: a.opening_plies,
                threads,
                seed: self.seed ^ s.seed,
                exploration,
                limit,
                search_threads: if timed { 1 } else { 0 },
            };
            let tick = (self.progress)(
                s.games.div_ceil(2) as u64 * 2,
                &format!("iter {it} vs {}", s.label),
            );
            let r = play_suite_match(self.rules, &player, &opponent, &settings, openings, &|_| tick())?;
            let e = r.elo();
            (self.log)(
                &format!(
                    "iteration {it}: ladder, best iter-{best} vs {}, {}: {}",
                    s.anchor,
                    s.how.text(a.simulations),
                    r.summary()
                ),
                false,
            );
            out.push(LadderResult {
                anchor: s.label.clone(),
                elo: e.interval(),
                sides: Some(LadderSides {
                    as_attackers: r.as_attackers,
                    as_defenders: r.as_defenders,
                }),
            });
        }
        Ok(out)
    }

    /// The anchor's player for the ladder of iteration `it`: `None` for a checkpoint that
    /// cannot play there (not earlier than `it`, or missing: a warning).
    fn opponent(&self, anchor: &str, it: u32, threads: usize) -> Result<Option<Contender<B>>, String> {
        let Some(n) = anchor.strip_prefix("checkpoint:") else {
            return crate::integrity::anchor_contender(anchor, self.ruleset, threads).map(Some);
        };
        let n: u32 = n.parse().map_err(|_| format!("ladder anchor `{anchor}`"))?;
        if n >= it {
            return Ok(None);
        }
        if !self.run_dir.checkpoint(n).join(tafl_nn::MANIFEST_FILE).is_file() {
            (self.log)(
                &format!(
                    "warning: iteration {it}: ladder anchor `{anchor}` skipped: {} is missing",
                    self.run_dir.checkpoint(n).display()
                ),
                true,
            );
            return Ok(None);
        }
        Ok(Some(Contender::net(
            anchor,
            (self.load_net)(n, threads)?,
            self.arena.simulations,
        )))
    }
}

/// The learning curve's latest point, one line: each series' most recent result (from `last`
/// or, where it played no ladder, the iterations before it in `history`) with its interval
/// and its games per side. `None` before the first ladder.
pub fn latest_point(history: &[IterationSummary], last: &IterationSummary) -> Option<String> {
    let mut latest: Vec<(u32, &LadderResult)> = Vec::new();
    for s in history.iter().chain(std::iter::once(last)) {
        for r in &s.ladder {
            match latest.iter_mut().find(|(_, x)| x.anchor == r.anchor) {
                Some(slot) => *slot = (s.iteration, r),
                None => latest.push((s.iteration, r)),
            }
        }
    }
    if latest.is_empty() {
        return None;
    }
    let points: Vec<String> = latest
        .iter()
        .map(|(it, r)| {
            let sides = r.sides.map_or(String::new(), |s| {
                format!(", score {:.3} over {} games, {}", s.score(), s.games(), s.text())
            });
            format!(
                "vs {} (iteration {it}): {:+.0} Elo [{:+.0}, {:+.0}]{sides}",
                r.anchor, r.elo.elo, r.elo.low, r.elo.high
            )
        })
        .collect();
    Some(format!("learning curve, latest point: {}", points.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_series_are_each_anchor_then_the_exploration_rule_then_the_time_anchors() {
        let a = ArenaSection {
            ladder_anchors: vec!["checkpoint:2".into(), "mcts:heuristic:100".into()],
            ladder_openings: Some("suite".into()),
            ladder_games: 200,
            ladder_also_exploration: 0.1,
            ladder_time_anchors: vec!["mcts:heuristic".into()],
            ladder_movetime: 0.05,
            ladder_time_games: 40,
            ..ArenaSection::default()
        };
        let s = series(&a);
        let labels: Vec<&str> = s.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "checkpoint:2",
                "mcts:heuristic:100",
                "checkpoint:2, exploration 0.1",
                "mcts:heuristic:100, exploration 0.1",
                "mcts:heuristic, 0.05 s a move"
            ]
        );
        assert_eq!(s[4].games, 40);
        assert_eq!(
            s[4].how,
            How::MoveTime {
                suite: Some("suite".into()),
                seconds: 0.05
            }
        );
        assert!(s[0]
            .how
            .text(100)
            .contains("from the opening suite, exploration 0"));
        // Every series draws other games than the others of its kind.
        assert_ne!(s[0].seed, s[2].seed);
        assert_ne!(s[0].seed, s[4].seed);
        // Without the extras, the anchors alone, by the old rule.
        let plain = series(&ArenaSection::default());
        assert_eq!(plain.len(), ArenaSection::default().ladder_anchors.len());
        assert!(plain.iter().all(|s| s.how
            == How::Simulations {
                suite: None,
                exploration: 0.0
            }));
    }

    #[test]
    fn ladder_results_read_both_shapes_and_the_latest_point_names_each_series() {
        // Runs before the games were kept wrote `[anchor, elo, low, high]`; both shapes read.
        let old: LadderResult = serde_json::from_str(r#"["mcts:heuristic:100", 12.0, -30.0, 55.0]"#).unwrap();
        assert_eq!(old.sides, None);
        assert_eq!(
            serde_json::to_string(&old).unwrap(),
            r#"["mcts:heuristic:100",12.0,-30.0,55.0]"#
        );
        let new = LadderResult {
            anchor: "checkpoint:2".into(),
            elo: tafl_engine::stats::Elo {
                elo: 35.0,
                low: -10.0,
                high: 80.0,
            },
            sides: Some(LadderSides {
                as_attackers: (40, 10, 50),
                as_defenders: (60, 5, 35),
            }),
        };
        let text = serde_json::to_string(&new).unwrap();
        assert_eq!(serde_json::from_str::<LadderResult>(&text).unwrap(), new);
        assert_eq!(new.sides.unwrap().games(), 200);
        assert!((new.sides.unwrap().score() - 0.5375).abs() < 1e-9);
        let at = |iteration, ladder| IterationSummary {
            iteration,
            ladder,
            ..Default::default()
        };
        assert_eq!(latest_point(&[], &at(1, vec![])), None);
        let history = [at(4, vec![old.clone(), new.clone()]), at(5, vec![])];
        let newer = LadderResult {
            elo: tafl_engine::stats::Elo {
                elo: 90.0,
                low: 40.0,
                high: 140.0,
            },
            ..old.clone()
        };
        let line = latest_point(&history, &at(8, vec![newer])).unwrap();
        assert!(
            line.contains("vs mcts:heuristic:100 (iteration 8): +90 Elo [+40, +140]"),
            "{line}"
        );
        assert!(
            line.contains("vs checkpoint:2 (iteration 4): +35 Elo [-10, +80], score 0.537 over 200 games, as attackers 40-10-50, as defenders 60-5-35 (W-D-L)"),
            "{line}"
        );
    }
}
