//! `tafl openings`: builds an opening suite, positions judged even by play (lab's
//! [`tafl_lab::openings`] does the work).

use crate::common::RulesArg;
use clap::ValueEnum;

/// The arguments of `tafl openings`.
#[derive(clap::Args, Debug)]
pub struct OpeningsArgs {
    /// Ruleset id or rules file.
    #[arg(long)]
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// The file to write (the suite, one position a line).
    #[arg(long)]
    out: std::path::PathBuf,
    /// The player that judges each candidate against itself: a spec or `level:N`.
    #[arg(long, default_value = tafl_lab::openings::DEFAULT_JUDGE)]
    judge: String,
    /// Candidate positions to judge.
    #[arg(long, default_value_t = 300)]
    candidates: usize,
    /// Where candidates come from: `end:P` (default), the position --plies plies before the
    /// end of a decided source game from the start, in which each move of the --random-side
    /// is uniformly random with probability P and the other side plays the judge's moves; or
    /// `start`, --plies plies from the start with every move of the --random-side random.
    #[arg(long, default_value = "end:0.3", value_parser = tafl_lab::openings::Source::parse)]
    source: tafl_lab::openings::Source,
    /// Plies that make a candidate (from the start, or before a source game's end): `N` or
    /// `LEAST-MOST`.
    #[arg(long, default_value = "2-10", value_parser = parse_u32_range)]
    plies: (u32, u32),
    /// Whose opening moves are uniformly random: `attackers`, `defenders` or `both`; the other
    /// side plays the judge's moves. Under defender-favoured rules, random moves by both sides
    /// leave positions the defenders still win whoever plays them; a defence that erred in
    /// the opening gives the attackers their chances.
    #[arg(long, value_enum, default_value_t = RandomSide::Defenders)]
    random_side: RandomSide,
    /// How far each side's simulations stray from the judge's own in a judging game, as a
    /// factor (drawn log-uniformly from SIMS/SPREAD to SIMS*SPREAD for each side of each
    /// game): equal searches play one game again and again from a position, players of
    /// about equal strength vary. 1: every game at the judge's own simulations.
    #[arg(long, default_value_t = 4.0)]
    spread: f64,
    /// Games the judge plays from each candidate (even).
    #[arg(long, default_value_t = 8)]
    games: u32,
    /// The share of the games the attackers win from a kept position, `LEAST-MOST`; the
    /// defence wins or holds the rest.
    #[arg(long, default_value = "0.25-0.75", value_parser = parse_f64_range)]
    keep: (f64, f64),
    /// The most positions kept (the first found, in candidate order).
    #[arg(long, default_value_t = 100)]
    size: usize,
    /// Plies after which a judging game ends with no result.
    #[arg(long, default_value_t = 200)]
    ply_limit: u32,
    /// Seed of the candidates and the judge's games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: all cores); the suite does not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

/// Whose opening moves `tafl openings` makes random.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum RandomSide {
    /// Both sides'.
    Both,
    /// The attackers'.
    Attackers,
    /// The defenders'.
    Defenders,
}

impl RandomSide {
    fn side(self) -> Option<tafl_engine::Side> {
        match self {
            RandomSide::Both => None,
            RandomSide::Attackers => Some(tafl_engine::Side::Attackers),
            RandomSide::Defenders => Some(tafl_engine::Side::Defenders),
        }
    }
}

/// `N` or `A-B` as an inclusive range.
fn parse_u32_range(s: &str) -> Result<(u32, u32), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{t}` is not a whole number"))
    };
    match s.split_once('-') {
        Some((a, b)) => Ok((num(a)?, num(b)?)),
        None => num(s).map(|n| (n, n)),
    }
}

/// `A-B` as an inclusive range of fractions.
fn parse_f64_range(s: &str) -> Result<(f64, f64), String> {
    let num = |t: &str| {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("`{t}` is not a number"))
    };
    let (a, b) = s
        .split_once('-')
        .ok_or_else(|| format!("`{s}` is not a range LEAST-MOST"))?;
    Ok((num(a)?, num(b)?))
}

impl OpeningsArgs {
    /// Runs `tafl openings`.
    pub fn run(self) -> Result<(), String> {
        let judge = tafl_lab::players::resolve(&self.judge).map_err(|e| format!("--judge: {e}"))?;
        // The suite is written at the end of a long search: a file that cannot be written
        // there is refused now.
        tafl_lab::work::check_writable("--out", &self.out)?;
        let pool = crate::common::pool(self.threads)?;
        let req = tafl_lab::openings::BuildRequest {
            rules_text: self.rules.text.clone(),
            ruleset: self.rules.ruleset,
            judge_text: self.judge,
            judge,
            candidates: self.candidates,
            plies: self.plies,
            source: self.source,
            random_side: self.random_side.side(),
            spread: self.spread,
            games: self.games,
            keep: self.keep,
            size: self.size,
            ply_limit: self.ply_limit,
            seed: self.seed,
            threads: pool.current_num_threads(),
        };
        req.validate()?;
        let bar = crate::common::progress_bar(0, "judging");
        // Inside the pool, so that network judges batch for as many callers as there are threads.
        let built = pool.install(|| tafl_lab::openings::build_suite(&req, &bar))?;
        bar.finish_and_clear();
        if built.suite.entries.is_empty() {
            return Err(format!(
                "no candidate of {} was balanced within --keep {}-{}: nothing written; try more --candidates, other --plies or a wider --keep",
                built.judged.len(),
                req.keep.0,
                req.keep.1
            ));
        }
        tafl_lab::work::write_atomic(&self.out, built.suite.to_text().as_bytes())?;
        for line in &built.suite.header {
            println!("{line}");
        }
        let first = req.first_round();
        let dropped = |wins: u32| {
            built
                .judged
                .iter()
                .filter(|j| j.tally.games() == first && j.tally.attackers == wins)
                .count()
        };
        println!(
            "candidates dropped after the first {first} games: the attackers won all {}, none {}",
            dropped(first),
            dropped(0)
        );
        println!(
            "wrote {} positions to {}",
            built.suite.entries.len(),
            self.out.display()
        );
        Ok(())
    }
}
