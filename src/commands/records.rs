//! `tafl records`: a game archive as data. `eval` scores evaluations and players against the
//! moves and results of recorded games; `export` writes the games as training shards.

use crate::common::RulesArg;
use rayon::prelude::*;
use std::path::Path;
use tafl_engine::{search::EvaluatorSpec, with_board, BitSet, Game, Rules};
use tafl_lab::players::{build, resolve};
use tafl_trainer::records::{
    games_of, read_records, score_evaluator, stage, total, Agreement, RecordedGame, Split, StageAgreement,
    STAGES, VALIDATION_ONE_IN,
};

/// The arguments of `tafl records`.
#[derive(clap::Args, Debug)]
pub struct RecordsArgs {
    #[command(subcommand)]
    command: RecordsCommand,
}

#[derive(clap::Subcommand, Debug)]
enum RecordsCommand {
    /// How often each evaluation's prior (and each player's search) agrees with the move
    /// played, top-1 and top-3, and how well its value predicts the result (log-loss, Brier
    /// score), by stage of the game; the hand-written evaluation is the baseline row.
    Eval(EvalArgs),
    /// Writes the games as training samples (the played move as the policy target, the result
    /// as the value target) in the replay-shard format of runs: OUT/train/ and
    /// OUT/validation/, with OUT/records.json saying what they hold.
    Export(ExportArgs),
}

/// Where records come from.
#[derive(clap::Args, Debug)]
struct Source {
    /// A records file (`.csv` as `tafl replay` reads, `.otg` OpenTafl, else the project's game
    /// record) or a folder of them.
    records: String,
    /// The rules the games were played under.
    #[arg(long, default_value = "copenhagen", value_parser = crate::common::parse_rules)]
    rules: RulesArg,
}

/// Which games a command uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum SplitArg {
    /// The validation games (one in ten, by a hash of the game's moves).
    Validation,
    /// The training games.
    Train,
    /// Every game.
    All,
}

impl SplitArg {
    fn split(self) -> Option<Split> {
        match self {
            SplitArg::Validation => Some(Split::Validation),
            SplitArg::Train => Some(Split::Train),
            SplitArg::All => None,
        }
    }
}

#[derive(clap::Args, Debug)]
struct EvalArgs {
    #[command(flatten)]
    source: Source,
    /// A network to score (checkpoint or run folder, or `shipped`); repeat for several.
    #[arg(long)]
    model: Vec<String>,
    /// A linear evaluation to score (a weights file of `tafl tune`, or `shipped`); repeat for
    /// several.
    #[arg(long)]
    linear: Vec<String>,
    /// A player whose chosen move is scored (`mcts:heuristic:100`, `level:4`, ...); its
    /// value is the search's root value. Repeat for several.
    #[arg(long)]
    player: Vec<String>,
    /// The games to score.
    #[arg(long, value_enum, default_value = "validation")]
    split: SplitArg,
    /// Score at most this many games of the split (in file order).
    #[arg(long)]
    games: Option<usize>,
    /// Seed of the players' choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads for players (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(clap::Args, Debug)]
struct ExportArgs {
    #[command(flatten)]
    source: Source,
    /// The folder to write (created; files in it are replaced).
    #[arg(long)]
    out: String,
    /// Games per shard file.
    #[arg(long, default_value_t = 100)]
    games_per_shard: usize,
}

impl RecordsArgs {
    /// Runs the subcommand.
    pub fn run(self) -> Result<(), String> {
        match self.command {
            RecordsCommand::Eval(a) => {
                let rs = a.source.rules.ruleset.clone();
                with_board!(&rs, B, rules => eval::<B>(&rules, &a))
            }
            RecordsCommand::Export(a) => {
                let rs = a.source.rules.ruleset.clone();
                with_board!(&rs, B, rules => export::<B>(&rules, &a))
            }
        }
    }
}

fn read<B: BitSet>(rules: &Rules<B>, source: &Source) -> Result<Vec<RecordedGame<B>>, String> {
    read_records(rules, Path::new(&source.records))
}

fn eval<B: BitSet>(rules: &Rules<B>, a: &EvalArgs) -> Result<(), String> {
    let games = read(rules, &a.source)?;
    let mut chosen = games_of(&games, a.split.split());
    if let Some(n) = a.games {
        chosen.truncate(n);
    }
    if chosen.is_empty() {
        return Err(format!(
            "{}: no games in the {:?} split",
            a.source.records, a.split
        ));
    }
    let positions: usize = chosen.iter().map(|g| g.moves.len()).sum();
    println!(
        "records: {} under `{}`: {} games read; scored: {} games ({} split: one game in {VALIDATION_ONE_IN} is a validation game, by a hash of its moves), {positions} positions",
        a.source.records,
        rules.ruleset.id(),
        games.len(),
        chosen.len(),
        format!("{:?}", a.split).to_lowercase(),
    );
    let mut rows: Vec<(String, StageAgreement)> = Vec::new();
    let baseline = EvaluatorSpec::Heuristic;
    let mut evaluators = vec![(
        "heuristic (hand-written)".to_string(),
        tafl_lab::players::evaluator(&baseline, rules)?,
    )];
    // The networks' and the linear evaluations' priors, each named as its option gave it.
    let networks = a
        .model
        .iter()
        .map(|m| ("model", m, EvaluatorSpec::Model(m.clone())));
    let linears = a
        .linear
        .iter()
        .map(|l| ("linear", l, EvaluatorSpec::Linear(l.clone())));
    for (option, path, spec) in networks.chain(linears) {
        evaluators.push((
            format!("{option} {path}"),
            tafl_lab::players::evaluator(&spec, rules).map_err(|e| format!("--{option} {path}: {e}"))?,
        ));
    }
    for (name, e) in &evaluators {
        let bar = tafl_lab::work::progress_bar(chosen.len() as u64, &format!("prior of {name}"));
        let s = score_evaluator(rules, e.as_ref(), &chosen, || bar.inc(1));
        bar.finish_and_clear();
        rows.push((format!("prior: {name}"), s));
    }
    let pool = tafl_lab::work::pool(a.threads)?;
    for p in &a.player {
        let resolved = resolve(p).map_err(|e| format!("--player {p}: {e}"))?;
        tafl_lab::players::check(&resolved).map_err(|e| format!("--player {p}: {e}"))?;
        let bar = tafl_lab::work::progress_bar(chosen.len() as u64, &format!("search of {p}"));
        let per_game: Result<Vec<StageAgreement>, String> = pool.install(|| {
            chosen
                .par_iter()
                .enumerate()
                .map(|(i, g)| {
                    let r = score_player(rules, &resolved, a.seed ^ (i as u64).wrapping_mul(0x9E37), g);
                    bar.inc(1);
                    r
                })
                .collect()
        });
        bar.finish_and_clear();
        let mut s = StageAgreement::default();
        for g in per_game? {
            for (t, x) in s.iter_mut().zip(&g) {
                t.merge(x);
            }
        }
        rows.push((format!("search: {p}"), s));
    }
    print!("{}", table(&rows));
    Ok(())
}

/// Plays `player` at each position of `game` and ranks the recorded move among its choices.
fn score_player<B: BitSet>(
    rules: &Rules<B>,
    player: &tafl_lab::players::Resolved,
    seed: u64,
    game: &RecordedGame<B>,
) -> Result<StageAgreement, String> {
    let mut p = build(player, seed, rules)?;
    let mut out = StageAgreement::default();
    let mut g = Game::from_position(rules, game.start);
    for ply in game.plies(rules) {
        if let Some((mv, result)) = p.choose(rules, &g) {
            let played = ply.legal[ply.played];
            let (rank, value) = match &result {
                Some(r) => (
                    r.ranked()
                        .iter()
                        .position(|&i| r.moves[i].mv == played)
                        .unwrap_or(r.moves.len()),
                    Some(r.value),
                ),
                // An external program names one move: first, or not in the first three.
                None => (if mv == played { 0 } else { 3 }, None),
            };
            let predicted = ply
                .wdl
                .zip(value)
                .map(|(w, v)| ((1.0 + v as f64) / 2.0, tafl_trainer::records::score(&w)));
            out[stage(ply.ply)].add(rank, predicted);
        }
        g.play(rules, ply.legal[ply.played])
            .map_err(|e| format!("{}: {e}", game.source))?;
    }
    Ok(out)
}

fn table(rows: &[(String, StageAgreement)]) -> String {
    let mut out = String::from(
        "\n| what | stage | positions | top-1 | top-3 | positions with a result | log-loss | Brier |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    let line = |out: &mut String, name: &str, st: &str, a: &Agreement| {
        out.push_str(&format!(
            "| {name} | {st} | {} | {:.3} | {:.3} | {} | {:.3} | {:.3} |\n",
            a.positions,
            a.top1_share(),
            a.top3_share(),
            a.valued,
            a.mean_log_loss(),
            a.mean_brier()
        ));
    };
    for (name, s) in rows {
        line(&mut out, name, "all", &total(s));
        for (st, a) in STAGES.iter().zip(s) {
            line(&mut out, name, st, a);
        }
    }
    out.push_str(
        "\nstages by plies played: opening 0-19, middle 20-59, late 60 on. top-1/top-3: the played move ranked first / in the first three (ties count against it). log-loss and Brier: the predicted score (win 1, draw 1/2, loss 0) of the side to move against the result (a coin scores 0.693 and 0.250); unfinished games have no result.\n",
    );
    out
}

fn export<B: BitSet>(rules: &Rules<B>, a: &ExportArgs) -> Result<(), String> {
    if a.games_per_shard == 0 {
        return Err("--games-per-shard must be at least 1".into());
    }
    let games = read(rules, &a.source)?;
    let encoder = tafl_nn::Encoder::new(&rules.ruleset);
    let out = Path::new(&a.out);
    let mut summary = serde_json::Map::new();
    for split in [Split::Train, Split::Validation] {
        let dir = out.join(split.name());
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let chosen = games_of(&games, Some(split));
        let mut samples = 0usize;
        let mut valued = 0usize;
        for (k, chunk) in chosen.chunks(a.games_per_shard).enumerate() {
            let s: Vec<tafl_nn::Sample> = chunk.iter().flat_map(|g| g.samples(rules, &encoder)).collect();
            samples += s.len();
            valued += s.iter().filter(|x| x.wdl.iter().sum::<f32>() > 0.0).count();
            let path = dir.join(format!("shard-{k:05}.bin"));
            tafl_trainer::shard::write_shard(&path, encoder.input_len(), &s, None)?;
        }
        summary.insert(
            split.name().to_string(),
            serde_json::json!({ "games": chosen.len(), "samples": samples, "samples_with_a_result": valued }),
        );
        println!(
            "{}: {} games, {samples} samples ({valued} with a result) in {}",
            split.name(),
            chosen.len(),
            dir.display()
        );
    }
    summary.insert("records".into(), serde_json::json!(a.source.records));
    summary.insert("rules".into(), serde_json::json!(rules.ruleset.id()));
    summary.insert(
        "encoding_version".into(),
        serde_json::json!(tafl_nn::ENCODING_VERSION),
    );
    summary.insert(
        "split".into(),
        serde_json::json!(format!(
            "by game: validation when the FNV-1a hash of the game's moves (from and to squares as bytes) is divisible by {VALIDATION_ONE_IN}"
        )),
    );
    summary.insert(
        "targets".into(),
        serde_json::json!("policy: the move played (probability 1); value: the game's result for the side to move (none for an unfinished game); moves left: plies to the end of the record"),
    );
    let text =
        serde_json::to_string_pretty(&serde_json::Value::Object(summary)).map_err(|e| e.to_string())?;
    tafl_lab::work::write_atomic(&out.join("records.json"), text.as_bytes())?;
    Ok(())
}
