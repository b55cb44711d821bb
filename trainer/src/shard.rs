//! Replay shards: the samples of a few self-play games in one versioned, checksummed file.
//!
//! Layout (little endian): magic `TAFLSHRD`, format version (u32), encoding version (u32),
//! input length (u32), sample count (u32), the samples, then the FNV-1a 64 checksum of
//! everything before it. A sample is its planes (f32 each), the policy target as a count and
//! (index u32, probability f32) pairs, the legal indices as a count and u32s, the
//! win/draw/loss target (3 f32) and moves left (f32).

use std::path::Path;
use tafl_nn::{fnv1a64, write_atomic, Sample, ENCODING_VERSION};

const MAGIC: &[u8; 8] = b"TAFLSHRD";
/// The shard format version this build writes and reads.
pub const SHARD_VERSION: u32 = 1;
/// The most read of a shard file: the samples of a few games, far less on every board.
pub const SHARD_LIMIT: u64 = 1 << 30;

/// Writes samples to `path` atomically.
pub fn write_shard(path: &Path, input_len: usize, samples: &[Sample]) -> Result<(), String> {
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

/// Reads a shard; any damage (truncation, bad checksum, other version, impossible lengths)
/// is an error that says what is wrong.
pub fn read_shard(path: &Path, input_len: usize, policy_size: usize) -> Result<Vec<Sample>, String> {
    let b = tafl_engine::input::read_limited(path, SHARD_LIMIT)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    parse_shard(&b, input_len, policy_size).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses shard bytes (see [`read_shard`]).
pub fn parse_shard(b: &[u8], input_len: usize, policy_size: usize) -> Result<Vec<Sample>, String> {
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
    if version != SHARD_VERSION {
        return Err(format!(
            "shard format {version}, this build reads {SHARD_VERSION}"
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
    Ok(out)
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
        write_shard(&p, 6, &samples).unwrap();
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
}
