//! Which column and row each node of a machine goes in: a deterministic layered layout.
//!
//! Columns are breadth-first depths from the initial state, so reading left to right follows the
//! machine's flow. Rows keep discovery order (transitions in author order), so the same source
//! always draws the same picture. Nodes the search never reaches share one last column, where
//! they stand out as the unreachable states they are.

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

#[cfg(test)]
mod tests {
    use super::*;

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
