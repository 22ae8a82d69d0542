//! DIMACS shortest-path graphs (`.gr`, 9th DIMACS Implementation Challenge): `c` comments, one
//! `p sp NODES ARCS` line, then `a FROM TO WEIGHT` arcs with 1-based node ids and positive
//! whole-number weights. PPA*'s tables here assume an undirected graph, so every arc must come
//! with its reverse at the same weight (true of the challenge's road graphs); anything else is
//! refused with the arc's line.

use super::InputError;
use super::movingai::read_text;
use ensemble_runtime::nav::Graph;
use ensemble_runtime::nav::cost::Metric;
use std::collections::HashMap;
use std::path::Path;

/// For nodes `(a, b)` with `a < b`: weight of `a -> b`, weight of `b -> a`, line of the first.
type ArcPair = (Option<u32>, Option<u32>, usize);

pub fn read_gr(path: &Path) -> Result<Graph, InputError> {
    let text = read_text(path)?;
    parse_gr(path, &text)
}

pub fn parse_gr(path: &Path, text: &str) -> Result<Graph, InputError> {
    // NODES, ARCS, and the line that says so.
    let mut header: Option<(u32, u64, usize)> = None;
    let mut arcs: HashMap<(u32, u32), ArcPair> = HashMap::new();
    let mut count = 0u64;
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        let mut w = line.split_whitespace();
        match w.next() {
            None | Some("c") => {}
            Some("p") => {
                if header.is_some() {
                    return Err(InputError::at(
                        path,
                        no,
                        Some(1),
                        "a second `p` line".into(),
                    ));
                }
                let kind = w.next().unwrap_or("");
                if kind != "sp" {
                    return Err(InputError::at(
                        path,
                        no,
                        Some(3),
                        format!(
                            "problem kind `{kind}` is not supported (expected `p sp NODES ARCS`)"
                        ),
                    ));
                }
                let n = w.next().and_then(|s| s.parse::<u32>().ok());
                let m = w.next().and_then(|s| s.parse::<u64>().ok());
                match (n, m) {
                    (Some(n), Some(m)) if n < u32::MAX / 2 => header = Some((n, m, no)),
                    _ => {
                        return Err(InputError::at(
                            path,
                            no,
                            None,
                            "expected `p sp NODES ARCS` with whole numbers".into(),
                        ));
                    }
                }
            }
            Some("a") => {
                let Some((n, _, _)) = header else {
                    return Err(InputError::at(
                        path,
                        no,
                        Some(1),
                        "an arc before the `p sp` line".into(),
                    ));
                };
                let [u, v, wt] = three::<u64>(w, path, no, "a FROM TO WEIGHT")?;
                if u == 0 || v == 0 || u > n as u64 || v > n as u64 {
                    return Err(InputError::at(
                        path,
                        no,
                        None,
                        format!("arc {u} -> {v} names a node outside 1..={n}"),
                    ));
                }
                if wt == 0 || wt >= u32::MAX as u64 / 4 {
                    return Err(InputError::at(
                        path,
                        no,
                        None,
                        format!(
                            "arc weight {wt} is out of range (1 to {})",
                            u32::MAX / 4 - 1
                        ),
                    ));
                }
                count += 1;
                let (u, v, wt) = (u as u32 - 1, v as u32 - 1, wt as u32);
                if u == v {
                    continue;
                }
                let e = arcs.entry((u.min(v), u.max(v))).or_insert((None, None, no));
                let slot = if u < v { &mut e.0 } else { &mut e.1 };
                match *slot {
                    Some(old) if old <= wt => {}
                    _ => *slot = Some(wt),
                }
            }
            Some(other) => {
                return Err(InputError::at(
                    path,
                    no,
                    Some(1),
                    format!("unknown line kind `{other}` (expected c, p or a)"),
                ));
            }
        }
    }
    let Some((n, m, header_line)) = header else {
        return Err(InputError::whole(path, "no `p sp NODES ARCS` line".into()));
    };
    if count != m {
        return Err(InputError::whole(
            path,
            format!("the `p` line promises {m} arcs but the file has {count}"),
        ));
    }
    // Every node costs memory whether or not an arc reaches it, so a short file must not
    // promise billions of them (issue 23's fuzzer: `p sp 2019051001 0` ran out of memory).
    // Road graphs have every node on an arc: ARCS arcs touch at most 2 × ARCS nodes.
    let touchable = count.saturating_mul(2).saturating_add(1);
    if u64::from(n) > touchable {
        return Err(InputError::at(
            path,
            header_line,
            None,
            format!(
                "the `p` line promises {n} nodes but its {count} arcs reach at most {touchable}; every node must lie on an arc"
            ),
        ));
    }
    let mut edges = Vec::with_capacity(arcs.len());
    let mut sorted: Vec<_> = arcs.into_iter().collect();
    sorted.sort_unstable();
    for ((a, b), (ab, ba, line)) in sorted {
        match (ab, ba) {
            (Some(x), Some(y)) if x == y => edges.push((a, b, x)),
            _ => {
                return Err(InputError::at(
                    path,
                    line,
                    None,
                    format!(
                        "arc between nodes {} and {} is one-way or its two directions differ in weight ({:?} vs {:?}); only undirected graphs are supported",
                        a + 1,
                        b + 1,
                        ab,
                        ba
                    ),
                ));
            }
        }
    }
    Graph::from_edges(n, Metric::Integer, &edges)
        .map_err(|e| InputError::whole(path, e.to_string()))
}

/// Reads a DIMACS `.co` coordinate file for a graph of `nodes` nodes: `c` comments, one
/// `p aux sp co NODES` line, then `v ID X Y` with 1-based ids and whole-number coordinates,
/// every node exactly once.
pub fn read_co(path: &Path, nodes: u32) -> Result<Vec<[i32; 2]>, InputError> {
    let text = read_text(path)?;
    parse_co(path, &text, nodes)
}

pub fn parse_co(path: &Path, text: &str, nodes: u32) -> Result<Vec<[i32; 2]>, InputError> {
    let mut header = false;
    let mut xy: Vec<Option<[i32; 2]>> = vec![None; nodes as usize];
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        let mut w = line.split_whitespace();
        match w.next() {
            None | Some("c") => {}
            Some("p") => {
                let words: Vec<&str> = w.collect();
                match words.as_slice() {
                    ["aux", "sp", "co", n] if !header => {
                        if n.parse::<u32>().ok() != Some(nodes) {
                            return Err(InputError::at(
                                path,
                                no,
                                None,
                                format!(
                                    "the coordinates are for {n} nodes but the graph has {nodes}"
                                ),
                            ));
                        }
                        header = true;
                    }
                    _ => {
                        return Err(InputError::at(
                            path,
                            no,
                            Some(1),
                            "expected one `p aux sp co NODES` line".into(),
                        ));
                    }
                }
            }
            Some("v") => {
                if !header {
                    return Err(InputError::at(
                        path,
                        no,
                        Some(1),
                        "a node before the `p aux sp co` line".into(),
                    ));
                }
                let [id, x, y] = three::<i64>(w, path, no, "v ID X Y")?;
                if id < 1 || id > nodes as i64 {
                    return Err(InputError::at(
                        path,
                        no,
                        None,
                        format!("node {id} is outside 1..={nodes}"),
                    ));
                }
                let (Ok(x), Ok(y)) = (i32::try_from(x), i32::try_from(y)) else {
                    return Err(InputError::at(
                        path,
                        no,
                        None,
                        "a coordinate does not fit 32 bits".into(),
                    ));
                };
                let slot = &mut xy[id as usize - 1];
                if slot.is_some() {
                    return Err(InputError::at(
                        path,
                        no,
                        None,
                        format!("node {id} is given twice"),
                    ));
                }
                *slot = Some([x, y]);
            }
            Some(other) => {
                return Err(InputError::at(
                    path,
                    no,
                    Some(1),
                    format!("unknown line kind `{other}` (expected c, p or v)"),
                ));
            }
        }
    }
    if !header {
        return Err(InputError::whole(
            path,
            "no `p aux sp co NODES` line".into(),
        ));
    }
    match xy.iter().position(Option::is_none) {
        Some(i) => Err(InputError::whole(
            path,
            format!("node {} has no coordinates", i + 1),
        )),
        None => Ok(xy.into_iter().flatten().collect()),
    }
}

/// The rest of a line as exactly three whole numbers (`what` names them in the message).
fn three<'a, T: std::str::FromStr>(
    rest: impl Iterator<Item = &'a str>,
    path: &Path,
    no: usize,
    what: &str,
) -> Result<[T; 3], InputError> {
    let nums: Vec<Option<T>> = rest.map(|s| s.parse::<T>().ok()).collect();
    match <[Option<T>; 3]>::try_from(nums) {
        Ok([Some(a), Some(b), Some(c)]) => Ok([a, b, c]),
        _ => Err(InputError::at(
            path,
            no,
            None,
            format!("expected `{what}` with whole numbers"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_coordinates() {
        let p = Path::new("t.co");
        let xy = parse_co(
            p,
            "c x\np aux sp co 2\nv 2 5 -7\nv 1 -73530767 41085396\n",
            2,
        )
        .unwrap();
        assert_eq!(xy, vec![[-73530767, 41085396], [5, -7]]);
        let e = parse_co(p, "p aux sp co 2\nv 1 0 0\n", 2).unwrap_err();
        assert!(e.message.contains("node 2"), "{e}");
        let e = parse_co(p, "p aux sp co 2\nv 1 0 0\nv 1 0 0\n", 2).unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = parse_co(p, "p aux sp co 3\n", 2).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(parse_co(p, "v 1 0 0\n", 1).is_err());
        assert!(parse_co(p, "p aux sp co 1\nv 1 0 9999999999\n", 1).is_err());
    }

    #[test]
    fn reads_a_symmetric_graph() {
        let text = "c tiny\np sp 3 4\na 1 2 5\na 2 1 5\na 2 3 7\na 3 2 7\n";
        let g = parse_gr(Path::new("t.gr"), text).unwrap();
        assert_eq!(g.node_count(), 3);
        assert_eq!(g.path_cost(&[0, 1, 2]), Some(12.0));
    }

    #[test]
    fn refuses_bad_input_with_lines() {
        let p = Path::new("t.gr");
        let e = parse_gr(p, "p sp 2 1\na 1 2 5\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse_gr(p, "p sp 2 2\na 1 2 5\na 2 x 5\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = parse_gr(p, "p sp 2 1\na 1 3 5\n").unwrap_err();
        assert!(e.message.contains("outside"));
        assert!(parse_gr(p, "a 1 2 3\n").is_err());
        assert!(parse_gr(p, "p sp 2 5\na 1 2 5\na 2 1 5\n").is_err());
        assert!(parse_gr(p, "").is_err());
    }

    /// Issue 23 (fuzzing): a `p` line promising two billion nodes and no arcs ran out of memory
    /// building the graph; it is now an error on that line, whatever comes before it.
    #[test]
    fn nodes_no_arc_reaches_are_refused_before_any_allocation() {
        let p = Path::new("t.gr");
        for text in [
            "p sp 2019051001 0\n",
            "c big\np sp 405000000 2\na 1 2 5\na 2 1 5\n",
        ] {
            let e = parse_gr(p, text).unwrap_err();
            assert!(e.message.contains("must lie on an arc"), "{}", e.message);
            assert_eq!(
                e.line,
                Some(text.lines().position(|l| l.starts_with('p')).unwrap() + 1)
            );
        }
        // A lone node, and a graph whose nodes all lie on arcs, still read.
        assert_eq!(parse_gr(p, "p sp 1 0\n").unwrap().node_count(), 1);
        assert!(parse_gr(p, "p sp 3 2\na 1 2 5\na 2 1 5\n").is_ok());
    }
}
