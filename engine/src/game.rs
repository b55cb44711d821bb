//! [`Game`]: a position plus its history, for the checks that need it (repetition, ply limit).

use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::error::IllegalMove;
use crate::movegen::MoveList;
use crate::outcome::{Outcome, Reason};
use crate::position::{Move, MoveEffect, Position};
use crate::ruleset::{Repetition, TurnLimitResult};
use crate::side::{Piece, Side};
use crate::square::Sq;

/// A move as played, with what it captured.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Played<B> {
    /// The move.
    pub mv: Move,
    /// Soldiers it removed.
    pub captured: B,
    /// The king's square when the move ended the game by capturing him (he stays on the
    /// board in the game's position, which keeps his square; [`Game::board`] leaves him out).
    pub king_captured: Option<Sq>,
}

impl<B: BitSet> Played<B> {
    /// Every square the move captured, in board order: its soldiers and the king's.
    pub fn captures(&self) -> Vec<Sq> {
        let mut all: Vec<Sq> = self.captured.squares().map(|s| s as Sq).collect();
        all.extend(self.king_captured);
        all.sort_unstable();
        all
    }
}

/// A game in progress: start position, moves played, repetition record and outcome.
#[derive(Clone, Debug)]
pub struct Game<B: BitSet> {
    start: Position<B>,
    position: Position<B>,
    /// Hashes of the positions since the last capture (a capture makes earlier ones unreachable).
    history: Vec<u64>,
    moves: Vec<Played<B>>,
    ply_limit: Option<u32>,
    outcome: Option<Outcome>,
}

impl<B: BitSet> Game<B> {
    /// A game from the rules' start position.
    pub fn new(rules: &Rules<B>) -> Game<B> {
        Game::from_position(rules, Position::start(rules))
    }

    /// A game from any position. If the position is already decided (the king on an escape
    /// square, an exit fort or an encirclement made, no move for the side to move: see
    /// [`Position::settled_outcome`]), the game is already over.
    pub fn from_position(rules: &Rules<B>, start: Position<B>) -> Game<B> {
        let mut g = Game {
            start,
            position: start,
            history: vec![start.hash()],
            moves: Vec::new(),
            ply_limit: None,
            outcome: None,
        };
        g.outcome = start.settled_outcome(rules);
        g
    }

    /// Ends the game with no result once `limit` plies have been played (self-play, studies).
    pub fn with_ply_limit(mut self, limit: Option<u32>) -> Game<B> {
        self.ply_limit = limit;
        self
    }

    /// The current position.
    pub fn position(&self) -> &Position<B> {
        &self.position
    }
    /// The king's square when the last move captured him. The position keeps him there (its
    /// square is part of every position), but the game shows him off the board.
    pub fn king_taken(&self) -> Option<Sq> {
        self.moves.last().and_then(|p| p.king_captured)
    }
    /// The pieces as the game shows them, in square order: the position's, less a king the
    /// last move captured. Whatever shows or writes the board of a game (position records,
    /// diagrams, a site's piece list) takes it from here, so that no text brings a captured
    /// king back.
    pub fn board(&self) -> Vec<(Sq, Piece)> {
        let mut pieces = self.position.pieces();
        if let Some(k) = self.king_taken() {
            pieces.retain(|&(s, p)| !(s == k && p == Piece::King));
        }
        pieces
    }
    /// The board as the game shows it ([`Game::board`]), as a diagram with coordinates,
    /// marking the squares in `marks`.
    pub fn diagram(&self, rules: &Rules<B>, marks: &[Sq]) -> String {
        crate::diagram::write_diagram(&rules.ruleset, &self.board(), marks)
    }
    /// The position the game started from.
    pub fn start(&self) -> &Position<B> {
        &self.start
    }
    /// The moves played so far, first to last (the legal moves are [`Game::moves`]).
    pub fn history(&self) -> &[Played<B>] {
        &self.moves
    }
    /// Plies played.
    pub fn ply(&self) -> u32 {
        self.moves.len() as u32
    }
    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    /// A 64-bit fingerprint of the game as played: its moves and how it ended (FNV-1a). Two
    /// games from the same start with the same fingerprint are, but for a 2^-64 chance, the same
    /// game; a search comparing rule variants uses it to see a change that altered no game.
    pub fn fingerprint(&self) -> u64 {
        let moves = self.moves.iter().flat_map(|p| [p.mv.from as u64, p.mv.to as u64]);
        // 0xff marks the end of the moves, then the winner (0 none, 1, 2) and the reason; 0xfe
        // a game not over.
        let end = match self.outcome {
            Some(o) => vec![0xff, o.winner.map_or(0, |s| 1 + s as u64), o.reason as u64 + 1],
            None => vec![0xfe],
        };
        crate::fnv::fnv1a64(moves.chain(end))
    }
    /// The ply limit, if any.
    pub fn ply_limit(&self) -> Option<u32> {
        self.ply_limit
    }
    /// How many times the current position has occurred (counting since the last capture).
    pub fn occurrences(&self) -> usize {
        let h = self.position.hash();
        self.history.iter().filter(|&&x| x == h).count()
    }

    /// The hashes of the positions that have occurred at least twice since the last capture
    /// (empty under rules that ignore repetition): a move leading to one of them ends the
    /// game by repetition. Search uses it to see those ends when it creates a node's
    /// children, with no game to play them in.
    pub fn repeated_twice(&self, rules: &Rules<B>) -> Vec<u64> {
        if matches!(
            rules.repetition,
            Repetition::Ignore | Repetition::DefendersMayNotRepeat
        ) {
            return Vec::new();
        }
        // Called at every expansion: sorted, so one pass finds the repeats.
        let mut sorted = self.history.clone();
        sorted.sort_unstable();
        let mut twice: Vec<u64> = sorted.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
        twice.dedup();
        twice
    }

    /// Whether the history can forbid moves of the side to move here: the defenders' under
    /// `repetition = "defenders_may_not_repeat"`.
    fn history_limits_moves(&self, rules: &Rules<B>) -> bool {
        rules.repetition == Repetition::DefendersMayNotRepeat && self.position.to_move() == Side::Defenders
    }

    /// Whether the game's history forbids `mv`, a move the position allows: under
    /// `repetition = "defenders_may_not_repeat"`, a defenders' move whose board (the pieces
    /// after it, before its captures) occurred before in the game. Earlier boards are those
    /// since the last capture: any before it held more pieces.
    pub fn repeats_board(&self, rules: &Rules<B>, mv: Move) -> bool {
        if !self.history_limits_moves(rules) {
            return false;
        }
        let Some(piece) = self.position.piece_at(mv.from) else {
            return false;
        };
        let z = &rules.zobrist;
        // The hash of a position with the defenders to move carries the side key; the board
        // after a defenders' move is compared by its pieces alone, as boards are.
        let board = |hash: u64, defenders_to_move: bool| if defenders_to_move { hash ^ z.side } else { hash };
        let after = board(self.position.hash(), true)
            ^ z.piece(piece.index(), mv.from as usize)
            ^ z.piece(piece.index(), mv.to as usize);
        // The history alternates sides ply by ply back from the current position.
        self.history
            .iter()
            .rev()
            .enumerate()
            .any(|(back, &h)| board(h, back % 2 == 0) == after)
    }

    /// The legal moves: the position's, less those the game's history forbids
    /// ([`Game::repeats_board`]).
    pub fn moves(&self, rules: &Rules<B>) -> MoveList {
        let mut list = self.position.moves(rules);
        if self.history_limits_moves(rules) {
            list.retain(|m| !self.repeats_board(rules, m));
        }
        list
    }

    /// A legal move chosen by `choose(count)` (an index below `count`); `None` without one.
    pub fn pick_move(&self, rules: &Rules<B>, choose: impl FnOnce(u32) -> u32) -> Option<Move> {
        if self.history_limits_moves(rules) {
            let list = self.moves(rules);
            if list.is_empty() {
                return None;
            }
            return list.as_slice().get(choose(list.len() as u32) as usize).copied();
        }
        self.position.pick_move(rules, choose)
    }

    /// Plays a move after checking it; refuses moves after the end of the game.
    pub fn play(&mut self, rules: &Rules<B>, mv: Move) -> Result<Option<Outcome>, IllegalMove> {
        if let Some(o) = self.outcome {
            return Err(IllegalMove {
                text: mv.text(rules.n),
                reason: format!("the game is over: {o}"),
            });
        }
        if let Err(reason) = self.position.check_move(rules, mv) {
            return Err(IllegalMove {
                text: mv.text(rules.n),
                reason,
            });
        }
        if self.repeats_board(rules, mv) {
            return Err(IllegalMove {
                text: mv.text(rules.n),
                reason: "the defenders may not recreate an earlier position under these rules".into(),
            });
        }
        Ok(self.play_unchecked(rules, mv))
    }

    /// Plays a legal move (from the move generator) and runs the end-of-move checks.
    #[inline]
    pub fn play_unchecked(&mut self, rules: &Rules<B>, mv: Move) -> Option<Outcome> {
        let effect = self.position.play_unchecked(rules, mv);
        self.moves.push(Played {
            mv,
            captured: effect.captured,
            king_captured: None,
        });
        self.outcome = self.after_move(rules, &effect);
        if self.outcome.is_some_and(|o| o.reason == Reason::KingCaptured) {
            if let Some(p) = self.moves.last_mut() {
                p.king_captured = Some(self.position.king());
            }
        }
        self.outcome
    }

    /// Plays a legal move that the caller knows does not end the game (search, walking down
    /// its tree through nodes already found to go on): the position, history and move list
    /// are kept as [`Game::play_unchecked`] keeps them, without the end-of-game checks, which
    /// cost a look at every move of the side to move.
    pub(crate) fn play_known(&mut self, rules: &Rules<B>, mv: Move) {
        let effect = self.position.play_unchecked(rules, mv);
        self.moves.push(Played {
            mv,
            captured: effect.captured,
            king_captured: None,
        });
        if effect.captured.any() {
            self.history.clear();
        }
        self.history.push(self.position.hash());
    }

    fn after_move(&mut self, rules: &Rules<B>, effect: &MoveEffect<B>) -> Option<Outcome> {
        let pos = &self.position;
        if let Some(o) = pos.decisive_outcome(rules, effect) {
            return Some(o);
        }
        if effect.captured.any() {
            self.history.clear();
        }
        self.history.push(pos.hash());
        if let Some(o) = repetition_outcome(rules, self.occurrences(), effect.mover) {
            return Some(o);
        }
        // The rules' turn limit (a house rule) comes before the check for a move, as the
        // servers that have it judge.
        let f = &rules.ruleset.file;
        if f.turn_limit > 0 && self.ply() >= f.turn_limit {
            return Some(match f.turn_limit_result {
                TurnLimitResult::Draw => Outcome::draw(Reason::TurnLimit),
                TurnLimitResult::Attackers => Outcome::win(Side::Attackers, Reason::TurnLimit),
                TurnLimitResult::Defenders => Outcome::win(Side::Defenders, Reason::TurnLimit),
            });
        }
        if let Some(o) = pos.no_moves_outcome(rules) {
            return Some(o);
        }
        if self.history_limits_moves(rules) && pos.moves(rules).iter().all(|&m| self.repeats_board(rules, m))
        {
            // Every move the position allows recreates an earlier board.
            return Some(Outcome::no_moves(rules, Side::Defenders));
        }
        match self.ply_limit {
            Some(limit) if self.ply() >= limit => Some(Outcome::no_result()),
            _ => None,
        }
    }

    /// Ends the game: `side` ran out of time on its clock, and the other side wins. Does
    /// nothing after the end.
    pub fn lose_on_time(&mut self, side: crate::Side) {
        if self.outcome.is_none() {
            self.outcome = Some(Outcome::win(side.opponent(), Reason::Time));
        }
    }

    /// Ends the game with a result from outside its rules: a player's forfeit, another
    /// program's verdict. Does nothing after the end.
    pub fn end_outside_rules(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// Takes back the last move (replays the game without it). Returns false at the start.
    pub fn undo(&mut self, rules: &Rules<B>) -> bool {
        if self.moves.is_empty() {
            return false;
        }
        let mut moves = std::mem::take(&mut self.moves);
        moves.pop();
        let mut g = Game::from_position(rules, self.start).with_ply_limit(self.ply_limit);
        for p in moves {
            g.play_unchecked(rules, p.mv);
        }
        *self = g;
        true
    }
}

/// The end a position's `occurrences`-th occurrence (counted since the last capture) brings
/// under the rules, `mover` having made the move that brought it about.
pub fn repetition_outcome<B: BitSet>(
    rules: &Rules<B>,
    occurrences: usize,
    mover: crate::Side,
) -> Option<Outcome> {
    if occurrences < 3 {
        return None;
    }
    match rules.repetition {
        Repetition::Ignore => None,
        Repetition::Draw => Some(Outcome::draw(Reason::Repetition)),
        Repetition::DefendersLose => Some(Outcome::win(crate::Side::Attackers, Reason::Repetition)),
        Repetition::MoverLoses => Some(Outcome::win(mover.opponent(), Reason::Repetition)),
        // Defenders cannot repeat at all (their moves that would are illegal); the attackers'
        // repetitions have no effect.
        Repetition::DefendersMayNotRepeat => None,
    }
}
