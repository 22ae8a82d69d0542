//! MovingAI benchmark files (Sturtevant 2012): `.map` octile grids and `.scen` scenarios.
//!
//! A map is `type octile`, `height H`, `width W`, `map`, then H rows of W cells. `.`, `G` and
//! `S` are passable; `@`, `O`, `T` and `W` are not (water is passable only from water, which an
//! octile walker never is). A scenario file is `version 1` then one query per line:
//! `bucket map width height start_x start_y goal_x goal_y optimal_length`.

use super::InputError;
use ensemble_runtime::nav::{Graph, NodeId};
use std::path::Path;

/// A parsed grid.
#[derive(Clone, Debug, PartialEq)]
pub struct GridMap {
    pub width: u32,
    pub height: u32,
    /// Row-major, `y * width + x`.
    pub passable: Vec<bool>,
}

impl GridMap {
    /// The octile graph of the map (diagonal √2, no corner cutting).
    pub fn graph(&self) -> Graph {
        Graph::octile_grid(self.width, self.height, &self.passable)
            .expect("the parser checked the dimensions")
    }
}

/// Reads a `.map` file (exit code 2 for an unreadable path is the caller's business).
pub fn read_map(path: &Path) -> Result<GridMap, InputError> {
    let text = read_text(path)?;
    parse_map(path, &text)
}

pub(crate) fn read_text(path: &Path) -> Result<String, InputError> {
    let bytes = std::fs::read(path)
        .map_err(|e| InputError::whole(path, format!("cannot read the file: {e}")))?;
    String::from_utf8(bytes).map_err(|e| {
        let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        InputError::at(path, line, None, "the file is not valid UTF-8 text".into())
    })
}

/// Parses map text.
pub fn parse_map(path: &Path, text: &str) -> Result<GridMap, InputError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let mut width = None;
    let mut height = None;
    let mut last_line = 0;
    loop {
        let Some((no, line)) = lines.next() else {
            return Err(InputError::at(
                path,
                last_line.max(1),
                None,
                "the header ends before the `map` line".into(),
            ));
        };
        last_line = no;
        let mut words = line.split_whitespace();
        match words.next() {
            None => continue,
            Some("type") => {
                let t = words.next().unwrap_or("");
                if t != "octile" {
                    return Err(InputError::at(
                        path,
                        no,
                        Some(6),
                        format!("map type `{t}` is not supported (only `octile`)"),
                    ));
                }
            }
            Some(key @ ("height" | "width")) => {
                let v = words.next().unwrap_or("");
                let n: u32 = v
                    .parse()
                    .ok()
                    .filter(|&n| n > 0 && n <= 16384)
                    .ok_or_else(|| {
                        InputError::at(
                            path,
                            no,
                            Some(key.len() + 2),
                            format!("`{key}` needs a whole number from 1 to 16384, found `{v}`"),
                        )
                    })?;
                if key == "height" {
                    height = Some(n);
                } else {
                    width = Some(n);
                }
            }
            Some("map") => break,
            Some(other) => {
                return Err(InputError::at(
                    path,
                    no,
                    Some(1),
                    format!(
                        "unexpected `{other}` in the map header (expected type, height, width, map)"
                    ),
                ));
            }
        }
    }
    let (Some(width), Some(height)) = (width, height) else {
        return Err(InputError::at(
            path,
            last_line,
            None,
            "the header must give both `height` and `width` before `map`".into(),
        ));
    };
    let mut passable = Vec::with_capacity(width as usize * height as usize);
    let mut rows = 0u32;
    for (no, line) in lines {
        if rows == height {
            if line.trim().is_empty() {
                continue;
            }
            return Err(InputError::at(
                path,
                no,
                Some(1),
                format!("more than the {height} rows the header promises"),
            ));
        }
        let cells = line.as_bytes();
        if cells.len() != width as usize {
            return Err(InputError::at(
                path,
                no,
                Some(cells.len().min(width as usize) + 1),
                format!(
                    "row {rows} has {} cells, the header says {width}",
                    cells.len()
                ),
            ));
        }
        for (x, &b) in cells.iter().enumerate() {
            passable.push(match b {
                b'.' | b'G' | b'S' => true,
                b'@' | b'O' | b'T' | b'W' => false,
                _ => {
                    return Err(InputError::at(
                        path,
                        no,
                        Some(x + 1),
                        format!(
                            "unknown terrain `{}` (expected . G S @ O T W)",
                            char::from(b).escape_default()
                        ),
                    ));
                }
            });
        }
        rows += 1;
        last_line = no;
    }
    if rows != height {
        return Err(InputError::at(
            path,
            last_line,
            None,
            format!("the map has {rows} rows, the header says {height}"),
        ));
    }
    Ok(GridMap {
        width,
        height,
        passable,
    })
}

/// One scenario query.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// 1-based line in the `.scen` file.
    pub line: usize,
    pub bucket: u32,
    pub map: String,
    pub width: u32,
    pub height: u32,
    pub start: (u32, u32),
    pub goal: (u32, u32),
    pub optimal: f64,
}

pub fn read_scen(path: &Path) -> Result<Vec<Scenario>, InputError> {
    let text = read_text(path)?;
    parse_scen(path, &text)
}

pub fn parse_scen(path: &Path, text: &str) -> Result<Vec<Scenario>, InputError> {
    let mut out = Vec::new();
    let mut seen_version = false;
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if !seen_version {
            let mut w = line.split_whitespace();
            if w.next() == Some("version") {
                let v = w.next().unwrap_or("");
                if v != "1" && v != "1.0" {
                    return Err(InputError::at(
                        path,
                        no,
                        Some(9),
                        format!("scenario version `{v}` is not supported (only 1)"),
                    ));
                }
                seen_version = true;
                continue;
            }
            return Err(InputError::at(
                path,
                no,
                Some(1),
                "a scenario file starts with `version 1`".into(),
            ));
        }
        // Tab-separated; the map name cannot hold a tab but fields may be space-separated too.
        let fields: Vec<(usize, &str)> = fields_with_columns(line);
        if fields.len() != 9 {
            return Err(InputError::at(
                path,
                no,
                None,
                format!(
                    "a scenario has 9 fields (bucket map width height start_x start_y goal_x goal_y optimal_length), found {}",
                    fields.len()
                ),
            ));
        }
        let int = |k: usize, name: &str| -> Result<u32, InputError> {
            fields[k].1.parse().map_err(|_| {
                InputError::at(
                    path,
                    no,
                    Some(fields[k].0),
                    format!("`{name}` must be a whole number, found `{}`", fields[k].1),
                )
            })
        };
        let optimal: f64 = fields[8]
            .1
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                InputError::at(
                    path,
                    no,
                    Some(fields[8].0),
                    format!(
                        "`optimal_length` must be a non-negative number, found `{}`",
                        fields[8].1
                    ),
                )
            })?;
        out.push(Scenario {
            line: no,
            bucket: int(0, "bucket")?,
            map: fields[1].1.to_string(),
            width: int(2, "width")?,
            height: int(3, "height")?,
            start: (int(4, "start_x")?, int(5, "start_y")?),
            goal: (int(6, "goal_x")?, int(7, "goal_y")?),
            optimal,
        });
    }
    if !seen_version {
        return Err(InputError::whole(
            path,
            "the scenario file is empty (no `version 1` line)".into(),
        ));
    }
    Ok(out)
}

fn fields_with_columns(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, ch) in line.char_indices() {
        if ch.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s + 1, &line[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s + 1, &line[s..]));
    }
    out
}

/// The start and goal nodes of a scenario on `graph`, or an error naming the line.
pub fn scenario_nodes(
    path: &Path,
    graph: &Graph,
    s: &Scenario,
) -> Result<(NodeId, NodeId), InputError> {
    let grid = graph.grid.as_ref().ok_or_else(|| {
        InputError::at(
            path,
            s.line,
            None,
            "scenarios need a grid map, not a road graph".into(),
        )
    })?;
    if (s.width, s.height) != (grid.width, grid.height) {
        return Err(InputError::at(
            path,
            s.line,
            None,
            format!(
                "the scenario is for a {}x{} map but the map is {}x{}",
                s.width, s.height, grid.width, grid.height
            ),
        ));
    }
    let node = |(x, y): (u32, u32), what: &str| {
        grid.node_at(x, y).ok_or_else(|| {
            InputError::at(
                path,
                s.line,
                None,
                format!("the {what} ({x}, {y}) is not a passable cell of the map"),
            )
        })
    };
    Ok((node(s.start, "start")?, node(s.goal, "goal")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("t.map")
    }

    #[test]
    fn parses_a_small_map() {
        let m = parse_map(p(), "type octile\nheight 2\nwidth 3\nmap\n.@.\nTG.\n").unwrap();
        assert_eq!((m.width, m.height), (3, 2));
        assert_eq!(m.passable, vec![true, false, true, false, true, true]);
        assert_eq!(m.graph().node_count(), 4);
    }

    #[test]
    fn map_errors_have_locations() {
        let e = parse_map(p(), "type octile\nheight 2\nwidth 3\nmap\n.@.\n.x.\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(6), Some(2)));
        let e = parse_map(p(), "type octile\nheight 2\nwidth 3\nmap\n.@.\n").unwrap_err();
        assert!(e.message.contains("1 rows"), "{e}");
        let e = parse_map(p(), "type octile\nheight x\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let e = parse_map(p(), "type octile\nheight 2\nwidth 3\nmap\n..\n").unwrap_err();
        assert!(e.to_string().starts_with("t.map:5:3:"), "{e}");
        assert!(parse_map(p(), "").is_err());
        assert!(parse_map(p(), "type hex\n").is_err());
    }

    #[test]
    fn parses_scenarios_and_reports_bad_fields() {
        let s = parse_scen(p(), "version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\t2.41421356\n").unwrap();
        assert_eq!(s[0].start, (0, 0));
        assert_eq!(s[0].goal, (2, 1));
        let e = parse_scen(p(), "version 1\n0\tm.map\t3\t2\tq\t0\t2\t1\t2.4\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("start_x"));
        assert!(parse_scen(p(), "0\tm.map\t3\t2\t0\t0\t2\t1\t2.4\n").is_err());
        assert!(parse_scen(p(), "version 1\n0 m.map 3\n").is_err());
    }
}
