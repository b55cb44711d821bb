//! `tafl perft`: leaf counts from the start position, split over threads by first move.

use crate::common::RulesArg;
use rayon::prelude::*;
use std::time::Instant;
use tafl_engine::{board::perft, with_board, BitSet, Position, Rules, Ruleset};

/// The arguments of `tafl perft`.
#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// Ruleset id or rules file.
    #[arg(value_parser = crate::common::parse_rules)]
    rules: RulesArg,
    /// Plies to search.
    depth: u32,
    /// Print the count below each first move.
    #[arg(long)]
    divide: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

impl PerftArgs {
    /// Runs `tafl perft`.
    pub fn run(self) -> Result<(), String> {
        let PerftArgs {
            rules,
            depth,
            divide,
            threads,
        } = self;
        let rs = rules.ruleset;
        let max = tafl_lab::limits::MAX_PERFT_DEPTH;
        if depth > max {
            return Err(format!(
                "depth {depth} is too deep; at most {max} (no perft that deep ends, and its count would pass a 64-bit integer)"
            ));
        }
        run(&rs, depth, divide, threads)
    }
}

/// Counts and prints; the last line is the leaf count.
pub fn run(rs: &Ruleset, depth: u32, divide: bool, threads: Option<usize>) -> Result<(), String> {
    let pool = crate::common::pool(threads)?;
    let t0 = Instant::now();
    let total = pool.install(|| with_board!(rs, B, rules => count::<B>(&rules, depth, divide)));
    eprintln!("{} perft {depth}: {:.3} s", rs.id(), t0.elapsed().as_secs_f64());
    println!("{total}");
    Ok(())
}

fn count<B: BitSet>(rules: &Rules<B>, depth: u32, divide: bool) -> u64 {
    let pos = Position::start(rules);
    if depth == 0 {
        return 1;
    }
    let moves: Vec<_> = pos.moves(rules).to_vec();
    let per_move: Vec<u64> = moves
        .par_iter()
        .map(|&mv| {
            let mut child = pos;
            let eff = child.play_unchecked(rules, mv);
            if depth == 1 {
                1
            } else if child.decisive_outcome(rules, &eff).is_some() {
                0
            } else {
                perft(rules, &child, depth - 1)
            }
        })
        .collect();
    if divide {
        for (mv, c) in moves.iter().zip(&per_move) {
            println!("{} {c}", mv.text(rules.n));
        }
    }
    per_move.iter().sum()
}
