//! What the map looks like: one texel per cell (a 512×512 map is one texture, not a quarter of
//! a million rectangles), passable cells coloured by the cluster they belong to at the level
//! shown, border nodes of those clusters lighter, blocked cells dark.

use eframe::egui::{Color32, ColorImage, ecolor::Hsva};
use ensemble_compiler::formats::nav::GridMap;
use ensemble_compiler::formats::nav::NavData;
use ensemble_runtime::nav::hierarchy::{ClusterId, Hierarchy};

pub const BLOCKED: Color32 = Color32::from_rgb(14, 16, 20);
/// Passable, before the hierarchy is built.
pub const OPEN: Color32 = Color32::from_rgb(72, 78, 90);

/// The cluster node `v`'s cell shows at `level` (a depth; `None`: its leaf). Leaves shallower
/// than `level` show themselves.
pub fn cluster_at(h: &Hierarchy, v: u32, level: Option<u32>) -> ClusterId {
    let mut c = h.leaf_of[v as usize];
    if let Some(level) = level {
        while h.clusters[c as usize].depth > level {
            c = h.clusters[c as usize].parent;
        }
    }
    c
}

/// A colour per cluster: hues spread by the golden ratio so neighbours differ.
pub fn cluster_hue(c: ClusterId) -> f32 {
    (c as f32 * 0.618_034).fract()
}

fn shade(c: ClusterId, border: bool) -> Color32 {
    let h = cluster_hue(c);
    // Borders darker than the inside: the cluster reads as a patch with an outline.
    if border {
        Hsva::new(h, 0.60, 0.36, 1.0).into()
    } else {
        Hsva::new(h, 0.48, 0.66, 1.0).into()
    }
}

/// Clusters shown at `level`, and how many.
pub fn shown_clusters(h: &Hierarchy, level: Option<u32>) -> Vec<ClusterId> {
    (0..h.clusters.len() as u32)
        .filter(|&c| {
            let cl = &h.clusters[c as usize];
            match level {
                None => cl.is_leaf(),
                Some(l) => cl.depth == l || (cl.is_leaf() && cl.depth < l),
            }
        })
        .collect()
}

/// The map as an image at `level`.
pub fn image(grid: &GridMap, data: Option<&NavData>, level: Option<u32>) -> ColorImage {
    let (w, h) = (grid.width as usize, grid.height as usize);
    let mut pixels: Vec<Color32> = grid
        .passable
        .iter()
        .map(|&p| if p { OPEN } else { BLOCKED })
        .collect();
    if let Some(data) = data
        && let Some(g) = &data.graph.grid
    {
        let hier = &data.hierarchy;
        let mut border = vec![false; data.graph.node_count() as usize];
        for c in shown_clusters(hier, level) {
            let cl = &hier.clusters[c as usize];
            for &b in &cl.border {
                border[cl.members[b as usize] as usize] = true;
            }
        }
        for v in 0..data.graph.node_count() {
            let (x, y) = g.cell(v);
            pixels[y as usize * w + x as usize] =
                shade(cluster_at(hier, v, level), border[v as usize]);
        }
    }
    ColorImage::new([w, h], pixels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::formats::nav::parse_map;

    #[test]
    fn every_open_cell_gets_its_clusters_colour_and_borders_stand_out() {
        let text = "type octile\nheight 8\nwidth 16\nmap\n".to_string()
            + &"................\n".repeat(4)
            + "@@@@@@@.@@@@@@@@\n"
            + &"................\n".repeat(3);
        let grid = parse_map(std::path::Path::new("t.map"), &text).unwrap();
        let (data, _) = ensemble_compiler::formats::nav::build(
            grid.graph(),
            &ensemble_compiler::formats::nav::BuildOptions {
                leaf_size: 30,
                progress: false,
            },
        )
        .unwrap();
        let img = image(&grid, Some(&data), None);
        assert_eq!(img.size, [16, 8]);
        assert_eq!(img.pixels[4 * 16], BLOCKED);
        let colours: std::collections::HashSet<_> =
            img.pixels.iter().filter(|c| **c != BLOCKED).collect();
        // More than one cluster, each with inner and border shades.
        assert!(colours.len() >= 4, "{}", colours.len());
        assert!(!img.pixels.contains(&OPEN));
        // At the root level every cell is one cluster (two shades: inner and border).
        let root = image(&grid, Some(&data), Some(0));
        let root_colours: std::collections::HashSet<_> =
            root.pixels.iter().filter(|c| **c != BLOCKED).collect();
        assert!(root_colours.len() <= 2);
        assert_eq!(shown_clusters(&data.hierarchy, Some(0)), vec![0]);
        let leaves = shown_clusters(&data.hierarchy, None);
        assert_eq!(leaves.len(), data.hierarchy.leaf_count());
    }
}
