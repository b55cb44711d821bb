//! `tafl engine --protocol htp`: our AI behind the Hnefatafl Text Protocol of the hnefatafl.org
//! family, over stdin and stdout. HTP plays Copenhagen; `--rules` picks another ruleset, with
//! squares lettered and numbered to its board size.

use crate::htp::{answer, Request, Role, COMMANDS};
use crate::players::{build, Resolved};
use std::io::Write;
use tafl_engine::{
    parse_square, square_name, with_board, BitSet, Game, Move, Player, Rules, Ruleset, Side, Sq,
};

/// What `protocol_version` answers: the version of HTP this follows.
const PROTOCOL_VERSION: &str = "1-beta";

/// Reads HTP commands from stdin until `quit` or the end of input.
pub fn run(rs: &Ruleset, player: &Resolved, seed: u64) -> Result<(), String> {
    with_board!(rs, B, rules => serve::<B>(rules, player, seed))
}

fn serve<B: BitSet>(rules: Rules<B>, player: &Resolved, seed: u64) -> Result<(), String> {
    let mut session = Session::new(rules, player, seed)?;
    let mut out = std::io::stdout().lock();
    crate::engine_cmd::each_line(|line| {
        let (reply, quit) = session.handle(line);
        if let Some(r) = reply {
            out.write_all(r.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("writing stdout: {e}"))?;
        }
        Ok(quit)
    })
}

/// An HTP conversation: one game at a time under fixed rules.
pub struct Session<B: BitSet> {
    rules: Rules<B>,
    game: Game<B>,
    player: Player<B>,
    /// The side that resigned, which ends the game whatever the board says.
    resigned: Option<Side>,
}

impl<B: BitSet> Session<B> {
    /// A session with `player` under `rules`.
    pub fn new(rules: Rules<B>, player: &Resolved, seed: u64) -> Result<Session<B>, String> {
        let player = build(player, seed, &rules).map_err(|e| format!("player {}: {e}", player.label))?;
        Ok(Session {
            game: Game::new(&rules),
            rules,
            player,
            resigned: None,
        })
    }

    /// Handles one line: the answer to print (none for blank and comment lines) and whether
    /// to quit.
    pub fn handle(&mut self, line: &str) -> (Option<String>, bool) {
        match Request::parse(line) {
            Ok(None) => (None, false),
            Err(e) => (Some(answer(&Err(e))), false),
            Ok(Some(cmd)) => {
                let quit = cmd == Request::Quit;
                (Some(answer(&self.apply(cmd))), quit)
            }
        }
    }

    fn vertex(&self, sq: Sq) -> String {
        square_name(self.rules.n, sq).to_string().to_ascii_uppercase()
    }

    fn square(&self, text: &str) -> Result<Sq, String> {
        parse_square(self.rules.n, &text.to_ascii_lowercase()).map_err(|e| e.to_string())
    }

    fn ongoing(&self) -> Result<Side, String> {
        if let Some(side) = self.resigned {
            return Err(format!("the game is over: the {side} resigned"));
        }
        if let Some(o) = self.game.outcome() {
            return Err(format!("the game is over: {o}"));
        }
        Ok(self.game.position().to_move())
    }

    fn check_turn(&self, role: Role) -> Result<(), String> {
        let to_move = self.ongoing()?;
        if role.side() != to_move {
            return Err(format!(
                "it is the {}'s turn, not the {}'s",
                Role::of(to_move).name(),
                role.name()
            ));
        }
        Ok(())
    }

    fn apply(&mut self, cmd: Request) -> Result<String, String> {
        let n = self.rules.n;
        match cmd {
            Request::FinalStatus => Ok(match (self.resigned, self.game.outcome()) {
                (Some(Side::Attackers), _) => "defender_wins",
                (Some(Side::Defenders), _) => "attacker_wins",
                (None, None) => "ongoing",
                (None, Some(o)) => match o.winner {
                    Some(Side::Attackers) => "attacker_wins",
                    Some(Side::Defenders) => "defender_wins",
                    None => "draw",
                },
            }
            .to_string()),
            Request::GenerateMove(role) => {
                let to_move = self.ongoing()?;
                if let Some(r) = role {
                    self.check_turn(r)?;
                }
                let (mv, _) = self
                    .player
                    .choose(&self.rules, &self.game)
                    .ok_or("no legal move")?;
                self.game
                    .play(&self.rules, mv)
                    .map_err(|e| format!("the engine chose an illegal move: {e}"))?;
                Ok(format!(
                    "play {} {} {}",
                    Role::of(to_move).name(),
                    self.vertex(mv.from),
                    self.vertex(mv.to)
                ))
            }
            Request::KnownCommand(name) => Ok(COMMANDS.contains(&name.as_str()).to_string()),
            Request::ListCommands => Ok(COMMANDS.join("\n")),
            Request::Name => Ok("tafl".into()),
            Request::Play { role, from, to } => {
                self.check_turn(role)?;
                let mv = Move::new(self.square(&from)?, self.square(&to)?);
                self.game.play(&self.rules, mv).map_err(|e| e.to_string())?;
                let captured = self.game.moves().last().map(|p| p.captured).unwrap_or(B::EMPTY);
                Ok(captured
                    .squares()
                    .map(|s| self.vertex(s as Sq))
                    .collect::<Vec<_>>()
                    .join(" "))
            }
            Request::Resign(role) => {
                self.check_turn(role)?;
                self.resigned = Some(role.side());
                Ok(String::new())
            }
            Request::PlayFrom => {
                let to_move = self.ongoing()?;
                let mut froms: Vec<Sq> = self
                    .game
                    .position()
                    .moves(&self.rules)
                    .iter()
                    .map(|m| m.from)
                    .collect();
                froms.sort_unstable();
                froms.dedup();
                let list: Vec<String> = froms.into_iter().map(|s| self.vertex(s)).collect();
                Ok(format!("{} {}", Role::of(to_move).name(), list.join(" ")))
            }
            Request::PlayTo { role, from } => {
                self.check_turn(role)?;
                let from = self.square(&from)?;
                let tos: Vec<String> = self
                    .game
                    .position()
                    .moves(&self.rules)
                    .iter()
                    .filter(|m| m.from == from)
                    .map(|m| self.vertex(m.to))
                    .collect();
                if tos.is_empty() {
                    return Err(format!(
                        "no {} piece can move from {}",
                        role.name(),
                        self.vertex(from)
                    ));
                }
                Ok(tos.join(" "))
            }
            Request::ProtocolVersion => Ok(PROTOCOL_VERSION.into()),
            Request::Quit => Ok(String::new()),
            Request::ResetBoard => {
                self.game = Game::new(&self.rules);
                self.resigned = None;
                Ok(String::new())
            }
            Request::ShowBoard => {
                let diagram = self.game.position().diagram(&self.rules, &[]);
                // A blank line would end the answer early.
                let lines: Vec<&str> = diagram.lines().filter(|l| !l.trim().is_empty()).collect();
                Ok(format!("{n}x{n}\n{}", lines.join("\n")))
            }
            Request::TimeSettings => Ok(String::new()),
            Request::Version => Ok(env!("CARGO_PKG_VERSION").into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session<u128> {
        let rules = Rules::new(&Ruleset::builtin("brandubh")).unwrap_or_else(|e| panic!("{e}"));
        let player = crate::players::resolve("random").unwrap_or_else(|e| panic!("{e}"));
        Session::new(rules, &player, 1).unwrap_or_else(|e| panic!("{e}"))
    }

    fn say(s: &mut Session<u128>, line: &str) -> String {
        s.handle(line)
            .0
            .unwrap_or_else(|| panic!("no answer to `{line}`"))
    }

    #[test]
    fn moves_turns_and_resignation() {
        let mut s = session();
        assert_eq!(
            say(&mut s, "play defender D3 B3"),
            "? it is the attacker's turn, not the defender's\n\n"
        );
        assert_eq!(say(&mut s, "play attacker D1 B1"), "= \n\n");
        assert!(say(&mut s, "play_from").starts_with("= defender "));
        assert!(say(&mut s, "generate_move defender").starts_with("= play defender "));
        assert_eq!(say(&mut s, "final_status"), "= ongoing\n\n");
        assert_eq!(say(&mut s, "play attacker resigns"), "= \n\n");
        assert_eq!(say(&mut s, "final_status"), "= defender_wins\n\n");
        assert!(say(&mut s, "generate_move").starts_with("? the game is over"));
        assert_eq!(say(&mut s, "reset_board"), "= \n\n");
        assert_eq!(say(&mut s, "final_status"), "= ongoing\n\n");
        assert!(say(&mut s, "play attacker Z1 B1").starts_with("? "));
        assert!(s.handle("# nothing").0.is_none());
        assert!(s.handle("quit").1);
    }
}
