//! Models built into the program: the small networks committed under `checkpoints/<name>/`
//! and the linear evaluations of `checkpoints/linear/` (see `checkpoints/README.md` for how
//! each was made). A player names them as `mcts:model=shipped` and `mcts:linear=shipped`,
//! which pick the one made for the game the rules in use describe.

use std::path::Path;
use std::sync::Arc;
use tafl_engine::search::LinearWeights;
use tafl_engine::Ruleset;
use tafl_nn::burn::prelude::Device;
use tafl_nn::{load_checkpoint_bytes, Inference, Manifest, NetEvaluator, TaflNet};

/// The model path that means "the shipped model for the rules in use".
pub const SHIPPED_PATH: &str = "shipped";

/// One built-in model: its folder name under `checkpoints/` and its two files.
#[derive(Clone, Copy, Debug)]
pub struct ShippedModel {
    /// Folder name under `checkpoints/` (the ruleset id it was trained for).
    pub name: &'static str,
    /// `manifest.json`.
    pub manifest: &'static str,
    /// `model.safetensors`.
    pub weights: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

impl ShippedModel {
    /// The rules the model was trained under, from its manifest.
    pub fn ruleset(&self) -> Result<Ruleset, String> {
        let manifest: Manifest = serde_json::from_str(self.manifest)
            .map_err(|e| format!("shipped model `{}`: manifest: {e}", self.name))?;
        Ruleset::from_file(manifest.ruleset).map_err(|e| format!("shipped model `{}`: rules: {e}", self.name))
    }
}

/// Other games a shipped network was measured to play well, as OpenTafl writes their rules,
/// with the network offered for them (`checkpoints/README.md`, "Other games"):
///
/// - OpenTafl's Brandub (the king captured by two, the empty throne not hostile): the Brandubh
///   network at 100 simulations scored 0.645 (+104, +43 .. +171) against `mcts:heuristic:100`
///   over 100 games, colour-swapped pairs from 4 random plies.
const OTHER_GAMES: &[(&str, &str)] = &[(
    "dim:7 name:Brandub surf:n atkf:y ks:w cenh: cenhe: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
    "brandubh",
)];

/// How a shipped evaluation fits the rules in play (see [`fitting`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Its own game, however the rules are spelled.
    Same,
    /// Its own game from another start position ([`Ruleset::same_game_any_start`]).
    OtherStart,
    /// Its own game but for what a repetition does (whatever the start).
    OtherRepetition,
    /// A game it was measured to play well (`OTHER_GAMES`), whatever the start.
    Measured,
}

impl Fit {
    /// How it fits, for a log: `fitted for this game`.
    pub fn describe(self) -> &'static str {
        match self {
            Fit::Same => "fitted for this game",
            Fit::OtherStart => "fitted for this game (which starts from another position here)",
            Fit::OtherRepetition => "fitted for this game but for what a repetition does",
            Fit::Measured => "fitted for another game, whose network was measured to play this one",
        }
    }
}

/// Which of the shipped evaluations `own` (each by its name and the rules it was fitted under)
/// fits the game `ruleset` describes, and how. Evaluations are matched by the game, not by
/// name: rules with an evaluation's name but other knobs get none (one for `hnefatafl` is not
/// offered for `copenhagen`, nor for OpenTafl's edge-escape "Tablut"), and the same game
/// spelled another way (an OpenTafl rules string, a file of one's own) gets it. The first
/// that fits, by the first of these that finds one:
///
/// 1. the same game ([`Ruleset::same_game`]);
/// 2. the same game from another start position ([`Ruleset::same_game_any_start`]): an evaluation
///    fits every position of its game, and OpenTafl sends a game's start in its rules;
/// 3. the same game but for what a repetition does, whatever the start. OpenTafl has no
///    "ignore": hosting our Brandubh (and any rules with `repetition = "ignore"`) it sends
///    them back with its default, a draw, and the game would otherwise lose its evaluation;
///    hnefatafl.org's Copenhagen forbids the defenders to repeat a board where ours makes it
///    their loss. The moves are the same but for the few a repetition rule forbids, which the
///    search sees from the rules in play, as it sees what a repetition ends;
/// 4. a game the evaluation of that name was measured to play well (`OTHER_GAMES`), whatever
///    the start and what a repetition does.
///
/// Networks ([`for_rules`]) and linear evaluations (`mcts:linear=shipped`) are matched here
/// alike, so that a level plays the same game with either.
pub fn fitting<'a>(ruleset: &Ruleset, own: &[(&'a str, Ruleset)]) -> Option<(&'a str, Fit)> {
    let first = |test: &dyn Fn(&Ruleset) -> bool| own.iter().find(|(_, r)| test(r)).map(|(n, _)| *n);
    if let Some(n) = first(&|r| r.same_game(ruleset)) {
        return Some((n, Fit::Same));
    }
    if let Some(n) = first(&|r| r.same_game_any_start(ruleset)) {
        return Some((n, Fit::OtherStart));
    }
    if let Some(n) = first(&|r| r.same_game_but_repetition(ruleset)) {
        return Some((n, Fit::OtherRepetition));
    }
    OTHER_GAMES.iter().find_map(|(text, name)| {
        let other = tafl_engine::formats::ruleset_from_opentafl(text).ok()?;
        let (n, _) = own.iter().find(|(n, _)| n == name)?;
        other
            .same_game_but_repetition(ruleset)
            .then_some((*n, Fit::Measured))
    })
}

/// The shipped model trained for the game `ruleset` describes, with the rules it was trained
/// under, and how it fits (matched as [`fitting`] matches). The network is fed the position
/// as in its training (see [`load_evaluator`]).
pub fn for_rules_fit(ruleset: &Ruleset) -> Result<(&'static ShippedModel, Ruleset, Fit), String> {
    let own: Vec<(&'static str, Ruleset)> = SHIPPED
        .iter()
        .filter_map(|m| m.ruleset().ok().map(|r| (m.name, r)))
        .collect();
    if let Some((name, fit)) = fitting(ruleset, &own) {
        let m = SHIPPED.iter().find(|m| m.name == name);
        let rules = own.iter().find(|(n, _)| *n == name).map(|(_, r)| r.clone());
        if let (Some(m), Some(rules)) = (m, rules) {
            return Ok((m, rules, fit));
        }
    }
    let names: Vec<&str> = SHIPPED.iter().map(|m| m.name).collect();
    Err(format!(
        "no shipped model for the rules `{}` (shipped: {}, each for its own game)",
        ruleset.id(),
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    ))
}

/// [`for_rules_fit`] without how it fits.
pub fn for_rules(ruleset: &Ruleset) -> Result<(&'static ShippedModel, Ruleset), String> {
    for_rules_fit(ruleset).map(|(m, own, _)| (m, own))
}

/// The shipped model for the game `ruleset` describes, as a network on `device` (to train
/// further or to evaluate), with its manifest and the rules it was trained under.
pub fn load_model(ruleset: &Ruleset, device: &Device) -> Result<(TaflNet, Manifest, Ruleset), String> {
    let (m, own) = for_rules(ruleset)?;
    let origin = Path::new("checkpoints").join(m.name);
    // Checked against the rules it was trained under, which describe the same game.
    let (model, manifest) = load_checkpoint_bytes(m.manifest, m.weights.to_vec(), &own, device, &origin)
        .map_err(|e| format!("shipped model `{}`: {e}", m.name))?;
    Ok((model, manifest, own))
}

/// Loads the shipped model for `ruleset` as an evaluator batching up to `callers` searches.
pub fn load_evaluator(ruleset: &Ruleset, callers: usize) -> Result<(Arc<NetEvaluator>, Manifest), String> {
    load_evaluator_on(ruleset, callers, Inference::process_default())
}

/// [`load_evaluator`] with the forward passes on `inference`.
pub fn load_evaluator_on(
    ruleset: &Ruleset,
    callers: usize,
    inference: Inference,
) -> Result<(Arc<NetEvaluator>, Manifest), String> {
    let device = tafl_nn::default_device();
    let (model, manifest, own) = load_model(ruleset, &device)?;
    // Encoded as in training, by the model's own rules, for its game (or the same but for
    // what a third occurrence does, whose plane the network never saw set); for another game
    // it was measured on (`OTHER_GAMES`), by that game's rules, as it was measured.
    let by = if own.same_game_but_repetition(ruleset) {
        &own
    } else {
        ruleset
    };
    Ok((
        NetEvaluator::for_play(model, &manifest, by, device, callers, inference),
        manifest,
    ))
}

/// The linear evaluations of `checkpoints/linear/` (built into the program), by the id of the
/// built-in ruleset each was fitted under: `mcts:linear=shipped` plays the one that fits the
/// rules in use ([`linear_for_rules`]), as `mcts:model=shipped` plays a network.
const SHIPPED_LINEAR: [(&str, &str); 4] = [
    ("brandubh", include_str!("../../checkpoints/linear/brandubh.toml")),
    ("tablut", include_str!("../../checkpoints/linear/tablut.toml")),
    (
        "hnefatafl",
        include_str!("../../checkpoints/linear/hnefatafl.toml"),
    ),
    (
        "copenhagen",
        include_str!("../../checkpoints/linear/copenhagen.toml"),
    ),
];

/// The shipped linear evaluation that fits `ruleset`, by the id of the built-in ruleset it was
/// fitted under, and how it fits: matched as the shipped networks are ([`fitting`]: the same
/// game, from any start, but for what a repetition does, or a game its network was measured
/// on), so that a level plays the same game with either.
pub fn linear_fit(ruleset: &Ruleset) -> Option<(&'static str, Fit)> {
    let own: Vec<(&'static str, Ruleset)> = SHIPPED_LINEAR
        .iter()
        .map(|(id, _)| (*id, Ruleset::builtin(id)))
        .collect();
    fitting(ruleset, &own)
}

/// The shipped linear weights for `ruleset` (those [`linear_fit`] finds), or why there are
/// none.
pub fn linear_for_rules(ruleset: &Ruleset) -> Result<LinearWeights, String> {
    let (id, text) = linear_fit(ruleset)
        .and_then(|(id, _)| SHIPPED_LINEAR.iter().find(|(r, _)| *r == id))
        .ok_or_else(|| {
            format!(
                "no shipped linear evaluation for `{}` (shipped: {})",
                ruleset.id(),
                SHIPPED_LINEAR.map(|(r, _)| r).join(", ")
            )
        })?;
    let mut w =
        LinearWeights::parse(text).map_err(|e| format!("the shipped linear weights of `{id}`: {e}"))?;
    // Fitted under the built-in rules of the same game: valid for these.
    w.ruleset = ruleset.id().to_string();
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl_engine::formats::{ruleset_from_opentafl, ruleset_to_opentafl};

    #[test]
    fn models_are_matched_by_the_game_not_the_name() {
        for id in ["brandubh", "tablut", "hnefatafl", "copenhagen"] {
            let ours = Ruleset::builtin(id);
            let (m, own) = for_rules(&ours).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(m.name, id);
            assert!(own.same_game(&ours));
            // Spelled as OpenTafl would keep it: a position record, another name and id.
            let text = ruleset_to_opentafl(&ours)
                .replace(&format!(" tafl-id:{id}"), "")
                .replacen("name:", "name:Mine_", 1);
            let imported = ruleset_from_opentafl(&text).unwrap_or_else(|e| panic!("{e}"));
            assert_ne!(imported.id(), id);
            assert_eq!(for_rules(&imported).map(|(m, _)| m.name), Ok(id));
            // The same name for another game finds nothing.
            let mut other = ours.clone();
            other
                .set_knob("king_capture", "weak")
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(for_rules(&other).is_err(), "{id} with a weak king");
        }
        assert!(for_rules(&Ruleset::builtin("fetlar")).is_err());
        // hnefatafl.org's house rules differ from Copenhagen's only in what a repetition does
        // (and a turn limit, which no network sees).
        let house = Ruleset::builtin("copenhagen-hnefatafl-org");
        assert_eq!(for_rules(&house).map(|(m, _)| m.name), Ok("copenhagen"));
        let opentafl_tablut = ruleset_from_opentafl(
            "dim:9 name:Tablut esc:e atkf:y ks:c nj:n cor: cens: cenh: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opentafl_tablut.id(), "tablut");
        assert!(for_rules(&opentafl_tablut).is_err());
    }

    /// OpenTafl hosting our Brandubh sends it back with repetitions drawn (it cannot say
    /// "ignored") and without our `tafl-` entries: the Brandubh network still plays.
    #[test]
    fn brandubh_hosted_by_opentafl_gets_the_brandubh_network() {
        let sent = ruleset_to_opentafl(&Ruleset::builtin("brandubh"));
        assert!(sent.contains("tfr:i"), "{sent}");
        // What OpenTafl sends back: `tfr:i` read as its default (a draw) and not written.
        let back = sent.replace(" tfr:i", "").replace(" tafl-id:brandubh", "");
        let hosted = ruleset_from_opentafl(&back).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(hosted.file.repetition, tafl_engine::rules::Repetition::Draw);
        let (m, own) = for_rules(&hosted).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.name, "brandubh");
        assert_eq!(own.file.repetition, tafl_engine::rules::Repetition::Ignore);
        let (_, manifest) = load_evaluator(&hosted, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(manifest.ruleset_id, "brandubh");
        // Another difference finds nothing...
        let mut weak = hosted.clone();
        weak.set_knob("king_capture", "weak").unwrap();
        assert!(for_rules(&weak).is_err());
        // ... unless the network was measured on that game: OpenTafl's own Brandub (king
        // captured by two, empty throne not hostile) gets the Brandubh network.
        let brandub = ruleset_from_opentafl(
            "dim:7 name:Brandub surf:n atkf:y ks:w cenh: cenhe: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(for_rules(&brandub).map(|(m, _)| m.name), Ok("brandubh"));
        let (_, manifest) = load_evaluator(&brandub, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(manifest.ruleset_id, "brandubh");
    }

    #[test]
    fn the_model_loads_for_its_game_spelled_another_way() {
        let text = ruleset_to_opentafl(&Ruleset::builtin("tablut")).replace(" tafl-id:tablut", "");
        let imported = ruleset_from_opentafl(&text).unwrap_or_else(|e| panic!("{e}"));
        assert!(imported.file.position.is_some() && imported.file.setup.is_none());
        let (_, manifest) = load_evaluator(&imported, 1).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(manifest.ruleset_id, "tablut");
    }

    #[test]
    fn shipped_linear_weights_follow_the_game_what_a_repetition_does_aside() {
        let ours = linear_for_rules(&Ruleset::builtin("copenhagen")).unwrap();
        // hnefatafl.org's Copenhagen: the defenders may not repeat a board, a draw at ply 141.
        let org = Ruleset::builtin("copenhagen-hnefatafl-org");
        let theirs = linear_for_rules(&org).unwrap();
        assert_eq!(theirs.ruleset, "copenhagen-hnefatafl-org");
        assert_eq!(
            LinearWeights {
                ruleset: ours.ruleset.clone(),
                ..theirs
            },
            ours
        );
        // An exact match comes first; another game gets none.
        let h = linear_for_rules(&Ruleset::builtin("hnefatafl")).unwrap();
        assert_ne!(h.value, ours.value);
        let err = linear_for_rules(&Ruleset::builtin("fetlar")).unwrap_err();
        assert!(err.contains("no shipped linear evaluation for `fetlar`"), "{err}");
    }
}
