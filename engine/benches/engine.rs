//! Engine speed, single thread: move generation at the 11x11 start, move counting, perft, and
//! random-game plies per second (throughput is reported per ply).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tafl_engine::{
    board::{game_seed, perft, random_game, MoveList},
    Position, Rules, Ruleset,
};

fn movegen(c: &mut Criterion) {
    let rules = Rules::<u128>::new(&Ruleset::builtin("hnefatafl")).unwrap();
    let pos = Position::start(&rules);
    let mut list = MoveList::new();
    let mut g = c.benchmark_group("movegen-11x11-start");
    g.throughput(Throughput::Elements(1));
    g.bench_function("list", |b| {
        b.iter(|| pos.legal_moves(&rules, black_box(&mut list)))
    });
    g.bench_function("count", |b| b.iter(|| black_box(&pos).count_moves(&rules)));
    g.finish();
    let mut g = c.benchmark_group("perft");
    g.sample_size(10);
    g.bench_function("hnefatafl-3", |b| b.iter(|| perft(&rules, black_box(&pos), 3)));
    g.finish();
}

fn random_games(c: &mut Criterion) {
    let mut g = c.benchmark_group("random-game-plies");
    for id in ["brandubh", "tablut", "hnefatafl", "copenhagen"] {
        let rules = Rules::<u128>::new(&Ruleset::builtin(id)).unwrap();
        // Throughput in plies: the plies of the 20 games each iteration plays.
        let plies: u64 = (0..20)
            .map(|i| random_game(&rules, game_seed(7, i), Some(400)).1 as u64)
            .sum();
        g.throughput(Throughput::Elements(plies));
        g.bench_function(id, |b| {
            b.iter(|| {
                for i in 0..20 {
                    black_box(random_game(&rules, game_seed(7, i), Some(400)));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(benches, movegen, random_games);
criterion_main!(benches);
