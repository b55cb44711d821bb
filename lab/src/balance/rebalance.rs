//! `tafl rebalance`: which changes of the rules make skilled play even, and does that hold as
//! the players get stronger.
//!
//! The variants are the base rules with up to `max_changes` levers moved (a lever is a knob of
//! the rules file and the values to try). Every variant is played by the skilled player against
//! itself under the exploration rule of the balance study, and measured by the defenders' share
//! of decided games. Rather than playing every variant to the final precision, a race spends
//! games where they decide something: in rounds that grow by half, and after each round a
//! variant whose distance from an even share is, with 99% confidence, larger than that of
//! `finalists` others is dropped, as is one whose games mostly end undecided. The survivors are
//! played until their interval is narrow enough to rank them (`race_precision`); only the
//! closest are then played on to the reported `precision`, ranked again until the finalists
//! all are, since variants that no number of games tells apart need not each be measured
//! finely. Every variant plays the same seeds, so a
//! lever that changes nothing in a variant's games leaves them move for move the same as the
//! simpler variant's: once `same_games` games agree, the variant is dropped as playing like the
//! simpler one (no number of games could tell the two apart, and a designer wants the fewer
//! changes). Then the survivors race again with each
//! stronger player in turn, judged by their worst distance from even over the players so far,
//! since rules that are even for weak players can tip under strong play. The closest
//! `finalists` by that worst distance are reported at every strength, and the closest of all is
//! written out as a rules file.
//!
//! Everything a decision depends on is in the state file, rewritten after every batch of
//! games, and every skilled game is seeded from (seed, base rules, player, game index), the same
//! for every variant (the random games add the variant): an
//! interrupted search resumes where it stopped and ends exactly as an uninterrupted one.

use super::intervals::Share;
use super::knobs::{self, KnobSetting};
use super::run::{random_row, row_seed, skilled_games, tally, GameResult};
use super::Play;
use crate::players::{resolve, Resolved};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use tafl_engine::stats::wilson;
use tafl_engine::{board::GameTally, with_board, Ruleset};

/// The levers of the default search: the choices seed 000 names as the balance's levers (who
/// moves first, the armed king, how the king is captured, where he escapes, hostile corners and
/// throne) and the rules modern rulesets add to rebalance (shieldwall, edge forts,
/// encirclement, repetition).
pub const DEFAULT_LEVERS: &[&str] = &[
    "first",
    "king_armed",
    "king_capture",
    "escape",
    "corner_hostile",
    "empty_throne_hostile",
    "shieldwall",
    "exit_fort",
    "encirclement",
    "repetition",
];

/// The racing player: the hand-written search at 100 simulations, cheap enough to race a
/// hundred variants within the hour on two cores, and the same player under every variant
/// (networks are trained for one ruleset).
pub const DEFAULT_SKILLED: &str = "mcts:heuristic:100";

/// The stronger players the survivors of the race race again with.
pub const DEFAULT_STRENGTHS: &str = "mcts:heuristic:400";

/// The half-width of the interval the race plays its survivors to by default: about 100
/// games of a close variant, against about 400 for the reported ±5 points.
pub const DEFAULT_RACE_PRECISION: f64 = 0.10;

/// The confidence of a drop. The race looks at every variant after every round, so its drops
/// use a wider interval than the 95% of the reported figures: a variant truly among the best
/// is then rarely dropped by one of its many looks.
const DROP_Z: f64 = 2.576;

/// More variants than this is a search that cannot finish; fewer levers or changes are needed.
const MAX_VARIANTS: usize = 2000;

/// The version of the search's seeding and state: a state file of another version is not
/// resumed (1: every variant's games seeded apart; 2: skilled games seeded alike for every
/// variant, and the games' fingerprints kept; 3: rounds grow by half, and the race plays its
/// survivors to the race precision, the finalists to the precision).
pub const SEARCH_VERSION: u32 = 3;

/// The state file in the output folder.
pub const STATE_FILE: &str = "rebalance-state.json";

/// What the command line asks for.
#[derive(Clone, Debug)]
pub struct RebalanceRequest {
    /// The base rules: a ruleset id or a rules file.
    pub rules: String,
    /// `knob,knob=a|b,...` (`None`: [`DEFAULT_LEVERS`], each with every other value).
    pub levers: Option<String>,
    /// At most this many levers moved at once.
    pub max_changes: u32,
    /// The racing player: `level:N` or a spec.
    pub skilled: String,
    /// The stronger players the survivors race again with, in turn.
    pub strengths: Vec<String>,
    /// Even means a defenders' share within `0.5 ± band`.
    pub band: f64,
    /// The half-width of the 95% interval a finalist's measurement is played to.
    pub precision: f64,
    /// The half-width of the 95% interval the race plays its survivors to: enough to rank
    /// them, not to report them (the finalists are then played on to `precision`).
    pub race_precision: f64,
    /// How many variants survive the race and are measured at every strength.
    pub finalists: usize,
    /// Games per variant in the first round (then 2, 3, 5, 8, 12, ... first rounds: about half
    /// as many again each round).
    pub first_round: u64,
    /// At most this many games per variant and player.
    pub max_games: u64,
    /// A variant whose undecided share (draws and no result) is surely above this is dropped.
    pub max_undecided: f64,
    /// Uniformly random games for the random rows of the base and the best variant.
    pub random_games: u64,
    /// Play every variant to the precision, dropping none (the race's baseline).
    pub exhaustive: bool,
    /// A variant whose first this-many games are move for move those of a variant with fewer
    /// changes is dropped as playing like it (0: never).
    pub same_games: u64,
    /// Output folder.
    pub out: PathBuf,
    /// How the games are played: seed, ply limit, exploration, threads.
    pub play: crate::study::StudyGames,
}

/// Every setting that decides the figures; a resumed search must be asked for the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RebalanceSettings {
    /// [`SEARCH_VERSION`] (0 in the state files of versions that did not write it).
    #[serde(default)]
    pub version: u32,
    /// The base rules as given.
    pub rules: String,
    /// The base rules' id.
    pub rules_id: String,
    /// The base rules' file text, so a changed file is not resumed as the same search.
    pub rules_toml: String,
    /// The levers, `knob=a|b`.
    pub levers: Vec<String>,
    /// At most this many levers moved at once.
    pub max_changes: u32,
    /// The players: the racing player first, then the stronger ones.
    pub players: Vec<String>,
    /// Probability of a uniformly random move each ply.
    pub exploration: f32,
    /// Ply limit (`None`: no limit).
    pub ply_limit: Option<u32>,
    /// Even means a defenders' share within `0.5 ± band`.
    pub band: f64,
    /// The half-width of the 95% interval a finalist's measurement is played to.
    pub precision: f64,
    /// The half-width of the 95% interval the race plays its survivors to.
    #[serde(default)]
    pub race_precision: f64,
    /// Variants measured at every strength.
    pub finalists: usize,
    /// Games per variant in the first round.
    pub first_round: u64,
    /// At most this many games per variant and player.
    pub max_games: u64,
    /// The undecided share above which a variant is dropped.
    pub max_undecided: f64,
    /// Random games of the base and the best variant.
    pub random_games: u64,
    /// Whether every variant is played to the precision (no race).
    pub exhaustive: bool,
    /// Games alike after which a variant plays like a simpler one (0: never).
    #[serde(default)]
    pub same_games: u64,
    /// The seed.
    pub seed: u64,
}

/// A knob and the values to try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lever {
    /// The knob, as in the rules files.
    pub knob: String,
    /// Its values to try, none of them the base's own.
    pub values: Vec<String>,
}

impl std::fmt::Display for Lever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.knob, self.values.join("|"))
    }
}

/// The knobs a lever can move: those with a fixed set of values.
fn lever_knobs() -> String {
    [
        "first",
        "throne_stop",
        "throne_pass",
        "corner_hostile",
        "empty_throne_hostile",
        "occupied_throne_hostile_to_attackers",
        "king_armed",
        "king_capture",
        "escape",
        "shieldwall",
        "linnaean_capture",
        "exit_fort",
        "encirclement",
        "repetition",
        "no_moves",
        "turn_limit_result",
    ]
    .join(", ")
}

/// Parses `--levers` (`king_armed,escape=edge,repetition=draw|defenders_lose`) against the
/// base rules: a bare knob tries every value but the base's. `None` is the default set.
pub fn parse_levers(text: Option<&str>, base: &Ruleset) -> Result<Vec<Lever>, String> {
    let items: Vec<String> = match text {
        None => DEFAULT_LEVERS.iter().map(|s| s.to_string()).collect(),
        Some(t) => t
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect(),
    };
    if items.is_empty() {
        return Err("--levers: name at least one knob".into());
    }
    let mut levers: Vec<Lever> = Vec::new();
    for item in items {
        let (knob, asked) = match item.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v)),
            None => (item.as_str(), None),
        };
        let (Some(allowed), Some(own)) = (Ruleset::knob_values(knob), base.knob(knob)) else {
            return Err(format!(
                "--levers `{item}`: `{knob}` is not a knob a lever can move; allowed: {}",
                lever_knobs()
            ));
        };
        if levers.iter().any(|l| l.knob == knob) {
            return Err(format!("--levers: `{knob}` is listed twice; list each knob once"));
        }
        let values: Vec<String> = match asked {
            None => allowed
                .iter()
                .filter(|v| **v != own)
                .map(|v| v.to_string())
                .collect(),
            Some(vs) => {
                let mut out = Vec::new();
                for v in vs.split('|').map(str::trim) {
                    if !allowed.contains(&v) {
                        return Err(format!(
                            "--levers `{item}`: `{v}` is not a value of `{knob}`; allowed: {}",
                            allowed.join(", ")
                        ));
                    }
                    if v != own && !out.iter().any(|o: &String| o == v) {
                        out.push(v.to_string());
                    }
                }
                out
            }
        };
        if values.is_empty() {
            return Err(format!(
                "--levers `{item}`: the base rules `{}` already have `{knob} = \"{own}\"`, so the lever changes nothing",
                base.id()
            ));
        }
        levers.push(Lever {
            knob: knob.to_string(),
            values,
        });
    }
    Ok(levers)
}

/// One variant: the base with some levers moved.
#[derive(Clone, Debug)]
pub struct Variant {
    /// The changes, sorted by knob (empty: the base rules).
    pub sets: Vec<KnobSetting>,
    /// The rules they make.
    pub ruleset: Ruleset,
}

impl Variant {
    /// `king_capture=weak, repetition=defenders_lose`, or `(base rules)`.
    pub fn label(&self) -> String {
        if self.sets.is_empty() {
            "(base rules)".to_string()
        } else {
            knobs::label(&self.sets)
        }
    }

    /// `--set king_capture=weak --set repetition=defenders_lose`, or empty for the base.
    pub fn set_flags(&self) -> String {
        self.sets
            .iter()
            .map(|s| format!("--set {s}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The base and every combination of at most `max_changes` levers, fewest changes first;
/// combinations the rules refuse, or that make the same rules as an earlier one, are left out
/// (the second count returned).
pub fn variants(base: &Ruleset, levers: &[Lever], max_changes: u32) -> Result<(Vec<Variant>, usize), String> {
    // Every choice of one value (or none) per lever, with at most max_changes moved.
    let mut combos: Vec<Vec<KnobSetting>> = vec![Vec::new()];
    for lever in levers {
        let mut next = Vec::with_capacity(combos.len() * (lever.values.len() + 1));
        for c in &combos {
            next.push(c.clone());
            if c.len() < max_changes as usize {
                for v in &lever.values {
                    let mut d = c.clone();
                    d.push(KnobSetting {
                        knob: lever.knob.clone(),
                        value: v.clone(),
                    });
                    next.push(d);
                }
            }
        }
        if next.len() > MAX_VARIANTS {
            return Err(format!(
                "--levers with --max-changes {max_changes}: more than {MAX_VARIANTS} variants; name fewer levers or lower --max-changes"
            ));
        }
        combos = next;
    }
    combos.sort_by_key(|c| c.len());
    let mut out: Vec<Variant> = Vec::new();
    let mut skipped = 0;
    for mut sets in combos {
        sets.sort();
        match knobs::apply(base, &sets) {
            Ok(ruleset) if !out.iter().any(|v| v.ruleset == ruleset) => out.push(Variant { sets, ruleset }),
            _ => skipped += 1,
        }
    }
    Ok((out, skipped))
}

/// Why the race dropped a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// Surely farther from even than `finalists` others.
    FarFromEven,
    /// Its games surely end undecided more often than allowed.
    Undecided,
    /// Its games so far are move for move those of this variant, which has fewer changes: the
    /// levers it adds changed none of them.
    PlaysLike(usize),
}

/// A drop: when and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped {
    /// The player whose race dropped it (0: the racing player's).
    #[serde(default)]
    pub player: usize,
    /// The round after which it was dropped (0: the first).
    pub round: u32,
    /// Why.
    pub reason: DropReason,
}

/// Everything the search has decided and measured: rewritten after every batch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RebalanceState {
    /// What was asked for.
    pub settings: RebalanceSettings,
    /// The variants' labels, in order (checked on resume).
    pub labels: Vec<String>,
    /// Per variant, per player: the games played so far (game indices `0..games`).
    pub tallies: Vec<Vec<GameTally>>,
    /// Per variant, per player: each game's fingerprint, in game order (as many as the tally's
    /// games).
    #[serde(default)]
    pub prints: Vec<Vec<Vec<u64>>>,
    /// Per variant: whether and when the race dropped it.
    pub dropped: Vec<Option<Dropped>>,
    /// Per variant: the variants whose changes are some of its own, fewest first (from the
    /// plan, not kept in the file).
    #[serde(skip)]
    pub simpler: Vec<Vec<usize>>,
    /// The player whose race is being run (0: the racing player's; then each stronger one).
    #[serde(default)]
    pub stage: usize,
    /// Rounds finished in the current stage's race.
    pub rounds: u32,
    /// The finalists, once the race is over.
    pub finalists: Option<Vec<usize>>,
    /// The batch of measurements being played: (variant, player, games it is played up to).
    /// A batch is chosen from every variant's figures, so a search resumed partway through one
    /// finishes it before choosing again, as an uninterrupted search does.
    #[serde(default)]
    pub measuring: Vec<(usize, usize, u64)>,
    /// Random games of the base and the best variant, once played.
    pub random: Vec<Option<GameTally>>,
}

impl RebalanceState {
    /// Adds games `tallies[v][p].games..` of variant `v` with player `p`.
    fn record(&mut self, v: usize, p: usize, games: &[GameResult]) {
        self.tallies[v][p] = self.tallies[v][p].merge(tally(games));
        self.prints[v][p].extend(games.iter().map(|g| g.fingerprint));
    }

    /// A simpler variant (some of `v`'s changes) whose games with player `p` are move for move
    /// `v`'s: every game both have played, and at least `same_games` of them.
    pub fn plays_like(&self, v: usize, p: usize) -> Option<usize> {
        let want = self.settings.same_games;
        let mine = &self.prints[v][p];
        if want == 0 || (mine.len() as u64) < want {
            return None;
        }
        self.simpler[v].iter().copied().find(|&u| {
            let theirs = &self.prints[u][p];
            let n = mine.len().min(theirs.len());
            n as u64 >= want && mine[..n] == theirs[..n]
        })
    }
}

/// The defenders' share of decided games.
pub fn defenders_share(t: &GameTally) -> Share {
    Share::new(t.defender_wins, t.decisive())
}

/// Games that ended with neither side winning (draws and no result).
fn undecided(t: &GameTally) -> u64 {
    t.games - t.decisive()
}

/// True when the 95% interval of the defenders' share of decided games is within
/// `precision` of its share on both sides.
fn precise(t: &GameTally, precision: f64) -> bool {
    t.decisive() > 0 && half_width(t) <= precision
}

/// The distance of the defenders' share from even, as an interval at confidence `z`.
fn distance(t: &GameTally, z: f64) -> (f64, f64) {
    let (lo, hi) = wilson(t.defender_wins, t.decisive(), z);
    if lo <= 0.5 && hi >= 0.5 {
        (0.0, (0.5 - lo).max(hi - 0.5))
    } else {
        let (a, b) = ((lo - 0.5).abs(), (hi - 0.5).abs());
        (a.min(b), a.max(b))
    }
}

/// The worst distance from even over the players `0..=last`, as an interval at confidence `z`:
/// the largest lower end and the largest upper end.
fn worst_interval(tallies: &[GameTally], last: usize, z: f64) -> (f64, f64) {
    tallies[..=last]
        .iter()
        .map(|t| distance(t, z))
        .fold((0.0, 0.0), |(a, b), (lo, hi)| (a.max(lo), b.max(hi)))
}

/// The point distance from even, for ranking (a variant with no decided game ranks last).
pub fn rank_distance(t: &GameTally) -> f64 {
    if t.decisive() == 0 {
        1.0
    } else {
        (defenders_share(t).share - 0.5).abs()
    }
}

/// A checked search: settings, variants and players.
pub struct RebalancePlan {
    /// The settings.
    pub settings: RebalanceSettings,
    /// The base rules.
    pub base: Ruleset,
    /// The variants, the base first.
    pub variants: Vec<Variant>,
    /// Combinations left out (refused by the rules, or the same rules as another).
    pub skipped: usize,
    /// The players, the racing one first.
    pub players: Vec<Resolved>,
}

impl RebalancePlan {
    /// Checks every input before a game is played; errors name the flag.
    pub fn new(req: &RebalanceRequest) -> Result<RebalancePlan, String> {
        let base = Ruleset::load(req.rules.trim()).map_err(|e| format!("--rules: {e}"))?;
        let levers = parse_levers(req.levers.as_deref(), &base)?;
        if req.max_changes == 0 {
            return Err("--max-changes 0: no variant to try; allow at least 1".into());
        }
        use crate::limits::{at_most, MAX_PLAYED_GAMES, MAX_RANDOM_GAMES};
        at_most("--max-games", req.max_games, MAX_PLAYED_GAMES)?;
        at_most("--random-games", req.random_games, MAX_RANDOM_GAMES)?;
        if req.first_round == 0 || req.first_round > req.max_games {
            return Err(format!(
                "--first-round {}: must be at least 1 and at most --max-games ({})",
                req.first_round, req.max_games
            ));
        }
        if req.finalists == 0 {
            return Err("--finalists 0: at least one variant must be measured at every strength".into());
        }
        for (flag, v, hi) in [
            ("--band", req.band, 0.5),
            ("--precision", req.precision, 0.5),
            ("--race-precision", req.race_precision, 0.5),
            ("--max-undecided", req.max_undecided, 1.0),
        ] {
            if !(v.is_finite() && v > 0.0 && v <= hi) {
                return Err(format!(
                    "{flag}: {v} is not allowed; allowed: above 0, at most {hi}"
                ));
            }
        }
        req.play.check(true)?;
        let (variants, skipped) = variants(&base, &levers, req.max_changes)?;
        let mut players = Vec::new();
        let mut names = Vec::new();
        for text in std::iter::once(&req.skilled).chain(&req.strengths) {
            let text = text.trim();
            let flag = if names.is_empty() {
                "--skilled"
            } else {
                "--strengths"
            };
            let p = resolve(text).map_err(|e| format!("{flag}: {e}"))?;
            if names.iter().any(|n| n == text) {
                return Err(format!("{flag}: `{text}` is listed twice"));
            }
            // A player every variant can build: a network is trained for one ruleset.
            with_board!(&base, B, rules => crate::players::build::<B>(&p, 0, &rules).map(|_| ()))
                .map_err(|e| format!("{flag}: {e}"))?;
            names.push(text.to_string());
            players.push(p);
        }
        let settings = RebalanceSettings {
            version: SEARCH_VERSION,
            rules: req.rules.trim().to_string(),
            rules_id: base.id().to_string(),
            rules_toml: base.to_toml(),
            levers: levers.iter().map(|l| l.to_string()).collect(),
            max_changes: req.max_changes,
            players: names,
            exploration: req.play.exploration,
            ply_limit: req.play.limit(),
            band: req.band,
            precision: req.precision,
            // The baseline plays every variant to the precision: nothing is ranked coarsely.
            race_precision: if req.exhaustive {
                req.precision
            } else {
                req.race_precision.max(req.precision)
            },
            finalists: req.finalists,
            first_round: req.first_round,
            max_games: req.max_games,
            max_undecided: req.max_undecided,
            random_games: req.random_games,
            exhaustive: req.exhaustive,
            same_games: req.same_games,
            seed: req.play.seed,
        };
        Ok(RebalancePlan {
            settings,
            base,
            variants,
            skipped,
            players,
        })
    }

    /// A new state: nothing played.
    fn fresh_state(&self) -> RebalanceState {
        let n = self.variants.len();
        RebalanceState {
            settings: self.settings.clone(),
            labels: self.variants.iter().map(Variant::label).collect(),
            tallies: vec![vec![GameTally::default(); self.players.len()]; n],
            prints: vec![vec![Vec::new(); self.players.len()]; n],
            dropped: vec![None; n],
            simpler: self.simpler(),
            stage: 0,
            rounds: 0,
            finalists: None,
            measuring: Vec::new(),
            random: vec![None; n],
        }
    }

    /// Per variant, the variants whose changes are some of its own, fewest changes first.
    fn simpler(&self) -> Vec<Vec<usize>> {
        let vs = &self.variants;
        (0..vs.len())
            .map(|v| {
                (0..vs.len())
                    .filter(|&u| vs[u].sets.len() < vs[v].sets.len())
                    .filter(|&u| vs[u].sets.iter().all(|k| vs[v].sets.contains(k)))
                    .collect()
            })
            .collect()
    }

    /// The seed of a variant's games with a player (the same for every variant: common random
    /// numbers, so that a lever that changes nothing in a game leaves the game as it was), or of
    /// its random games.
    fn seed(&self, variant: usize, player: Option<usize>) -> u64 {
        let v = &self.variants[variant];
        match player {
            Some(p) => row_seed(
                self.settings.seed,
                &self.settings.rules_id,
                &format!("|{}", self.settings.players[p]),
                Play::Skilled,
            ),
            None => row_seed(
                self.settings.seed,
                &self.settings.rules_id,
                &knobs::label(&v.sets),
                Play::Random,
            ),
        }
    }

    /// The command line that reproduces the search.
    pub fn command_line(&self) -> String {
        let s = &self.settings;
        let mut cmd = format!(
            "tafl rebalance --rules {} --levers '{}' --max-changes {} --skilled {} --strengths {} --exploration {} --ply-limit {} --band {} --precision {} --race-precision {} --finalists {} --first-round {} --max-games {} --max-undecided {} --random-games {} --same-games {} --seed {}",
            s.rules,
            s.levers.join(","),
            s.max_changes,
            s.players[0],
            s.players[1..].join(","),
            s.exploration,
            s.ply_limit.unwrap_or(0),
            s.band,
            s.precision,
            s.race_precision,
            s.finalists,
            s.first_round,
            s.max_games,
            s.max_undecided,
            s.random_games,
            s.same_games,
            s.seed
        );
        if s.exhaustive {
            cmd.push_str(" --exhaustive");
        }
        cmd
    }
}

/// The next thing to play, decided from the state alone.
#[derive(Debug, PartialEq)]
enum Step {
    /// A round of a player's race: each variant up to its target of games (the round's size,
    /// or less where its precision needs less).
    Race {
        /// Whose race.
        player: usize,
        /// Which round.
        round: u32,
        /// (variant, games it is played up to).
        todo: Vec<(usize, u64)>,
    },
    /// The round is over: apply its drops.
    EndRound,
    /// This player's race is over: the survivors race with the next player.
    NextStage,
    /// Choose the finalists.
    ChooseFinalists,
    /// Measure these (variant, player) pairs up to their targets.
    Measure(Vec<(usize, usize, u64)>),
    /// The random rows of these variants.
    Random(Vec<usize>),
    /// Nothing left.
    Done,
}

/// Whether a measurement needs more games to be within `precision`.
fn needs_games(t: &GameTally, s: &RebalanceSettings, precision: f64) -> bool {
    t.games < s.max_games && !precise(t, precision)
}

/// The games every variant of a race is played up to in round `round`: the first round's,
/// then about half as many again each round, in whole first rounds and at least one more
/// (16, 32, 48, 80, 128, 192, 288, ... for 16). Looking more often than at doublings drops a variant far from even nearer the
/// games it takes to show it (a 90% variant is shown at about 48, not 64), and the drops'
/// 99% intervals must not overlap, so the extra looks cost little confidence.
fn round_size(s: &RebalanceSettings, round: u32) -> u64 {
    let mut units: u64 = 1;
    for _ in 0..round.min(64) {
        units = (units + 1).max(units.saturating_mul(3).div_ceil(2));
    }
    s.first_round.saturating_mul(units).min(s.max_games)
}

/// The games a measurement is played up to next: twice what it has (the first round when it
/// has none), but no more than its share so far says `precision` needs (with a tenth to
/// spare, in whole first rounds), so that the last step does not overshoot by half.
fn next_target(t: &GameTally, s: &RebalanceSettings, cap: u64, precision: f64) -> u64 {
    let doubled = if t.games == 0 {
        s.first_round
    } else {
        t.games.saturating_mul(2)
    };
    let mut target = doubled;
    if t.decisive() > 0 {
        let p = defenders_share(t).share.clamp(0.05, 0.95);
        let decided = t.decisive() as f64 / t.games as f64;
        let z = tafl_engine::stats::Z95;
        let need = 1.1 * z * z * p * (1.0 - p) / (precision * precision) / decided;
        let need = (need / s.first_round as f64).ceil() as u64 * s.first_round;
        target = target.min(need.max(t.games + s.first_round));
    }
    target.min(cap).min(s.max_games)
}

/// The measurements of these variants, at every player, still short of the precision: (variant,
/// player, the games it is played up to next).
fn to_measure(state: &RebalanceState, variants: &[usize]) -> Vec<(usize, usize, u64)> {
    let s = &state.settings;
    let mut todo = Vec::new();
    for &v in variants {
        for (p, t) in state.tallies[v].iter().enumerate() {
            if needs_games(t, s, s.precision) {
                todo.push((v, p, next_target(t, s, u64::MAX, s.precision)));
            }
        }
    }
    todo
}

/// What to do next.
fn next_step(state: &RebalanceState) -> Step {
    let s = &state.settings;
    // The rest of a batch in progress first: what comes after it was chosen for its end.
    let pending: Vec<(usize, usize, u64)> = state
        .measuring
        .iter()
        .copied()
        .filter(|&(v, p, target)| state.tallies[v][p].games < target)
        .collect();
    if !pending.is_empty() {
        return Step::Measure(pending);
    }
    if state.finalists.is_none() {
        let p = state.stage;
        let alive: Vec<usize> = (0..state.tallies.len())
            .filter(|&v| state.dropped[v].is_none())
            .collect();
        let unfinished: Vec<usize> = alive
            .iter()
            .copied()
            .filter(|&v| needs_games(&state.tallies[v][p], s, s.race_precision))
            .collect();
        if unfinished.is_empty() {
            // The last round's drops first: a variant that reached its precision far from even
            // does not race with the next player.
            if !drops(state).is_empty() {
                return Step::EndRound;
            }
            if p + 1 < s.players.len() {
                return Step::NextStage;
            }
            // The race ranked its survivors at the race precision; the closest are played on
            // to the precision at every strength, and ranked again, until the closest are all
            // measured to it: a variant that only looked close on few games gives its place
            // to the next.
            let todo = to_measure(state, &choose_finalists(state));
            return if todo.is_empty() {
                Step::ChooseFinalists
            } else {
                Step::Measure(todo)
            };
        }
        let target = round_size(s, state.rounds);
        let todo: Vec<(usize, u64)> = unfinished
            .into_iter()
            .map(|v| {
                let t = &state.tallies[v][p];
                (v, next_target(t, s, target, s.race_precision))
            })
            .filter(|&(v, t)| state.tallies[v][p].games < t)
            .collect();
        if todo.is_empty() {
            return Step::EndRound;
        }
        return Step::Race {
            player: p,
            round: state.rounds,
            todo,
        };
    }
    let finalists = state.finalists.as_deref().unwrap_or_default();
    // The base is measured too: the before of the before/after, and the plot's reference.
    let mut measured: Vec<usize> = vec![0];
    measured.extend(finalists.iter().copied().filter(|&v| v != 0));
    let todo = to_measure(state, &measured);
    if !todo.is_empty() {
        return Step::Measure(todo);
    }
    if s.random_games > 0 {
        let mut want = vec![0, best(state)];
        want.dedup();
        want.retain(|&v| state.random[v].is_none());
        if !want.is_empty() {
            return Step::Random(want);
        }
    }
    Step::Done
}

/// The race's drops after a round of the current stage: variants whose games with its player
/// are move for move a simpler variant's, those whose games surely end undecided too often,
/// then those whose worst distance from even over the players
/// so far is surely larger than that of `finalists` others.
fn drops(state: &RebalanceState) -> Vec<(usize, DropReason)> {
    let s = &state.settings;
    if s.exhaustive {
        return Vec::new();
    }
    let p = state.stage;
    let mut out = Vec::new();
    let mut rest = Vec::new();
    for v in 0..state.tallies.len() {
        if state.dropped[v].is_some() {
            continue;
        }
        let t = &state.tallies[v][p];
        if let Some(u) = state.plays_like(v, p) {
            out.push((v, DropReason::PlaysLike(u)));
        } else if wilson(undecided(t), t.games, DROP_Z).0 > s.max_undecided {
            out.push((v, DropReason::Undecided));
        } else {
            rest.push(v);
        }
    }
    if rest.len() > s.finalists {
        let worst = |v: usize| worst_interval(&state.tallies[v], p, DROP_Z);
        let mut highs: Vec<f64> = rest.iter().map(|&v| worst(v).1).collect();
        highs.sort_by(f64::total_cmp);
        let bar = highs[s.finalists - 1];
        for &v in &rest {
            if worst(v).0 > bar {
                out.push((v, DropReason::FarFromEven));
            }
        }
    }
    out
}

/// The finalists: the surviving variants whose worst distance from even over the players is
/// smallest, fewer changes first on a tie (the base counts as a candidate like any other), and
/// none that plays like a simpler variant.
fn choose_finalists(state: &RebalanceState) -> Vec<usize> {
    let max = state.settings.max_undecided;
    let mut alive: Vec<usize> = (0..state.tallies.len())
        .filter(|&v| state.dropped[v].is_none())
        .filter(|&v| {
            state.tallies[v]
                .iter()
                .all(|t| t.games == 0 || (undecided(t) as f64 / t.games as f64) <= max)
        })
        // A variant that plays like a simpler one is that one again (only the exhaustive
        // baseline, which drops nothing, still has such twins here).
        .filter(|&v| (0..state.settings.players.len()).all(|p| state.plays_like(v, p).is_none()))
        .collect();
    alive.sort_by(|&a, &b| worst_distance(&state.tallies[a]).total_cmp(&worst_distance(&state.tallies[b])));
    alive.truncate(state.settings.finalists);
    alive
}

/// The farthest a variant's measured shares lie from even over the players (1 when a player
/// has not measured it).
pub fn worst_distance(tallies: &[GameTally]) -> f64 {
    tallies
        .iter()
        .map(|t| if t.games == 0 { 1.0 } else { rank_distance(t) })
        .fold(0.0, f64::max)
}

/// The best finalist: the one whose share stays closest to even at every strength.
pub fn best(state: &RebalanceState) -> usize {
    let finalists = state.finalists.as_deref().unwrap_or_default();
    finalists
        .iter()
        .copied()
        .min_by(|&a, &b| worst_distance(&state.tallies[a]).total_cmp(&worst_distance(&state.tallies[b])))
        .unwrap_or(0)
}

/// Reads the state of an earlier search in `out`, if any; a search asked for differently is
/// refused rather than mixed in.
fn load_state(plan: &RebalancePlan, out: &std::path::Path) -> Result<Option<RebalanceState>, String> {
    let path = out.join(STATE_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text = tafl_engine::input::read_text_limited(&path, 64 << 20)?;
    let state: RebalanceState = serde_json::from_str(&text)
        .map_err(|e| format!("`{}`: not a rebalance state file: {e}", path.display()))?;
    if state.settings.version != plan.settings.version {
        return Err(format!(
            "`{}` holds a search by another version of tafl (its games seeded otherwise); use another --out, or delete the folder to start over",
            path.display()
        ));
    }
    if state.settings != plan.settings {
        return Err(format!(
            "`{}` holds a search asked for with other settings ({}); use another --out, or delete the folder to start over",
            path.display(),
            settings_difference(&state.settings, &plan.settings)
        ));
    }
    let labels: Vec<String> = plan.variants.iter().map(Variant::label).collect();
    let n = plan.variants.len();
    if state.labels != labels
        || state.tallies.len() != n
        || state.tallies.iter().any(|t| t.len() != plan.players.len())
        || state.dropped.len() != n
        || state.prints.len() != n
        || state
            .prints
            .iter()
            .zip(&state.tallies)
            .any(|(p, t)| p.len() != t.len() || p.iter().zip(t).any(|(p, t)| p.len() as u64 != t.games))
        || state.random.len() != n
        || state
            .finalists
            .as_ref()
            .is_some_and(|f| f.iter().any(|&v| v >= n))
    {
        return Err(format!(
            "`{}`: its variants are not this search's (another version of tafl?); use another --out",
            path.display()
        ));
    }
    let mut state = state;
    state.simpler = plan.simpler();
    Ok(Some(state))
}

/// The settings that differ, for the refusal to resume.
fn settings_difference(a: &RebalanceSettings, b: &RebalanceSettings) -> String {
    let (Ok(serde_json::Value::Object(x)), Ok(serde_json::Value::Object(y))) =
        (serde_json::to_value(a), serde_json::to_value(b))
    else {
        return "unreadable".into();
    };
    let keys: Vec<String> = x.keys().filter(|k| x.get(*k) != y.get(*k)).cloned().collect();
    format!("differing: {}", keys.join(", "))
}

/// Runs the search: resumes from the state in `req.out` if there is one, plays until every
/// step is done, rewrites the state after each batch and the reports after each round or
/// stage, and prints the report. Raising `stop` ends it after the games in flight (the batch
/// in progress is discarded; the state keeps the rest).
pub fn run(req: &RebalanceRequest, stop: &AtomicBool) -> Result<(), String> {
    let pool = req.play.pool()?;
    let plan = pool.install(|| RebalancePlan::new(req))?;
    std::fs::create_dir_all(&req.out)
        .map_err(|e| format!("--out `{}`: cannot create the folder: {e}", req.out.display()))?;
    let mut state = match load_state(&plan, &req.out)? {
        Some(s) => {
            let games: u64 = s.tallies.iter().flatten().map(|t| t.games).sum();
            eprintln!(
                "resuming the search in `{}`: {games} games already played",
                req.out.display()
            );
            s
        }
        None => plan.fresh_state(),
    };
    eprintln!(
        "{} variants of `{}` ({} left out: refused by the rules or the same as another), {} players",
        plan.variants.len(),
        plan.settings.rules_id,
        plan.skipped,
        plan.players.len()
    );
    let save = |state: &RebalanceState| -> Result<(), String> {
        let text = serde_json::to_string(state).map_err(|e| format!("cannot write the state: {e}"))?;
        crate::work::write_atomic(&req.out.join(STATE_FILE), text.as_bytes())
    };
    let interrupted = || -> Result<(), String> {
        Err(format!(
            "interrupted: the search so far is in `{}`; run the same command again to resume",
            req.out.display()
        ))
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
            return interrupted();
        }
        match next_step(&state) {
            Step::Race { player, round, todo } => {
                let left: u64 = todo
                    .iter()
                    .map(|&(v, target)| target - state.tallies[v][player].games)
                    .sum();
                let alive = state.dropped.iter().filter(|d| d.is_none()).count();
                let label = format!(
                    "{}, round {round}: {} of {alive} variants",
                    plan.settings.players[player],
                    todo.len()
                );
                let bar = crate::work::progress_bar(left, &label);
                for (v, target) in todo {
                    let have = state.tallies[v][player].games;
                    let Some(games) = pool.install(|| play(&plan, v, player, have..target, &bar, stop))?
                    else {
                        bar.finish_and_clear();
                        super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
                        return interrupted();
                    };
                    state.record(v, player, &games);
                    save(&state)?;
                }
                bar.finish_and_clear();
            }
            Step::NextStage => {
                state.stage += 1;
                state.rounds = 0;
                let alive = state.dropped.iter().filter(|d| d.is_none()).count();
                eprintln!(
                    "{alive} variants race again with {}",
                    plan.settings.players[state.stage]
                );
                save(&state)?;
            }
            Step::EndRound => {
                let (player, round) = (state.stage, state.rounds);
                let dropped = drops(&state);
                for &(v, reason) in &dropped {
                    state.dropped[v] = Some(Dropped {
                        player,
                        round,
                        reason,
                    });
                }
                state.rounds += 1;
                let alive = state.dropped.iter().filter(|d| d.is_none()).count();
                eprintln!(
                    "{}, round {round}: dropped {}, {alive} left",
                    plan.settings.players[player],
                    dropped.len()
                );
                save(&state)?;
                super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
            }
            Step::ChooseFinalists => {
                let f = choose_finalists(&state);
                let labels: Vec<String> = f.iter().map(|&v| plan.variants[v].label()).collect();
                eprintln!("finalists: {}", labels.join("; "));
                state.finalists = Some(f);
                save(&state)?;
                super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
            }
            Step::Measure(todo) => {
                state.measuring = todo.clone();
                save(&state)?;
                let left: u64 = todo
                    .iter()
                    .map(|&(v, p, target)| target - state.tallies[v][p].games)
                    .sum();
                let bar = crate::work::progress_bar(left, "measuring the closest variants at every strength");
                for (v, p, target) in todo {
                    let have = state.tallies[v][p].games;
                    let Some(games) = pool.install(|| play(&plan, v, p, have..target, &bar, stop))? else {
                        bar.finish_and_clear();
                        super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
                        return interrupted();
                    };
                    state.record(v, p, &games);
                    save(&state)?;
                }
                bar.finish_and_clear();
                state.measuring.clear();
                save(&state)?;
                super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
            }
            Step::Random(todo) => {
                for v in todo {
                    let games = plan.settings.random_games;
                    let bar = crate::work::progress_bar(
                        games,
                        &format!("random games: {}", plan.variants[v].label()),
                    );
                    let seed = plan.seed(v, None);
                    let limit = plan.settings.ply_limit;
                    let t = pool.install(|| {
                        with_board!(&plan.variants[v].ruleset, B, rules => random_row::<B>(&rules, games, seed, limit, &bar, stop))
                    });
                    bar.finish_and_clear();
                    let Some(t) = t else {
                        super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
                        return interrupted();
                    };
                    state.random[v] = Some(t);
                    save(&state)?;
                }
            }
            Step::Done => break,
        }
    }
    super::rebalance_outputs::write_all(&req.out, &plan, &state)?;
    print!("{}", super::rebalance_outputs::markdown(&plan, &state));
    eprintln!(
        "wrote rebalance.md, .csv, .json, rebalance-vs-strength.png, best.toml and best-rules.md to `{}`",
        req.out.display()
    );
    Ok(())
}

/// Plays games `games` of a variant with a player; `None` when stopped.
fn play(
    plan: &RebalancePlan,
    variant: usize,
    player: usize,
    games: std::ops::Range<u64>,
    bar: &indicatif::ProgressBar,
    stop: &AtomicBool,
) -> Result<Option<Vec<GameResult>>, String> {
    let seed = plan.seed(variant, Some(player));
    let limit = plan.settings.ply_limit;
    let e = plan.settings.exploration;
    let p = &plan.players[player];
    with_board!(&plan.variants[variant].ruleset, B, rules => skilled_games::<B>(&rules, p, e, games, seed, limit, &[], bar, stop))
}

/// The 95% half-width the figures are reported with.
pub fn half_width(t: &GameTally) -> f64 {
    let s = defenders_share(t);
    (s.high - s.share).max(s.share - s.low)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(def: u64, att: u64, undecided: u64) -> GameTally {
        GameTally {
            games: def + att + undecided,
            defender_wins: def,
            attacker_wins: att,
            no_result: undecided,
            ..GameTally::default()
        }
    }

    #[test]
    fn levers_default_to_every_other_value_and_refuse_bad_text() {
        let base = Ruleset::builtin("brandubh");
        let levers = parse_levers(None, &base).unwrap();
        let escape = levers.iter().find(|l| l.knob == "escape").unwrap();
        assert_eq!(escape.values, vec!["edge".to_string()]);
        let l = parse_levers(Some("king_capture=weak|strong, first"), &base).unwrap();
        assert_eq!(
            l[0].values,
            vec!["weak".to_string()],
            "the base's own value is left out"
        );
        assert_eq!(l[1].values, vec!["defenders".to_string()]);
        for (bad, want) in [
            ("knights", "not a knob"),
            ("escape=moon", "not a value"),
            ("escape=corners", "changes nothing"),
            ("first,first", "twice"),
            ("turn_limit", "not a knob"),
            (" , ", "at least one"),
        ] {
            let e = parse_levers(Some(bad), &base).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn variants_combine_up_to_max_changes_without_duplicates() {
        let base = Ruleset::builtin("brandubh");
        let levers = parse_levers(Some("first,escape,king_capture"), &base).unwrap();
        // 1 + (1 + 1 + 2) singles + (1*1 + 1*2 + 1*2) pairs.
        let (v, skipped) = variants(&base, &levers, 2).unwrap();
        assert_eq!((v.len(), skipped), (1 + 4 + 5, 0));
        assert!(v[0].sets.is_empty() && v[0].ruleset == base);
        assert!(v.windows(2).all(|w| w[0].sets.len() <= w[1].sets.len()));
        let (v, _) = variants(&base, &levers, 1).unwrap();
        assert_eq!(v.len(), 5);
        // A lever listed with a value equal to another combination's is not played twice.
        let labels: std::collections::BTreeSet<String> = v.iter().map(Variant::label).collect();
        assert_eq!(labels.len(), v.len());
    }

    #[test]
    fn distances_from_even_bracket_the_share() {
        let (lo, hi) = distance(&tally(50, 50, 0), DROP_Z);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.1 && hi < 0.2, "{hi}");
        let (lo, hi) = distance(&tally(32, 0, 0), DROP_Z);
        assert!(lo > 0.3 && hi == 0.5, "{lo} {hi}");
        assert!(precise(&tally(200, 200, 0), 0.05));
        assert!(!precise(&tally(20, 20, 0), 0.05));
        assert!(
            !precise(&tally(0, 0, 10), 0.05),
            "no decided game is no measurement"
        );
    }

    fn state(tallies: Vec<GameTally>, finalists: usize) -> RebalanceState {
        let n = tallies.len();
        let settings = RebalanceSettings {
            rules: "brandubh".into(),
            rules_id: "brandubh".into(),
            rules_toml: String::new(),
            levers: Vec::new(),
            max_changes: 1,
            players: vec!["mcts:heuristic:10".into()],
            exploration: 0.1,
            ply_limit: Some(400),
            band: 0.05,
            precision: 0.05,
            race_precision: 0.05,
            finalists,
            first_round: 16,
            max_games: 512,
            max_undecided: 0.25,
            random_games: 0,
            exhaustive: false,
            same_games: 64,
            seed: 0,
            version: SEARCH_VERSION,
        };
        RebalanceState {
            settings,
            labels: vec![String::new(); n],
            tallies: tallies.into_iter().map(|t| vec![t]).collect(),
            prints: vec![vec![Vec::new()]; n],
            dropped: vec![None; n],
            simpler: vec![Vec::new(); n],
            stage: 0,
            rounds: 0,
            finalists: None,
            measuring: Vec::new(),
            random: vec![None; n],
        }
    }

    #[test]
    fn the_race_drops_the_lopsided_and_the_undecided_and_keeps_the_close() {
        let s = state(
            vec![
                tally(64, 0, 0),
                tally(33, 31, 0),
                tally(30, 34, 0),
                tally(40, 24, 0),
                tally(5, 5, 54),
            ],
            2,
        );
        let d = drops(&s);
        assert!(d.contains(&(0, DropReason::FarFromEven)), "{d:?}");
        assert!(d.contains(&(4, DropReason::Undecided)), "{d:?}");
        assert!(!d.iter().any(|&(v, _)| v == 1 || v == 2), "{d:?}");
        // With as many survivors as finalists, nothing is dropped for distance.
        let s2 = state(vec![tally(64, 0, 0), tally(33, 31, 0)], 2);
        assert!(drops(&s2).is_empty());
        // The exhaustive baseline drops nothing.
        let mut s3 = s.clone();
        s3.settings.exhaustive = true;
        assert!(drops(&s3).is_empty());
    }

    #[test]
    fn a_variant_whose_games_are_a_simpler_ones_is_dropped_as_playing_like_it() {
        // The base, `a` (one change) and `a, b` (two): `a` played the base's games move for move,
        // `a, b` differed in one game.
        let mut s = state(vec![tally(32, 32, 0); 3], 5);
        s.simpler = vec![vec![], vec![0], vec![0, 1]];
        let base: Vec<u64> = (0..64).collect();
        let mut other = base.clone();
        other[40] = 1000;
        s.prints = vec![vec![base.clone()], vec![base.clone()], vec![other]];
        assert_eq!(drops(&s), vec![(1, DropReason::PlaysLike(0))]);
        // Fewer games alike than `same_games` prove nothing yet.
        let mut s2 = s.clone();
        s2.prints = vec![vec![base[..32].to_vec()]; 3];
        s2.tallies = vec![vec![tally(16, 16, 0)]; 3];
        assert!(drops(&s2).is_empty());
        // A variant is only ever like a simpler one: the base plays like nothing, and neither
        // does a variant of as many changes with the same games.
        let mut s3 = s.clone();
        s3.simpler = vec![vec![], vec![], vec![]];
        assert!(drops(&s3).is_empty());
        // Off, and in the exhaustive baseline, nothing is dropped.
        let mut s4 = s.clone();
        s4.settings.same_games = 0;
        assert!(drops(&s4).is_empty());
        s4.settings.same_games = 64;
        s4.settings.exhaustive = true;
        assert!(drops(&s4).is_empty());
        // The baseline, which keeps it, does not make it a finalist either: it is the base again.
        assert_eq!(choose_finalists(&s4), vec![0, 2]);
    }

    #[test]
    fn steps_race_in_growing_rounds_then_measure_the_finalists() {
        let mut s = state(vec![GameTally::default(); 3], 1);
        assert_eq!(
            next_step(&s),
            Step::Race {
                player: 0,
                round: 0,
                todo: vec![(0, 16), (1, 16), (2, 16)]
            }
        );
        for t in &mut s.tallies {
            t[0] = tally(8, 8, 0);
        }
        assert_eq!(next_step(&s), Step::EndRound);
        s.rounds = 1;
        match next_step(&s) {
            Step::Race { todo, .. } => assert!(todo.iter().all(|&(_, t)| t == 32), "{todo:?}"),
            other => panic!("{other:?}"),
        }
        // Then rounds grow by half: 48 after 32, not 64.
        for t in &mut s.tallies {
            t[0] = tally(16, 16, 0);
        }
        s.rounds = 2;
        match next_step(&s) {
            Step::Race { todo, .. } => assert!(todo.iter().all(|&(_, t)| t == 48), "{todo:?}"),
            other => panic!("{other:?}"),
        }
        // Near the end, a round plays only what the precision needs: an even share at 256
        // games needs about 423 (1.1 x 1.96^2 / 4 / 0.05^2), not 512.
        s.tallies[0][0] = tally(128, 128, 0);
        assert_eq!(next_target(&s.tallies[0][0], &s.settings, 512, 0.05), 432);
        for t in &mut s.tallies {
            t[0] = tally(256, 256, 0);
        }
        s.tallies[1][0] = tally(300, 212, 0);
        assert_eq!(next_step(&s), Step::ChooseFinalists);
        let f = choose_finalists(&s);
        assert_eq!(f, vec![0]);
        s.finalists = Some(f);
        assert_eq!(next_step(&s), Step::Done);
        assert_eq!(best(&s), 0);
    }

    #[test]
    fn rounds_grow_by_half_in_whole_first_rounds() {
        let s = state(vec![GameTally::default()], 1);
        let sizes: Vec<u64> = (0..9).map(|r| round_size(&s.settings, r)).collect();
        assert_eq!(sizes, vec![16, 32, 48, 80, 128, 192, 288, 432, 512]);
        assert_eq!(round_size(&s.settings, u32::MAX), 512, "capped at --max-games");
    }

    /// The measurements `next_step` asks for next (it must ask for measurements).
    fn measure_step(s: &RebalanceState) -> Vec<(usize, usize, u64)> {
        match next_step(s) {
            Step::Measure(todo) => todo,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_race_ranks_at_the_race_precision_and_the_finalists_are_played_on_to_the_precision() {
        // Two close variants, each 120 games about 55%: within ±10 points, not within ±5.
        let mut s = state(vec![tally(66, 54, 0), tally(64, 56, 0)], 1);
        s.settings.race_precision = 0.10;
        s.rounds = 5;
        // The race is over for both (no drop: they cannot be told apart); the closer is played
        // on to ±5 points before it is chosen.
        assert_eq!(measure_step(&s), vec![(1, 0, 240)]);
        // Measured finely, it turns out farther from even than the other looked: the other is
        // played on in its turn.
        s.tallies[1][0] = tally(150, 90, 0);
        assert_eq!(measure_step(&s), vec![(0, 0, 240)]);
        // A search stopped partway through a batch finishes that batch before choosing again,
        // even where the games played so far would choose otherwise: an uninterrupted search
        // chose after the whole batch.
        let mut stopped = s.clone();
        stopped.measuring = vec![(0, 0, 240), (1, 0, 480)];
        assert_eq!(measure_step(&stopped), vec![(0, 0, 240), (1, 0, 480)]);
        stopped.tallies[0][0] = tally(216, 24, 0);
        assert_eq!(measure_step(&stopped), vec![(1, 0, 480)]);
        // Both measured finely: the closer is the finalist; the base is the before (measured).
        s.tallies[0][0] = tally(216, 184, 0);
        assert_eq!(next_step(&s), Step::ChooseFinalists);
        let f = choose_finalists(&s);
        assert_eq!(f, vec![0]);
        s.finalists = Some(f);
        assert_eq!(next_step(&s), Step::Done);
        // The exhaustive baseline plays every variant to the precision: its race precision is
        // the precision whatever is asked.
        let req = |exhaustive| RebalanceRequest {
            rules: "brandubh".into(),
            levers: Some("king_capture=weak".into()),
            max_changes: 1,
            skilled: "mcts:heuristic:10".into(),
            strengths: Vec::new(),
            band: 0.05,
            precision: 0.05,
            race_precision: 0.10,
            finalists: 1,
            first_round: 16,
            max_games: 512,
            max_undecided: 0.25,
            random_games: 0,
            exhaustive,
            same_games: 64,
            out: PathBuf::from("unused"),
            play: crate::study::StudyGames {
                seed: 0,
                ply_limit: 400,
                exploration: 0.1,
                threads: None,
            },
        };
        assert_eq!(
            RebalancePlan::new(&req(false)).unwrap().settings.race_precision,
            0.10
        );
        assert_eq!(
            RebalancePlan::new(&req(true)).unwrap().settings.race_precision,
            0.05
        );
    }

    #[test]
    fn the_survivors_race_again_with_each_stronger_player_judged_by_their_worst_distance() {
        let mut s = state(
            vec![tally(256, 256, 0), tally(250, 262, 0), tally(260, 252, 0)],
            1,
        );
        s.settings.players.push("mcts:heuristic:40".into());
        for t in &mut s.tallies {
            t.push(GameTally::default());
        }
        for p in &mut s.prints {
            p.push(Vec::new());
        }
        // Every variant is measured with the racing player: the next player's race begins.
        assert_eq!(next_step(&s), Step::NextStage);
        s.stage = 1;
        match next_step(&s) {
            Step::Race { player, round, todo } => {
                assert_eq!((player, round), (1, 0));
                assert_eq!(todo, vec![(0, 16), (1, 16), (2, 16)]);
            }
            other => panic!("{other:?}"),
        }
        // Even with the racing player, lopsided with the stronger one: dropped by its race.
        s.tallies[0][1] = tally(64, 0, 0);
        s.tallies[1][1] = tally(33, 31, 0);
        s.tallies[2][1] = tally(31, 33, 0);
        let d = drops(&s);
        assert_eq!(d, vec![(0, DropReason::FarFromEven)]);
        for (v, r) in d {
            s.dropped[v] = Some(Dropped {
                player: 1,
                round: 0,
                reason: r,
            });
        }
        s.tallies[1][1] = tally(300, 212, 0);
        s.tallies[2][1] = tally(262, 250, 0);
        assert_eq!(next_step(&s), Step::ChooseFinalists);
        // The finalist is the one closest to even at its worse strength.
        assert_eq!(choose_finalists(&s), vec![2]);
        assert!((worst_distance(&s.tallies[1]) - (300.0 / 512.0 - 0.5)).abs() < 1e-12);
    }
}
