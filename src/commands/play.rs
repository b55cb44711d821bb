//! `tafl play`: a game against the AI in the terminal (or from piped input).

use crate::common::RulesArg;
use std::io::Write;
use tafl_engine::input::{read_line, Line, LINE_LIMIT};
use tafl_engine::{
    formats::{parse_move, play_text, played_text},
    search::{EvaluatorSpec, Player, PlayerSpec},
    with_board, BitSet, Game, Rules, Ruleset, Side, Sq,
};
use tafl_lab::players::{build, Resolved};

/// The arguments of `tafl play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Ruleset id or rules file.
    #[arg(long, default_value = "brandubh")]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The side you play: attackers or defenders.
    #[arg(long, default_value = "defenders")]
    side: String,
    /// AI level (see configs/levels.toml).
    #[arg(long, default_value_t = 3)]
    level: u32,
    /// Seed of the AI's choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The AI's thinking time and search threads (default: the level's, on every core).
    #[command(flatten)]
    think: crate::thinking::ThinkArgs,
}

impl PlayArgs {
    /// Runs `tafl play`.
    pub fn run(self) -> Result<(), String> {
        let PlayArgs {
            rules,
            side,
            level,
            seed,
            think,
        } = self;
        let rs = rules.ruleset;
        let side = crate::common::parse_side(&side, "--side")?;
        let ai = think.apply(tafl_lab::players::level(level)?, tafl_lab::players::cores())?;
        run(&rs, side, &ai, seed)
    }
}

const HELP: &str = "commands: a move such as e1-e4, hint, undo, new, quit, help";

/// Plays as `human` against `ai` until `quit` or the end of input.
pub fn run(rs: &Ruleset, human: Side, ai: &Resolved, seed: u64) -> Result<(), String> {
    with_board!(rs, B, rules => play::<B>(&rules, human, ai, seed))
}

fn play<B: BitSet>(rules: &Rules<B>, human: Side, ai: &Resolved, seed: u64) -> Result<(), String> {
    let n = rules.n;
    // A network level under rules with no shipped network plays its fallback (and hints with it).
    let ai = &ai.for_rules(&rules.ruleset);
    let mut player: Player<B> = build(ai, seed, rules)?;
    let hint_spec = match &ai.spec {
        PlayerSpec::Mcts {
            evaluator,
            simulations,
        } => PlayerSpec::Mcts {
            evaluator: evaluator.clone(),
            simulations: (*simulations).max(400),
        },
        _ => PlayerSpec::Mcts {
            evaluator: EvaluatorSpec::Heuristic,
            simulations: 400,
        },
    };
    let mut game = Game::new(rules);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout();
    println!(
        "{} — you play the {}, the AI is {}. {HELP}",
        rules.ruleset.file.name, human, ai.label
    );
    let mut show = true;
    loop {
        if show {
            print!("{}", board(rules, &game));
        }
        show = true;
        if let Some(o) = game.outcome() {
            println!("game over: {o}");
            print!("new, undo or quit> ");
        } else if game.position().to_move() != human {
            let Some((mv, _)) = player.choose(rules, &game) else {
                break;
            };
            game.play(rules, mv)
                .map_err(|e| format!("the AI chose an illegal move: {e}"))?;
            let played = game.history()[game.history().len() - 1];
            println!("AI plays {}", played_text(n, &played));
            continue;
        } else {
            print!("{} to move> ", human);
        }
        let _ = out.flush();
        // Lines are bounded, and a line that is not text is answered, never the end of the game.
        let line = match read_line(&mut input, LINE_LIMIT).map_err(|e| format!("reading stdin: {e}"))? {
            Line::End => {
                println!();
                break;
            }
            Line::TooLong(bytes) => {
                println!(
                    "that line is {bytes} bytes long, more than the {LINE_LIMIT} read of a line; {HELP}"
                );
                show = false;
                continue;
            }
            Line::Bytes(bytes) => match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => {
                    println!(
                        "not text: byte {} of that line is not part of a UTF-8 character; {HELP}",
                        e.utf8_error().valid_up_to() + 1
                    );
                    show = false;
                    continue;
                }
            },
        };
        let cmd = line.trim();
        match cmd {
            "" => show = false,
            "quit" | "exit" | "q" => break,
            "help" | "?" => {
                println!("{HELP}");
                show = false;
            }
            "new" => {
                game = Game::new(rules);
                player = build(ai, seed.wrapping_add(1), rules)?;
            }
            "undo" => {
                // Back to the human's last turn: the AI's reply and the human's move.
                let mut undone = 0;
                while game.undo(rules) {
                    undone += 1;
                    if game.position().to_move() == human {
                        break;
                    }
                }
                if undone == 0 {
                    println!("nothing to undo");
                    show = false;
                }
            }
            "hint" => {
                show = false;
                if game.outcome().is_some() {
                    println!("no hint: the game is over");
                    continue;
                }
                if game.position().to_move() != human {
                    println!("no hint: it is not your turn");
                    continue;
                }
                // Hints search with the level's own evaluator (its network, for model levels).
                let hinter = Resolved {
                    spec: hint_spec.clone(),
                    temperature: 0.0,
                    exploration: 0.0,
                    label: "hint".into(),
                    fallback: None,
                    limit: ai.limit,
                    threads: ai.threads,
                    parallel: ai.parallel,
                    follow_clock: false,
                    inference: ai.inference,
                    search: ai.search.clone(),
                };
                let mut helper: Player<B> = build(&hinter, seed ^ 0x4117, rules)?;
                if let Some((mv, res)) = helper.choose(rules, &game) {
                    let detail = res
                        .map(|r| format!(" (value {:+.2} for you, {} simulations)", r.value, r.simulations))
                        .unwrap_or_default();
                    println!("hint: {}{detail}", mv.text(n));
                }
            }
            text => match parse_move(n, text) {
                Err(e) => {
                    println!("not a move: {e}. {HELP}");
                    show = false;
                }
                // Legal, and any captures written are the ones the rules make.
                Ok(_) => {
                    if let Err(e) = play_text(rules, &mut game, text) {
                        println!("{e}");
                        show = false;
                    }
                }
            },
        }
    }
    Ok(())
}

/// The board with the last move's squares and its captures marked, and the last move's text.
fn board<B: BitSet>(rules: &Rules<B>, game: &Game<B>) -> String {
    let mut marks: Vec<Sq> = Vec::new();
    let mut last = String::new();
    if let Some(p) = game.history().last() {
        marks.push(p.mv.from);
        marks.push(p.mv.to);
        marks.extend(p.captured.squares().map(|s| s as Sq));
        last = format!("last move: {}\n", played_text(rules.n, p));
    }
    format!("\n{}{last}", game.diagram(rules, &marks))
}
