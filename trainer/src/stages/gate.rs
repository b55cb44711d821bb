//! The gate: the candidate against the best network (the arena) and the anchors that do not
//! move (the ladder), promotion, the learning curve, and the iteration's report.

use super::Trainer;
use crate::arena::{play_match, Contender};
use crate::config::Promotion;
use crate::ladder::LadderRequest;
use crate::state::{IterationSummary, Phase, RunState};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tafl_engine::search::MatchSettings;
use tafl_engine::stats::Elo;
use tafl_engine::{board::game_seed, search::Evaluator, BitSet};
use tafl_nn::{default_device, Batch, Encoder, Sample, TaflNet};

impl<B: BitSet> Trainer<'_, B> {
    /// The gate: arena and ladder, then the iteration's summary, and on to the next.
    pub(crate) fn gate(&self, state: &mut RunState, t0: Instant) -> Result<(), String> {
        let it = state.iteration;
        self.arena(state)?;
        let done = std::mem::take(&mut state.current);
        self.report(&state.history, &done, t0.elapsed());
        state.history.push(done);
        state.iteration = it + 1;
        state.current = IterationSummary {
            iteration: it + 1,
            ..Default::default()
        };
        state.phase = Phase::SelfPlay;
        state.save(self.dir)
    }

    /// Value accuracy and policy entropy of the network on up to 256 samples of the window.
    pub(crate) fn measure(
        &self,
        model: &TaflNet,
        samples: &[Sample],
        encoder: &Encoder,
        rng: &mut ChaCha8Rng,
    ) -> (f64, f64) {
        let n = samples.len().min(256);
        let pick: Vec<Sample> = (0..n)
            .map(|_| samples[rng.random_range(0..samples.len())].clone())
            .collect();
        let device = default_device();
        let batch = Batch::new(encoder, &pick, &device);
        let out = model.forward(batch.input.clone());
        let masked = out.policy + batch.policy_mask.clone();
        let policy: Vec<f32> = masked.into_data().try_to_vec().unwrap_or_default();
        let wdl: Vec<f32> = out.wdl.into_data().try_to_vec().unwrap_or_default();
        let p = encoder.policy_size();
        if policy.len() != n * p || wdl.len() != n * 3 {
            return (f64::NAN, f64::NAN);
        }
        let mut correct = 0;
        let mut with_value = 0;
        let mut entropy = 0.0;
        for (i, s) in pick.iter().enumerate() {
            let argmax = |v: &[f32]| (0..v.len()).max_by(|&a, &b| v[a].total_cmp(&v[b])).unwrap_or(0);
            // Samples with no value target (all zeros) do not count.
            if s.wdl.iter().sum::<f32>() > 0.0 {
                with_value += 1;
                if argmax(&wdl[i * 3..i * 3 + 3]) == argmax(&s.wdl) {
                    correct += 1;
                }
            }
            let probs = tafl_nn::softmax(&policy[i * p..(i + 1) * p]);
            entropy += probs
                .iter()
                .filter(|&&x| x > 0.0)
                .map(|&x| -(x as f64) * (x as f64).ln())
                .sum::<f64>();
        }
        (
            correct as f64 / with_value.max(1) as f64,
            entropy / n.max(1) as f64,
        )
    }

    pub(crate) fn arena(&self, state: &mut RunState) -> Result<(), String> {
        let it = state.iteration;
        let a = &self.config.arena;
        let threads = self
            .config
            .selfplay
            .parallel_games
            .min(a.games.max(a.ladder_games))
            .max(1) as usize;
        let candidate = self.load_net(it, threads)?;
        let best = self.load_net(state.best, threads)?;
        let seed = game_seed(self.config.seed ^ 0xA4E7A, it as u64);
        if a.games > 0 {
            let bar = self.bar(a.games.div_ceil(2) as u64 * 2, &format!("iter {it} arena"));
            let c = Contender::net(
                &format!("iter-{it}"),
                candidate.clone() as Arc<dyn Evaluator<B>>,
                a.simulations,
            );
            let b = Contender::net(
                &format!("iter-{}", state.best),
                best.clone() as Arc<dyn Evaluator<B>>,
                a.simulations,
            );
            let settings = MatchSettings {
                games: a.games,
                ply_limit: Some(a.ply_limit),
                opening_plies: a.opening_plies,
                threads,
                seed,
                exploration: 0.0,
                ..MatchSettings::default()
            };
            let r = play_match(self.rules, &c, &b, &settings, &|_| bar.inc(1))?;
            bar.finish_and_clear();
            let e = r.elo();
            state.current.arena_elo = Some(e.interval());
            state.current.promoted = match a.promotion {
                Promotion::Always => true,
                Promotion::Significant => e.significantly_positive(),
            };
            self.log.line(
                &format!(
                    "iteration {it}: candidate iter-{it} vs best iter-{}: {}",
                    state.best,
                    r.summary()
                ),
                false,
            );
        } else {
            state.current.promoted = true;
        }
        if state.current.promoted {
            state.best = it;
        }
        if a.ladder_every > 0 && it.is_multiple_of(a.ladder_every) {
            let best_now = if state.best == it { candidate } else { best };
            let me = Some(best_now as Arc<dyn Evaluator<B>>);
            let results = self.with_ladder(it, threads, |l| l.play(it, state.best, me))?;
            state.current.ladder = results;
            self.draw_learning_curve(state);
        }
        Ok(())
    }

    /// Calls `f` with the ladder of iteration `it`, whose network players batch `threads`
    /// games.
    pub(crate) fn with_ladder<R>(
        &self,
        it: u32,
        threads: usize,
        f: impl FnOnce(&crate::ladder::Ladder<'_, B>) -> R,
    ) -> R {
        let load_net = |n, callers| Ok(self.load_net(n, callers)? as Arc<dyn Evaluator<B>>);
        let log = |line: &str, show: bool| self.log.line(line, show && !self.options.quiet);
        let progress = |len: u64, what: &str| -> crate::ladder::Tick {
            let bar = self.bar(len, what);
            Box::new(move || {
                bar.inc(1);
                if bar.position() >= len {
                    bar.finish_and_clear();
                }
            })
        };
        f(&crate::ladder::Ladder {
            rules: self.rules,
            ruleset: self.ruleset,
            arena: &self.config.arena,
            run_dir: self.run_dir,
            seed: game_seed(self.config.seed ^ 0xA4E7A, it as u64),
            threads,
            load_net: &load_net,
            log: &log,
            progress: &progress,
        })
    }

    /// `tafl ladder`: the ladder for finished iterations (see [`ladder`]).
    pub(crate) fn ladder_finished(&self, request: &LadderRequest) -> Result<(), String> {
        let mut state = RunState::load(self.dir)?;
        crate::integrity::check_state(self.dir, &state)?;
        let a = &self.config.arena;
        let every = request.every.unwrap_or(a.ladder_every);
        let done: Vec<(u32, u32)> = state
            .promotions()
            .map(|p| (p.summary.iteration, p.best_after))
            .collect();
        for &it in &request.at {
            if !done.iter().any(|&(i, _)| i == it) {
                return Err(format!(
                    "iteration {it} of `{}` is not finished (finished: 1 to {})",
                    self.dir.display(),
                    done.len()
                ));
            }
        }
        if request.at.is_empty() && every == 0 {
            return Err(
                "the config's `arena.ladder_every` is 0: say which iterations with --at or --every".into(),
            );
        }
        let series = crate::ladder::series(a);
        if series.iter().all(|s| s.games == 0) {
            return Err(format!(
                "the ladder of `{}/config.toml` plays no games: give `arena.ladder_anchors` and `arena.ladder_games`",
                self.dir.display()
            ));
        }
        let threads = self
            .config
            .selfplay
            .parallel_games
            .min(a.ladder_games.max(1))
            .max(1) as usize;
        let mut played = 0;
        for (index, &(it, best)) in done.iter().enumerate() {
            let wanted = if request.at.is_empty() {
                it.is_multiple_of(every)
            } else {
                request.at.contains(&it)
            };
            if !wanted {
                continue;
            }
            let have: Vec<String> = state.history[index]
                .ladder
                .iter()
                .map(|r| r.anchor.clone())
                .collect();
            let todo = |s: &crate::ladder::Series| request.again || !have.contains(&s.label);
            if !series.iter().any(todo) {
                continue;
            }
            let results = self.with_ladder(it, threads, |l| l.play_some(it, best, None, &todo))?;
            let ladder = &mut state.history[index].ladder;
            for r in results {
                ladder.retain(|x| x.anchor != r.anchor);
                ladder.push(r);
            }
            played += 1;
            state.save(self.dir)?;
            self.draw_learning_curve(&state);
            let (before, last) = state.history.split_at(index);
            if let Some(line) = crate::ladder::latest_point(before, &last[0]) {
                self.say(&format!("iteration {it}: {line}"));
            }
        }
        self.say(&format!(
            "ladder: {played} iteration(s) of `{}` measured; the curve is {}",
            self.dir.display(),
            self.run_dir.learning_curve_file().display()
        ));
        Ok(())
    }

    /// Draws `RUN/learning-curve.png` from the ladder results so far (the finished iterations
    /// and this one); a chart that cannot be drawn is a warning, never the run's end.
    pub(crate) fn draw_learning_curve(&self, state: &RunState) {
        let mut history = state.history.clone();
        if !state.current.ladder.is_empty() {
            history.push(state.current.clone());
        }
        let subtitle = crate::ladder::subtitle(&self.config.arena, self.ruleset);
        let path = self.run_dir.learning_curve_file();
        if let Err(e) = crate::curve::write_learning_curve(&path, &history, &subtitle) {
            self.log
                .line(&format!("warning: learning curve: {e}"), !self.options.quiet);
        }
    }

    /// Logs iteration `s`'s summary line and the learning curve's latest point (`history`:
    /// the iterations before it), and writes its TensorBoard scalars.
    pub(crate) fn report(&self, history: &[IterationSummary], s: &IterationSummary, took: Duration) {
        let sp = &s.selfplay;
        let arena = match s.arena_elo {
            Some(Elo {
                elo: e,
                low: lo,
                high: hi,
            }) => format!(
                "arena {e:+.0} Elo [{lo:+.0}, {hi:+.0}]{}",
                if s.promoted { " promoted" } else { "" }
            ),
            None => "arena skipped".into(),
        };
        let ladder: Vec<String> = s
            .ladder
            .iter()
            .map(|r| {
                format!(
                    "{} {:+.0} [{:+.0}, {:+.0}]",
                    r.anchor, r.elo.elo, r.elo.low, r.elo.high
                )
            })
            .collect();
        let handicap = if sp.handicapped > 0 {
            format!(
                " ({} handicapped, {} of them won by the handicapped side)",
                sp.handicapped, sp.handicapped_won
            )
        } else {
            String::new()
        };
        let teacher = s.teacher.map_or(String::new(), |t| {
            format!(" searched by the teacher ({})", t.name())
        });
        let cache = s
            .eval_cache_hit_rate
            .map_or(String::new(), |r| format!(", eval cache hits {:.0}%", 100.0 * r));
        let line = format!(
            "iter {} | self-play {} games{teacher}{handicap}, defenders {:.0}%, attackers {:.0}%, no result {:.0}%, {:.0} plies, {} samples, {:.0} games/h{cache} | loss {:.3} (policy {:.3}, value {:.3}) value acc {:.2}, {:.0} samples/s | {arena}{}{} | {:.0}s",
            s.iteration,
            sp.games,
            100.0 * sp.defender_share(),
            100.0 * sp.attacker_wins as f64 / sp.games.max(1) as f64,
            100.0 * sp.no_result as f64 / sp.games.max(1) as f64,
            sp.mean_length(),
            sp.samples,
            s.games_per_hour,
            s.loss[0],
            s.loss[1],
            s.loss[2],
            s.value_accuracy,
            s.samples_per_second,
            if ladder.is_empty() { "" } else { " | ladder: " },
            ladder.join(", "),
            took.as_secs_f64()
        );
        self.log.line(&line, !self.options.quiet);
        if let Some(curve) = crate::ladder::latest_point(history, s) {
            self.log.line(&curve, !self.options.quiet);
        }
        let step = s.iteration as u64;
        let mut scalars: Vec<(String, f64)> = vec![
            ("loss/total".into(), s.loss[0] as f64),
            ("loss/policy".into(), s.loss[1] as f64),
            ("loss/value".into(), s.loss[2] as f64),
            ("loss/moves_left".into(), s.loss[3] as f64),
            ("net/value_accuracy".into(), s.value_accuracy),
            ("net/policy_entropy".into(), s.net_policy_entropy),
            ("selfplay/policy_entropy".into(), sp.mean_policy_entropy()),
            ("selfplay/game_length".into(), sp.mean_length()),
            ("selfplay/defender_share".into(), sp.defender_share()),
            // Between equals only: handicapped games say little about the balance of play.
            (
                "selfplay/even_defender_share".into(),
                sp.even_defender_wins as f64 / sp.games.saturating_sub(sp.handicapped).max(1) as f64,
            ),
            (
                "selfplay/no_result_share".into(),
                sp.no_result as f64 / sp.games.max(1) as f64,
            ),
            ("selfplay/games_per_hour".into(), s.games_per_hour),
            (
                "selfplay/handicapped_share".into(),
                sp.handicapped as f64 / sp.games.max(1) as f64,
            ),
            (
                "selfplay/false_resign_share".into(),
                sp.false_resigns as f64 / sp.resign_checks.max(1) as f64,
            ),
            ("train/samples_per_second".into(), s.samples_per_second),
        ];
        if let Some(e) = s.arena_elo {
            scalars.push(("arena/elo_vs_best".into(), e.elo));
        }
        for r in &s.ladder {
            scalars.push((
                format!("ladder/elo_vs_{}", r.anchor.replace([':', '='], "_")),
                r.elo.elo,
            ));
        }
        let refs: Vec<(&str, f64)> = scalars.iter().map(|(t, v)| (t.as_str(), *v)).collect();
        if let Err(e) = self.events.write(step, &refs) {
            self.log
                .line(&format!("warning: TensorBoard events: {e}"), !self.options.quiet);
        }
    }
}
