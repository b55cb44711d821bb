//! The self-play stage: the iteration's games, played by the best network (or the teacher's
//! search) in parallel, into replay shards; a resumed iteration keeps the shards on disk that
//! fit and plays only the games they lack.

use super::{SharedEvaluator, Trainer};
use crate::config::{SelfPlaySection, TeacherEvaluator};
use crate::selfplay::{play_game, SelfPlayStats};
use crate::shard::{read_shard_games, write_shard, ShardGames};
use crate::state::{Phase, RunState};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;
use tafl_engine::{
    board::game_seed,
    search::{Evaluator, Heuristic, Rollout},
    BitSet, Side,
};
use tafl_models::run_dir::shard_name;
use tafl_nn::{write_atomic, Encoder, NetEvaluator, Sample};

impl<B: BitSet> Trainer<'_, B> {
    /// Plays games `games` of the current iteration's self-play into `out` (see
    /// [`selfplay_games`]).
    pub(crate) fn selfplay_range(&self, games: std::ops::Range<u64>, out: &Path) -> Result<(), String> {
        let state = RunState::load(self.dir)?;
        if let Some(message) = crate::integrity::finished(self.dir, &state, self.config) {
            return Err(message);
        }
        if state.phase != Phase::SelfPlay {
            return Err(format!(
                "`{}` is at iteration {}, stage {}: its self-play is not due",
                self.dir.display(),
                state.iteration,
                state.phase.name()
            ));
        }
        let it = state.iteration;
        let (sp, teacher) = self.config.selfplay_at(it);
        let total = sp.games_per_iteration as u64;
        if games.start >= games.end || games.end > total {
            return Err(format!(
                "--games {}..{}: iteration {it} plays games 0..{total}; ask for a non-empty range within it",
                games.start, games.end
            ));
        }
        refuse_out_in_run(out)?;
        std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
        // Again on the folder made: a path through `..` is judged where it ends.
        refuse_out_in_run(out)?;
        if !crate::integrity::shard_files(out).is_empty() {
            return Err(format!(
                "`{}` already holds shards; give an empty folder",
                out.display()
            ));
        }
        let threads = (sp.parallel_games as usize)
            .min((games.end - games.start) as usize)
            .max(1);
        let (net, _) = self.selfplay_evaluator(&state, teacher, &sp, threads)?;
        let list: Vec<u64> = games.clone().collect();
        let job = SelfPlayGames {
            sp: &sp,
            dir: out,
            games: &list,
            total: games.end,
            threads,
            dominant: self.dominant_side(&state, &sp),
        };
        self.play_and_store(it, &job, net.as_ref(), SelfPlayStats::default(), 0)?;
        Ok(())
    }

    /// Plays the iteration's games with the best network, or with the teacher in the config's
    /// first iterations; shards already on disk count as done.
    pub(crate) fn selfplay(&self, state: &mut RunState) -> Result<(), String> {
        let it = state.iteration;
        let (sp, teacher) = self.config.selfplay_at(it);
        let sp = &sp;
        let sdir = self.run_dir.shards(it);
        std::fs::create_dir_all(&sdir).map_err(|e| format!("{}: {e}", sdir.display()))?;
        // Shards already written (a resumed run) hold games; only whole, readable ones that
        // hold games of this iteration no other holds count, and the games none holds are played.
        let total = sp.games_per_iteration as u64;
        let (stats, shards, held) = self.shards_on_disk(it, &sdir, total);
        let todo: Vec<u64> = (0..total).filter(|g| !held.contains(g)).collect();
        if !held.is_empty() {
            // Parallel games finish out of order: which games the shards hold is named only
            // when they are not the first ones.
            let first = held.len() as u64;
            let which = if held.iter().copied().eq(0..first) {
                String::new()
            } else {
                format!(" (games {})", game_ranges(&held))
            };
            self.log.line(
                &format!("iteration {it}: resuming self-play with {first} of {total} games on disk{which}"),
                !self.options.quiet,
            );
        }
        let dominant = self.dominant_side(state, sp);
        let threads = (sp.parallel_games as usize).min(todo.len()).max(1);
        let (net, network) = self.selfplay_evaluator(state, teacher, sp, threads)?;
        state.current.teacher = teacher;
        let t0 = Instant::now();
        let games = SelfPlayGames {
            sp,
            dir: &sdir,
            games: &todo,
            total,
            threads,
            dominant,
        };
        let stats = self.play_and_store(it, &games, net.as_ref(), stats, shards)?;
        let secs = t0.elapsed().as_secs_f64();
        let played = todo.len() as u64;
        state.current.selfplay = stats;
        state.current.eval_cache_hit_rate = network.map(|n| n.stats().cache_hit_rate());
        state.current.games_per_hour = if played > 0 && secs > 0.0 {
            played as f64 * 3600.0 / secs
        } else {
            state.current.games_per_hour
        };
        Ok(())
    }

    /// The side to handicap this iteration: the one that won more than `handicap_above` of
    /// the previous iteration's even games (none when handicaps are off), logged.
    pub(crate) fn dominant_side(&self, state: &RunState, sp: &SelfPlaySection) -> Option<Side> {
        let dominant = state
            .history
            .last()
            .and_then(|h| h.selfplay.dominant_side(sp.handicap_above as f64))
            .filter(|_| sp.handicap_share > 0.0);
        if let Some(side) = dominant {
            self.log.line(
                &format!(
                    "iteration {}: {side} won more than {:.0}% of last iteration's even games; they blunder in {:.0}% of games",
                    state.iteration,
                    sp.handicap_above * 100.0,
                    sp.handicap_share * 100.0
                ),
                !self.options.quiet,
            );
        }
        dominant
    }

    /// What self-play searches with: the teacher's classic evaluator in its iterations, else
    /// the best network (also returned apart, for its evaluation-cache figures), logged.
    pub(crate) fn selfplay_evaluator(
        &self,
        state: &RunState,
        teacher: Option<TeacherEvaluator>,
        sp: &SelfPlaySection,
        threads: usize,
    ) -> Result<(SharedEvaluator<B>, Option<Arc<NetEvaluator>>), String> {
        let it = state.iteration;
        let Some(t) = teacher else {
            let n = self.load_net(state.best, threads)?;
            self.log.line(
                &format!(
                    "iteration {it}: self-play evaluates the network with {}",
                    n.inference()
                ),
                !self.options.quiet,
            );
            return Ok((n.clone(), Some(n)));
        };
        self.log.line(
            &format!(
                "iteration {it}: self-play searches with the teacher ({}, {} simulations), not the network",
                t.name(),
                sp.simulations
            ),
            !self.options.quiet,
        );
        let evaluator: SharedEvaluator<B> = match t {
            TeacherEvaluator::Heuristic => Arc::new(Heuristic),
            TeacherEvaluator::Rollout => Arc::new(Rollout {
                seed: self.config.seed,
                max_plies: sp.ply_limit,
                ..Rollout::default()
            }),
        };
        Ok((evaluator, None))
    }

    /// Plays the games `games` lists of iteration `it` on `threads` threads and writes them to
    /// replay shards of `games_per_shard` games as they finish (numbered on from `shards`,
    /// each saying which games it holds); returns `stats` with the new games' tallies merged in.
    pub(crate) fn play_and_store(
        &self,
        it: u32,
        games: &SelfPlayGames<'_>,
        net: &(dyn Evaluator<B> + Send + Sync),
        mut stats: SelfPlayStats,
        mut shards: u64,
    ) -> Result<SelfPlayStats, String> {
        let SelfPlayGames {
            sp,
            dir,
            games: list,
            total,
            threads,
            dominant,
        } = *games;
        let encoder = Encoder::new(self.ruleset);
        let starts = sp.opening_positions(self.rules)?;
        let starts = &starts;
        let bar = self.bar(total, &format!("iter {it} self-play"));
        bar.set_position(total.saturating_sub(list.len() as u64));
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel();
        let seed = game_seed(self.config.seed, it as u64);
        let mut write_error = None;
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (encoder, next) = (&encoder, &next);
                scope.spawn(move || {
                    while let Some(&g) = list.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let game = play_game(
                            self.rules,
                            net,
                            encoder,
                            sp,
                            game_seed(seed, g),
                            it >= sp.resign_from_iteration,
                            dominant,
                            starts,
                        );
                        if tx.send((g, game)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut samples: Vec<Sample> = Vec::new();
            let mut shard_stats = SelfPlayStats::default();
            // The games of the shard being filled, in the order they finished.
            let mut held = ShardGames {
                iteration: it,
                games: Vec::new(),
            };
            let mut done = 0;
            for (g, game) in rx {
                done += 1;
                bar.inc(1);
                samples.extend(game.samples);
                shard_stats.merge(&game.stats);
                held.games.push(g);
                if held.games.len() == sp.games_per_shard as usize || done == list.len() {
                    let base = dir.join(shard_name(shards));
                    let json = serde_json::to_string(&shard_stats).unwrap_or_default();
                    let bin = base.with_extension("bin");
                    let r = write_shard(&bin, encoder.input_len(), &samples, Some(&held)).and_then(|_| {
                        write_atomic(&base.with_extension("json"), json.as_bytes()).map_err(|e| e.to_string())
                    });
                    if let Err(e) = r {
                        write_error.get_or_insert(e);
                    }
                    stats.merge(&shard_stats);
                    shards += 1;
                    samples.clear();
                    held.games.clear();
                    shard_stats = SelfPlayStats::default();
                }
            }
        });
        bar.finish_and_clear();
        match write_error {
            Some(e) => Err(format!("writing a replay shard: {e}")),
            None => Ok(stats),
        }
    }

    /// The shards of iteration `it` (which plays `total` games) already on disk (a resumed
    /// run): their tallies, their count and the games they hold. They count in order while
    /// both files of a shard are there, its samples read back, and the games it says it holds
    /// are games of this iteration that no shard before it holds, as many as its tallies count
    /// (a shard of format 1, which does not say, holds the next games not yet held). A
    /// missing, damaged or misplaced shard ends the count with a warning, and it and every
    /// shard after it are removed and their games played again, so that no game counts as
    /// played without its samples and none counts twice.
    pub(crate) fn shards_on_disk(
        &self,
        it: u32,
        sdir: &Path,
        total: u64,
    ) -> (SelfPlayStats, u64, BTreeSet<u64>) {
        let encoder = Encoder::new(self.ruleset);
        let mut stats = SelfPlayStats::default();
        let mut shards = 0u64;
        let mut held = BTreeSet::new();
        let why = loop {
            let base = sdir.join(shard_name(shards));
            let (json, bin) = (base.with_extension("json"), base.with_extension("bin"));
            match (json.exists(), bin.exists()) {
                (false, false) => break None,
                (true, false) => break Some(format!("{} is missing", bin.display())),
                (false, true) => break Some(format!("{} is missing", json.display())),
                (true, true) => {}
            }
            let tallies = tafl_engine::input::read_text_limited(&json, 1 << 20)
                .and_then(|t| serde_json::from_str::<SelfPlayStats>(&t).map_err(|e| e.to_string()));
            let s = match tallies {
                Ok(s) => s,
                Err(e) => break Some(format!("{}: {e}", json.display())),
            };
            let games = match read_shard_games(&bin, encoder.input_len(), encoder.policy_size()) {
                Ok(shard) => shard.games,
                Err(e) => break Some(e),
            };
            let games: Vec<u64> = match games {
                Some(g) => {
                    if let Err(e) = shard_fits(&g, it, total, s.games, &held) {
                        break Some(format!("{}: {e}", bin.display()));
                    }
                    g.games
                }
                None => (0..total)
                    .filter(|g| !held.contains(g))
                    .take(s.games as usize)
                    .collect(),
            };
            held.extend(games);
            stats.merge(&s);
            shards += 1;
        };
        let after: Vec<(u32, bool, bool)> = crate::integrity::shard_files(sdir)
            .into_iter()
            .filter(|&(k, _, _)| u64::from(k) >= shards)
            .collect();
        if why.is_some() || !after.is_empty() {
            let why = why.unwrap_or_else(|| {
                format!(
                    "{} is missing",
                    sdir.join(format!("{}.bin", shard_name(shards))).display()
                )
            });
            for &(k, bin, json) in &after {
                let base = sdir.join(shard_name(k.into()));
                for (there, ext) in [(bin, "bin"), (json, "json")] {
                    if there {
                        let _ = std::fs::remove_file(base.with_extension(ext));
                    }
                }
            }
            self.say(&format!(
                "warning: iteration {it}: {why}; self-play resumes with {} games kept (shard-{shards:04}), and the games of the {} shard(s) from there on are played again",
                held.len(),
                after.len()
            ));
        }
        (stats, shards, held)
    }
}

/// Whether a shard that says it holds `shard`'s games fits in iteration `it`'s self-play of
/// `total` games after the shards before it, which hold `held`: games of this iteration, as
/// many as its tallies count (`counted`), none of them held before. The error says why not.
fn shard_fits(
    shard: &ShardGames,
    it: u32,
    total: u64,
    counted: u64,
    held: &BTreeSet<u64>,
) -> Result<(), String> {
    if shard.iteration != it {
        return Err(format!(
            "holds games of iteration {}, not of iteration {it} (a shard put in the wrong folder)",
            shard.iteration
        ));
    }
    if shard.games.len() as u64 != counted {
        return Err(format!(
            "holds {} games, its tallies count {counted}",
            shard.games.len()
        ));
    }
    let mut seen = BTreeSet::new();
    for &g in &shard.games {
        if g >= total {
            return Err(format!(
                "holds game {g}, and iteration {it} plays games 0..{total}"
            ));
        }
        if held.contains(&g) || !seen.insert(g) {
            return Err(format!(
                "holds game {g}, which an earlier shard holds (a shard put in the wrong place)"
            ));
        }
    }
    Ok(())
}

/// A set of game indices for messages, runs as ranges: `0..4, 6, 8..12`.
fn game_ranges(games: &BTreeSet<u64>) -> String {
    let mut spans: Vec<(u64, u64)> = Vec::new();
    for &g in games {
        match spans.last_mut() {
            Some((_, end)) if *end == g => *end = g + 1,
            _ => spans.push((g, g + 1)),
        }
    }
    spans
        .iter()
        .map(|&(a, b)| {
            if b == a + 1 {
                a.to_string()
            } else {
                format!("{a}..{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The games one self-play phase plays: which, how, and where their shards go.
#[derive(Clone, Copy)]
pub(crate) struct SelfPlayGames<'a> {
    sp: &'a SelfPlaySection,
    dir: &'a Path,
    /// The games to play, in order (a resumed run's: those no kept shard holds).
    games: &'a [u64],
    /// The iteration's games up to the last (the progress bar's length; those not listed are
    /// done).
    total: u64,
    threads: usize,
    /// The side handicapped in a share of the games, if any.
    dominant: Option<Side>,
}

/// Refuses a `--out` folder of `tafl selfplay --games` that is, or lies inside, a run folder:
/// shards written there would be read as the run's own.
pub(crate) fn refuse_out_in_run(out: &Path) -> Result<(), String> {
    match tafl_models::run_dir::run_holding(out) {
        Some(run) => Err(format!(
            "--out `{}` is inside the run folder `{}`: shards written there would be taken for the run's own; give a folder outside every run (the games' shards are moved into a run by its driver)",
            out.display(),
            run.display()
        )),
        None => Ok(()),
    }
}
