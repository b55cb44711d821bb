//! Search parameters, with documented defaults.

use serde::{Deserialize, Serialize};

/// How the root chooses which moves to search.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RootSelection {
    /// PUCT everywhere (AlphaZero).
    #[default]
    Puct,
    /// Gumbel-top-k sampling with sequential halving at the root ("Policy improvement by
    /// planning with Gumbel", Danihelka et al. 2022): improves the policy even with few
    /// simulations, which is what self-play on a small machine can afford.
    Gumbel,
}

/// How a player's search threads share the work of one move.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Parallelism {
    /// Independent trees, one a thread, their root statistics merged: no locking, but each
    /// tree sees only its share of the simulations.
    #[default]
    Root,
    /// One tree for every thread, kept apart by virtual loss ([`crate::Search::run_shared`]):
    /// every simulation deepens the same tree, at the cost of a lock around the tree walk.
    Tree,
}

impl std::str::FromStr for Parallelism {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "root" => Ok(Parallelism::Root),
            "tree" => Ok(Parallelism::Tree),
            _ => Err(format!("`{s}`: expected `root` or `tree`")),
        }
    }
}

impl std::fmt::Display for Parallelism {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Parallelism::Root => "root",
            Parallelism::Tree => "tree",
        })
    }
}

/// Fewest nodes a tree may be limited to: enough for the root's moves on the largest boards
/// and a few hundred simulations beyond them.
pub const MIN_NODES: usize = 10_000;

/// Parameters of one search. Every field has a default (see [`SearchConfig::default`]), so a
/// config file names only what it changes; unknown keys are errors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Simulations (leaf evaluations or terminal visits) per move. Default 800.
    pub simulations: u32,
    /// Exploration constant of PUCT. Default 1.5.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at its parent's value minus this.
    /// Default 0.2.
    pub fpu_reduction: f32,
    /// Leaves gathered per evaluator call, kept apart by virtual loss. Default 16.
    pub batch_size: u32,
    /// Virtual loss added per pending visit. Default 1.0.
    pub virtual_loss: f32,
    /// Dirichlet noise concentration at the root. Default 0.3.
    pub dirichlet_alpha: f32,
    /// Share of Dirichlet noise mixed into the root priors; 0 turns noise off. Default 0.
    pub dirichlet_epsilon: f32,
    /// Root selection rule. Default `puct`.
    pub root: RootSelection,
    /// Gumbel root: moves sampled for sequential halving. Default 16.
    pub gumbel_k: u32,
    /// Gumbel root: `c_visit` of the completed-Q transform. Default 50.
    pub gumbel_c_visit: f32,
    /// Gumbel root: `c_scale` of the completed-Q transform. Default 1.0.
    pub gumbel_c_scale: f32,
    /// Propagate proven wins and losses up the tree. Default true.
    pub solver: bool,
    /// Most nodes the tree may hold: the search stops growing it there (a host bounds the
    /// memory of its searches with this; see [`Search::tree_bytes`](super::Search::tree_bytes)).
    /// Default and most [`MAX_NODES`](super::MAX_NODES).
    pub max_nodes: usize,
    /// With an evaluator that has a [`refiner`](super::Evaluator::refiner) (a
    /// [`Layered`](super::Layered) one): visits after which a node is evaluated again by the
    /// refiner, whose priors then replace its children's. Default 32.
    pub refine_visits: u32,
    /// Visits the refiner's value counts for when it is added to a refined node (and backed up
    /// through its ancestors as those visits). Default 8.
    pub refine_weight: u32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 800,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            batch_size: 16,
            virtual_loss: 1.0,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.0,
            root: RootSelection::Puct,
            gumbel_k: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
            solver: true,
            max_nodes: super::MAX_NODES,
            refine_visits: 32,
            refine_weight: 8,
        }
    }
}

impl SearchConfig {
    /// Checks the values; the error names the field.
    pub fn validate(&self) -> Result<(), String> {
        let bad = |f: &str, why: &str| Err(format!("search field `{f}`: {why}"));
        if self.simulations == 0 {
            return bad("simulations", "must be at least 1");
        }
        if self.batch_size == 0 {
            return bad("batch_size", "must be at least 1");
        }
        if !(self.c_puct.is_finite() && self.c_puct > 0.0) {
            return bad("c_puct", "must be a positive number");
        }
        if !(0.0..=1.0).contains(&self.dirichlet_epsilon) {
            return bad("dirichlet_epsilon", "must be within 0..=1");
        }
        if !(self.dirichlet_alpha.is_finite() && self.dirichlet_alpha > 0.0) {
            return bad("dirichlet_alpha", "must be a positive number");
        }
        if self.gumbel_k < 1 {
            return bad("gumbel_k", "must be at least 1");
        }
        if !(self.virtual_loss.is_finite() && self.virtual_loss >= 0.0) {
            return bad("virtual_loss", "must be zero or positive");
        }
        if self.refine_visits == 0 {
            return bad("refine_visits", "must be at least 1");
        }
        if self.refine_weight > 1_000_000 {
            return bad("refine_weight", "must be at most 1000000");
        }
        if !(MIN_NODES..=super::MAX_NODES).contains(&self.max_nodes) {
            return bad(
                "max_nodes",
                &format!("must be within {MIN_NODES}..={}", super::MAX_NODES),
            );
        }
        Ok(())
    }
}
