//! A layered ("Sugiyama") layout for every graph the editor draws: columns follow the flow from
//! the node the graph starts at, left to right.
//!
//! The classic steps, compactly:
//! 1. **Cycle removal**: a depth-first search from the start (transitions in author order);
//!    an edge back to a node still on the search's stack closes a loop and is left out of the
//!    layering (it is drawn routed around the nodes instead).
//! 2. **Layer assignment**: longest path, so every remaining edge goes at least one column
//!    right and a node stands after everything that leads to it.
//! 3. **Crossing reduction**: edges spanning several columns get a virtual node in each
//!    column between; then barycentre sweeps (each column ordered by the mean row of its
//!    neighbours in the column before, then after), keeping the order with fewest crossings.
//! 4. **Coordinates**: columns as wide as their widest node, nodes stacked in order and
//!    centred on `y = 0`.
//!
//! Nodes the search never reaches share one last column, where they stand out as the
//! unreachable states they are. `rust-sugiyama` (MIT, on petgraph) was the candidate crate;
//! it breaks cycles by a greedy feedback arc set rather than from the state a machine starts
//! in, so the seller's way back to the counter could become its forward edge, and it lays
//! out top to bottom only; the classic steps here are short and tested.

/// Gaps between columns and between the nodes of a column, in points.
pub const COLUMN_GAP: f32 = 60.0;
pub const ROW_GAP: f32 = 30.0;

/// Barycentre sweeps (each one down and back up); the order converges well before.
const SWEEPS: usize = 8;

/// The column and row of every node.
#[derive(Clone, Debug, PartialEq)]
pub struct Layers {
    /// `columns[c]` lists node indices, top to bottom.
    pub columns: Vec<Vec<usize>>,
    /// `column_of[n]` is the column of node `n`.
    pub column_of: Vec<usize>,
    /// Whether the last column holds the nodes not reachable from the root.
    pub has_unreachable_column: bool,
    /// The edges (indices into the input) that close a loop, left out of the layering.
    pub back_edges: Vec<usize>,
}

/// Layers `node_count` nodes joined by directed `edges`, starting from `root`. Without a root
/// every node is unreachable and they all share one column.
pub fn layered(node_count: usize, root: Option<usize>, edges: &[(usize, usize)]) -> Layers {
    let valid = |&(a, b): &(usize, usize)| a < node_count && b < node_count;
    let out_of = |n: usize| {
        edges
            .iter()
            .enumerate()
            .filter(move |(_, e)| valid(e) && e.0 == n)
            .map(|(i, e)| (i, e.1))
    };

    // 1. Depth-first search: back edges, and a post-order for the layering.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnStack,
        Done,
    }
    let mut mark = vec![Mark::New; node_count];
    let mut back = vec![false; edges.len()];
    let mut post = Vec::with_capacity(node_count);
    let mut discovered = Vec::with_capacity(node_count);
    if let Some(r) = root.filter(|&r| r < node_count) {
        // An explicit stack (graphs may be long chains): node and how many edges it has tried.
        let mut stack: Vec<(usize, usize)> = vec![(r, 0)];
        mark[r] = Mark::OnStack;
        discovered.push(r);
        while let Some(top) = stack.last_mut() {
            let (n, tried) = *top;
            top.1 += 1;
            if let Some((i, to)) = out_of(n).nth(tried) {
                match mark[to] {
                    Mark::New => {
                        mark[to] = Mark::OnStack;
                        discovered.push(to);
                        stack.push((to, 0));
                    }
                    Mark::OnStack => back[i] = true,
                    Mark::Done => {}
                }
            } else {
                mark[n] = Mark::Done;
                post.push(n);
                stack.pop();
            }
        }
    }

    // 2. Longest path: in reverse post-order every forward edge's source comes first.
    let mut layer: Vec<Option<usize>> = vec![None; node_count];
    for &n in post.iter().rev() {
        let l = *layer[n].get_or_insert(0);
        for (i, to) in out_of(n) {
            if !back[i] && mark[to] == Mark::Done {
                layer[to] = Some(layer[to].map_or(l + 1, |t| t.max(l + 1)));
            }
        }
    }

    // 3. Columns with a virtual node where a long edge passes; start in discovery order.
    let reached_columns = layer.iter().flatten().max().map_or(0, |d| d + 1);
    let mut columns: Vec<Vec<usize>> = vec![Vec::new(); reached_columns];
    for &n in &discovered {
        if let Some(l) = layer[n] {
            columns[l].push(n);
        }
    }
    // Links between consecutive columns; nodes at or past `node_count` are virtual.
    let mut links: Vec<(usize, usize)> = Vec::new();
    let mut next_virtual = node_count;
    for (i, &(a, b)) in edges.iter().enumerate() {
        let (Some(la), Some(lb)) = (
            layer.get(a).copied().flatten(),
            layer.get(b).copied().flatten(),
        ) else {
            continue;
        };
        if back[i] || lb <= la {
            continue;
        }
        let mut from = a;
        for column in &mut columns[la + 1..lb] {
            column.push(next_virtual);
            links.push((from, next_virtual));
            from = next_virtual;
            next_virtual += 1;
        }
        links.push((from, b));
    }
    reduce_crossings(&mut columns, &links);
    for column in &mut columns {
        column.retain(|&n| n < node_count);
    }

    let unreachable: Vec<usize> = (0..node_count).filter(|&n| layer[n].is_none()).collect();
    let has_unreachable_column = !unreachable.is_empty();
    if has_unreachable_column {
        columns.push(unreachable);
    }
    let mut column_of = vec![0; node_count];
    for (c, nodes) in columns.iter().enumerate() {
        for &n in nodes {
            column_of[n] = c;
        }
    }
    Layers {
        columns,
        column_of,
        has_unreachable_column,
        back_edges: (0..edges.len()).filter(|&i| back[i]).collect(),
    }
}

/// Barycentre sweeps over `columns`, joined by `links` between consecutive columns; keeps the
/// order with the fewest crossings (the first such, so a graph without crossings keeps its
/// discovery order).
fn reduce_crossings(columns: &mut [Vec<usize>], links: &[(usize, usize)]) {
    let mut best = columns.to_vec();
    let mut fewest = crossings(columns, links);
    for _ in 0..SWEEPS {
        if fewest == 0 {
            break;
        }
        for c in 1..columns.len() {
            order_by_neighbours(columns, c, c - 1, links, |&(a, b)| (b, a));
        }
        for c in (0..columns.len().saturating_sub(1)).rev() {
            order_by_neighbours(columns, c, c + 1, links, |&(a, b)| (a, b));
        }
        let now = crossings(columns, links);
        if now < fewest {
            fewest = now;
            best = columns.to_vec();
        }
    }
    columns.clone_from_slice(&best);
}

/// Orders column `c` by the mean row of each node's neighbours in column `other`; `ends`
/// turns a link into (node of `c`, node of `other`). Nodes without such neighbours keep their
/// row.
fn order_by_neighbours(
    columns: &mut [Vec<usize>],
    c: usize,
    other: usize,
    links: &[(usize, usize)],
    ends: impl Fn(&(usize, usize)) -> (usize, usize),
) {
    let row_in_other = |n: usize| columns[other].iter().position(|&p| p == n);
    let mut keyed: Vec<(f32, usize)> = columns[c]
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let rows: Vec<usize> = links
                .iter()
                .map(&ends)
                .filter(|&(mine, _)| mine == n)
                .filter_map(|(_, theirs)| row_in_other(theirs))
                .collect();
            let key = if rows.is_empty() {
                i as f32
            } else {
                rows.iter().sum::<usize>() as f32 / rows.len() as f32
            };
            (key, n)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    columns[c] = keyed.into_iter().map(|(_, n)| n).collect();
}

/// Edge crossings between consecutive columns.
pub fn crossings(columns: &[Vec<usize>], links: &[(usize, usize)]) -> usize {
    let mut place = std::collections::HashMap::new();
    for (c, nodes) in columns.iter().enumerate() {
        for (r, &n) in nodes.iter().enumerate() {
            place.insert(n, (c, r));
        }
    }
    let spans: Vec<(usize, usize, usize)> = links
        .iter()
        .filter_map(|(a, b)| {
            let (ca, ra) = place.get(a)?;
            let (cb, rb) = place.get(b)?;
            (*cb == ca + 1).then_some((*ca, *ra, *rb))
        })
        .collect();
    let mut count = 0;
    for (i, x) in spans.iter().enumerate() {
        for y in &spans[i + 1..] {
            if x.0 == y.0 && (x.1 < y.1 && x.2 > y.2 || x.1 > y.1 && x.2 < y.2) {
                count += 1;
            }
        }
    }
    count
}

/// Node positions (top-left corners) for the layered layout, columns centred on `y = 0`;
/// `sizes` are the nodes' sizes, so columns are as wide as their widest node.
pub fn positions(
    node_count: usize,
    root: Option<usize>,
    edges: &[(usize, usize)],
    sizes: &[[f32; 2]],
) -> Vec<[f32; 2]> {
    let size = |n: usize| sizes.get(n).copied().unwrap_or([200.0, 80.0]);
    let layers = layered(node_count, root, edges);
    let mut out = vec![[0.0, 0.0]; node_count];
    let mut x = 0.0;
    for nodes in &layers.columns {
        let height: f32 = nodes.iter().map(|&n| size(n)[1] + ROW_GAP).sum::<f32>() - ROW_GAP;
        let mut y = -height / 2.0;
        for &n in nodes {
            out[n] = [x, y.round()];
            y += size(n)[1] + ROW_GAP;
        }
        x += nodes.iter().map(|&n| size(n)[0]).fold(0.0, f32::max) + COLUMN_GAP;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_columns_of_rows_without_overlap() {
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3)];
        let sizes = [
            [100.0, 50.0],
            [150.0, 60.0],
            [120.0, 60.0],
            [100.0, 50.0],
            [80.0, 40.0],
        ];
        let p = positions(5, Some(0), &edges, &sizes);
        assert_eq!(p[0], [0.0, -25.0]);
        assert_eq!(p[1][0], 100.0 + COLUMN_GAP);
        assert_eq!(p[2][0], p[1][0]);
        assert!(p[2][1] >= p[1][1] + 60.0 + ROW_GAP, "{p:?}");
        // Columns are as wide as their widest node.
        assert_eq!(p[3][0], 100.0 + 150.0 + 2.0 * COLUMN_GAP);
        // The unreachable node 4 gets the last column.
        assert!(p[4][0] > p[3][0]);
    }

    #[test]
    fn a_loop_back_is_a_back_edge_and_the_loop_reads_left_to_right() {
        // 0 -> 1 -> 2 -> 3 -> 1, like StandSellTicket going back to serve the next buyer.
        let layers = layered(4, Some(0), &[(0, 1), (1, 2), (2, 3), (3, 1)]);
        assert_eq!(layers.columns, vec![vec![0], vec![1], vec![2], vec![3]]);
        assert_eq!(layers.back_edges, vec![3]);
        assert!(!layers.has_unreachable_column);
    }

    #[test]
    fn a_node_stands_after_the_longest_way_to_it() {
        // 0 -> 3 directly and through 1 and 2: breadth-first depth would put 3 beside 1.
        let layers = layered(4, Some(0), &[(0, 3), (0, 1), (1, 2), (2, 3)]);
        assert_eq!(layers.column_of, vec![0, 1, 2, 3]);
        assert!(layers.back_edges.is_empty());
    }

    #[test]
    fn sweeps_undo_a_crossing() {
        // 0 -> {1, 2}; 1 -> {3, 4}, 2 -> 3: discovery order puts 3 above 4, so 2 -> 3 crosses
        // 1 -> 4.
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3), (1, 4)];
        let discovery = vec![vec![0], vec![1, 2], vec![3, 4]];
        assert_eq!(crossings(&discovery, &edges), 1);
        let layers = layered(5, Some(0), &edges);
        let links: Vec<(usize, usize)> = edges.to_vec();
        assert_eq!(
            crossings(&layers.columns, &links),
            0,
            "{:?}",
            layers.columns
        );
    }

    #[test]
    fn unreachable_nodes_come_last_and_no_root_puts_everything_in_one_column() {
        let layers = layered(6, Some(0), &[(0, 2), (0, 1), (2, 3), (5, 4)]);
        assert_eq!(layers.columns.last(), Some(&vec![4, 5]));
        assert!(layers.has_unreachable_column);
        let layers = layered(3, None, &[(0, 1)]);
        assert_eq!(layers.columns, vec![vec![0, 1, 2]]);
        assert!(layered(0, None, &[]).columns.is_empty());
    }

    #[test]
    fn edges_naming_no_node_are_ignored() {
        let layers = layered(2, Some(0), &[(0, 7), (9, 1), (0, 1)]);
        assert_eq!(layers.column_of, vec![0, 1]);
    }

    /// A small deterministic generator (no dependency for one property test).
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    #[test]
    fn property_no_two_nodes_overlap_and_every_forward_edge_goes_right() {
        let mut rng = Lcg(18);
        for _ in 0..300 {
            let n = 1 + rng.below(14);
            let edges: Vec<(usize, usize)> = (0..rng.below(3 * n))
                .map(|_| (rng.below(n), rng.below(n)))
                .collect();
            let sizes: Vec<[f32; 2]> = (0..n)
                .map(|_| [60.0 + rng.below(200) as f32, 30.0 + rng.below(90) as f32])
                .collect();
            let layers = layered(n, Some(0), &edges);
            for (i, &(a, b)) in edges.iter().enumerate() {
                let both_reached = !layers.has_unreachable_column
                    || (layers.column_of[a] + 1 < layers.columns.len()
                        && layers.column_of[b] + 1 < layers.columns.len());
                if a != b && both_reached && !layers.back_edges.contains(&i) {
                    assert!(
                        layers.column_of[b] > layers.column_of[a],
                        "{a}->{b} in {edges:?}: {layers:?}"
                    );
                }
            }
            let p = positions(n, Some(0), &edges, &sizes);
            let rect = |i: usize| {
                egui::Rect::from_min_size(
                    egui::pos2(p[i][0], p[i][1]),
                    egui::vec2(sizes[i][0], sizes[i][1]),
                )
            };
            for i in 0..n {
                for j in i + 1..n {
                    assert!(
                        !rect(i).shrink(0.5).intersects(rect(j).shrink(0.5)),
                        "{i} and {j} overlap in {edges:?}"
                    );
                }
            }
        }
    }
}
