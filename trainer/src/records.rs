//! Recorded games as data: the game archive of a site read as typed games, split by game into
//! training and validation sets, turned into training samples (the played move as the policy
//! target, the result as the value target), and used to score an evaluation: how often its
//! prior agrees with the move played, and how well its value predicts the result.
//!
//! Formats, by file name: `.csv` is `tafl replay`'s (one game a line,
//! `moves,attacker_captures,defender_captures,result`), `.otg` an OpenTafl game record, any
//! other file the project's game record (`[Rules "..."]` tags and moves). A folder is read
//! file by file in name order. Every game is replayed under the rules; a move the rules refuse
//! is an error that names the file, the game and the move.
//!
//! The split is fixed and by game, never by position: a game belongs to the validation set when
//! the FNV-1a hash of its moves (each move's from and to squares, as bytes) is divisible by
//! [`VALIDATION_ONE_IN`]. It depends on nothing but the game itself, so it stays the same
//! whatever the file's order or the other games, and the same game recorded twice lands in
//! the same set.

use std::path::{Path, PathBuf};
use tafl_engine::{
    formats::{parse_csv_games, CsvResult, GameRecord, OtgRecord, ReplayEnd},
    search::{EvalInput, Evaluator, Wdl},
    BitSet, Game, Move, Position, Rules, Side,
};
use tafl_nn::{Encoder, Sample};

/// One game in this many is a validation game (10%).
pub const VALIDATION_ONE_IN: u64 = 10;

/// At most this many files are read from a folder of records.
pub const MAX_FILES: usize = 100_000;

/// How a recorded game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordResult {
    /// This side won (by the rules, a resignation or the clock).
    Won(Side),
    /// A draw.
    Draw,
    /// The record stops without a result: it gives the moves, not a value target.
    Unfinished,
}

impl RecordResult {
    /// The value target for `to_move`; `None` for an unfinished game.
    pub fn wdl_for(self, to_move: Side) -> Option<Wdl> {
        let (win, draw, loss) = match self {
            RecordResult::Won(s) if s == to_move => (1.0, 0.0, 0.0),
            RecordResult::Won(_) => (0.0, 0.0, 1.0),
            RecordResult::Draw => (0.0, 1.0, 0.0),
            RecordResult::Unfinished => return None,
        };
        Some(Wdl { win, draw, loss })
    }
}

/// Which set a game belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Split {
    /// Games to train on.
    Train,
    /// Games held out to measure on.
    Validation,
}

impl Split {
    /// `train` or `validation`.
    pub const fn name(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Validation => "validation",
        }
    }
}

/// A game read from a record and replayed under the rules.
#[derive(Clone, Debug)]
pub struct RecordedGame<B: BitSet> {
    /// Where it was read: `file` and, for a CSV file, `line N`.
    pub source: String,
    /// The start position.
    pub start: Position<B>,
    /// The moves the rules allowed, in order (a record that goes on after the rules ended the
    /// game is cut there).
    pub moves: Vec<Move>,
    /// How it ended.
    pub result: RecordResult,
}

/// One position of a recorded game, before the move that was played from it.
#[derive(Clone, Debug)]
pub struct RecordedPly<B: BitSet> {
    /// The position.
    pub position: Position<B>,
    /// How often it has occurred in the game so far (1 the first time).
    pub occurrences: u8,
    /// Plies played before it.
    pub ply: u32,
    /// Its legal moves.
    pub legal: Vec<Move>,
    /// The index in `legal` of the move played.
    pub played: usize,
    /// The result for the side to move, if the game has one.
    pub wdl: Option<Wdl>,
    /// Plies from here to the end of the record.
    pub plies_left: u32,
}

impl<B: BitSet> RecordedGame<B> {
    /// The set this game belongs to (see the module documentation).
    pub fn split(&self) -> Split {
        let h = tafl_engine::formats::fnv1a64(self.moves.iter().flat_map(|m| [m.from, m.to]));
        if h.is_multiple_of(VALIDATION_ONE_IN) {
            Split::Validation
        } else {
            Split::Train
        }
    }

    /// The positions of the game with the move played from each, replayed from the start.
    pub fn plies(&self, rules: &Rules<B>) -> Vec<RecordedPly<B>> {
        let mut game = Game::from_position(rules, self.start);
        let total = self.moves.len() as u32;
        let mut out = Vec::with_capacity(self.moves.len());
        for &mv in &self.moves {
            let legal: Vec<Move> = game.moves(rules).iter().copied().collect();
            let Some(played) = legal.iter().position(|&m| m == mv) else {
                // Checked when the game was read; a game cannot change since.
                break;
            };
            let pos = *game.position();
            out.push(RecordedPly {
                position: pos,
                occurrences: game.occurrences().min(255) as u8,
                ply: game.ply(),
                legal,
                played,
                wdl: self.result.wdl_for(pos.to_move()),
                plies_left: total - game.ply(),
            });
            if game.play(rules, mv).is_err() {
                break;
            }
        }
        out
    }

    /// Training samples: each position with the played move as the policy target and the
    /// result as the value target (none for an unfinished game).
    pub fn samples(&self, rules: &Rules<B>, encoder: &Encoder) -> Vec<Sample> {
        self.plies(rules)
            .into_iter()
            .map(|p| {
                let mut visits = vec![0.0; p.legal.len()];
                visits[p.played] = 1.0;
                let wdl = p.wdl.unwrap_or(Wdl {
                    win: 0.0,
                    draw: 0.0,
                    loss: 0.0,
                });
                Sample::new(
                    encoder,
                    &p.position,
                    p.occurrences,
                    p.ply,
                    &p.legal,
                    &visits,
                    wdl,
                    p.plies_left as f32,
                )
            })
            .collect()
    }
}

/// Reads every game of a file or folder of records (see the module documentation) and replays
/// it under `rules`.
pub fn read_records<B: BitSet>(rules: &Rules<B>, path: &Path) -> Result<Vec<RecordedGame<B>>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let files: Vec<PathBuf> = if meta.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|e| format!("{}: {e}", path.display()))?
            .flatten()
            .map(|e| e.path())
            // Hidden files are not games: a writer's temporary file (`.game-0001.txt.tmp`).
            .filter(|p| {
                p.is_file()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .take(MAX_FILES + 1)
            .collect();
        if files.len() > MAX_FILES {
            return Err(format!(
                "{}: more than {MAX_FILES} files; give a smaller folder",
                path.display()
            ));
        }
        files.sort();
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut games = Vec::new();
    for f in &files {
        read_file(rules, f, &mut games)?;
    }
    if games.is_empty() {
        return Err(format!("{}: no games", path.display()));
    }
    Ok(games)
}

fn read_file<B: BitSet>(rules: &Rules<B>, path: &Path, out: &mut Vec<RecordedGame<B>>) -> Result<(), String> {
    let name = path.display().to_string();
    let text = tafl_engine::input::read_text(path).map_err(|e| format!("{name}: {e}"))?;
    match path.extension().and_then(|x| x.to_str()) {
        Some("csv") => {
            let games = parse_csv_games(rules.n, &text).map_err(|e| format!("{name}: {e}"))?;
            for g in games {
                let source = format!("{name} line {}", g.line);
                let replay = g.replay(rules);
                let (plies, result) = match &replay.end {
                    ReplayEnd::Mismatch(m) => return Err(format!("{source}: {m}")),
                    ReplayEnd::Ended { outcome } | ReplayEnd::EndedEarly { outcome, .. } => {
                        (replay.plies, outcome_result(outcome.winner, outcome.is_draw()))
                    }
                    ReplayEnd::Open => (
                        replay.plies,
                        match g.result {
                            CsvResult::White => RecordResult::Won(Side::Defenders),
                            CsvResult::Black => RecordResult::Won(Side::Attackers),
                            CsvResult::Draw => RecordResult::Draw,
                            CsvResult::Ongoing => RecordResult::Unfinished,
                        },
                    ),
                };
                out.push(RecordedGame {
                    source,
                    start: Position::start(rules),
                    moves: g.moves[..plies].iter().map(|m| m.mv).collect(),
                    result,
                });
            }
        }
        Some("otg") => {
            let rec = OtgRecord::parse(&text).map_err(|e| format!("{name}: {e}"))?;
            if !rec.ruleset.same_game(&rules.ruleset) {
                return Err(format!(
                    "{name}: the record is a game of other rules (`{}`) than `{}`",
                    rec.ruleset.id(),
                    rules.ruleset.id()
                ));
            }
            let game = rec.replay(rules).map_err(|e| format!("{name}: {e}"))?;
            let result = match (game.outcome(), rec.tag("result"), rec.resigned) {
                (Some(o), _, _) => outcome_result(o.winner, o.is_draw()),
                (None, _, true) => RecordResult::Won(game.position().to_move().opponent()),
                (None, Some("1"), _) => RecordResult::Won(Side::Attackers),
                (None, Some("-1"), _) => RecordResult::Won(Side::Defenders),
                (None, Some("0"), _) => RecordResult::Draw,
                _ => RecordResult::Unfinished,
            };
            out.push(recorded(name, &game, result));
        }
        _ => {
            let rec = GameRecord::parse(&text).map_err(|e| format!("{name}: {e}"))?;
            let game = rec.replay(rules).map_err(|e| format!("{name}: {e}"))?;
            let result = match (game.outcome(), rec.tag("Result")) {
                (Some(o), _) => outcome_result(o.winner, o.is_draw()),
                // Another program ended it outside the rules (`tafl arena --records`): a crash,
                // a timeout or a resignation says nothing sure about the position's value.
                _ if rec.tag("Stopped").is_some() => RecordResult::Unfinished,
                (None, Some("attackers")) => RecordResult::Won(Side::Attackers),
                (None, Some("defenders")) => RecordResult::Won(Side::Defenders),
                (None, Some("draw")) => RecordResult::Draw,
                _ => RecordResult::Unfinished,
            };
            out.push(recorded(name, &game, result));
        }
    }
    Ok(())
}

fn recorded<B: BitSet>(source: String, game: &Game<B>, result: RecordResult) -> RecordedGame<B> {
    RecordedGame {
        source,
        start: *game.start(),
        moves: game.history().iter().map(|p| p.mv).collect(),
        result,
    }
}

fn outcome_result(winner: Option<Side>, draw: bool) -> RecordResult {
    match winner {
        Some(s) => RecordResult::Won(s),
        None if draw => RecordResult::Draw,
        None => RecordResult::Unfinished,
    }
}

/// The games of one set.
pub fn games_of<B: BitSet>(games: &[RecordedGame<B>], split: Option<Split>) -> Vec<&RecordedGame<B>> {
    games
        .iter()
        .filter(|g| split.is_none_or(|s| g.split() == s))
        .collect()
}

/// Stages of a game, by plies played: the opening (plies 0-19), the middle game (20-59) and the
/// late game (60 on).
pub const STAGES: [&str; 3] = ["opening", "middle", "late"];

/// The stage of a position `ply` plies into its game (an index into [`STAGES`]).
pub fn stage(ply: u32) -> usize {
    match ply {
        0..20 => 0,
        20..60 => 1,
        _ => 2,
    }
}

/// Agreement with the moves played and value accuracy, over some positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    /// Positions scored.
    pub positions: u64,
    /// Positions whose played move was ranked first.
    pub top1: u64,
    /// Positions whose played move was among the first three.
    pub top3: u64,
    /// Positions of games with a result (the value's test).
    pub valued: u64,
    /// Summed log-loss of the predicted score against the result.
    pub log_loss: f64,
    /// Summed squared error of the predicted score (Brier score).
    pub brier: f64,
}

impl Agreement {
    /// Adds one position: the rank of the played move (0 = first), and the predicted score
    /// for the side to move (win 1, draw 1/2, loss 0) with the result's, when there is one.
    pub fn add(&mut self, rank: usize, predicted: Option<(f64, f64)>) {
        self.positions += 1;
        self.top1 += u64::from(rank == 0);
        self.top3 += u64::from(rank < 3);
        if let Some((p, y)) = predicted {
            let p = p.clamp(1e-4, 1.0 - 1e-4);
            self.valued += 1;
            self.log_loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
            self.brier += (p - y) * (p - y);
        }
    }
    /// Adds another tally.
    pub fn merge(&mut self, o: &Agreement) {
        self.positions += o.positions;
        self.top1 += o.top1;
        self.top3 += o.top3;
        self.valued += o.valued;
        self.log_loss += o.log_loss;
        self.brier += o.brier;
    }
    /// The share of positions whose played move was ranked first.
    pub fn top1_share(&self) -> f64 {
        self.top1 as f64 / self.positions.max(1) as f64
    }
    /// The share of positions whose played move was among the first three.
    pub fn top3_share(&self) -> f64 {
        self.top3 as f64 / self.positions.max(1) as f64
    }
    /// Mean log-loss of the value (natural log; 0.693 is a coin's).
    pub fn mean_log_loss(&self) -> f64 {
        self.log_loss / self.valued.max(1) as f64
    }
    /// Mean Brier score of the value (0.25 is a coin's).
    pub fn mean_brier(&self) -> f64 {
        self.brier / self.valued.max(1) as f64
    }
}

/// The figures of an [`Agreement`], as a run's state keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgreementFigures {
    /// Positions scored.
    pub positions: u64,
    /// Share whose played move was ranked first.
    pub top1: f64,
    /// Share whose played move was among the first three.
    pub top3: f64,
    /// Mean log-loss of the value.
    pub log_loss: f64,
    /// Mean Brier score of the value.
    pub brier: f64,
}

impl From<&Agreement> for AgreementFigures {
    fn from(a: &Agreement) -> AgreementFigures {
        AgreementFigures {
            positions: a.positions,
            top1: a.top1_share(),
            top3: a.top3_share(),
            log_loss: a.mean_log_loss(),
            brier: a.mean_brier(),
        }
    }
}

/// An agreement tally per stage ([`STAGES`]).
pub type StageAgreement = [Agreement; 3];

/// The whole of a per-stage tally.
pub fn total(stages: &StageAgreement) -> Agreement {
    let mut t = Agreement::default();
    for s in stages {
        t.merge(s);
    }
    t
}

/// The expected score (win 1, draw 1/2, loss 0) of a win/draw/loss estimate.
pub fn score(w: &Wdl) -> f64 {
    let sum = (w.win + w.draw + w.loss).max(1e-9) as f64;
    (w.win as f64 + 0.5 * w.draw as f64) / sum
}

/// The rank of move `played` when moves are ordered by `weights`, highest first (ties
/// count against it: a move tied with another is not ranked above it).
pub fn rank_of(weights: &[f32], played: usize) -> usize {
    let w = weights[played];
    weights
        .iter()
        .enumerate()
        .filter(|&(i, &x)| i != played && x >= w)
        .count()
}

/// Scores an evaluator's prior and value on `games`, one batch per game.
pub fn score_evaluator<B: BitSet>(
    rules: &Rules<B>,
    evaluator: &dyn Evaluator<B>,
    games: &[&RecordedGame<B>],
    mut progress: impl FnMut(),
) -> StageAgreement {
    let mut out = StageAgreement::default();
    for g in games {
        let plies = g.plies(rules);
        let inputs: Vec<EvalInput<'_, B>> = plies
            .iter()
            .map(|p| EvalInput {
                position: &p.position,
                moves: &p.legal,
                occurrences: p.occurrences,
                ply: p.ply,
            })
            .collect();
        let evals = evaluator.evaluate(rules, &inputs);
        for (p, e) in plies.iter().zip(&evals) {
            let predicted = p.wdl.map(|w| (score(&e.wdl), score(&w)));
            out[stage(p.ply)].add(rank_of(&e.priors, p.played), predicted);
        }
        progress();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::Ruleset;

    fn brandubh() -> Rules<u128> {
        Rules::new(&Ruleset::builtin("brandubh")).unwrap()
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn records_of_each_format_read_with_their_results_and_a_fixed_split() {
        let rules = brandubh();
        let dir = std::env::temp_dir().join(format!("tafl-records-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write(
            &dir,
            "a.txt",
            "[Rules \"brandubh\"]\n[Result \"attackers\"]\n1. d1-b1 d3-b3\n",
        );
        let games = read_records(&rules, &dir).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].result, RecordResult::Won(Side::Attackers));
        assert_eq!(games[0].moves.len(), 2);
        let plies = games[0].plies(&rules);
        assert_eq!(plies.len(), 2);
        assert_eq!(plies[0].wdl.unwrap().win, 1.0, "the attackers move first and won");
        assert_eq!(plies[1].wdl.unwrap().loss, 1.0);
        assert_eq!(plies[1].plies_left, 1);
        let encoder = Encoder::new(&rules.ruleset);
        let samples = games[0].samples(&rules, &encoder);
        assert_eq!(samples.len(), 2);
        assert_eq!(
            samples[0].policy.len(),
            1,
            "the played move is the whole policy target"
        );
        assert_eq!(
            samples[0].policy[0].0,
            encoder.move_index(plies[0].legal[plies[0].played]).unwrap() as u32
        );
        // An illegal move is named.
        write(&dir, "b.txt", "[Rules \"brandubh\"]\n1. d1-d4\n");
        let e = read_records(&rules, &dir).unwrap_err();
        assert!(e.contains("b.txt") && e.contains("move 1"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_split_is_by_game_and_about_one_in_ten() {
        let rules = brandubh();
        let mut validation = 0;
        let mut rng = 1u64;
        for _ in 0..2000 {
            let mut game = Game::new(&rules);
            let mut moves = Vec::new();
            for _ in 0..6 {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let Some(mv) = game.pick_move(&rules, |n| ((rng >> 33) % n as u64) as u32) else {
                    break;
                };
                moves.push(mv);
                if game.play(&rules, mv).unwrap().is_some() {
                    break;
                }
            }
            let g = RecordedGame {
                source: String::new(),
                start: Position::start(&rules),
                moves,
                result: RecordResult::Unfinished,
            };
            let again = g.clone();
            assert_eq!(g.split(), again.split(), "the same game, the same set");
            validation += usize::from(g.split() == Split::Validation);
        }
        assert!((120..=280).contains(&validation), "{validation} of 2000");
    }

    #[test]
    fn ranks_count_ties_against_the_played_move() {
        assert_eq!(rank_of(&[0.1, 0.5, 0.4], 1), 0);
        assert_eq!(rank_of(&[0.1, 0.5, 0.4], 0), 2);
        assert_eq!(rank_of(&[0.25; 4], 2), 3, "a uniform prior ranks nothing first");
        let mut a = Agreement::default();
        a.add(0, Some((1.0, 1.0)));
        a.add(5, Some((0.5, 0.0)));
        assert_eq!((a.top1, a.top3, a.valued), (1, 1, 2));
        assert!((a.mean_brier() - 0.125).abs() < 1e-3);
    }
}
