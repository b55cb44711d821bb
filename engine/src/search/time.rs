//! Thinking time: how long a player may search a move, and the time manager that turns a game
//! clock into a budget per move.
//!
//! A limit is a number of simulations (the player spec's), a fixed time per move, or a game
//! clock with an increment. Under a clock the manager gives each move a *soft* budget (a share
//! of the remaining time plus most of the increment) and a *hard* one (a few times more, never
//! more than a quarter of what is left): the search stops at the soft budget when its best move
//! is clear, and spends up to the hard one on moves where it is not, so critical moves get more
//! time and the clock is never run out.

use std::time::{Duration, Instant};

/// Safety margin kept off every budget: what the host, the pipe and the process need to pass a
/// move on after the search stops.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(30);

/// The search time of a fixed time per move `d`: `d` less [`MOVE_OVERHEAD`], but the overhead
/// never takes more than a third of `d`. A whole 30 ms off would leave a short move time
/// nothing: `--movetime 30ms` searched a few leaves and moved at once, so matches at tens of
/// milliseconds a move measured players that did not think. From 90 ms up the full overhead is
/// kept, so longer move times search exactly as before.
pub fn move_time_search(d: Duration) -> Duration {
    d.saturating_sub(MOVE_OVERHEAD.min(d / 3))
}

/// How much a player may think for one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThinkingLimit {
    /// The player's own simulation count.
    #[default]
    Simulations,
    /// A fixed time per move.
    MoveTime(Duration),
    /// A game clock: the time given at the start and the increment added after each move.
    Clock {
        /// Time at the start of the game.
        base: Duration,
        /// Added to the mover's clock after each of its moves.
        increment: Duration,
    },
}

impl ThinkingLimit {
    /// Parses `--movetime` text: seconds, or milliseconds with `ms` (`2`, `0.5`, `250ms`).
    pub fn parse_movetime(text: &str) -> Result<ThinkingLimit, String> {
        let d = parse_duration(text).map_err(|e| format!("movetime `{}`: {e}", cut(text)))?;
        if d.is_zero() {
            return Err(format!("movetime `{}`: must be more than 0", cut(text)));
        }
        Ok(ThinkingLimit::MoveTime(d))
    }

    /// Parses `--clock` text: `BASE+INCREMENT` in seconds (`60+1`, `300`, `0.5+0.1`; a
    /// duration may end in `ms` or `s`).
    pub fn parse_clock(text: &str) -> Result<ThinkingLimit, String> {
        let (base, inc) = match text.split_once('+') {
            Some((b, i)) => (b, i),
            None => (text, "0"),
        };
        let base = parse_duration(base).map_err(|e| format!("clock `{}`: base time: {e}", cut(text)))?;
        let increment = parse_duration(inc).map_err(|e| format!("clock `{}`: increment: {e}", cut(text)))?;
        if base.is_zero() && increment.is_zero() {
            return Err(format!("clock `{}`: no time at all", cut(text)));
        }
        Ok(ThinkingLimit::Clock { base, increment })
    }

    /// The deadline of the next move, `ply` plies into the game, under this limit and the
    /// player's `clock` (kept by a match or a host): none for simulations alone, but a clock
    /// caps even a search by simulations, so that it never runs out; a time per move less its
    /// overhead ([`move_time_search`]); a clock limit with no clock yet starts from its base
    /// time.
    pub fn deadline(&self, clock: Option<Clock>, ply: u32) -> Deadline {
        match *self {
            ThinkingLimit::Simulations => Deadline {
                soft: None,
                hard: clock.and_then(|c| c.deadline(ply).hard),
            },
            ThinkingLimit::MoveTime(d) => Deadline::fixed(move_time_search(d)),
            ThinkingLimit::Clock { base, increment } => clock
                .unwrap_or(Clock {
                    remaining: base,
                    increment,
                })
                .deadline(ply),
        }
    }

    /// The limit as command-line text (`--movetime 2` / `--clock 60+1`), empty for simulations.
    pub fn flag(&self) -> String {
        match self {
            ThinkingLimit::Simulations => String::new(),
            ThinkingLimit::MoveTime(d) => format!("--movetime {}", secs(*d)),
            ThinkingLimit::Clock { base, increment } => {
                format!("--clock {}+{}", secs(*base), secs(*increment))
            }
        }
    }
}

impl std::fmt::Display for ThinkingLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ThinkingLimit::Simulations => f.write_str("the players' simulations"),
            ThinkingLimit::MoveTime(d) => write!(f, "{} s a move", secs(*d)),
            ThinkingLimit::Clock { base, increment } => {
                write!(f, "a clock of {} s + {} s a move", secs(*base), secs(*increment))
            }
        }
    }
}

fn secs(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn cut(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text.to_string()
    }
}

/// Parses `1.5`, `1.5s` or `250ms` into a duration of at most a day.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, scale) = if let Some(ms) = t.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(s) = t.strip_suffix('s') {
        (s, 1.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = number
        .trim()
        .parse()
        .map_err(|_| "not a number of seconds (e.g. 2, 0.5, 250ms)".to_string())?;
    let secs = v * scale;
    if !(secs.is_finite() && secs >= 0.0) {
        return Err("must be a number of seconds, 0 or more".into());
    }
    if secs > 86_400.0 {
        return Err("more than a day".into());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// When a search stops, besides its simulation count: at `hard` whatever, at `soft` once its
/// best move is clear.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline {
    /// Stop here if the best move is clear (most visits at least twice the next).
    pub soft: Option<Instant>,
    /// Stop here.
    pub hard: Option<Instant>,
}

impl Deadline {
    /// No deadline: the simulation count alone.
    pub fn none() -> Deadline {
        Deadline::default()
    }
    /// Both at `now + d`.
    pub fn fixed(d: Duration) -> Deadline {
        let at = Instant::now() + d;
        Deadline {
            soft: Some(at),
            hard: Some(at),
        }
    }
    /// The same deadline, but never past `at` (a server's deadline for the whole request).
    pub fn cut_at(self, at: Option<Instant>) -> Deadline {
        let Some(at) = at else { return self };
        let cut = |d: Option<Instant>| Some(d.map_or(at, |d| d.min(at)));
        Deadline {
            soft: self.soft.map(|s| s.min(at)),
            hard: cut(self.hard),
        }
    }
    /// Whether the search has a time limit.
    pub fn is_timed(&self) -> bool {
        self.hard.is_some()
    }
    /// Whether to stop now, given whether the best move is clear.
    pub fn reached(&self, clear: impl FnOnce() -> bool) -> bool {
        let now = Instant::now();
        if self.hard.is_some_and(|h| now >= h) {
            return true;
        }
        self.soft.is_some_and(|s| now >= s) && clear()
    }
}

/// A player's clock during a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left.
    pub remaining: Duration,
    /// Added after each of the player's moves.
    pub increment: Duration,
}

impl Clock {
    /// The soft and hard budgets of the next move, `ply` plies into the game. The soft one is
    /// the remaining time over the moves the game may still last (at least 20 of this side's,
    /// fewer expected late in long games) plus 80% of the increment; the hard one three times
    /// that. Neither exceeds a quarter of the remaining time plus the increment, and both
    /// leave [`MOVE_OVERHEAD`], so the clock never runs out from the manager's choices.
    pub fn budget(&self, ply: u32) -> (Duration, Duration) {
        let moves_left = (40.0 - ply as f64 / 4.0).max(20.0);
        let remaining = self.remaining.saturating_sub(MOVE_OVERHEAD);
        let soft = remaining.as_secs_f64() / moves_left + 0.8 * self.increment.as_secs_f64();
        let cap =
            (remaining.as_secs_f64() / 4.0 + self.increment.as_secs_f64() * 0.9).min(remaining.as_secs_f64());
        let soft = soft.min(cap);
        let hard = (3.0 * soft).min(cap);
        (Duration::from_secs_f64(soft), Duration::from_secs_f64(hard))
    }

    /// The deadline of the next move, from now.
    pub fn deadline(&self, ply: u32) -> Deadline {
        let (soft, hard) = self.budget(ply);
        let now = Instant::now();
        Deadline {
            soft: Some(now + soft),
            hard: Some(now + hard),
        }
    }

    /// After a move that took `used`: the time left (never below zero) plus the increment.
    /// Returns false if the time ran out (the move came too late).
    pub fn spend(&mut self, used: Duration) -> bool {
        let ok = used <= self.remaining;
        self.remaining = self.remaining.saturating_sub(used) + self.increment;
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_from_text_and_refuse_nonsense() {
        assert_eq!(
            ThinkingLimit::parse_movetime("2").unwrap(),
            ThinkingLimit::MoveTime(Duration::from_secs(2))
        );
        assert_eq!(
            ThinkingLimit::parse_movetime("250ms").unwrap(),
            ThinkingLimit::MoveTime(Duration::from_millis(250))
        );
        assert_eq!(
            ThinkingLimit::parse_clock("60+1").unwrap(),
            ThinkingLimit::Clock {
                base: Duration::from_secs(60),
                increment: Duration::from_secs(1)
            }
        );
        assert_eq!(
            ThinkingLimit::parse_clock("300").unwrap(),
            ThinkingLimit::Clock {
                base: Duration::from_secs(300),
                increment: Duration::ZERO
            }
        );
        for bad in ["0", "-1", "x", "nan", "1e30", ""] {
            assert!(ThinkingLimit::parse_movetime(bad).is_err(), "{bad}");
        }
        for bad in ["0+0", "a+1", "1+b", "-5+1"] {
            assert!(ThinkingLimit::parse_clock(bad).is_err(), "{bad}");
        }
        let c = ThinkingLimit::parse_clock("0.5+0.1").unwrap();
        assert_eq!(c.flag(), "--clock 0.5+0.1");
        assert_eq!(ThinkingLimit::parse_clock(&c.flag()[8..]).unwrap(), c);
    }

    #[test]
    fn a_short_move_time_still_searches_and_a_long_one_keeps_the_whole_overhead() {
        let ms = Duration::from_millis;
        assert_eq!(move_time_search(ms(1_000)), ms(970));
        assert_eq!(move_time_search(ms(100)), ms(70));
        assert_eq!(move_time_search(ms(90)), ms(60));
        assert_eq!(move_time_search(ms(30)), ms(20));
        assert_eq!(move_time_search(ms(3)), ms(2));
        // The deadline of a 30 ms move lies about 20 ms ahead, not now.
        let t0 = Instant::now();
        let d = ThinkingLimit::MoveTime(ms(30)).deadline(None, 0);
        let hard = d.hard.unwrap();
        assert!(hard >= t0 + ms(20) && d.soft == Some(hard), "{d:?}");
    }

    #[test]
    fn the_time_manager_never_spends_the_whole_clock() {
        for remaining_ms in [0u64, 10, 31, 100, 1_000, 60_000, 3_600_000] {
            for inc_ms in [0u64, 100, 2_000] {
                let clock = Clock {
                    remaining: Duration::from_millis(remaining_ms),
                    increment: Duration::from_millis(inc_ms),
                };
                for ply in [0, 40, 400] {
                    let (soft, hard) = clock.budget(ply);
                    assert!(soft <= hard, "{clock:?} {ply}");
                    assert!(
                        hard + MOVE_OVERHEAD <= clock.remaining.max(MOVE_OVERHEAD),
                        "{clock:?} ply {ply}: hard {hard:?}"
                    );
                }
            }
        }
        // A game of 200 moves on 10 s + 0.1 s never flags when each move takes its hard budget.
        let mut clock = Clock {
            remaining: Duration::from_secs(10),
            increment: Duration::from_millis(100),
        };
        for ply in 0..200 {
            let (_, hard) = clock.budget(ply * 2);
            assert!(clock.spend(hard + MOVE_OVERHEAD / 2), "flagged at move {ply}");
        }
        // More time, more thinking; an increment is mostly spent.
        let short = Clock {
            remaining: Duration::from_secs(10),
            increment: Duration::ZERO,
        };
        let long = Clock {
            remaining: Duration::from_secs(100),
            increment: Duration::ZERO,
        };
        assert!(long.budget(10).0 > short.budget(10).0 * 5);
        let inc = Clock {
            remaining: Duration::from_secs(10),
            increment: Duration::from_secs(1),
        };
        assert!(inc.budget(10).0 >= short.budget(10).0 + Duration::from_millis(700));
    }

    #[test]
    fn each_limit_gives_its_deadline_and_a_clock_caps_simulations() {
        let clock = Clock {
            remaining: Duration::from_secs(10),
            increment: Duration::ZERO,
        };
        assert_eq!(ThinkingLimit::Simulations.deadline(None, 0), Deadline::none());
        let capped = ThinkingLimit::Simulations.deadline(Some(clock), 0);
        assert!(capped.soft.is_none() && capped.hard.is_some());
        let timed = ThinkingLimit::MoveTime(Duration::from_secs(1)).deadline(None, 0);
        assert!(timed.hard.is_some() && timed.soft == timed.hard);
        let by_clock = ThinkingLimit::Clock {
            base: Duration::from_secs(10),
            increment: Duration::ZERO,
        }
        .deadline(None, 0);
        assert!(by_clock.soft.unwrap() < by_clock.hard.unwrap());
    }

    #[test]
    fn a_deadline_waits_for_a_clear_best_move_until_its_hard_limit() {
        let past = Instant::now() - Duration::from_millis(1);
        let future = Instant::now() + Duration::from_secs(60);
        let soft_only = Deadline {
            soft: Some(past),
            hard: Some(future),
        };
        assert!(soft_only.reached(|| true));
        assert!(!soft_only.reached(|| false));
        let hard = Deadline {
            soft: Some(past),
            hard: Some(past),
        };
        assert!(hard.reached(|| false));
        assert!(!Deadline::none().reached(|| true));
    }
}
