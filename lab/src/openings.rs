//! Building opening suites ([`tafl_engine::formats::OpeningSuite`]): start positions from which equal
//! skilled players score about even, so that a match from them measures strength even under
//! rules where the defenders win nearly every game from the start.
//!
//! Candidates come from play ([`Source`]): by default, positions a few plies before the end
//! of games in which the defence erred and the attackers won (mirror images and rotations of
//! one another removed), where the attackers had their chance and the defence may still hold.
//! Each is judged by play: the judge (a skilled player, the hand-written search by default)
//! plays it against itself with each side's simulations drawn around its own for every game
//! (equal searches would play one game again and again) and no random moves after the
//! opening: first half the games, dropping a position that can no longer be kept, then the
//! rest. A position is kept when the share of games the attackers win from it lies in the
//! asked range (25-75% by default); the defence wins or holds the others.

use crate::players::{build, Resolved};
use indicatif::ProgressBar;
use std::collections::HashSet;
use tafl_engine::{
    board::game_seed,
    formats::{symmetry_key, OpeningSuite, SuiteEntry},
    search::{
        classic_evaluator, play_match_from, suite_tallies, MatchSettings, Openings, Player, PlayerSpec,
        SearchConfig, SideTally,
    },
    with_board, BitSet, Game, Position, Rules, Ruleset, Side,
};

/// The judge of the default suites: the hand-written search at 400 simulations, the same
/// player under every ruleset and quick enough to judge hundreds of candidates.
pub const DEFAULT_JUDGE: &str = "mcts:heuristic:400";

/// What a suite is built from, checked by [`BuildRequest::validate`].
#[derive(Clone, Debug)]
pub struct BuildRequest {
    /// The rules, as given on the command line (for the header's remake line).
    pub rules_text: String,
    /// The ruleset.
    pub ruleset: Ruleset,
    /// The judge as given (`mcts:heuristic:400`, `level:5`).
    pub judge_text: String,
    /// The judge.
    pub judge: Resolved,
    /// Candidate positions to judge.
    pub candidates: usize,
    /// Least and most plies of a candidate's opening.
    pub plies: (u32, u32),
    /// Where candidates come from.
    pub source: Source,
    /// Whose moves are random in the openings or source games (`None`: both sides'); the
    /// other side plays the judge's moves.
    pub random_side: Option<Side>,
    /// How far each side's simulations stray from the judge's own, as a factor: each side of
    /// each judging game searches with simulations drawn log-uniformly from `sims / spread`
    /// to `sims * spread`. Equal searches play one game again and again from a position;
    /// players of about equal strength vary, and a position where the better-playing side
    /// wins, whichever it is, is what a suite is for. 1: all games at the judge's own.
    pub spread: f64,
    /// Games the judge plays from each candidate (even; half first, then the rest).
    pub games: u32,
    /// The attackers' score a kept position has, least and most.
    pub keep: (f64, f64),
    /// The most positions kept (the first judged, in candidate order).
    pub size: usize,
    /// Plies after which a judging game ends with no result (0: none).
    pub ply_limit: u32,
    /// Seed of the candidates and of the judge's games.
    pub seed: u64,
    /// Games played at once.
    pub threads: usize,
}

/// The most candidates one build judges.
pub const MAX_CANDIDATES: usize = 100_000;

impl BuildRequest {
    /// Checks every setting before a game is played; errors name the flag.
    pub fn validate(&self) -> Result<(), String> {
        if self.candidates == 0 || self.candidates > MAX_CANDIDATES {
            return Err(format!(
                "--candidates: {} is not in 1..={MAX_CANDIDATES}",
                self.candidates
            ));
        }
        let (lo, hi) = self.plies;
        if lo > hi || hi > 200 {
            return Err(format!("--plies: {lo}-{hi} is not a range of 0 to 200 plies"));
        }
        if self.ply_limit > 0 && hi >= self.ply_limit {
            return Err(format!(
                "--plies: {hi} must be below --ply-limit {}",
                self.ply_limit
            ));
        }
        if self.games < 2 || !self.games.is_multiple_of(2) || self.games > 1000 {
            return Err(format!("--games: {} must be even, 2 to 1000", self.games));
        }
        let (a, b) = self.keep;
        if !(0.0..=1.0).contains(&a) || !(0.0..=1.0).contains(&b) || a > b {
            return Err(format!("--keep: {a}-{b} is not a range within 0 to 1"));
        }
        if !(1.0..=16.0).contains(&self.spread) {
            return Err(format!("--spread: {} is not a factor from 1 to 16", self.spread));
        }
        if self.size == 0 {
            return Err("--size must be at least 1".into());
        }
        if self.ply_limit == 0 {
            // Two deterministic equal players under rules that ignore repetition can shuffle forever.
            return Err("--ply-limit 0: judging games could go on forever; set a ply limit".into());
        }
        Ok(())
    }

    /// Games a candidate plays before it may be dropped: about half of them, even, since a
    /// candidate's games are played in colour-swapped pairs (all of them when there are two).
    pub fn first_round(&self) -> u32 {
        if self.games >= 4 {
            self.games / 4 * 2
        } else {
            self.games
        }
    }

    /// The command line that builds the same suite.
    pub fn command_line(&self) -> String {
        format!(
            "tafl openings --rules {} --judge {} --candidates {} --source {} --plies {}-{} --random-side {} --spread {} --games {} --keep {}-{} --size {} --ply-limit {} --seed {}",
            self.rules_text,
            self.judge_text,
            self.candidates,
            self.source.text(),
            self.plies.0,
            self.plies.1,
            self.random_side.map_or("both", Side::name),
            self.spread,
            self.games,
            self.keep.0,
            self.keep.1,
            self.size,
            self.ply_limit,
            self.seed
        )
    }
}

/// A candidate and how its games went.
#[derive(Clone, Debug)]
pub struct Judged {
    /// Its entry in the suite (record, side to move, note).
    pub entry: SuiteEntry,
    /// Its games by side.
    pub tally: SideTally,
    /// Whether it was kept.
    pub kept: bool,
}

/// A built suite and what was spent on it.
#[derive(Clone, Debug)]
pub struct Built {
    /// The suite.
    pub suite: OpeningSuite,
    /// Every candidate, in candidate order, with its games.
    pub judged: Vec<Judged>,
    /// Games played.
    pub games: u64,
}

/// Salts of the seeds, so that candidates and the two rounds of games draw apart.
const CANDIDATE_SEED: u64 = 0x0BE7_C0DE;
const SECOND_ROUND_SEED: u64 = 0x5EC0_4D00;

/// Builds a suite; `bar` counts the games played (its length is set here).
pub fn build_suite(req: &BuildRequest, bar: &ProgressBar) -> Result<Built, String> {
    req.validate()?;
    with_board!(&req.ruleset, B, rules => build_on::<B>(req, &rules, bar))
}

fn build_on<B: BitSet>(req: &BuildRequest, rules: &Rules<B>, bar: &ProgressBar) -> Result<Built, String> {
    // The judge must build under these rules (a model for other rules fails here).
    build::<B>(&req.judge, 0, rules).map_err(|e| format!("--judge: {e}"))?;
    let (positions, openings) = candidates(req, rules)?;
    if positions.len() < req.candidates {
        eprintln!(
            "note: only {} distinct candidate positions after {}-{} random plies (asked for {})",
            positions.len(),
            req.plies.0,
            req.plies.1,
            req.candidates
        );
    }
    let first = req.first_round();
    bar.set_length(positions.len() as u64 * req.games as u64);
    let mut tallies = judge(req, rules, &positions, first, req.seed, bar)?;
    let rest = req.games - first;
    let alive: Vec<usize> = (0..positions.len())
        .filter(|&i| {
            let t = tallies[i];
            let (lo, hi) = req.keep;
            let n = req.games as f64;
            // Could the attackers still win at least `lo` of the games, and lose or hold at
            // least `1 - hi` of them, if the second round went all their way (or all the other)?
            let reachable = (t.attackers + rest) as f64 >= lo * n
                && (t.defenders + t.other + rest) as f64 >= (1.0 - hi) * n;
            // A first round of four or more games all one way is far from even, if not out of
            // reach (1 in 8 or less for an even position): its second round is not played.
            let swept = first >= 4 && (t.attackers == 0 || t.attackers == first);
            reachable && !swept
        })
        .collect();
    bar.set_length(bar.position() + alive.len() as u64 * rest as u64);
    let second: Vec<Position<B>> = alive.iter().map(|&i| positions[i]).collect();
    let mut games = positions.len() as u64 * first as u64;
    if !second.is_empty() && rest > 0 {
        let more = judge(req, rules, &second, rest, req.seed ^ SECOND_ROUND_SEED, bar)?;
        for (&i, t) in alive.iter().zip(more) {
            tallies[i].attackers += t.attackers;
            tallies[i].defenders += t.defenders;
            tallies[i].other += t.other;
        }
        games += second.len() as u64 * rest as u64;
    }
    let mut kept = 0usize;
    let judged: Vec<Judged> = positions
        .iter()
        .zip(&tallies)
        .zip(&openings)
        .map(|((pos, &tally), moves)| {
            let keep = balanced(req, &tally) && kept < req.size;
            kept += keep as usize;
            let note = format!(
                "attackers won {}, defenders {}, no result {} ; from the start: {moves}",
                tally.attackers, tally.defenders, tally.other
            );
            Judged {
                entry: SuiteEntry::of(rules, pos, note),
                tally,
                kept: keep,
            }
        })
        .collect();
    let balanced = judged.iter().filter(|j| balanced(req, &j.tally)).count();
    let suite = OpeningSuite {
        rules: req.ruleset.id().to_string(),
        header: header(req, positions.len(), balanced, kept, games),
        entries: judged
            .iter()
            .filter(|j| j.kept)
            .map(|j| j.entry.clone())
            .collect(),
    };
    Ok(Built { suite, judged, games })
}

/// Whether a position's games were even enough to keep it: all of them played, and the
/// attackers won a share of them within the range. The rest are the defence's: under these
/// rules holding on to the end without a result is what a defence that cannot escape aims for.
fn balanced(req: &BuildRequest, t: &SideTally) -> bool {
    let (lo, hi) = req.keep;
    t.games() == req.games && (lo..=hi).contains(&(t.attackers as f64 / t.games() as f64))
}

/// Where candidate positions come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source {
    /// `plies` plies from the start, the random side's moves uniformly random and the other
    /// side's the judge's.
    Start,
    /// Source games from the start to their end, each move of the random side uniformly
    /// random with this probability (else the judge's) and the other side's the judge's;
    /// a candidate is the position `plies` plies before the end of a game the other side won
    /// (either side, when both err), where the winner had its chance and the loser may still
    /// hold.
    BeforeTheEnd(f64),
}

impl Source {
    /// As the command line writes it: `start` or `end:P`.
    pub fn text(&self) -> String {
        match self {
            Source::Start => "start".into(),
            Source::BeforeTheEnd(p) => format!("end:{p}"),
        }
    }

    /// Parses `start` or `end:P` (P a probability).
    pub fn parse(s: &str) -> Result<Source, String> {
        if s == "start" {
            return Ok(Source::Start);
        }
        let p = s
            .strip_prefix("end:")
            .and_then(|p| p.parse::<f64>().ok())
            .filter(|p| (0.0..=1.0).contains(p))
            .ok_or_else(|| format!("`{s}` is not a source; write start or end:P with P from 0 to 1"))?;
        Ok(Source::BeforeTheEnd(p))
    }
}

/// One candidate try: the opening game to its candidate position, or `None` when the try
/// gave none (a game over too soon, an undecided source game).
fn candidate_try<B: BitSet>(
    req: &BuildRequest,
    rules: &Rules<B>,
    seed: u64,
) -> Result<Option<Game<B>>, String> {
    let (lo, hi) = req.plies;
    let plies = lo + (seed % (hi - lo + 1) as u64) as u32;
    let mut random = Player::new(
        &PlayerSpec::Random,
        seed,
        &SearchConfig::default(),
        &classic_evaluator::<B>,
    )?;
    let mut opener = build::<B>(&req.judge, seed, rules)?;
    // Errors in a source game: each move of the random side with this probability.
    let (errors, to_ply) = match req.source {
        Source::Start => (1.0, Some(plies)),
        Source::BeforeTheEnd(p) => (p, None),
    };
    let limit = (req.ply_limit > 0).then_some(req.ply_limit);
    let mut game = Game::new(rules).with_ply_limit(limit);
    let mut draw = game_seed(seed, 0xE770);
    while game.outcome().is_none() && to_ply.is_none_or(|n| game.ply() < n) {
        let side = game.position().to_move();
        draw = game_seed(draw, 1);
        let err = (draw >> 11) as f64 / (1u64 << 53) as f64 <= errors;
        let mover = if req.random_side.is_none_or(|r| r == side) && err {
            &mut random
        } else {
            &mut opener
        };
        let Some((mv, _)) = mover.choose(rules, &game) else {
            break;
        };
        if game.play(rules, mv).is_err() {
            break;
        }
    }
    let game = match to_ply {
        Some(n) => (game.outcome().is_none() && game.ply() == n).then_some(game),
        None => {
            // Won by the side that did not err (by either side when both erred).
            let decided = game
                .outcome()
                .and_then(|o| o.winner)
                .is_some_and(|w| req.random_side.is_none_or(|r| r != w));
            let back = game.ply().checked_sub(plies).filter(|&p| p > 0);
            match (decided, back) {
                (true, Some(at)) => Some(replay_to(rules, &game, at)),
                _ => None,
            }
        }
    };
    Ok(game.filter(|g| g.outcome().is_none() && g.position().settled_outcome(rules).is_none()))
}

/// The first `plies` plies of `game`, replayed.
fn replay_to<B: BitSet>(rules: &Rules<B>, game: &Game<B>, plies: u32) -> Game<B> {
    let mut g = Game::new(rules);
    for p in game.history().iter().take(plies as usize) {
        g.play_unchecked(rules, p.mv);
    }
    g
}

/// The candidates from the request's source, with no two alike up to the board's symmetries,
/// and the moves that led to each. Tries run in parallel in batches; they are taken in try
/// order, so the candidates do not depend on the thread count.
fn candidates<B: BitSet>(
    req: &BuildRequest,
    rules: &Rules<B>,
) -> Result<(Vec<Position<B>>, Vec<String>), String> {
    use rayon::prelude::*;
    let mut seen = HashSet::new();
    let (mut positions, mut moves) = (Vec::new(), Vec::new());
    let tries = (req.candidates as u64).saturating_mul(20).max(1000);
    let batch = 64u64;
    let mut next = 0u64;
    while positions.len() < req.candidates && next < tries {
        let seeds: Vec<u64> = (next..(next + batch).min(tries))
            .map(|i| game_seed(req.seed ^ CANDIDATE_SEED, i))
            .collect();
        next += seeds.len() as u64;
        let games: Vec<Result<Option<Game<B>>, String>> =
            seeds.par_iter().map(|&s| candidate_try(req, rules, s)).collect();
        for game in games {
            let Some(game) = game? else { continue };
            if positions.len() >= req.candidates {
                break;
            }
            let pos = *game.position();
            if !seen.insert(symmetry_key(rules, &pos)) {
                continue;
            }
            let text: Vec<String> = game.history().iter().map(|p| p.mv.text(rules.n)).collect();
            positions.push(pos);
            moves.push(text.join(" "));
        }
    }
    Ok((positions, moves))
}

/// Plays `games` games of the judge against itself from each position (seeded from `seed`)
/// and tallies them by position and side.
fn judge<B: BitSet>(
    req: &BuildRequest,
    rules: &Rules<B>,
    positions: &[Position<B>],
    games: u32,
    seed: u64,
    bar: &ProgressBar,
) -> Result<Vec<SideTally>, String> {
    let total = u32::try_from(positions.len() as u64 * games as u64)
        .map_err(|_| "--candidates times --games is too many games".to_string())?;
    // Pair p plays position p % len: with an even count per position, each gets games / 2 pairs.
    let settings = MatchSettings {
        games: total,
        ply_limit: (req.ply_limit > 0).then_some(req.ply_limit),
        opening_plies: 0,
        threads: req.threads.max(1),
        seed,
        exploration: 0.0,
        limit: tafl_engine::search::ThinkingLimit::Simulations,
        search_threads: 0,
    };
    let judge = &req.judge;
    let result = play_match_from(
        rules,
        &|s| build::<B>(&varied(judge, req.spread, s), s, rules),
        &|s| build::<B>(&varied(judge, req.spread, s), s, rules),
        &settings,
        Openings::Suite(positions),
        &|_| bar.inc(1),
    )?;
    Ok(suite_tallies(&result.scores, positions.len()))
}

/// The judge for one side of one game: a search's simulations drawn log-uniformly within a
/// factor `spread` of its own, from `seed` (other players as they are).
fn varied(judge: &Resolved, spread: f64, seed: u64) -> Resolved {
    let mut r = judge.clone();
    if let PlayerSpec::Mcts { simulations, .. } = &mut r.spec {
        // A uniform draw in [0, 1) from the seed's top 53 bits.
        let u = (game_seed(seed, 0x51A5) >> 11) as f64 / (1u64 << 53) as f64;
        let factor = spread.powf(2.0 * u - 1.0);
        *simulations = ((*simulations as f64 * factor).round() as u32).max(1);
    }
    r
}

/// How the candidates were found, for the header.
fn candidates_text(req: &BuildRequest) -> String {
    let random = match req.random_side {
        None => "both sides".to_string(),
        Some(side) => format!("the {side} (the {} play the judge's moves)", side.opponent()),
    };
    let (lo, hi) = req.plies;
    match req.source {
        Source::Start => format!("{lo} to {hi} plies from the start, every move of {random} uniformly random"),
        Source::BeforeTheEnd(p) => format!(
            "the position {lo} to {hi} plies before the end of a game from the start in which each move of {random} was uniformly random with probability {p}, else the judge's, and which the side that did not err won"
        ),
    }
}

/// The comment lines that head a built suite: how it was made and how to make it again.
fn header(req: &BuildRequest, candidates: usize, balanced: usize, kept: usize, games: u64) -> Vec<String> {
    vec![
        format!("Opening suite for {}, made by `tafl openings` (seed {}).", req.ruleset.id(), req.seed),
        format!(
            "Candidates: {candidates} positions, mirror images and rotations removed: {}.",
            candidates_text(req)
        ),
        format!(
            "Judged by play: {} against itself, each side's simulations drawn within a factor {} of its own for each game, {} games a position with no random moves after the opening ({} first; a position that can no longer be kept after those is dropped), ply limit {}.",
            req.judge.label,
            req.spread,
            req.games,
            req.first_round(),
            req.ply_limit
        ),
        format!(
            "Kept: the attackers won from {} to {} of the games (the defenders won or held the rest): {balanced} of {candidates} candidates, {kept} kept; {games} games played.",
            req.keep.0,
            req.keep.1
        ),
        format!("Remake: {}", req.command_line()),
        "Each line: the position (OpenTafl record, first row = rank 1) and the side to move; after `;`, how the judge's games went and the random plies that led there.".to_string(),
        "Lines may be removed, reordered or added by hand; `tafl arena --openings FILE` plays each position twice, colours swapped.".to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(candidates: usize) -> BuildRequest {
        BuildRequest {
            rules_text: "brandubh".into(),
            ruleset: Ruleset::builtin("brandubh"),
            judge_text: "mcts:heuristic:20".into(),
            judge: crate::players::resolve("mcts:heuristic:20").unwrap(),
            candidates,
            plies: (2, 6),
            source: Source::Start,
            random_side: Some(Side::Defenders),
            spread: 2.0,
            games: 4,
            keep: (0.0, 1.0),
            size: 100,
            ply_limit: 60,
            seed: 3,
            threads: 2,
        }
    }

    #[test]
    fn a_suite_is_judged_reproducibly_and_reads_back() {
        let bar = ProgressBar::hidden();
        let built = build_suite(&request(6), &bar).unwrap();
        assert_eq!(built.judged.len(), 6);
        // The whole range kept: every position played all its games, or was dropped after
        // one side won every game of the first round.
        for j in &built.judged {
            let n = j.tally.games();
            assert!(n == 4 || n == 2, "{j:?}");
            assert_eq!(j.kept, n == 4);
            assert!(j
                .entry
                .note
                .starts_with(&format!("attackers won {}, ", j.tally.attackers)));
        }
        let text = built.suite.to_text();
        let again = build_suite(&request(6), &bar).unwrap();
        assert_eq!(again.suite.to_text(), text, "the same seed makes the same suite");
        let read = OpeningSuite::parse(&text).unwrap();
        let rules = Rules::<u128>::new(&Ruleset::builtin("brandubh")).unwrap();
        assert_eq!(read.positions(&rules).unwrap().len(), built.suite.entries.len());
        assert!(
            text.contains("Remake: tafl openings --rules brandubh --judge mcts:heuristic:20"),
            "{text}"
        );
        let keys: HashSet<u64> = read
            .positions(&rules)
            .unwrap()
            .iter()
            .map(|p| symmetry_key(&rules, p))
            .collect();
        assert_eq!(
            keys.len(),
            read.entries.len(),
            "no two positions alike up to symmetry"
        );
    }

    #[test]
    fn a_narrow_range_keeps_only_positions_inside_it() {
        let bar = ProgressBar::hidden();
        let mut req = request(6);
        req.keep = (0.4, 0.6);
        let built = build_suite(&req, &bar).unwrap();
        for j in &built.judged {
            let t = j.tally;
            let even = t.games() == 4 && t.attackers == 2;
            assert_eq!(j.kept, even, "{j:?}");
        }
    }

    #[test]
    fn sources_read_back_what_they_write() {
        for text in ["start", "end:0.3", "end:1"] {
            assert_eq!(Source::parse(text).unwrap().text(), text);
        }
        for bad in ["", "end", "end:", "end:1.5", "end:x", "middle"] {
            assert!(Source::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn candidates_from_source_games_precede_a_win_of_the_side_that_did_not_err() {
        let rules = Rules::<u128>::new(&Ruleset::builtin("brandubh")).unwrap();
        let mut req = request(4);
        req.source = Source::BeforeTheEnd(0.5);
        req.plies = (1, 1);
        let (positions, moves) = candidates(&req, &rules).unwrap();
        assert_eq!(positions.len(), 4);
        for (pos, line) in positions.iter().zip(&moves) {
            // One ply before the attackers' win: their winning move is next.
            assert_eq!(pos.to_move(), Side::Attackers, "{line}");
            assert!(pos.settled_outcome(&rules).is_none());
            let mut g = Game::new(&rules);
            for m in line.split_whitespace() {
                g.play(&rules, tafl_engine::formats::parse_move(7, m).unwrap().0)
                    .unwrap();
            }
            assert_eq!(g.position(), pos, "the moves lead to the position");
        }
    }

    #[test]
    fn bad_settings_are_refused_naming_the_flag() {
        for (change, want) in [
            (
                Box::new(|r: &mut BuildRequest| r.games = 3) as Box<dyn Fn(&mut BuildRequest)>,
                "--games",
            ),
            (Box::new(|r: &mut BuildRequest| r.plies = (5, 2)), "--plies"),
            (Box::new(|r: &mut BuildRequest| r.keep = (0.8, 0.2)), "--keep"),
            (Box::new(|r: &mut BuildRequest| r.candidates = 0), "--candidates"),
            (Box::new(|r: &mut BuildRequest| r.ply_limit = 0), "--ply-limit"),
            (Box::new(|r: &mut BuildRequest| r.size = 0), "--size"),
            (Box::new(|r: &mut BuildRequest| r.spread = 0.5), "--spread"),
        ] {
            let mut r = request(2);
            change(&mut r);
            assert!(r.validate().unwrap_err().contains(want), "{want}");
        }
    }
}
