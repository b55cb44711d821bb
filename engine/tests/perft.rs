//! Reference perft counts from `engine/tests/data/perft.txt`, checked two ways: the bit-parallel
//! counter and the per-piece move lists.

use tafl_engine::{
    board::{perft, perft_divide},
    with_board, BitSet, Position, Rules, Ruleset,
};

fn cases() -> Vec<(String, u32, u64)> {
    let text = include_str!("data/perft.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "bad perft line `{l}`");
            (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

/// The second way: leaves counted over the listed legal moves of every node (the move list
/// the search and the game use), where `perft` counts the last ply with the bit-parallel
/// counter and walks per-piece target sets above it.
fn perft_by_lists<B: BitSet>(rules: &Rules<B>, pos: &Position<B>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for &mv in pos.moves(rules).iter() {
        let mut child = *pos;
        let effect = child.play_unchecked(rules, mv);
        if depth == 1 {
            total += 1;
        } else if child.decisive_outcome(rules, &effect).is_none() {
            total += perft_by_lists(rules, &child, depth - 1);
        }
    }
    total
}

#[test]
fn reference_counts_match() {
    let cases = cases();
    assert!(cases.len() >= 15);
    for (id, depth, expected) in cases {
        let rs = Ruleset::builtin(&id);
        let (counted, listed) = with_board!(&rs, B, rules => {
            let start = Position::<B>::start(&rules);
            (perft(&rules, &start, depth), perft_by_lists(&rules, &start, depth))
        });
        assert_eq!(counted, expected, "{id} perft {depth} (bit-parallel counter)");
        assert_eq!(listed, expected, "{id} perft {depth} (move lists)");
    }
}

#[test]
fn divide_sums_to_perft_and_lists_every_first_move() {
    let rs = Ruleset::builtin("brandubh");
    with_board!(&rs, B, rules => {
        let pos = Position::<B>::start(&rules);
        let div = perft_divide(&rules, &pos, 3);
        assert_eq!(div.len(), 40);
        assert_eq!(div.iter().map(|x| x.1).sum::<u64>(), 39512);
    });
}

#[test]
fn large_boards_generate_moves() {
    // Alea Evangelii (19x19) runs on the wide bit set; the start position is symmetric, so
    // every count from it splits evenly over the four attacking quarters.
    let rs = Ruleset::builtin("alea-evangelii");
    let (d1, d2) = with_board!(&rs, B, rules => {
        let pos = Position::<B>::start(&rules);
        assert_eq!(pos.count_moves(&rules) as usize, pos.moves(&rules).len());
        (perft(&rules, &pos, 1), perft(&rules, &pos, 2))
    });
    assert!(d1 > 0 && d1 % 4 == 0, "{d1}");
    assert!(d2 > d1);
}
