//! The evaluation cache: network evaluations kept by position, shared by every search that
//! uses one [`crate::NetEvaluator`] (as lc0 and KataGo keep one). Tree reuse, transpositions
//! and the many games of a run that pass through the same openings make many evaluations
//! repeats; a hit costs a hash lookup instead of a forward pass.
//!
//! A key is what the network sees of a position: its Zobrist hash (pieces and side to move),
//! its occurrence count and its ply as the encoding's ply plane reads it, plus the number of
//! legal moves as a check against hash collisions. One evaluator serves one model under one
//! ruleset, so the rules need no place in the key. The cache is split into shards, each
//! behind its own lock; a full shard is emptied (simple, bounded, and cheap next to a forward
//! pass).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use tafl_engine::{
    search::{EvalInput, Evaluation},
    BitSet,
};

const SHARDS: usize = 16;

/// What a cache entry is keyed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    hash: u64,
    ply: u16,
    occurrences: u8,
    /// A fingerprint of the legal moves, in order: under rules where history forbids some
    /// moves (`defenders_may_not_repeat`), one position can have different move lists, and
    /// the priors are per move.
    moves: u64,
}

impl CacheKey {
    /// The key of a position to evaluate; `ply_scale` is where the encoding's ply plane
    /// saturates (later plies look alike to the network).
    pub fn of<B: BitSet>(input: &EvalInput<'_, B>, ply_scale: u32) -> CacheKey {
        CacheKey {
            hash: input.position.hash(),
            ply: input.ply.min(ply_scale).min(u16::MAX as u32) as u16,
            occurrences: input.occurrences,
            moves: input.moves.iter().fold(input.moves.len() as u64, |h, m| {
                (h ^ ((m.from as u64) << 16 | m.to as u64)).wrapping_mul(0x0000_0100_0000_01B3)
            }),
        }
    }

    fn shard(&self) -> usize {
        (self.hash.rotate_left(17) ^ self.ply as u64) as usize % SHARDS
    }
}

/// A bounded map from positions to evaluations, safe to share between threads.
pub struct EvalCache {
    shards: Vec<Mutex<HashMap<CacheKey, Evaluation>>>,
    per_shard: usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl EvalCache {
    /// A cache of about `entries` evaluations.
    pub fn new(entries: usize) -> EvalCache {
        EvalCache {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            per_shard: entries.div_ceil(SHARDS).max(1),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The evaluation stored for `key`, counting a hit or a miss.
    pub fn get(&self, key: &CacheKey) -> Option<Evaluation> {
        let found = self.shards[key.shard()]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned();
        let counter = if found.is_some() { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Stores an evaluation; a full shard is emptied first.
    pub fn insert(&self, key: CacheKey, eval: Evaluation) {
        let mut shard = self.shards[key.shard()].lock().unwrap_or_else(|e| e.into_inner());
        if shard.len() >= self.per_shard {
            shard.clear();
        }
        shard.insert(key, eval);
    }

    /// Lookups that found an entry, and lookups that did not.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }

    /// Whether the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::{search::Wdl, Game, Rules, Ruleset};

    #[test]
    fn entries_are_found_by_what_the_network_sees_and_the_cache_stays_bounded() {
        let rs = Ruleset::builtin("brandubh");
        let rules = Rules::<u128>::new(&rs).unwrap();
        let game = Game::new(&rules);
        let moves = game.position().moves(&rules);
        let input = |ply: u32, occurrences: u8| EvalInput {
            position: game.position(),
            moves: moves.as_slice(),
            occurrences,
            ply,
        };
        let cache = EvalCache::new(64);
        let eval = Evaluation {
            priors: vec![1.0 / moves.len() as f32; moves.len()],
            wdl: Wdl::from_value(0.25),
        };
        let k = CacheKey::of(&input(3, 1), 512);
        assert!(cache.get(&k).is_none());
        cache.insert(k, eval.clone());
        assert_eq!(cache.get(&k), Some(eval.clone()));
        // Another ply or repetition count is another input for the network.
        assert!(cache.get(&CacheKey::of(&input(4, 1), 512)).is_none());
        assert!(cache.get(&CacheKey::of(&input(3, 2), 512)).is_none());
        // Past the ply plane's saturation, plies look alike.
        assert_eq!(
            CacheKey::of(&input(600, 1), 512),
            CacheKey::of(&input(900, 1), 512)
        );
        assert_eq!(cache.counts(), (1, 3));
        for ply in 0..10_000u32 {
            cache.insert(CacheKey::of(&input(ply, 1), 100_000), eval.clone());
        }
        assert!(cache.len() <= 64 + SHARDS, "{}", cache.len());
    }
}
