//! Replay shards: the samples of a few self-play games in one versioned, checksummed file.
//!
//! Layout (little endian): magic `TAFLSHRD`, format version (u32), encoding version (u32),
//! input length (u32), sample count (u32), from format 2 the games the shard holds (the
//! self-play iteration (u32), a count (u32) and the games' indices in the iteration (u32
//! each); iteration 0 and no games for samples of no self-play, such as recorded games), the
//! samples, then the FNV-1a 64 checksum of everything before it. A sample is its planes (f32
//! each), the policy target as a count and (index u32, probability f32) pairs, the legal
//! indices as a count and u32s, the win/draw/loss target (3 f32) and moves left (f32).
//! Format 1 (no games) still reads.

use std::path::Path;
use tafl_nn::{fnv1a64, write_atomic, Sample, ENCODING_VERSION};

const MAGIC: &[u8; 8] = b"TAFLSHRD";
/// The shard format version this build writes (it reads this one and the earlier, 1).
pub const SHARD_VERSION: u32 = 2;
/// The first format version that says which games a shard holds.
const GAMES_VERSION: u32 = 2;
/// The most read of a shard file: the samples of a few games, far less on every board.
pub const SHARD_LIMIT: u64 = 1 << 30;

/// The self-play games whose samples a shard holds, so that a shard read in a run's folder
/// can be checked against the iteration and games it stands for there (a shard copied into
/// another iteration's folder, or holding games that another shard holds, is caught).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardGames {
    /// The self-play iteration (1 on).
    pub iteration: u32,
    /// The games' indices in that iteration, in the order they were stored.
    pub games: Vec<u64>,
}

/// A shard as read: its samples, and the games they come from when the shard says so
/// (format 2 on, self-play shards).
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    /// The samples.
    pub samples: Vec<Sample>,
    /// The self-play games they come from; `None` for a format-1 shard or samples of no
    /// self-play.
    pub games: Option<ShardGames>,
}

/// Writes samples to `path` atomically, with the self-play games they come from, if any.
pub fn write_shard(
    path: &Path,
    input_len: usize,
    samples: &[Sample],
    games: Option<&ShardGames>,
) -> Result<(), String> {
    let mut b: Vec<u8> = Vec::with_capacity(32 + samples.len() * (input_len * 4 + 256));
    b.extend_from_slice(MAGIC);
    for v in [
        SHARD_VERSION,
        ENCODING_VERSION,
        input_len as u32,
        samples.len() as u32,
    ] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    match games {
        Some(g) => {
            if g.iteration == 0 || g.games.is_empty() {
                return Err("a self-play shard needs its iteration (1 on) and at least one game".into());
            }
            b.extend_from_slice(&g.iteration.to_le_bytes());
            b.extend_from_slice(&(g.games.len() as u32).to_le_bytes());
            for &k in &g.games {
                let k = u32::try_from(k).map_err(|_| format!("game index {k} is beyond a shard's u32"))?;
                b.extend_from_slice(&k.to_le_bytes());
            }
        }
        None => b.extend_from_slice(&[0; 8]),
    }
    for s in samples {
        if s.planes.len() != input_len {
            return Err(format!(
                "sample has {} planes values, expected {input_len}",
                s.planes.len()
            ));
        }
        for x in &s.planes {
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&(s.policy.len() as u32).to_le_bytes());
        for (i, p) in &s.policy {
            b.extend_from_slice(&i.to_le_bytes());
            b.extend_from_slice(&p.to_le_bytes());
        }
        b.extend_from_slice(&(s.legal.len() as u32).to_le_bytes());
        for i in &s.legal {
            b.extend_from_slice(&i.to_le_bytes());
        }
        for x in s.wdl.iter().chain(std::iter::once(&s.moves_left)) {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    let sum = fnv1a64(&b);
    b.extend_from_slice(&sum.to_le_bytes());
    write_atomic(path, &b).map_err(|e| e.to_string())
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or("truncated")?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        let s = self.bytes(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32()?))
    }
}

/// Reads a shard's samples; any damage (truncation, bad checksum, other version, impossible
/// lengths) is an error that says what is wrong.
pub fn read_shard(path: &Path, input_len: usize, policy_size: usize) -> Result<Vec<Sample>, String> {
    read_shard_games(path, input_len, policy_size).map(|s| s.samples)
}

/// Reads a shard with the games it says it holds (see [`read_shard`]).
pub fn read_shard_games(path: &Path, input_len: usize, policy_size: usize) -> Result<Shard, String> {
    let b = tafl_engine::input::read_limited(path, SHARD_LIMIT)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    parse_shard_games(&b, input_len, policy_size).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses shard bytes into their samples (see [`read_shard`]).
pub fn parse_shard(b: &[u8], input_len: usize, policy_size: usize) -> Result<Vec<Sample>, String> {
    parse_shard_games(b, input_len, policy_size).map(|s| s.samples)
}

/// Parses shard bytes, with the games the shard says it holds (see [`read_shard`]).
pub fn parse_shard_games(b: &[u8], input_len: usize, policy_size: usize) -> Result<Shard, String> {
    if b.len() < 8 + 16 + 8 || &b[..8] != MAGIC {
        return Err("not a replay shard (bad magic or too short)".into());
    }
    let (body, tail) = b.split_at(b.len() - 8);
    let mut sum = [0u8; 8];
    sum.copy_from_slice(tail);
    if fnv1a64(body) != u64::from_le_bytes(sum) {
        return Err("checksum mismatch (truncated or corrupt)".into());
    }
    let mut r = Reader { b: body, at: 8 };
    let version = r.u32()?;
    if !(1..=SHARD_VERSION).contains(&version) {
        return Err(format!(
            "shard format {version}, this build reads 1 to {SHARD_VERSION}"
        ));
    }
    let enc = r.u32()?;
    if enc != ENCODING_VERSION {
        return Err(format!(
            "encoding version {enc}, this build uses {ENCODING_VERSION}"
        ));
    }
    let len = r.u32()? as usize;
    if len != input_len {
        return Err(format!("input length {len}, the rules in use need {input_len}"));
    }
    let count = r.u32()? as usize;
    let games = if version >= GAMES_VERSION {
        let iteration = r.u32()?;
        let n = r.u32()? as usize;
        // Each index takes 4 bytes: a count beyond what is left is damage, not an allocation.
        if n > (body.len() - r.at) / 4 {
            return Err(format!("{n} games, more than the shard has room for"));
        }
        let mut games = Vec::with_capacity(n);
        for _ in 0..n {
            games.push(u64::from(r.u32()?));
        }
        match (iteration, n) {
            (0, 0) => None,
            (0, _) => return Err(format!("{n} games of iteration 0, which plays none")),
            (_, 0) => return Err(format!("iteration {iteration} with no game")),
            _ => Some(ShardGames { iteration, games }),
        }
    } else {
        None
    };
    let mut out = Vec::with_capacity(count.min(1 << 20));
    for i in 0..count {
        let mut planes = Vec::with_capacity(len);
        for _ in 0..len {
            planes.push(r.f32()?);
        }
        let np = r.u32()? as usize;
        if np > policy_size {
            return Err(format!("sample {i}: {np} policy entries, at most {policy_size}"));
        }
        let mut policy = Vec::with_capacity(np);
        for _ in 0..np {
            let idx = r.u32()?;
            let p = r.f32()?;
            if idx as usize >= policy_size || !p.is_finite() {
                return Err(format!("sample {i}: bad policy entry"));
            }
            policy.push((idx, p));
        }
        let nl = r.u32()? as usize;
        if nl > policy_size {
            return Err(format!("sample {i}: {nl} legal moves, at most {policy_size}"));
        }
        let mut legal = Vec::with_capacity(nl);
        for _ in 0..nl {
            let idx = r.u32()?;
            if idx as usize >= policy_size {
                return Err(format!("sample {i}: legal index {idx} out of range"));
            }
            legal.push(idx);
        }
        let wdl = [r.f32()?, r.f32()?, r.f32()?];
        let moves_left = r.f32()?;
        out.push(Sample {
            planes,
            policy,
            legal,
            wdl,
            moves_left,
        });
    }
    if r.at != body.len() {
        return Err("trailing bytes after the last sample".into());
    }
    Ok(Shard { samples: out, games })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(k: f32) -> Sample {
        Sample {
            planes: vec![k; 6],
            policy: vec![(1, 0.25), (3, 0.75)],
            legal: vec![1, 3, 4],
            wdl: [0.0, 1.0, 0.0],
            moves_left: k,
        }
    }

    #[test]
    fn shards_round_trip_and_damage_is_detected() {
        let dir = std::env::temp_dir().join(format!("tafl-shard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.shard");
        let samples = vec![sample(0.5), sample(1.0)];
        write_shard(&p, 6, &samples, None).unwrap();
        assert_eq!(read_shard(&p, 6, 10).unwrap(), samples);
        let bytes = std::fs::read(&p).unwrap();
        assert!(parse_shard(&bytes[..bytes.len() - 3], 6, 10).is_err());
        let mut flipped = bytes.clone();
        flipped[40] ^= 1;
        assert!(parse_shard(&flipped, 6, 10).unwrap_err().contains("checksum"));
        assert!(parse_shard(&bytes, 7, 10).is_err());
        assert!(parse_shard(b"garbage", 6, 10).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The bytes of a format-1 shard (no games): what earlier builds wrote.
    fn format_1(samples: &[Sample]) -> Vec<u8> {
        let dir = std::env::temp_dir().join(format!("tafl-shard-v1-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.shard");
        write_shard(&p, 6, samples, None).unwrap();
        let b = std::fs::read(&p).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        // Format 2 with no games is format 1 with 8 zero bytes after the sample count.
        let mut v1 = b[..8].to_vec();
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&b[12..24]);
        v1.extend_from_slice(&b[32..b.len() - 8]);
        let sum = fnv1a64(&v1);
        v1.extend_from_slice(&sum.to_le_bytes());
        v1
    }

    #[test]
    fn a_shard_says_which_games_it_holds_and_format_1_still_reads() {
        let dir = std::env::temp_dir().join(format!("tafl-shard-games-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.shard");
        let samples = vec![sample(0.5), sample(1.0)];
        let games = ShardGames {
            iteration: 3,
            games: vec![5, 4],
        };
        write_shard(&p, 6, &samples, Some(&games)).unwrap();
        let back = read_shard_games(&p, 6, 10).unwrap();
        assert_eq!(back.samples, samples);
        assert_eq!(back.games, Some(games));
        write_shard(&p, 6, &samples, None).unwrap();
        assert_eq!(read_shard_games(&p, 6, 10).unwrap().games, None);
        let empty = ShardGames {
            iteration: 1,
            games: Vec::new(),
        };
        assert!(write_shard(&p, 6, &samples, Some(&empty)).is_err());
        let old = parse_shard_games(&format_1(&samples), 6, 10).unwrap();
        assert_eq!((old.samples, old.games), (samples, None));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
