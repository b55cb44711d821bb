//! Trained models as evaluators and players: a checkpoint folder, or a run folder (its best
//! checkpoint), loaded into a batched [`NetEvaluator`].

use crate::run_dir::RunDir;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tafl_engine::{
    Escape, Hostility, KingArmed, KingCapture, NoMoves, Piece, Repetition, Ruleset, Shieldwall, Side, Sq,
    ThronePass, ThroneStop, YesNo,
};
use tafl_nn::{
    burn::prelude::Device, default_device, load_checkpoint, read_manifest, BatchConfig, EloInfo, Inference,
    Manifest, NetEvaluator, TaflNet, MANIFEST_FILE,
};

/// The checkpoint folder a path names: itself when it holds a manifest, else the best
/// checkpoint of the run folder it is.
pub fn checkpoint_dir(path: &Path) -> Result<PathBuf, String> {
    if path.join(MANIFEST_FILE).is_file() {
        return Ok(path.to_path_buf());
    }
    let run = RunDir::new(path);
    if run.is_run() {
        let state = crate::run::RunState::load(path)?;
        return Ok(run.checkpoint(state.best));
    }
    Err(format!(
        "`{}` is neither a checkpoint folder (with {MANIFEST_FILE}) nor a training run folder",
        path.display()
    ))
}

/// The Elo a training run recorded for the checkpoint folder `dir`: `Ok(None)` unless `dir`
/// is `RUN/checkpoints/iter-NNNN` of a run folder with a state file.
pub fn checkpoint_elo(dir: &Path) -> Result<Option<EloInfo>, String> {
    let Some((run, iteration)) = RunDir::of_checkpoint(dir) else {
        return Ok(None);
    };
    if !run.is_run() {
        return Ok(None);
    }
    let state = crate::run::RunState::load(run.path())?;
    Ok(Some(state.elo_of(iteration)))
}

/// Loads the model at `path` (checkpoint or run folder, or `shipped`: the built-in model for
/// the rules) for the rules in use, as an evaluator
/// that batches the positions of up to `callers` concurrent searches.
pub fn load_evaluator(
    path: &Path,
    ruleset: &Ruleset,
    callers: usize,
) -> Result<(Arc<NetEvaluator>, Manifest), String> {
    load_evaluator_on(path, ruleset, callers, Inference::process_default())
}

/// [`load_evaluator`] with the forward passes on `inference` instead of the process's default
/// (a level that asks for int8).
pub fn load_evaluator_on(
    path: &Path,
    ruleset: &Ruleset,
    callers: usize,
    inference: Inference,
) -> Result<(Arc<NetEvaluator>, Manifest), String> {
    if path == Path::new(crate::shipped::SHIPPED_PATH) {
        return crate::shipped::load_evaluator_on(ruleset, callers, inference);
    }
    let dir = checkpoint_dir(path)?;
    let device = default_device();
    // A model fits rules that describe its game however they are spelled (a TOML diagram or
    // an OpenTafl position record, another name or id) and from whatever start position: it is
    // then loaded against its own rules, which the manifest check compares knob by knob.
    let model_rules = read_manifest(&dir)
        .ok()
        .and_then(|m| Ruleset::from_file(m.ruleset).ok())
        .filter(|own| fits(own, ruleset));
    let (model, manifest) =
        load_checkpoint(&dir, model_rules.as_ref().unwrap_or(ruleset), &device).map_err(|e| e.to_string())?;
    Ok((
        evaluator_from(model, &manifest, ruleset, device, callers, inference),
        manifest,
    ))
}

/// Evaluations a player's network keeps (about 20 MB on 11x11): positions a search meets
/// again by another move order, and those of the last moves' trees, cost a lookup instead of a
/// forward pass.
pub const PLAY_CACHE_ENTRIES: usize = 1 << 16;

/// Wraps a loaded model in a batched evaluator for up to `callers` concurrent searches, its
/// forward passes on `inference`.
pub fn evaluator_from(
    model: TaflNet,
    manifest: &Manifest,
    ruleset: &Ruleset,
    device: Device,
    callers: usize,
    inference: Inference,
) -> Arc<NetEvaluator> {
    let config = BatchConfig {
        callers,
        inference,
        max_wait: Duration::from_millis(2),
        cache_entries: PLAY_CACHE_ENTRIES,
        ..BatchConfig::default()
    };
    let name = format!("net:{}@{}", manifest.ruleset_id, manifest.training_step);
    Arc::new(NetEvaluator::new(model, ruleset, device, config, name))
}

/// The game a ruleset describes, without how its file spells it: the board, the start position,
/// the special squares and every knob that can change a move or a result. Names, ids, the
/// form of the start position (diagram or position record) and of the corners (a word or a
/// list) are left out, and so are the knobs of squares the board does not have (the throne's
/// on a board without one, the corners' on a board without them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameKey {
    size: usize,
    first: Side,
    start: Vec<(Sq, Piece)>,
    corners: Vec<Sq>,
    throne: Option<Sq>,
    corner_hostile: Option<Hostility>,
    throne_knobs: Option<(ThroneStop, ThronePass, Hostility, YesNo)>,
    king_armed: KingArmed,
    king_capture: KingCapture,
    escape: Escape,
    shieldwall: Shieldwall,
    /// Linnaean capture; only with a throne.
    linnaean: Option<YesNo>,
    exit_fort: YesNo,
    encirclement: YesNo,
    repetition: Repetition,
    no_moves: NoMoves,
}

impl GameKey {
    /// The key without the start position: what an evaluation fitted under the rules cares
    /// about, since it fits every position of its game (see [`fits`]).
    pub fn without_start(mut self) -> GameKey {
        self.start = Vec::new();
        self
    }
}

/// The [`GameKey`] of a ruleset.
pub fn game_key(rs: &Ruleset) -> GameKey {
    let f = &rs.file;
    let mut start = rs.start.clone();
    start.sort_unstable_by_key(|&(sq, _)| sq);
    let mut corners = rs.corners.clone();
    corners.sort_unstable();
    GameKey {
        size: rs.size(),
        first: f.first,
        start,
        corner_hostile: (!corners.is_empty()).then_some(f.corner_hostile),
        corners,
        throne: rs.throne,
        throne_knobs: rs.throne.map(|_| {
            (
                f.throne_stop,
                f.throne_pass,
                f.empty_throne_hostile,
                f.occupied_throne_hostile_to_attackers,
            )
        }),
        king_armed: f.king_armed,
        // Without a throne, "strong on or next to the throne" is weak everywhere.
        king_capture: match (f.king_capture, rs.throne) {
            (KingCapture::StrongNearThrone, None) => KingCapture::Weak,
            (k, _) => k,
        },
        escape: f.escape,
        shieldwall: f.shieldwall,
        linnaean: rs.throne.map(|_| f.linnaean_capture),
        exit_fort: f.exit_fort,
        encirclement: f.encirclement,
        repetition: f.repetition,
        no_moves: f.no_moves,
    }
}

/// Whether two rulesets describe the same game (see [`GameKey`]): what decides whether a
/// model trained under one plays the other.
pub fn same_game(a: &Ruleset, b: &Ruleset) -> bool {
    game_key(a) == game_key(b)
}

/// Whether an evaluation fitted under `own` (a network, linear weights) fits `ruleset`: the
/// same game ([`same_game`]) whatever the start position. An evaluation judges positions, and
/// fits every position of its game: a host that sends its own start (OpenTafl writes a game's
/// start into its rules string, so a game from another start arrives as other rules) keeps it.
pub fn fits(own: &Ruleset, ruleset: &Ruleset) -> bool {
    game_key(own).without_start() == game_key(ruleset).without_start()
}

/// Whether `ruleset` is `own`'s game but for what a repetition does (and whatever the start,
/// as [`fits`]): what lets a shipped evaluation fitted under `own` (a network, a linear
/// evaluation) play it when no exact match exists. OpenTafl has no "ignore" (hosting rules
/// with `repetition = "ignore"` it sends them back with its default, a draw), and
/// hnefatafl.org's Copenhagen forbids the defenders to repeat a board where ours makes it
/// their loss; the moves are the same but for the few a repetition rule forbids, which the
/// search sees from the rules in play.
pub fn fits_but_repetition(own: &Ruleset, ruleset: &Ruleset) -> bool {
    let mut alike = ruleset.clone();
    alike.file.repetition = own.file.repetition;
    fits(own, &alike)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_key_ignores_spelling_and_knobs_of_absent_squares() {
        let a = Ruleset::builtin("tawlbwrdd");
        assert!(a.throne.is_none() && a.corners.is_empty());
        let mut b = a.clone();
        b.file.id = "other".into();
        b.file.name = "Other".into();
        for (k, v) in [
            ("throne_pass", "nobody"),
            ("throne_stop", "nobody"),
            ("empty_throne_hostile", "none"),
            ("corner_hostile", "attackers"),
        ] {
            b.set_knob(k, v).unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(same_game(&a, &b));
        // A knob that changes moves or results does count.
        b.set_knob("king_armed", "no").unwrap_or_else(|e| panic!("{e}"));
        assert!(!same_game(&a, &b));
        // So do throne knobs where there is a throne.
        let h = Ruleset::builtin("hnefatafl");
        let mut h2 = h.clone();
        h2.set_knob("throne_pass", "king")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!same_game(&h, &h2));
        assert!(!same_game(&h, &Ruleset::builtin("copenhagen")));
    }

    /// An evaluation fits its game from any start: four plies into a Copenhagen game, as
    /// OpenTafl sends it, is still Copenhagen to a model; another knob is not.
    #[test]
    fn a_model_fits_its_game_whatever_the_start() {
        let c = Ruleset::builtin("copenhagen");
        let later = tafl_engine::ruleset_from_opentafl(
            "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t3t1/6T4/2t2T4t/t3TT4t/tt2TKTT2t/t3TTT3t/t2T1T4t/11/5t5/3ttttt3/",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // OpenTafl's Copenhagen: the same but for what a repetition does (`tfr:w`).
        assert!(!same_game(&c, &later) && !fits(&c, &later));
        assert!(fits_but_repetition(&c, &later));
        // Ours from that start.
        let mut ours_later = c.clone();
        ours_later.start = later.start.clone();
        assert!(!same_game(&c, &ours_later) && fits(&c, &ours_later));
        let mut weak = ours_later.clone();
        weak.set_knob("king_armed", "no")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!fits(&c, &weak) && !fits_but_repetition(&c, &weak));
        let mut draw = ours_later.clone();
        draw.set_knob("repetition", "draw")
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!fits(&c, &draw) && fits_but_repetition(&c, &draw));
        // Another board is another game, whatever else.
        assert!(!fits(&c, &Ruleset::builtin("brandubh")));
    }
}
