//! Monte Carlo tree search: PUCT with batched leaf evaluation under virtual loss, Dirichlet
//! noise, an optional Gumbel root with sequential halving, tree reuse between moves, terminal
//! detection without the evaluator, and a solver that propagates proven results.
//!
//! Values are stored from the point of view of the side that made the move leading to a node,
//! so a parent picks the child with the highest value directly.

use super::config::{RootSelection, SearchConfig};
use super::evaluator::{EvalInput, Evaluation, Evaluator};
use super::noise;
use super::time::Deadline;
use crate::bitset::BitSet;
use crate::compiled::Rules;
use crate::game::{repetition_outcome, Game};
use crate::position::Move;
use crate::side::Side;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A result the solver proved, for one side: what perfect play from here gives it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub enum Proven {
    /// The side loses whatever it plays.
    Loss,
    /// The best either side can force is a draw.
    Draw,
    /// The side has a forced win.
    Win,
}

impl Proven {
    /// The result as a value in [-1, 1]: 1 win, 0 draw, -1 loss.
    pub fn value(self) -> f32 {
        match self {
            Proven::Loss => -1.0,
            Proven::Draw => 0.0,
            Proven::Win => 1.0,
        }
    }

    /// The result as a number for wire formats (JSON, protocols): 1 win, 0 draw, -1 loss.
    pub fn sign(self) -> i8 {
        self.value() as i8
    }

    /// The same result seen by the other side.
    pub fn for_opponent(self) -> Proven {
        match self {
            Proven::Loss => Proven::Win,
            Proven::Draw => Proven::Draw,
            Proven::Win => Proven::Loss,
        }
    }

    /// The result of a game won by `winner` (None: a draw or no result) for `side`.
    pub fn of_game(winner: Option<Side>, side: Side) -> Proven {
        match winner {
            Some(w) if w == side => Proven::Win,
            Some(_) => Proven::Loss,
            None => Proven::Draw,
        }
    }
}

/// Bytes one node of a search tree takes.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// Most nodes a tree holds ([`NODE_BYTES`] each): a search stops growing it there;
/// [`SearchConfig::max_nodes`] can lower it.
pub const MAX_NODES: usize = 16_000_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Unexpanded,
    /// Waiting for the evaluator in the current batch.
    Pending,
    Expanded,
    /// The game is over here; `proven` holds the result.
    Terminal,
}

#[derive(Clone, Debug)]
struct Node {
    mv: Move,
    prior: f32,
    visits: u32,
    /// Simulations on their way through (virtual loss): at most the leaves of one batch of
    /// every search thread, far below 65,535.
    in_flight: u16,
    /// With `proven`: plies from here to the end under the solver's best play, the winner
    /// ending it soonest and the loser resisting longest (0 at the end of the game).
    plies_to_end: u16,
    value_sum: f32,
    first_child: u32,
    num_children: u32,
    state: State,
    /// Proven result for the side that moved into this node, once the solver has one.
    proven: Option<Proven>,
    /// Whether the evaluator's refiner has judged this node (or it is queued for it).
    refined: bool,
}

impl Node {
    fn new(mv: Move, prior: f32) -> Node {
        Node {
            mv,
            prior,
            visits: 0,
            in_flight: 0,
            plies_to_end: 0,
            value_sum: 0.0,
            first_child: 0,
            num_children: 0,
            state: State::Unexpanded,
            proven: None,
            refined: false,
        }
    }
    fn children(&self) -> std::ops::Range<usize> {
        self.first_child as usize..(self.first_child + self.num_children) as usize
    }
    fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

/// What the search found for one root move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStat {
    /// The move.
    pub mv: Move,
    /// Simulations through it.
    pub visits: u32,
    /// Mean value for the side to move at the root, in [-1, 1].
    pub q: f32,
    /// The evaluator's prior.
    pub prior: f32,
    /// Proven result of this move for the side to move at the root.
    pub proven: Option<Proven>,
    /// With `proven`: plies from the root to the end of the game after this move under the
    /// solver's best play (the winner ending it soonest, the loser resisting longest).
    pub plies_to_end: Option<u32>,
}

/// The result of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The chosen move (see [`Search::run`] for how temperature and the root rule choose it).
    pub best: Move,
    /// Every root move, in the order of the root's legal moves.
    pub moves: Vec<MoveStat>,
    /// The improved policy over `moves`: visit shares under PUCT, the completed-Q policy under
    /// the Gumbel root. This is the training target.
    pub policy: Vec<f32>,
    /// The root's value for the side to move, in [-1, 1].
    pub value: f32,
    /// Proven result of the root for the side to move, if the solver found one.
    pub proven: Option<Proven>,
    /// The principal variation from the root (most visited line).
    pub pv: Vec<Move>,
    /// Simulations run by this call.
    pub simulations: u32,
}

impl SearchResult {
    /// Indices into `moves`, best first, as the search ranks them: the move it chose
    /// ([`SearchResult::best`]) first; then proven wins, the quickest first; then by the
    /// improved policy (visits under PUCT, the completed-Q policy under the Gumbel root, whose
    /// sequential halving leaves its candidates with equal visits), then by value; proven
    /// losses last, the longest resistance first.
    pub fn ranked(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.moves.len()).collect();
        let key = |i: usize| {
            (
                self.moves[i].mv == self.best,
                self.moves[i].proven.unwrap_or(Proven::Draw),
            )
        };
        let policy = |i: usize| self.policy.get(i).copied().unwrap_or(0.0);
        // Among proven results: the quickest win first, the longest resistance first.
        let soon = |i: usize| {
            let m = &self.moves[i];
            let plies = i64::from(m.plies_to_end.unwrap_or(0));
            match m.proven {
                Some(Proven::Win) => -plies,
                Some(Proven::Loss) => plies,
                _ => 0,
            }
        };
        order.sort_by(|&a, &b| {
            key(b)
                .cmp(&key(a))
                .then(soon(b).cmp(&soon(a)))
                .then(policy(b).total_cmp(&policy(a)))
                .then(self.moves[b].visits.cmp(&self.moves[a].visits))
                .then(self.moves[b].q.total_cmp(&self.moves[a].q))
        });
        order
    }
}

/// A search tree that is kept between moves of one game.
pub struct Search<B: BitSet> {
    config: SearchConfig,
    nodes: Vec<Node>,
    root: usize,
    game: Game<B>,
    rng: ChaCha8Rng,
    root_priors: Option<Vec<f32>>,
    /// Visits at which a node goes to the evaluator's refiner; 0 when it has none (set by
    /// each run from its evaluator).
    refine_at: u32,
    /// Nodes that reached `refine_at` since the refiner last ran, with their games.
    refine_queue: Vec<PendingLeaf<B>>,
}

/// A leaf waiting for evaluation.
struct PendingLeaf<B: BitSet> {
    path: Vec<usize>,
    game: Game<B>,
}

impl<B: BitSet> Search<B> {
    /// A search for `game`, seeded: the same seed, game and evaluator give the same result.
    pub fn new(config: SearchConfig, game: &Game<B>, seed: u64) -> Search<B> {
        let mut s = Search {
            config,
            nodes: Vec::new(),
            root: 0,
            game: game.clone(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            root_priors: None,
            refine_at: 0,
            refine_queue: Vec::new(),
        };
        s.reset_tree();
        s
    }

    fn reset_tree(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::new(Move::default(), 1.0));
        self.root = 0;
        if let Some(o) = self.game.outcome() {
            self.nodes[0].state = State::Terminal;
            self.nodes[0].proven = Some(Proven::of_game(
                o.winner,
                self.game.position().to_move().opponent(),
            ));
        }
    }

    /// Bytes the tree holds now (its allocation, not only the nodes in use): what a host
    /// budgets with [`SearchConfig::max_nodes`].
    pub fn tree_bytes(&self) -> usize {
        self.nodes.capacity() * NODE_BYTES
    }

    /// Whether the tree reached its node limit: the search stops there.
    fn tree_full(&self) -> bool {
        self.nodes.len() >= self.config.max_nodes
    }

    /// The parameters.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }
    /// Changes the parameters from the next [`Search::run`] on (self-play varies simulations
    /// and noise from move to move); the tree is kept.
    pub fn set_config(&mut self, config: SearchConfig) {
        self.config = config;
    }
    /// The game at the root.
    pub fn game(&self) -> &Game<B> {
        &self.game
    }
    /// Simulations already stored at the root (kept from earlier searches by tree reuse).
    pub fn root_visits(&self) -> u32 {
        self.nodes[self.root].visits
    }

    /// Brings the root to `game`: follows up to a few new moves of the same game through the
    /// tree (keeping their subtrees), or starts a new tree.
    pub fn sync(&mut self, rules: &Rules<B>, game: &Game<B>) {
        let old = self.game.history();
        let new = game.history();
        let same_start = self.game.start() == game.start();
        if same_start && new.len() >= old.len() && new[..old.len()] == *old && new.len() - old.len() <= 4 {
            let extra: Vec<Move> = new[old.len()..].iter().map(|p| p.mv).collect();
            for mv in extra {
                self.advance(rules, mv);
            }
            if self.game.position() == game.position() {
                return;
            }
        }
        self.game = game.clone();
        self.reset_tree();
    }

    /// Plays `mv` at the root and keeps its subtree as the new tree.
    pub fn advance(&mut self, rules: &Rules<B>, mv: Move) {
        let root = &self.nodes[self.root];
        let child = root.children().find(|&c| self.nodes[c].mv == mv);
        if self.game.outcome().is_some() {
            return;
        }
        self.game.play_unchecked(rules, mv);
        self.root_priors = None;
        match child {
            Some(c) if self.nodes[c].state != State::Unexpanded => self.reroot(c),
            _ => self.reset_tree(),
        }
    }

    /// Copies the subtree under `new_root` into a fresh arena (children stay contiguous).
    fn reroot(&mut self, new_root: usize) {
        let mut out = Vec::with_capacity(self.nodes.len() / 2 + 1);
        out.push(self.nodes[new_root].clone());
        let mut queue = std::collections::VecDeque::from([(new_root, 0usize)]);
        while let Some((old, new)) = queue.pop_front() {
            let range = self.nodes[old].children();
            let start = out.len();
            for (j, c) in range.enumerate() {
                out.push(self.nodes[c].clone());
                queue.push_back((c, start + j));
            }
            out[new].first_child = start as u32;
        }
        self.nodes = out;
        self.root = 0;
    }

    /// Runs `config.simulations` simulations from the root and returns the result. The move
    /// is chosen by proven win first; else under the Gumbel root the sequential-halving
    /// winner; else the most visited move, or with `temperature > 0` a draw with
    /// probability proportional to visits^(1/temperature). Proven losses are chosen only
    /// when every move loses.
    pub fn run(
        &mut self,
        rules: &Rules<B>,
        evaluator: &dyn Evaluator<B>,
        temperature: f32,
    ) -> Option<SearchResult> {
        self.run_until(rules, evaluator, temperature, Deadline::none())
    }

    /// [`Search::run`] that also stops at a deadline (thinking time): at its hard limit, or
    /// at its soft one once the best move is clear. The tree also stops growing at
    /// [`SearchConfig::max_nodes`] nodes, so a long think cannot exhaust memory.
    pub fn run_until(
        &mut self,
        rules: &Rules<B>,
        evaluator: &dyn Evaluator<B>,
        temperature: f32,
        deadline: Deadline,
    ) -> Option<SearchResult> {
        let mut done = self.prepare_root(rules, evaluator)?;
        let total = self.config.simulations;
        let mut gumbel_choice = None;
        match self.config.root {
            RootSelection::Puct => {
                while done < total && !self.root_solved() {
                    if self.tree_full() || deadline.reached(|| self.best_is_clear()) {
                        break;
                    }
                    let want = (total - done).min(self.config.batch_size);
                    let ran = self.simulate_batch(rules, evaluator, want, &[]);
                    if ran == 0 {
                        break;
                    }
                    done += ran;
                }
            }
            RootSelection::Gumbel => {
                let (choice, ran) = self.gumbel_root(rules, evaluator, total.saturating_sub(done), deadline);
                gumbel_choice = Some(choice);
                done += ran;
            }
        }
        Some(self.result(temperature, gumbel_choice, done))
    }

    /// Expands the root if it is new and mixes in its noise; returns the simulations that
    /// took, or `None` when the game is over or the root has no move.
    fn prepare_root(&mut self, rules: &Rules<B>, evaluator: &dyn Evaluator<B>) -> Option<u32> {
        if self.game.outcome().is_some() {
            return None;
        }
        self.refine_at = match evaluator.refiner() {
            Some(_) => self.config.refine_visits.max(1),
            None => 0,
        };
        let mut done = 0u32;
        if self.nodes[self.root].state == State::Unexpanded {
            done += self.simulate_batch(rules, evaluator, 1, &[]);
        }
        if self.nodes[self.root].num_children == 0 {
            return None;
        }
        // The root chooses the move: the refiner judges it at once, whatever its visits.
        let root = self.root;
        if self.refine_at > 0 && self.nodes[root].state == State::Expanded && !self.nodes[root].refined {
            self.nodes[root].refined = true;
            self.refine_queue.push(PendingLeaf {
                path: vec![root],
                game: self.game.clone(),
            });
            self.refine_pending(rules, evaluator);
        }
        self.add_root_noise();
        Some(done)
    }

    /// Mixes Dirichlet noise into the root's priors, where the config asks for it.
    fn add_root_noise(&mut self) {
        if self.config.dirichlet_epsilon > 0.0 {
            let kids = self.nodes[self.root].children();
            let noise = noise::dirichlet(&mut self.rng, self.config.dirichlet_alpha, kids.len());
            let eps = self.config.dirichlet_epsilon;
            self.root_priors = Some(
                kids.zip(noise)
                    .map(|(c, n)| (1.0 - eps) * self.nodes[c].prior + eps * n)
                    .collect(),
            );
        }
    }

    fn root_solved(&self) -> bool {
        self.config.solver && self.nodes[self.root].proven.is_some()
    }

    /// Whether one root move has at least twice the visits of any other (or is the only
    /// one): more thinking would hardly change the choice.
    fn best_is_clear(&self) -> bool {
        let mut first = 0u32;
        let mut second = 0u32;
        for c in self.nodes[self.root].children() {
            let v = self.nodes[c].visits;
            if v > first {
                second = first;
                first = v;
            } else if v > second {
                second = v;
            }
        }
        self.nodes[self.root].num_children <= 1 || (first >= 8 && first >= 2 * second)
    }

    /// Gumbel-top-k with sequential halving; returns the chosen root child and the simulations run.
    fn gumbel_root(
        &mut self,
        rules: &Rules<B>,
        evaluator: &dyn Evaluator<B>,
        budget: u32,
        deadline: Deadline,
    ) -> (usize, u32) {
        let kids: Vec<usize> = self.nodes[self.root].children().collect();
        let logits: Vec<f32> = kids
            .iter()
            .map(|&c| self.nodes[c].prior.max(1e-12).ln())
            .collect();
        let g: Vec<f32> = kids.iter().map(|_| noise::gumbel(&mut self.rng)).collect();
        let mut cand: Vec<usize> = (0..kids.len()).collect();
        cand.sort_by(|&a, &b| (g[b] + logits[b]).total_cmp(&(g[a] + logits[a])));
        // min(k, budget) candidates, as the published algorithm: with fewer simulations than
        // candidates, most would never be visited and the halving would rank them by their
        // Gumbel sample and prior alone.
        let k = (self.config.gumbel_k as usize).min(budget.max(1) as usize);
        cand.truncate(k.min(kids.len()));
        let phases = (cand.len() as f32).log2().ceil().max(1.0) as u32;
        let mut ran = 0u32;
        let mut left = budget;
        for phase in 0..phases {
            if cand.len() <= 1 || left == 0 {
                break;
            }
            let per = (left / ((phases - phase) * cand.len() as u32)).max(1);
            let mut schedule: Vec<usize> = Vec::new();
            for _ in 0..per {
                schedule.extend(cand.iter().map(|&i| kids[i]));
            }
            schedule.truncate(left as usize);
            for chunk in schedule.chunks(self.config.batch_size as usize) {
                if self.tree_full() || deadline.reached(|| false) {
                    // Out of time: the candidates are ranked on what was searched so far.
                    left = 0;
                    break;
                }
                let r = self.simulate_batch(rules, evaluator, chunk.len() as u32, chunk);
                ran += r;
                left = left.saturating_sub(r.max(1));
            }
            let score = |s: &Self, i: usize| g[i] + logits[i] + s.sigma(s.completed_q(kids[i]));
            cand.sort_by(|&a, &b| score(self, b).total_cmp(&score(self, a)));
            cand.truncate(cand.len().div_ceil(2));
        }
        // Spend what is left on PUCT from the root so the tree (and reuse) keeps growing.
        while left > 0 && !self.root_solved() && !self.tree_full() && !deadline.reached(|| true) {
            let r = self.simulate_batch(rules, evaluator, left.min(self.config.batch_size), &[]);
            if r == 0 {
                break;
            }
            ran += r;
            left = left.saturating_sub(r);
        }
        let score = |s: &Self, i: usize| g[i] + logits[i] + s.sigma(s.completed_q(kids[i]));
        let best = cand
            .iter()
            .copied()
            .max_by(|&a, &b| score(self, a).total_cmp(&score(self, b)))
            .unwrap_or(0);
        (kids[best], ran)
    }

    /// The root's value for its side to move: the mean of its simulations, 0 before any.
    fn root_value(&self) -> f32 {
        let root = &self.nodes[self.root];
        if root.visits > 0 {
            -root.q()
        } else {
            0.0
        }
    }

    /// The completed Q of a root child, for the side to move at the root: its proven result
    /// when the solver has one, its mean value when visited, else the root's value (an
    /// unvisited move is assumed as good as the position, neither better nor worse: scoring
    /// it 0 would rank it above every visited move whenever the side to move is behind).
    fn completed_q(&self, child: usize) -> f32 {
        let n = &self.nodes[child];
        if let Some(p) = n.proven {
            p.value()
        } else if n.visits > 0 {
            n.q()
        } else {
            self.root_value()
        }
    }

    /// The monotone transform of a value in [-1, 1] used by the Gumbel root.
    fn sigma(&self, q: f32) -> f32 {
        let max_visits = self.nodes[self.root]
            .children()
            .map(|c| self.nodes[c].visits)
            .max()
            .unwrap_or(0);
        (self.config.gumbel_c_visit + max_visits as f32) * self.config.gumbel_c_scale * (q + 1.0) / 2.0
    }

    /// Runs up to `want` simulations, evaluating their leaves in one call; returns how many
    /// ran. With a non-empty `forced`, simulation `i` goes through root child `forced[i]`
    /// (a colliding one is dropped).
    fn simulate_batch(
        &mut self,
        rules: &Rules<B>,
        evaluator: &dyn Evaluator<B>,
        want: u32,
        forced: &[usize],
    ) -> u32 {
        let (pending, backed) = self.collect_leaves(rules, want, forced);
        let evaluated = evaluate_leaves(rules, evaluator, pending);
        let ran = backed + self.apply_evaluations(evaluated);
        self.refine_pending(rules, evaluator);
        ran
    }

    /// Runs the evaluator's refiner on the nodes queued for it, if any (see
    /// [`SearchConfig::refine_visits`]).
    fn refine_pending(&mut self, rules: &Rules<B>, evaluator: &dyn Evaluator<B>) {
        if self.refine_queue.is_empty() {
            return;
        }
        let queue = std::mem::take(&mut self.refine_queue);
        let Some(refiner) = evaluator.refiner() else {
            return;
        };
        let judged = self.evaluate_refinements(rules, refiner, queue);
        self.apply_refinements(judged);
    }

    /// The refiner's evaluations of queued nodes, in one call; the moves are each node's
    /// children's, in their order.
    fn evaluate_refinements(
        &self,
        rules: &Rules<B>,
        refiner: &dyn Evaluator<B>,
        queue: Vec<PendingLeaf<B>>,
    ) -> Vec<(PendingLeaf<B>, Evaluation)> {
        let lists = self.refine_moves(&queue);
        let evals = evaluate_refinements(rules, refiner, &queue, &lists);
        queue.into_iter().zip(evals).collect()
    }

    /// The moves of each queued node: its children's, in their order (they do not change once
    /// a node is expanded).
    fn refine_moves(&self, queue: &[PendingLeaf<B>]) -> Vec<Vec<Move>> {
        queue
            .iter()
            .map(|p| {
                let node = *p.path.last().unwrap_or(&self.root);
                self.nodes[node].children().map(|c| self.nodes[c].mv).collect()
            })
            .collect()
    }

    /// Gives each refined node its children's new priors, and adds the refiner's value as
    /// [`SearchConfig::refine_weight`] visits along its path.
    fn apply_refinements(&mut self, judged: Vec<(PendingLeaf<B>, Evaluation)>) {
        let weight = self.config.refine_weight;
        for (leaf, eval) in judged {
            let node = *leaf.path.last().unwrap_or(&self.root);
            let kids = self.nodes[node].children();
            if self.nodes[node].state != State::Expanded || eval.priors.len() != kids.len() {
                continue;
            }
            for (c, p) in kids.zip(&eval.priors) {
                if p.is_finite() && *p >= 0.0 {
                    self.nodes[c].prior = *p;
                }
            }
            if node == self.root {
                continue;
            }
            // Stored for the side that moved into the node: the negation of the refiner's
            // value for the side to move there.
            let mut v = -eval.wdl.value().clamp(-1.0, 1.0);
            for &i in leaf.path.iter().rev() {
                let n = &mut self.nodes[i];
                n.visits += weight;
                n.value_sum += v * weight as f32;
                v = -v;
            }
        }
    }

    /// Descends to up to `want` leaves under virtual loss (see [`Search::simulate_batch`]
    /// for `forced`); returns them and how many simulations ended without the evaluator
    /// (terminal or solved nodes, already backed up).
    fn collect_leaves(
        &mut self,
        rules: &Rules<B>,
        want: u32,
        forced: &[usize],
    ) -> (Vec<PendingLeaf<B>>, u32) {
        let mut pending: Vec<PendingLeaf<B>> = Vec::new();
        let mut ran = 0;
        let mut collisions = 0;
        let mut attempt = 0;
        while (pending.len() as u32) + ran < want && collisions < want.max(4) {
            let force = if forced.is_empty() {
                None
            } else if attempt < forced.len() {
                Some(forced[attempt])
            } else {
                break;
            };
            attempt += 1;
            match self.descend(rules, force) {
                Descent::Leaf(p) => pending.push(p),
                Descent::Backed => ran += 1,
                Descent::Collision => collisions += 1,
            }
            if self.root_solved() {
                break;
            }
        }
        (pending, ran)
    }

    /// Expands each evaluated leaf and backs its value up; returns how many.
    fn apply_evaluations(&mut self, evaluated: Vec<EvaluatedLeaf<B>>) -> u32 {
        let mut ran = 0;
        for (leaf, children, wins, value) in evaluated {
            let value_stm = self.expand(&leaf, children, wins, value);
            self.backup(&leaf.path, -value_stm, true);
            ran += 1;
        }
        ran
    }

    /// [`Search::run_until`] with `threads` threads in this one tree (tree parallelism):
    /// each thread descends to its batch of leaves under the tree's lock, with virtual loss
    /// steering the threads apart, evaluates them (move generation and the evaluator) outside
    /// it, then expands and backs up under the lock again. The simulations are the config's,
    /// shared by the threads. The Gumbel root's sequential halving is sequential by design:
    /// under it, or with one thread, this is [`Search::run_until`].
    pub fn run_shared(
        &mut self,
        rules: &Rules<B>,
        evaluator: &dyn Evaluator<B>,
        temperature: f32,
        deadline: Deadline,
        threads: usize,
    ) -> Option<SearchResult> {
        if threads <= 1 || self.config.root == RootSelection::Gumbel {
            return self.run_until(rules, evaluator, temperature, deadline);
        }
        let done = self.prepare_root(rules, evaluator)?;
        let total = self.config.simulations;
        let batch = self.config.batch_size;
        // The tree, the simulations finished, and those claimed (finished or in flight).
        let shared = std::sync::Mutex::new((self, done, done));
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let pending = {
                        let Ok(mut guard) = shared.lock() else { return };
                        let (tree, _, claimed) = &mut *guard;
                        if *claimed >= total
                            || tree.root_solved()
                            || tree.tree_full()
                            || deadline.reached(|| tree.best_is_clear())
                        {
                            return;
                        }
                        let want = (total - *claimed).min(batch);
                        let (pending, backed) = tree.collect_leaves(rules, want, &[]);
                        *claimed += pending.len() as u32 + backed;
                        let refine = std::mem::take(&mut tree.refine_queue);
                        // Each node's moves are read now, under the lock.
                        let lists = tree.refine_moves(&refine);
                        guard.1 += backed;
                        (pending, refine, lists)
                    };
                    let (pending, refine, lists) = pending;
                    if pending.is_empty() && refine.is_empty() {
                        // Every leaf in reach waits for another thread's evaluation.
                        std::thread::yield_now();
                        continue;
                    }
                    let evaluated = evaluate_leaves(rules, evaluator, pending);
                    let judged: Vec<(PendingLeaf<B>, Evaluation)> = match evaluator.refiner() {
                        Some(r) if !refine.is_empty() => {
                            let evals = evaluate_refinements(rules, r, &refine, &lists);
                            refine.into_iter().zip(evals).collect()
                        }
                        _ => Vec::new(),
                    };
                    let Ok(mut guard) = shared.lock() else { return };
                    let ran = guard.0.apply_evaluations(evaluated);
                    guard.0.apply_refinements(judged);
                    guard.1 += ran;
                });
            }
        });
        let (tree, done, _) = shared.into_inner().ok()?;
        Some(tree.result(temperature, None, done))
    }

    /// Walks from the root to a leaf, adding virtual loss on the way.
    fn descend(&mut self, rules: &Rules<B>, forced: Option<usize>) -> Descent<B> {
        let mut game = self.game.clone();
        let mut path = vec![self.root];
        let mut node = self.root;
        loop {
            let n = &self.nodes[node];
            let solved = self.config.solver && n.proven.is_some() && node != self.root;
            if n.state == State::Terminal || solved {
                let v = n.proven.map_or(0.0, Proven::value);
                self.backup(&path, v, false);
                return Descent::Backed;
            }
            match n.state {
                State::Unexpanded => {
                    self.nodes[node].state = State::Pending;
                    for &p in &path {
                        self.nodes[p].in_flight = self.nodes[p].in_flight.saturating_add(1);
                    }
                    return Descent::Leaf(PendingLeaf { path, game });
                }
                State::Pending => return Descent::Collision,
                _ => {}
            }
            if self.refine_at > 0 && !n.refined && n.visits >= self.refine_at {
                self.nodes[node].refined = true;
                self.refine_queue.push(PendingLeaf {
                    path: path.clone(),
                    game: game.clone(),
                });
            }
            let child = match forced {
                Some(c) if node == self.root => c,
                _ => self.select(node),
            };
            path.push(child);
            node = child;
            if self.nodes[child].state != State::Unexpanded {
                // Visited before: whether the game ends here is known (a Terminal node
                // stops the walk above), so the end-of-game checks are skipped.
                game.play_known(rules, self.nodes[child].mv);
            } else if let Some(o) = game.play_unchecked(rules, self.nodes[child].mv) {
                let mover = game.position().to_move().opponent();
                self.nodes[child].state = State::Terminal;
                self.nodes[child].proven = Some(Proven::of_game(o.winner, mover));
            }
        }
    }

    /// PUCT choice among the children of an expanded node.
    fn select(&self, node: usize) -> usize {
        let n = &self.nodes[node];
        let parent_n = (n.visits + u32::from(n.in_flight)).max(1) as f32;
        let sqrt_n = parent_n.sqrt();
        let parent_q = if n.visits > 0 { -n.q() } else { 0.0 };
        let fpu = parent_q - self.config.fpu_reduction;
        let vl = self.config.virtual_loss;
        let root_priors = if node == self.root {
            self.root_priors.as_deref()
        } else {
            None
        };
        let mut best = n.first_child as usize;
        let mut best_score = f32::NEG_INFINITY;
        for (j, c) in n.children().enumerate() {
            let ch = &self.nodes[c];
            if self.config.solver {
                if ch.proven == Some(Proven::Win) {
                    return c;
                }
                if ch.proven == Some(Proven::Loss) {
                    // A proven loss is only chosen when every move loses.
                    if best_score == f32::NEG_INFINITY {
                        best = c;
                        best_score = -1e9;
                    }
                    continue;
                }
            }
            let seen = ch.visits + u32::from(ch.in_flight);
            let q = if seen == 0 {
                fpu
            } else {
                (ch.value_sum - vl * ch.in_flight as f32) / seen as f32
            };
            let prior = root_priors.map_or(ch.prior, |p| p[j]);
            let score = q + self.config.c_puct * prior * sqrt_n / (1.0 + seen as f32);
            if score > best_score {
                best_score = score;
                best = c;
            }
        }
        best
    }

    /// Attaches a leaf's children (from [`leaf_children`]); returns the leaf's value for its
    /// side to move: a proven win when a child ends the game in its favour.
    fn expand(&mut self, leaf: &PendingLeaf<B>, children: Vec<Node>, wins: bool, value: f32) -> f32 {
        let node = *leaf.path.last().unwrap_or(&self.root);
        let first = self.nodes.len();
        let count = children.len();
        // Grown by doubling, but never past the node limit by more than this expansion, so
        // that the allocation (not only the nodes in use) keeps to the limit.
        let need = first + count;
        if need > self.nodes.capacity() {
            let target = (self.nodes.capacity() * 2).min(self.config.max_nodes).max(need);
            self.nodes.reserve_exact(target - first);
        }
        self.nodes.extend(children);
        let n = &mut self.nodes[node];
        n.first_child = first as u32;
        n.num_children = count as u32;
        n.state = State::Expanded;
        if wins && self.config.solver {
            n.proven = Some(Proven::Loss);
            n.plies_to_end = 1;
            return 1.0;
        }
        if count == 0 {
            // Only reachable when the position has no move but the game did not record it.
            n.state = State::Terminal;
            n.proven = Some(Proven::Win);
            return -1.0;
        }
        value.clamp(-1.0, 1.0)
    }

    /// Adds `value` (for the side that moved into the leaf) along the path, alternating sign,
    /// removes virtual loss if it was added, and updates proven results.
    fn backup(&mut self, path: &[usize], value: f32, had_virtual_loss: bool) {
        let mut v = value;
        for (depth, &i) in path.iter().enumerate().rev() {
            let n = &mut self.nodes[i];
            n.visits += 1;
            n.value_sum += v;
            if had_virtual_loss {
                n.in_flight = n.in_flight.saturating_sub(1);
            }
            if self.config.solver && depth + 1 < path.len() {
                self.update_proven(i);
            }
            v = -v;
        }
    }

    /// Sets a node's proven result from its children: one winning move proves a win, all
    /// moves losing (or drawing at best) prove a loss (or a draw). The distance to the end
    /// follows best play: the quickest win known, or the longest resistance when every move
    /// loses.
    fn update_proven(&mut self, i: usize) {
        let n = &self.nodes[i];
        if n.proven.is_some() || n.state != State::Expanded || n.num_children == 0 {
            return;
        }
        let mut all = true;
        let mut best = Proven::Loss;
        let mut quickest_win: Option<u16> = None;
        let mut longest_loss = 0u16;
        for c in n.children() {
            let ch = &self.nodes[c];
            match ch.proven {
                Some(Proven::Win) => {
                    quickest_win = Some(quickest_win.map_or(ch.plies_to_end, |q| q.min(ch.plies_to_end)));
                }
                // Keep looking: a later child may still be a proven win.
                None => all = false,
                Some(p) => {
                    best = best.max(p);
                    if p == Proven::Loss {
                        longest_loss = longest_loss.max(ch.plies_to_end);
                    }
                }
            }
        }
        if let Some(q) = quickest_win {
            self.nodes[i].proven = Some(Proven::Loss);
            self.nodes[i].plies_to_end = q.saturating_add(1);
        } else if all {
            self.nodes[i].proven = Some(best.for_opponent());
            self.nodes[i].plies_to_end = longest_loss.saturating_add(1);
        }
    }

    fn result(&mut self, temperature: f32, gumbel_choice: Option<usize>, simulations: u32) -> SearchResult {
        let root = &self.nodes[self.root];
        let kids: Vec<usize> = root.children().collect();
        let moves: Vec<MoveStat> = kids
            .iter()
            .map(|&c| {
                let n = &self.nodes[c];
                MoveStat {
                    mv: n.mv,
                    visits: n.visits,
                    q: n.q(),
                    prior: n.prior,
                    proven: n.proven,
                    plies_to_end: n.proven.map(|_| u32::from(n.plies_to_end) + 1),
                }
            })
            .collect();
        let policy: Vec<f32> = if moves.iter().any(|m| m.proven == Some(Proven::Win)) {
            visit_policy(&moves)
        } else if self.config.root == RootSelection::Gumbel {
            let logits: Vec<f32> = kids
                .iter()
                .map(|&c| self.nodes[c].prior.max(1e-12).ln() + self.sigma(self.completed_q(c)))
                .collect();
            softmax(&logits)
        } else {
            visit_policy(&moves)
        };
        let gumbel = gumbel_choice.and_then(|g| kids.iter().position(|&c| c == g));
        let chosen = choose_move(&moves, gumbel, temperature, &mut self.rng);
        let proven = root.proven.map(Proven::for_opponent);
        SearchResult {
            best: moves[chosen].mv,
            value: match proven {
                Some(p) => p.value(),
                None if root.visits > 0 => -root.q(),
                None => 0.0,
            },
            proven,
            pv: self.principal_variation(kids[chosen]),
            moves,
            policy,
            simulations,
        }
    }

    /// The most visited line of the tree that starts with root move `mv` (just `mv` when
    /// the tree has nothing below it).
    pub fn line(&self, mv: Move) -> Vec<Move> {
        match self.nodes[self.root].children().find(|&c| self.nodes[c].mv == mv) {
            Some(c) => self.principal_variation(c),
            None => vec![mv],
        }
    }

    fn principal_variation(&self, first: usize) -> Vec<Move> {
        let mut pv = vec![self.nodes[first].mv];
        let mut node = first;
        while pv.len() < 32 {
            let n = &self.nodes[node];
            let Some(next) = n
                .children()
                .filter(|&c| self.nodes[c].visits > 0)
                .max_by_key(|&c| {
                    let ch = &self.nodes[c];
                    (ch.proven == Some(Proven::Win), ch.visits)
                })
            else {
                break;
            };
            pv.push(self.nodes[next].mv);
            node = next;
        }
        pv
    }
}

/// The training target of a PUCT search: a solved root's proven wins; else the visit shares
/// of the moves not proven lost (a proven loss is never a good move, though it gathered
/// visits before it was refuted); the prior of those moves if none of them was visited.
fn visit_policy(moves: &[MoveStat]) -> Vec<f32> {
    let wins = moves.iter().filter(|m| m.proven == Some(Proven::Win)).count();
    if wins > 0 {
        // A solved root teaches its proven wins, not the prior the search stopped at.
        let share = 1.0 / wins as f32;
        return moves
            .iter()
            .map(|m| if m.proven == Some(Proven::Win) { share } else { 0.0 })
            .collect();
    }
    let all_lose = moves.iter().all(|m| m.proven == Some(Proven::Loss));
    let allowed = |m: &MoveStat| all_lose || m.proven != Some(Proven::Loss);
    let visits: u32 = moves.iter().filter(|m| allowed(m)).map(|m| m.visits).sum();
    let prior: f32 = moves.iter().filter(|m| allowed(m)).map(|m| m.prior).sum();
    moves
        .iter()
        .map(|m| {
            if !allowed(m) {
                0.0
            } else if visits > 0 {
                m.visits as f32 / visits as f32
            } else {
                m.prior / prior.max(1e-12)
            }
        })
        .collect()
}

/// The move a search plays, as an index into `moves`: the quickest proven win first; else
/// the Gumbel root's choice (`gumbel`); else the most visited move, or with `temperature > 0`
/// a draw with probability proportional to visits^(1/temperature). A proven loss is chosen
/// only when every move loses: the choice never prefers a refuted move over a drawing or
/// unresolved one, even if the move gathered visits before the solver refuted it; and when
/// every move loses, it resists longest (the loss farthest away, then the most visited).
fn choose_move(moves: &[MoveStat], gumbel: Option<usize>, temperature: f32, rng: &mut ChaCha8Rng) -> usize {
    let plies = |i: usize| moves[i].plies_to_end.unwrap_or(u32::MAX);
    if let Some(w) = (0..moves.len())
        .filter(|&i| moves[i].proven == Some(Proven::Win))
        .min_by_key(|&i| (plies(i), std::cmp::Reverse(moves[i].visits)))
    {
        return w;
    }
    let all_lose = moves.iter().all(|m| m.proven == Some(Proven::Loss));
    if all_lose {
        return (0..moves.len())
            .max_by_key(|&i| (moves[i].plies_to_end.unwrap_or(0), moves[i].visits))
            .unwrap_or(0);
    }
    let allowed = |i: usize| all_lose || moves[i].proven != Some(Proven::Loss);
    let most_visited = (0..moves.len())
        .filter(|&i| allowed(i))
        .max_by(|&a, &b| {
            (moves[a].visits, moves[a].q)
                .partial_cmp(&(moves[b].visits, moves[b].q))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .unwrap_or(0);
    if let Some(g) = gumbel.filter(|&g| g < moves.len() && allowed(g)) {
        return g;
    }
    let total: u32 = moves.iter().map(|m| m.visits).sum();
    if temperature <= 0.0 || total == 0 {
        return most_visited;
    }
    let weights: Vec<f64> = (0..moves.len())
        .map(|i| {
            if allowed(i) {
                (moves[i].visits as f64).powf(1.0 / temperature as f64)
            } else {
                0.0
            }
        })
        .collect();
    let sum: f64 = weights.iter().sum();
    let mut x = noise::unit(rng) as f64 * sum;
    for (i, w) in weights.iter().enumerate() {
        if *w > 0.0 && x < *w {
            return i;
        }
        x -= w;
    }
    most_visited
}

/// Merges the results of independent searches of one position (root parallelism): visits
/// add up, values are averaged by visits, a proof found by any search holds, and the move
/// is chosen from the merged statistics as [`Search::run`] chooses it. `rng` draws under
/// `temperature`. `None` for no results.
pub fn merge_results(
    results: Vec<SearchResult>,
    temperature: f32,
    rng: &mut ChaCha8Rng,
) -> Option<SearchResult> {
    let mut all = results;
    if all.len() <= 1 {
        return all.pop();
    }
    let mut moves = all[0].moves.clone();
    let mut value_sum = 0.0f64;
    let mut weight = 0.0f64;
    let mut simulations = 0u32;
    let mut proven = None;
    for m in moves.iter_mut() {
        m.visits = 0;
        m.q = 0.0;
    }
    let mut q_sum = vec![0.0f64; moves.len()];
    for r in &all {
        simulations += r.simulations;
        let w = r.simulations.max(1) as f64;
        value_sum += r.value as f64 * w;
        weight += w;
        proven = proven.or(r.proven);
        for (i, m) in r.moves.iter().enumerate() {
            // Every search of one position lists the same moves in the same order.
            let Some(t) = moves.get_mut(i).filter(|t| t.mv == m.mv) else {
                continue;
            };
            t.visits += m.visits;
            q_sum[i] += m.q as f64 * m.visits as f64;
            if t.proven.is_none() {
                t.proven = m.proven;
                t.plies_to_end = m.plies_to_end;
            }
        }
    }
    for (m, q) in moves.iter_mut().zip(&q_sum) {
        if m.visits > 0 {
            m.q = (*q / m.visits as f64) as f32;
        }
    }
    let chosen = choose_move(&moves, None, temperature, rng);
    let best = moves[chosen].mv;
    let pv = all
        .iter()
        .filter(|r| r.pv.first() == Some(&best))
        .max_by_key(|r| r.pv.len())
        .map_or_else(|| vec![best], |r| r.pv.clone());
    Some(SearchResult {
        best,
        policy: visit_policy(&moves),
        moves,
        value: match proven {
            Some(p) => p.value(),
            None => (value_sum / weight.max(1.0)) as f32,
        },
        proven,
        pv,
        simulations,
    })
}

/// The children of a leaf whose position is `game`'s, with `priors` (one per move; a missing
/// or bad one is uniform), and whether one of them wins at once for the side to move. Moves
/// that end the game at once (escape, king capture, fort, encirclement, a third occurrence)
/// are found here, without the evaluator. Needs no access to the tree.
fn leaf_children<B: BitSet>(
    rules: &Rules<B>,
    game: &Game<B>,
    moves: &[Move],
    priors: &[f32],
) -> (Vec<Node>, bool) {
    let pos = game.position();
    let uniform = 1.0 / moves.len().max(1) as f32;
    let mut wins = false;
    // Positions already seen twice on this line (the game's history and the path through
    // the tree, since the last capture): a move back to one ends the game by repetition,
    // and the side to move here must see that now, not only if it happens to search it.
    let twice = game.repeated_twice(rules);
    let mut children = Vec::with_capacity(moves.len());
    for (i, &mv) in moves.iter().enumerate() {
        let p = priors
            .get(i)
            .copied()
            .filter(|p| p.is_finite() && *p >= 0.0)
            .unwrap_or(uniform);
        let mut child = Node::new(mv, p);
        if !twice.is_empty() || might_end_game(rules, pos, mv) {
            let mut after = *pos;
            let eff = after.play_unchecked(rules, mv);
            let outcome = after.decisive_outcome(rules, &eff).or_else(|| {
                (!eff.captured.any() && twice.contains(&after.hash()))
                    .then(|| repetition_outcome(rules, 3, pos.to_move()))
                    .flatten()
            });
            if let Some(o) = outcome {
                child.state = State::Terminal;
                child.proven = Some(Proven::of_game(o.winner, pos.to_move()));
                wins |= child.proven == Some(Proven::Win);
            }
        }
        children.push(child);
    }
    (children, wins)
}

/// A leaf, its children, whether one wins at once, and the evaluator's value: ready to attach.
type EvaluatedLeaf<B> = (PendingLeaf<B>, Vec<Node>, bool, f32);

/// Generates the leaves' moves and evaluates them in one call; needs no access to the tree,
/// so tree-parallel threads run it outside the tree's lock.
fn evaluate_leaves<B: BitSet>(
    rules: &Rules<B>,
    evaluator: &dyn Evaluator<B>,
    pending: Vec<PendingLeaf<B>>,
) -> Vec<EvaluatedLeaf<B>> {
    if pending.is_empty() {
        return Vec::new();
    }
    let lists: Vec<_> = pending.iter().map(|p| p.game.moves(rules)).collect();
    let inputs: Vec<EvalInput<B>> = pending
        .iter()
        .zip(&lists)
        .map(|(p, l)| EvalInput {
            position: p.game.position(),
            moves: l.as_slice(),
            occurrences: p.game.occurrences().min(255) as u8,
            ply: p.game.ply(),
        })
        .collect();
    let evals = evaluator.evaluate(rules, &inputs);
    drop(inputs);
    pending
        .into_iter()
        .zip(lists)
        .zip(evals)
        .map(|((p, l), e)| {
            let (children, wins) = leaf_children(rules, &p.game, l.as_slice(), &e.priors);
            (p, children, wins, e.wdl.value())
        })
        .collect()
}

/// The refiner's evaluations of `queue`'s positions, whose moves are `lists` (each node's
/// children, in order); needs no access to the tree.
fn evaluate_refinements<B: BitSet>(
    rules: &Rules<B>,
    refiner: &dyn Evaluator<B>,
    queue: &[PendingLeaf<B>],
    lists: &[Vec<Move>],
) -> Vec<Evaluation> {
    let inputs: Vec<EvalInput<B>> = queue
        .iter()
        .zip(lists)
        .map(|(p, l)| EvalInput {
            position: p.game.position(),
            moves: l.as_slice(),
            occurrences: p.game.occurrences().min(255) as u8,
            ply: p.game.ply(),
        })
        .collect();
    refiner.evaluate(rules, &inputs)
}

enum Descent<B: BitSet> {
    Leaf(PendingLeaf<B>),
    Backed,
    Collision,
}

/// Whether a move can end the game by itself (checks 2-5): king moves; attacker moves next to
/// the king; and with forts or encirclement in the rules, every move of that side.
#[inline]
fn might_end_game<B: BitSet>(rules: &Rules<B>, pos: &crate::Position<B>, mv: Move) -> bool {
    match pos.to_move() {
        Side::Defenders => mv.from == pos.king() || rules.exit_fort,
        Side::Attackers => {
            rules.encirclement || (rules.neighbours(B::single(mv.to as usize)) & pos.king_set()).any()
        }
    }
}

/// Probabilities from logits (the largest subtracted first, so that none overflows).
pub fn softmax(x: &[f32]) -> Vec<f32> {
    let m = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = x.iter().map(|v| (v - m).exp()).collect();
    let s: f32 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}
