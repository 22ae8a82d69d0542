//! Transition-labelled HMMs (Zubek §3.1.1–3.1.3, §3.4), kept as the report's reference forms:
//! the conversion to state-based observation (Jelinek's product construction) and the Cartesian
//! composition of two spaces. The runtime runs state-based spaces in parallel; these two
//! constructions are the oracles its tests compare against (the parallel spaces must track the
//! flat Cartesian product, and a state-based model must track its transition-labelled source).

/// One edge s → s' with its transition probability and q(y | s, s') for every symbol y.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// Source state index.
    pub from: usize,
    /// Target state index.
    pub to: usize,
    /// The transition probability p(s' | s).
    pub p: f64,
    /// q(y | s, s') for each symbol y, indexed by symbol.
    pub q: Vec<f64>,
}

/// A transition-labelled HMM over `states` states and `symbols` symbols. Several edges may join
/// the same pair of states (the Cartesian product's self-loops are two edges with different
/// labels, §3.4).
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    /// Number of states; states are `0..states`.
    pub states: usize,
    /// Number of observation symbols; every edge's `q` has this length.
    pub symbols: usize,
    /// Every edge, in no particular order.
    pub edges: Vec<Edge>,
}

/// Eq. (1): b(s') = η Σ_edges p·(Σ_y e(y) q(y|edge))·b(s), keeping b when all mass vanishes
/// (the same policy as [`super::belief::forward`]).
pub fn forward(m: &Labelled, prev: &[f64], e: &[f64]) -> Vec<f64> {
    let mut next = vec![0.0; m.states];
    for edge in &m.edges {
        let q: f64 = edge.q.iter().zip(e).map(|(q, e)| q * e).sum();
        next[edge.to] += edge.p * q * prev[edge.from];
    }
    let z: f64 = next.iter().sum();
    if z > 0.0 && z.is_finite() {
        next.iter_mut().for_each(|b| *b /= z);
        next
    } else {
        prev.to_vec()
    }
}

/// A state-based model: p (row-major) and q(y|s) per state.
#[derive(Clone, Debug, PartialEq)]
pub struct StateBased {
    /// Number of states; states are `0..states`.
    pub states: usize,
    /// p(s_j | s_i) at `p[i * states + j]`; every row sums to 1.
    pub p: Vec<f64>,
    /// q(y | s) per state, indexed by symbol.
    pub q: Vec<Vec<f64>>,
}

impl StateBased {
    /// Eq. (1b) with the same vanishing-mass policy.
    pub fn forward(&self, prev: &[f64], e: &[f64]) -> Vec<f64> {
        let n = self.states;
        let mut next = vec![0.0; n];
        for (s, b) in next.iter_mut().enumerate() {
            let prior: f64 = (0..n).map(|i| self.p[i * n + s] * prev[i]).sum();
            let q: f64 = self.q[s].iter().zip(e).map(|(q, e)| q * e).sum();
            *b = prior * q;
        }
        let z: f64 = next.iter().sum();
        if z > 0.0 && z.is_finite() {
            next.iter_mut().for_each(|b| *b /= z);
            next
        } else {
            prev.to_vec()
        }
    }

    /// The same model with the observation moved onto the edges: q(y|s, s') := q(y|s').
    pub fn to_labelled(&self) -> Labelled {
        let n = self.states;
        let mut edges = Vec::new();
        for i in 0..n {
            for j in 0..n {
                if self.p[i * n + j] > 0.0 {
                    edges.push(Edge {
                        from: i,
                        to: j,
                        p: self.p[i * n + j],
                        q: self.q[j].clone(),
                    });
                }
            }
        }
        Labelled {
            states: n,
            symbols: self.q.first().map_or(0, Vec::len),
            edges,
        }
    }
}

/// Jelinek's conversion (§3.1.3): one state per edge (s, s') plus a start state standing for
/// "at s0"; q*(y|(s,s')) = q(y|s,s'), p*((s',s'')|(s,s')) = p(s''|s'). Returns the model and,
/// for every new state, the original state it ends in (to take marginals).
pub fn to_state_based(m: &Labelled, initial: usize) -> (StateBased, Vec<usize>) {
    let n = m.edges.len() + 1;
    // New state 0: "at `initial`", observed nothing; state k+1: edge k.
    let ends: Vec<usize> = std::iter::once(initial)
        .chain(m.edges.iter().map(|e| e.to))
        .collect();
    let mut p = vec![0.0; n * n];
    let mut q = vec![vec![0.0; m.symbols]; n];
    for (k, e) in m.edges.iter().enumerate() {
        q[k + 1] = e.q.clone();
    }
    for (a, &end) in ends.iter().enumerate() {
        for (k, e) in m.edges.iter().enumerate() {
            if e.from == end {
                p[a * n + k + 1] += e.p;
            }
        }
    }
    (StateBased { states: n, p, q }, ends)
}

/// The Cartesian composition A ×_C B with v = 2 (§3.3.1): states (i, j) at `i * |B| + j`,
/// alphabet A's symbols then B's, every A-edge lifted for every j with p/2, every B-edge for
/// every i with p/2.
pub fn cartesian(a: &Labelled, b: &Labelled) -> Labelled {
    let (na, nb) = (a.states, b.states);
    let symbols = a.symbols + b.symbols;
    let mut edges = Vec::new();
    for e in &a.edges {
        for j in 0..nb {
            let mut q = e.q.clone();
            q.resize(symbols, 0.0);
            edges.push(Edge {
                from: e.from * nb + j,
                to: e.to * nb + j,
                p: e.p / 2.0,
                q,
            });
        }
    }
    for e in &b.edges {
        for i in 0..na {
            let mut q = vec![0.0; a.symbols];
            q.extend_from_slice(&e.q);
            edges.push(Edge {
                from: i * nb + e.from,
                to: i * nb + e.to,
                p: e.p / 2.0,
                q,
            });
        }
    }
    Labelled {
        states: na * nb,
        symbols,
        edges,
    }
}
