//! `tafl analyze`: the top moves of a position with visit share, value and principal variation.
//! The search and the game it starts from are shared with `tafl serve`'s analysis requests.

use crate::common::RulesArg;
use tafl_engine::{
    formats::{play_text, position_from_record},
    search::{EvaluatorSpec, PlayerSpec, Proven, Search, SearchConfig, ThinkingLimit},
    square_name, with_board, BitSet, Game, Move, Rules, Ruleset, Side,
};
use tafl_lab::players::Resolved;

/// The arguments of `tafl analyze`.
#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// Ruleset id or rules file.
    #[arg(long)]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// OpenTafl position record (first row = rank 1); the start position when absent.
    #[arg(long)]
    position: Option<String>,
    /// Side to move in --position: attackers or defenders (default: who moves first).
    #[arg(long)]
    to_move: Option<String>,
    /// Moves to play from the position first, space separated (`"d1-d3 d5-b5"`).
    #[arg(long, default_value = "")]
    moves: String,
    /// A game record (`tafl arena --records` writes them): its start position, side to move
    /// and moves, instead of --position, --to-move and --moves; its rules must be --rules.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["position", "to_move", "moves"])]
    record: Option<std::path::PathBuf>,
    /// With --record: the position after this many of its plies (default: all of them).
    #[arg(long, requires = "record")]
    ply: Option<usize>,
    /// The searching player.
    #[arg(long, default_value = "mcts:heuristic:2000")]
    player: String,
    /// Search with a trained network instead of `--player`: a checkpoint folder, a run
    /// folder (its best checkpoint), or `shipped` (the built-in model for the rules).
    #[arg(long, conflicts_with = "player")]
    model: Option<String>,
    /// Simulations of the `--model` search.
    #[arg(long, default_value_t = 800, requires = "model")]
    simulations: u32,
    /// Moves to list.
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// Search seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The AI's thinking time and search threads (default: the level's, on every core).
    #[command(flatten)]
    think: crate::thinking::ThinkArgs,
}

impl AnalyzeArgs {
    /// Runs `tafl analyze`.
    pub fn run(self) -> Result<(), String> {
        let AnalyzeArgs {
            rules,
            position,
            to_move,
            moves,
            record,
            ply,
            player,
            model,
            simulations,
            top,
            seed,
            think,
        } = self;
        let rs = rules.ruleset;
        let player = match model {
            Some(path) => format!("mcts:model={path}:{simulations}"),
            None => player,
        };
        let (position, to_move, moves, fields) = match &record {
            None => (
                position,
                to_move,
                moves.split_whitespace().map(String::from).collect(),
                (
                    "--position".to_string(),
                    "--to-move".to_string(),
                    "--moves".to_string(),
                ),
            ),
            Some(path) => {
                let at = format!("--record `{}`", path.display());
                let text = tafl_engine::input::read_text(path).map_err(|e| format!("{at}: {e}"))?;
                let rec = tafl_engine::formats::GameRecord::parse(&text).map_err(|e| format!("{at}: {e}"))?;
                rec.check_rules(&rs).map_err(|e| format!("{at}: {e} (--rules)"))?;
                let plies = ply.unwrap_or(rec.moves.len());
                if plies > rec.moves.len() {
                    return Err(format!("--ply {plies}: {at} has {} plies", rec.moves.len()));
                }
                (
                    rec.tag("Position").map(String::from),
                    rec.tag("ToMove").map(String::from),
                    rec.moves[..plies].to_vec(),
                    (
                        format!("{at}, tag Position"),
                        format!("{at}, tag ToMove"),
                        at.clone(),
                    ),
                )
            }
        };
        let to_move = to_move
            .map(|s| crate::common::parse_side(&s, &fields.1))
            .transpose()?;
        let req = Request {
            position: position.as_deref(),
            to_move,
            moves: &moves,
            fields: (&fields.0, &fields.1, &fields.2),
            player: &player,
            top,
            seed,
            limit: think.limit()?,
        };
        run(&rs, &req)
    }
}

/// What to analyse.
pub struct Request<'a> {
    /// OpenTafl position record (start position when absent).
    pub position: Option<&'a str>,
    /// Side to move in that position.
    pub to_move: Option<Side>,
    /// Moves to play first.
    pub moves: &'a [String],
    /// Where the position, side to move and moves come from, as errors name them
    /// (`("--position", "--to-move", "--moves")`, or the record's file).
    pub fields: (&'a str, &'a str, &'a str),
    /// The searching player (an `mcts:` spec, or `level:N` of a level that searches).
    pub player: &'a str,
    /// Lines to show.
    pub top: usize,
    /// Search seed.
    pub seed: u64,
    /// Thinking time (`--movetime`, `--clock`); the player's simulations by default.
    pub limit: ThinkingLimit,
}

/// The game a request describes: a position (an OpenTafl record, the start when absent) and
/// the moves played from it, each checked as typed moves are (captures written must be the
/// ones made). A position already decided (the king on an escape square, a fort or an
/// encirclement made, no move) gives a game that is over, as the move that made it would.
/// Errors name the field they come from (`position_field`, `to_move_field`, `moves_field`)
/// and, for a move, its number and text.
pub fn game_from<B: BitSet>(
    rules: &Rules<B>,
    position: Option<&str>,
    to_move: Option<Side>,
    moves: &[String],
    (position_field, to_move_field, moves_field): (&str, &str, &str),
) -> Result<Game<B>, String> {
    let start = match position {
        Some(text) => {
            let side = to_move.unwrap_or(rules.ruleset.file.first);
            position_from_record(rules, text, side).map_err(|e| format!("{position_field}: {e}"))?
        }
        None if to_move.is_some() => {
            return Err(format!(
                "{to_move_field}: the side to move of {position_field}, which is not given (the start position's side to move is the rules' first)"
            ))
        }
        None => tafl_engine::Position::start(rules),
    };
    let mut game = Game::from_position(rules, start);
    for (i, text) in moves.iter().enumerate() {
        play_text(rules, &mut game, text).map_err(|e| {
            format!(
                "{moves_field}, move {} (`{}`): {e}",
                i + 1,
                tafl_engine::input::quote(text)
            )
        })?;
    }
    Ok(game)
}

/// One root move of an analysis.
#[derive(Clone, Debug)]
pub struct Line {
    /// The move.
    pub mv: Move,
    /// Whether it is the move the search chose (the first line): the move the player would
    /// play, whatever the visit shares say when several moves are as good.
    pub chosen: bool,
    /// Its share of the root's visits, 0 to 1.
    pub share: f64,
    /// Its mean value for the side to move, -1 to 1.
    pub value: f32,
    /// The evaluator's prior.
    pub prior: f32,
    /// The line the search expects after it, the move included.
    pub pv: Vec<Move>,
    /// Proven result of the move for the side to move.
    pub proven: Option<Proven>,
}

/// What a search found in a position: its value and the best root moves, best first.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// What searched: `model shipped`, `heuristic`, ...
    pub evaluator: String,
    /// Simulations run.
    pub simulations: u32,
    /// The position's value for the side to move, -1 to 1.
    pub value: f32,
    /// Proven result of the position for the side to move.
    pub proven: Option<Proven>,
    /// The best moves, best first (the search's choice, then as [`SearchResult::ranked`]
    /// orders them), at most the `top` asked for.
    ///
    /// [`SearchResult::ranked`]: tafl_engine::search::SearchResult::ranked
    pub lines: Vec<Line>,
    /// Bytes the search tree held at the end.
    pub tree_bytes: usize,
}

/// Searches the position of `game` with `player` (resolved as play resolves it: a level's
/// fallback plays under rules that ship no network) for `limit` (the player's own when
/// `Simulations`), stopping at `cutoff` whatever the limit and growing its tree to at most
/// `max_nodes` nodes. `Ok(None)` when the game is over.
#[allow(clippy::too_many_arguments)]
pub fn analyse<B: BitSet>(
    rules: &Rules<B>,
    game: &Game<B>,
    player: &Resolved,
    limit: ThinkingLimit,
    seed: u64,
    top: usize,
    cutoff: Option<std::time::Instant>,
    max_nodes: usize,
) -> Result<Option<Analysis>, String> {
    if game.outcome().is_some() {
        return Ok(None);
    }
    let player = player.for_rules(&rules.ruleset);
    let (eval_spec, sims) = match player.spec {
        PlayerSpec::Mcts {
            evaluator,
            simulations,
        } => (evaluator, simulations),
        _ => {
            return Err(format!(
                "`{}`: analysis needs a search player (mcts:... or a level that searches)",
                player.label
            ))
        }
    };
    let evaluator = tafl_lab::players::evaluator::<B>(&eval_spec, rules)?;
    let limit = match limit {
        ThinkingLimit::Simulations => player.limit,
        given => given,
    };
    let deadline = limit.deadline(None, game.ply()).cut_at(cutoff);
    let config = SearchConfig {
        simulations: if limit != ThinkingLimit::Simulations {
            u32::MAX
        } else {
            sims
        },
        max_nodes,
        ..SearchConfig::default()
    };
    config.validate()?;
    let mut search = Search::new(config, game, seed);
    let Some(res) = search.run_until(rules, evaluator.as_ref(), 0.0, deadline) else {
        return Err("no legal move to analyse".into());
    };
    let total: u32 = res.moves.iter().map(|m| m.visits).sum::<u32>().max(1);
    let lines = res
        .ranked()
        .into_iter()
        .take(top)
        .map(|i| {
            let m = &res.moves[i];
            Line {
                mv: m.mv,
                chosen: m.mv == res.best,
                share: m.visits as f64 / total as f64,
                value: m.q,
                prior: m.prior,
                pv: search.line(m.mv),
                proven: m.proven,
            }
        })
        .collect();
    Ok(Some(Analysis {
        evaluator: match &eval_spec {
            EvaluatorSpec::Model(p) => format!("model {p}"),
            EvaluatorSpec::Hybrid { model, linear: None } => format!("heuristic refined by model {model}"),
            EvaluatorSpec::Hybrid {
                model,
                linear: Some(w),
            } => format!("linear {w} refined by model {model}"),
            other => format!("{other:?}").to_lowercase(),
        },
        simulations: res.simulations,
        value: res.value,
        proven: res.proven,
        lines,
        tree_bytes: search.tree_bytes(),
    }))
}

/// Runs the command.
pub fn run(rs: &Ruleset, req: &Request) -> Result<(), String> {
    with_board!(rs, B, rules => analyze::<B>(&rules, req))
}

fn analyze<B: BitSet>(rules: &Rules<B>, req: &Request) -> Result<(), String> {
    let n = rules.n;
    let game = game_from(rules, req.position, req.to_move, req.moves, req.fields)?;
    print!("{}", game.diagram(rules, &[]));
    println!("{} to move, ply {}", game.position().to_move(), game.ply());
    if let Some(o) = game.outcome() {
        println!("the game is over: {o}");
        return Ok(());
    }
    // The same resolution as play: `level:N` included, with its fallback under rules that
    // ship no network.
    let player = tafl_lab::players::resolve(req.player)?;
    let analysis = analyse(
        rules,
        &game,
        &player,
        req.limit,
        req.seed,
        req.top,
        None,
        tafl_engine::search::MAX_NODES,
    )
    .map_err(|e| format!("--player {e}"))?
    .ok_or("the game is over")?;
    println!(
        "{} with {} simulations: value {:+.3}{}",
        analysis.evaluator,
        analysis.simulations,
        analysis.value,
        match analysis.proven {
            Some(Proven::Win) => ", proven win",
            Some(Proven::Draw) => ", proven draw",
            Some(Proven::Loss) => ", proven loss",
            None => "",
        }
    );
    println!(
        "{:<4} {:<10} {:>7} {:>7} {:>7}  line",
        "#", "move", "visits", "value", "prior"
    );
    for (rank, m) in analysis.lines.iter().enumerate() {
        let mut line = String::new();
        for mv in &m.pv {
            line.push_str(&format!("{}-{} ", square_name(n, mv.from), square_name(n, mv.to)));
        }
        let proven = match m.proven {
            Some(Proven::Win) => " (wins)",
            Some(Proven::Loss) => " (loses)",
            Some(Proven::Draw) => " (draws)",
            None => "",
        };
        println!(
            "{:<4} {:<10} {:>6.1}% {:>+7.3} {:>7.3}  {}{}",
            rank + 1,
            m.mv.text(n),
            100.0 * m.share,
            m.value,
            m.prior,
            line.trim_end(),
            proven
        );
    }
    Ok(())
}
