//! Auto-layout for content without a layout (imported, hand-written, or asked for): a
//! deterministic layered layout.
//!
//! Columns are breadth-first depths from the initial state, so reading left to right follows the
//! machine's flow. Rows start in discovery order (transitions in author order) and are then
//! ordered by the mean row of each node's predecessors (one barycentre sweep), which removes most
//! crossings of a state machine's mostly forward flow. Nodes the search never reaches share one
//! last column, where they stand out as the unreachable states they are.

use std::collections::VecDeque;

/// The column and row of every node.
#[derive(Clone, Debug, PartialEq)]
pub struct Layers {
    /// `columns[c]` lists node indices, top to bottom.
    pub columns: Vec<Vec<usize>>,
    /// `column_of[n]` is the column of node `n`.
    pub column_of: Vec<usize>,
    /// Whether the last column holds the nodes not reachable from the root.
    pub has_unreachable_column: bool,
}

/// Lays out `node_count` nodes joined by directed `edges`, starting from `root`.
///
/// Without a root every node is unreachable and they all share one column.
pub fn layered(node_count: usize, root: Option<usize>, edges: &[(usize, usize)]) -> Layers {
    let mut depth: Vec<Option<usize>> = vec![None; node_count];
    let mut order = Vec::with_capacity(node_count);
    let mut queue = VecDeque::new();
    if let Some(r) = root.filter(|&r| r < node_count) {
        depth[r] = Some(0);
        queue.push_back(r);
    }
    while let Some(n) = queue.pop_front() {
        order.push(n);
        let d = depth[n].unwrap_or(0);
        for &(from, to) in edges {
            if from == n && to < node_count && depth[to].is_none() {
                depth[to] = Some(d + 1);
                queue.push_back(to);
            }
        }
    }

    let reached_columns = depth.iter().flatten().max().map_or(0, |d| d + 1);
    let unreachable: Vec<usize> = (0..node_count).filter(|&n| depth[n].is_none()).collect();
    let mut columns = vec![Vec::new(); reached_columns];
    for &n in &order {
        if let Some(d) = depth[n] {
            columns[d].push(n);
        }
    }
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
    }
}

/// Gaps between columns and between the nodes of a column, in points.
pub const COLUMN_GAP: f32 = 60.0;
pub const ROW_GAP: f32 = 30.0;
/// A column's width when nothing is known of its nodes' sizes (missing targets).
pub const COLUMN: f32 = 300.0;

/// Node positions (top-left corners) for a layered layout, columns centred on `y = 0`;
/// `sizes` are the nodes' estimated sizes, so columns are as wide as their widest node.
pub fn positions(
    node_count: usize,
    root: Option<usize>,
    edges: &[(usize, usize)],
    sizes: &[[f32; 2]],
) -> Vec<[f32; 2]> {
    let size = |n: usize| sizes.get(n).copied().unwrap_or([200.0, 80.0]);
    let mut layers = layered(node_count, root, edges);
    // One barycentre sweep: order each column by the mean row of its predecessors.
    for c in 1..layers.columns.len() {
        let prev: Vec<usize> = layers.columns[c - 1].clone();
        let row_of = |n: usize| prev.iter().position(|&p| p == n);
        let key = |n: usize| {
            let rows: Vec<usize> = edges
                .iter()
                .filter(|&&(from, to)| to == n && from != n)
                .filter_map(|&(from, _)| row_of(from))
                .collect();
            if rows.is_empty() {
                f32::MAX
            } else {
                rows.iter().sum::<usize>() as f32 / rows.len() as f32
            }
        };
        let mut keyed: Vec<(f32, usize, usize)> = layers.columns[c]
            .iter()
            .enumerate()
            .map(|(i, &n)| (key(n), i, n))
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        layers.columns[c] = keyed.into_iter().map(|(_, _, n)| n).collect();
    }
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
    fn columns_follow_breadth_first_depth() {
        // 0 -> 1 -> 2 -> 3 -> 1 (a loop back), like StandSellTicket.
        let layers = layered(4, Some(0), &[(0, 1), (1, 2), (2, 3), (3, 1)]);
        assert_eq!(layers.columns, vec![vec![0], vec![1], vec![2], vec![3]]);
        assert!(!layers.has_unreachable_column);
    }

    #[test]
    fn rows_keep_discovery_order_and_unreachable_nodes_come_last() {
        let layers = layered(6, Some(0), &[(0, 2), (0, 1), (2, 3), (5, 4)]);
        assert_eq!(
            layers.columns,
            vec![vec![0], vec![2, 1], vec![3], vec![4, 5]]
        );
        assert!(layers.has_unreachable_column);
        assert_eq!(layers.column_of, vec![0, 1, 1, 2, 3, 3]);
    }

    #[test]
    fn no_root_puts_everything_in_one_column() {
        let layers = layered(3, None, &[(0, 1)]);
        assert_eq!(layers.columns, vec![vec![0, 1, 2]]);
        assert!(layers.has_unreachable_column);
    }

    #[test]
    fn empty_machine_has_no_columns() {
        let layers = layered(0, None, &[]);
        assert!(layers.columns.is_empty());
    }
}
