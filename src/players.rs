//! Player specs on the command line: engine specs plus `level:N` from `configs/levels.toml`.

use tafl_engine::{classic_evaluator, BitSet, Levels, Player, PlayerSpec, SearchConfig};

/// A resolved player spec with the temperature its level asks for.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The engine spec.
    pub spec: PlayerSpec,
    /// Temperature for choosing among searched moves.
    pub temperature: f32,
    /// What reports call it (`level 3 (mcts:heuristic:200)`).
    pub label: String,
}

/// Parses `level:N` or an engine player spec.
pub fn resolve(text: &str) -> Result<Resolved, String> {
    if let Some(n) = text.strip_prefix("level:") {
        let n: u32 = n
            .parse()
            .map_err(|_| format!("`{text}`: a level is `level:N` with N a number"))?;
        return level(n);
    }
    let spec = PlayerSpec::parse(text)?;
    Ok(Resolved {
        label: spec.to_string(),
        spec,
        temperature: 0.0,
    })
}

/// AI level `n` of the built-in levels.
pub fn level(n: u32) -> Result<Resolved, String> {
    let levels = Levels::builtin();
    let l = levels.get(n)?;
    let spec = l.spec()?;
    Ok(Resolved {
        label: format!("level {n} ({spec})"),
        spec,
        temperature: l.temperature,
    })
}

/// Builds the player.
pub fn build<B: BitSet>(r: &Resolved, seed: u64) -> Result<Player<B>, String> {
    let mut p = Player::new(&r.spec, seed, &SearchConfig::default(), &classic_evaluator)?;
    p.temperature = r.temperature;
    Ok(p)
}
