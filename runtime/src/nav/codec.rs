//! Compact encodings of the navigation data for files (`.ensnav` and the program's navigation
//! section). What is in memory is laid out for the search; what is on disk is laid out for
//! size, and decoding checks everything, so no byte sequence makes it panic.
//!
//! **Distance tables.** Consecutive entries of a table (a leaf's column, an inner cluster's
//! row) are distances from one node to neighbouring nodes, so they differ by one step: on
//! the MovingAI maps 86% of the differences are one of four, (±1 straight) and (∓1 straight,
//! ±1 diagonal). Each table lists its four most frequent differences of
//! `(straight, diagonal)` (for whole-number metrics: of the value) and codes every entry as a
//! prefix code in a bit stream — `00`, `01`, `10`, `110` for those four, `1110` for
//! unreachable, `1111` for anything else, whose two zig-zag varints go to a separate byte
//! stream. About four bits an entry instead of sixteen or thirty-two.
//!
//! **Domination bits** are stored as they are, eight to a byte.
//!
//! **Graphs.** A grid graph is its passability bitmap (the edges follow from it) plus the
//! edges removed since it was built; any other graph is its degrees, each edge's target as a
//! difference from its source and its cost, as varints, and the node positions if it has them.

use super::cost::{Metric, Packed, UNREACHABLE};
use super::distances::{Bits, Entries, Table};
use super::graph::{Graph, NodeId};
use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------
// Byte and bit streams.

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Reads varints from a byte slice; every read is checked.
struct ByteReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl ByteReader<'_> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self
                .bytes
                .get(self.at)
                .ok_or("the data ends in the middle of a number")?;
            self.at += 1;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                if shift == 63 && b > 1 {
                    return Err("a number is too large".into());
                }
                return Ok(v);
            }
        }
        Err("a number is too long".into())
    }

    fn finished(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// Bits, least significant first.
#[derive(Default)]
struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    used: u32,
}

impl BitWriter {
    fn put(&mut self, bits: u64, count: u32) {
        self.acc |= bits << self.used;
        self.used += count;
        while self.used >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.used -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

struct BitReader<'a> {
    bytes: &'a [u8],
    at: usize,
    acc: u64,
    have: u32,
}

impl BitReader<'_> {
    /// The next bit; `None` past the end.
    #[inline]
    fn bit(&mut self) -> Option<bool> {
        if self.have == 0 {
            self.acc = *self.bytes.get(self.at)? as u64;
            self.at += 1;
            self.have = 8;
        }
        let b = self.acc & 1 == 1;
        self.acc >>= 1;
        self.have -= 1;
        Some(b)
    }
}

/// Serialises bytes as one blob (postcard: a length and the bytes).
struct Blob<'a>(&'a [u8]);

impl Serialize for Blob<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// The owned counterpart of [`Blob`] for decoding.
struct BlobBuf(Vec<u8>);

impl<'de> Deserialize<'de> for BlobBuf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BlobBuf;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<BlobBuf, E> {
                Ok(BlobBuf(v.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<BlobBuf, E> {
                Ok(BlobBuf(v))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

// ---------------------------------------------------------------------------------------------
// Distance tables.

/// How an entry splits into the two components whose differences are coded.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Kind {
    Octile,
    Integer,
    Octile16,
    Integer16,
}

impl Kind {
    fn of(e: &Entries) -> Kind {
        match e {
            Entries::Octile(_) => Kind::Octile,
            Entries::Integer(_) => Kind::Integer,
            Entries::Octile16(_) => Kind::Octile16,
            Entries::Integer16(_) => Kind::Integer16,
        }
    }

    fn split(self, v: Packed) -> (i64, i64) {
        match self {
            Kind::Octile | Kind::Octile16 => ((v & 0xffff) as i64, (v >> 16) as i64),
            Kind::Integer | Kind::Integer16 => (v as i64, 0),
        }
    }

    /// The entry of two components, if they are a valid distance of this kind.
    fn join(self, (a, b): (i64, i64)) -> Option<Packed> {
        let ok = match self {
            Kind::Octile => (0..=0xffff).contains(&a) && (0..0xffff).contains(&b),
            Kind::Octile16 => (0..=0xff).contains(&a) && (0..0xff).contains(&b),
            Kind::Integer => (0..UNREACHABLE as i64).contains(&a) && b == 0,
            Kind::Integer16 => (0..0xffff).contains(&a) && b == 0,
        };
        ok.then_some(match self {
            Kind::Octile | Kind::Octile16 => ((b as u32) << 16) | a as u32,
            Kind::Integer | Kind::Integer16 => a as u32,
        })
    }
}

/// The on-disk form of a table.
#[derive(Serialize)]
struct TableOut<'a> {
    kind: Kind,
    count: u64,
    common: [(i64, i64); 4],
    symbols: Blob<'a>,
    escapes: Blob<'a>,
    via_border: (u64, Blob<'a>),
    via_block: (u64, Blob<'a>),
}

#[derive(Deserialize)]
struct TableIn {
    kind: Kind,
    count: u64,
    common: [(i64, i64); 4],
    symbols: BlobBuf,
    escapes: BlobBuf,
    via_border: (u64, BlobBuf),
    via_block: (u64, BlobBuf),
}

/// Codes: `00` `01` `10` `110` common differences, `1110` unreachable, `1111` escape.
/// Written least significant bit first, as the decoder reads them.
const CODES: [(u64, u32); 6] = [
    (0b00, 2),
    (0b01, 2),
    (0b10, 2),
    (0b011, 3),
    (0b0111, 4),
    (0b1111, 4),
];
const UNREACHABLE_CODE: usize = 4;
const ESCAPE_CODE: usize = 5;

fn entries_iter(e: &Entries) -> Box<dyn Iterator<Item = Packed> + '_> {
    match e {
        Entries::Octile(v) | Entries::Integer(v) => Box::new(v.iter().copied()),
        Entries::Octile16(_) | Entries::Integer16(_) => Box::new((0..e.len()).map(|i| e.get(i))),
    }
}

fn encode_entries(e: &Entries) -> ([(i64, i64); 4], Vec<u8>, Vec<u8>) {
    let kind = Kind::of(e);
    // The four most frequent differences.
    let mut freq: std::collections::HashMap<(i64, i64), u64> = Default::default();
    let mut prev = (0i64, 0i64);
    for v in entries_iter(e) {
        if v != UNREACHABLE {
            let c = kind.split(v);
            *freq.entry((c.0 - prev.0, c.1 - prev.1)).or_default() += 1;
            prev = c;
        }
    }
    let mut ranked: Vec<((i64, i64), u64)> = freq.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut common = [(0i64, 0i64); 4];
    for (slot, (d, _)) in common.iter_mut().zip(&ranked) {
        *slot = *d;
    }
    let mut bits = BitWriter::default();
    let mut escapes = Vec::new();
    let mut prev = (0i64, 0i64);
    for v in entries_iter(e) {
        if v == UNREACHABLE {
            let (code, len) = CODES[UNREACHABLE_CODE];
            bits.put(code, len);
            continue;
        }
        let c = kind.split(v);
        let d = (c.0 - prev.0, c.1 - prev.1);
        prev = c;
        match common.iter().position(|&x| x == d) {
            Some(i) => {
                let (code, len) = CODES[i];
                bits.put(code, len);
            }
            None => {
                let (code, len) = CODES[ESCAPE_CODE];
                bits.put(code, len);
                put_varint(&mut escapes, zigzag(d.0));
                put_varint(&mut escapes, zigzag(d.1));
            }
        }
    }
    (common, bits.finish(), escapes)
}

fn decode_entries(t: &TableIn) -> Result<Entries, String> {
    // Every entry takes at least two bits, which bounds what a corrupt count can allocate.
    if t.count > 4 * t.symbols.0.len() as u64 {
        return Err("a table claims more entries than its data can hold".into());
    }
    let mut bits = BitReader {
        bytes: &t.symbols.0,
        at: 0,
        acc: 0,
        have: 0,
    };
    let mut escapes = ByteReader {
        bytes: &t.escapes.0,
        at: 0,
    };
    let truncated = || "a table's entries end early".to_string();
    let mut out = Vec::with_capacity(t.count as usize);
    let mut prev = (0i64, 0i64);
    for _ in 0..t.count {
        // The prefix code: two to four bits.
        let b0 = bits.bit().ok_or_else(truncated)?;
        let b1 = bits.bit().ok_or_else(truncated)?;
        let code = match (b0, b1) {
            (false, false) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (true, true) => {
                if !bits.bit().ok_or_else(truncated)? {
                    3
                } else if bits.bit().ok_or_else(truncated)? {
                    ESCAPE_CODE
                } else {
                    UNREACHABLE_CODE
                }
            }
        };
        let d = match code {
            UNREACHABLE_CODE => {
                out.push(UNREACHABLE);
                continue;
            }
            ESCAPE_CODE => (unzigzag(escapes.varint()?), unzigzag(escapes.varint()?)),
            i => t.common[i],
        };
        let c = (
            prev.0.checked_add(d.0).ok_or("a distance overflows")?,
            prev.1.checked_add(d.1).ok_or("a distance overflows")?,
        );
        out.push(
            t.kind
                .join(c)
                .ok_or("a table holds an impossible distance")?,
        );
        prev = c;
    }
    if !escapes.finished() {
        return Err("a table has unused data after its entries".into());
    }
    Ok(match t.kind {
        Kind::Octile => Entries::Octile(out),
        Kind::Integer => Entries::Integer(out),
        // `join` checked the ranges, so the narrow forms hold them exactly.
        Kind::Octile16 => match Entries::from_wide(Metric::Octile, out) {
            e @ Entries::Octile16(_) => e,
            _ => return Err("a 16-bit table holds a wide distance".into()),
        },
        Kind::Integer16 => match Entries::from_wide(Metric::Integer, out) {
            e @ Entries::Integer16(_) => e,
            _ => return Err("a 16-bit table holds a wide distance".into()),
        },
    })
}

fn bits_bytes(b: &Bits) -> Vec<u8> {
    (0..b.len().div_ceil(8))
        .map(|i| (b.word_at(8 * i) & 0xff) as u8)
        .collect()
}

fn bits_from(len: u64, bytes: &[u8]) -> Result<Bits, String> {
    if len.div_ceil(8) != bytes.len() as u64 {
        return Err("a bit set has the wrong number of bytes".into());
    }
    let mut b = Bits::new(len as usize);
    for (i, &byte) in bytes.iter().enumerate() {
        for j in 0..8 {
            let k = 8 * i + j;
            if byte >> j & 1 == 1 {
                if k as u64 >= len {
                    return Err("a bit set has bits past its end".into());
                }
                b.set(k, true);
            }
        }
    }
    Ok(b)
}

impl Serialize for Table {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (common, symbols, escapes) = encode_entries(&self.entries);
        let border = bits_bytes(&self.via_border);
        let block = bits_bytes(&self.via_block);
        TableOut {
            kind: Kind::of(&self.entries),
            count: self.entries.len() as u64,
            common,
            symbols: Blob(&symbols),
            escapes: Blob(&escapes),
            via_border: (self.via_border.len() as u64, Blob(&border)),
            via_block: (self.via_block.len() as u64, Blob(&block)),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Table {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = TableIn::deserialize(d)?;
        let entries = decode_entries(&t).map_err(de::Error::custom)?;
        let via_border = bits_from(t.via_border.0, &t.via_border.1.0).map_err(de::Error::custom)?;
        let via_block = bits_from(t.via_block.0, &t.via_block.1.0).map_err(de::Error::custom)?;
        Ok(Table {
            entries,
            via_border,
            via_block,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Graphs.

#[derive(Serialize)]
enum GraphOut<'a> {
    /// An octile grid with canonical costs: width, height, passability (row-major bits), and
    /// the removed edges.
    Grid {
        width: u32,
        height: u32,
        passable: Blob<'a>,
        removed: Vec<(NodeId, NodeId)>,
    },
    Edges {
        metric: Metric,
        nodes: u32,
        /// Per node: degree, then per edge `zigzag(target - source)` and cost, all varints.
        adjacency: Blob<'a>,
        /// Zig-zag varint coordinates, each a difference from the previous node's, and the
        /// estimate's scale (fixed when the graph was built: see `Points`).
        points: Option<(Blob<'a>, f64)>,
        grid: Option<(u32, u32, Blob<'a>)>,
    },
}

#[derive(Deserialize)]
enum GraphIn {
    Grid {
        width: u32,
        height: u32,
        passable: BlobBuf,
        removed: Vec<(NodeId, NodeId)>,
    },
    Edges {
        metric: Metric,
        nodes: u32,
        adjacency: BlobBuf,
        points: Option<(BlobBuf, f64)>,
        grid: Option<(u32, u32, BlobBuf)>,
    },
}

/// The grid cells of a grid graph's nodes as a passability bitmap, if every live edge has the
/// cost the grid gives it (then the graph is rebuilt from the bitmap and its removed edges).
/// A grid as its passability bitmap and removed edges.
type GridBits = (Vec<u8>, Vec<(NodeId, NodeId)>);

fn canonical_grid(g: &Graph) -> Option<GridBits> {
    let grid = g.grid.as_ref()?;
    if g.metric != Metric::Octile {
        return None;
    }
    let cells = grid.width as usize * grid.height as usize;
    let mut passable = vec![0u8; cells.div_ceil(8)];
    for v in 0..g.node_count() {
        let (x, y) = grid.cell(v);
        let c = (y * grid.width + x) as usize;
        passable[c / 8] |= 1 << (c % 8);
    }
    // The rebuilt graph must be this one: nodes in cell order (as `octile_grid` numbers
    // them), canonical costs; the caller compares the edges.
    let index = |v: NodeId| {
        let (x, y) = grid.cell(v);
        y * grid.width + x
    };
    if (1..g.node_count()).any(|v| index(v - 1) >= index(v)) {
        return None;
    }
    let mut removed = Vec::new();
    for u in 0..g.node_count() {
        let (ux, uy) = grid.cell(u);
        for (v, c) in g.all_edges(u) {
            let (vx, vy) = grid.cell(v);
            let diagonal = ux != vx && uy != vy;
            let canonical = if diagonal {
                Metric::DIAGONAL
            } else {
                Metric::STRAIGHT
            };
            if c == UNREACHABLE {
                if u < v {
                    removed.push((u, v));
                }
            } else if c != canonical {
                return None;
            }
        }
    }
    Some((passable, removed))
}

impl Serialize for Graph {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.points.is_none()
            && let Some((passable, removed)) = canonical_grid(self)
            && let Some(grid) = &self.grid
            && Graph::octile_grid_from_bits(grid.width, grid.height, &passable)
                .is_ok_and(|g| g.same_edges(self))
        {
            return GraphOut::Grid {
                width: grid.width,
                height: grid.height,
                passable: Blob(&passable),
                removed,
            }
            .serialize(s);
        }
        let mut adjacency = Vec::new();
        for u in 0..self.node_count() {
            let edges: Vec<(NodeId, Packed)> = self.all_edges(u).collect();
            put_varint(&mut adjacency, edges.len() as u64);
            for (v, c) in edges {
                put_varint(&mut adjacency, zigzag(v as i64 - u as i64));
                put_varint(&mut adjacency, c as u64);
            }
        }
        let points = self.points.as_ref().map(|p| {
            let mut out = Vec::new();
            let mut prev = [0i64; 2];
            for v in 0..self.node_count() {
                let xy = p.xy(v);
                for k in 0..2 {
                    put_varint(&mut out, zigzag(xy[k] as i64 - prev[k]));
                    prev[k] = xy[k] as i64;
                }
            }
            out
        });
        let grid = self.grid.as_ref().map(|g| {
            let mut cells = Vec::new();
            let mut prev = 0i64;
            for v in 0..self.node_count() {
                let (x, y) = g.cell(v);
                let c = (y * g.width + x) as i64;
                put_varint(&mut cells, zigzag(c - prev));
                prev = c;
            }
            (g.width, g.height, cells)
        });
        GraphOut::Edges {
            metric: self.metric,
            nodes: self.node_count(),
            adjacency: Blob(&adjacency),
            points: points
                .as_deref()
                .zip(self.points.as_ref())
                .map(|(b, p)| (Blob(b), p.scale())),
            grid: grid.as_ref().map(|(w, h, c)| (*w, *h, Blob(c))),
        }
        .serialize(s)
    }
}

fn decode_graph(g: GraphIn) -> Result<Graph, String> {
    match g {
        GraphIn::Grid {
            width,
            height,
            passable,
            removed,
        } => {
            if width as u64 * height as u64 > 1 << 28 {
                return Err("the grid is implausibly large".into());
            }
            let mut graph = Graph::octile_grid_from_bits(width, height, &passable.0)
                .map_err(|e| e.to_string())?;
            for (u, v) in removed {
                if !graph.remove_edge(u, v) {
                    return Err(format!("removed edge {u}-{v} is not an edge of the grid"));
                }
            }
            Ok(graph)
        }
        GraphIn::Edges {
            metric,
            nodes,
            adjacency,
            points,
            grid,
        } => {
            let mut r = ByteReader {
                bytes: &adjacency.0,
                at: 0,
            };
            // A node takes at least one byte (its degree), an edge at least two.
            if nodes as usize > adjacency.0.len() {
                return Err("the graph claims more nodes than its data can hold".into());
            }
            let mut offsets = Vec::with_capacity(nodes as usize + 1);
            let mut targets = Vec::new();
            let mut costs = Vec::new();
            offsets.push(0u32);
            for u in 0..nodes {
                let degree = r.varint()?;
                if degree > (adjacency.0.len() - r.at) as u64 {
                    return Err("a node claims more edges than the data holds".into());
                }
                for _ in 0..degree {
                    let v = u as i64 + unzigzag(r.varint()?);
                    let c = r.varint()?;
                    if !(0..nodes as i64).contains(&v) || c == 0 || c > UNREACHABLE as u64 {
                        return Err(format!("node {u} has a malformed edge"));
                    }
                    targets.push(v as NodeId);
                    costs.push(c as Packed);
                }
                offsets.push(targets.len() as u32);
            }
            if !r.finished() {
                return Err("the graph has unused data after its edges".into());
            }
            let mut graph = Graph::from_csr(metric, offsets, targets, costs)?;
            if let Some((p, scale)) = points {
                let mut r = ByteReader { bytes: &p.0, at: 0 };
                let mut xy = Vec::with_capacity(nodes as usize);
                let mut prev = [0i64; 2];
                for _ in 0..nodes {
                    let mut c = [0i32; 2];
                    for k in 0..2 {
                        prev[k] += unzigzag(r.varint()?);
                        c[k] = i32::try_from(prev[k]).map_err(|_| "a position is out of range")?;
                    }
                    xy.push(c);
                }
                if !r.finished() {
                    return Err("the positions have unused data".into());
                }
                graph = graph
                    .with_points_scaled(xy, scale)
                    .map_err(|e| e.to_string())?;
            }
            if let Some((width, height, cells)) = grid {
                let mut r = ByteReader {
                    bytes: &cells.0,
                    at: 0,
                };
                let mut cell_of = Vec::with_capacity(nodes as usize);
                let mut prev = 0i64;
                for _ in 0..nodes {
                    prev += unzigzag(r.varint()?);
                    cell_of.push(u32::try_from(prev).map_err(|_| "a cell is out of range")?);
                }
                if !r.finished() {
                    return Err("the cells have unused data".into());
                }
                graph = graph
                    .with_grid(width, height, cell_of)
                    .map_err(|e| e.to_string())?;
            }
            Ok(graph)
        }
    }
}

impl<'de> Deserialize<'de> for Graph {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        decode_graph(GraphIn::deserialize(d)?).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(v: &T) -> T {
        postcard::from_bytes(&postcard::to_stdvec(v).unwrap()).unwrap()
    }

    #[test]
    fn tables_round_trip_in_every_kind() {
        let octile: Vec<Packed> = vec![0, 1, 2, 1 | (1 << 16), 2 | (1 << 16), UNREACHABLE, 7, 300];
        for (metric, entries) in [
            (Metric::Octile, octile.clone()),
            (Metric::Octile, octile[..5].to_vec()),
            (Metric::Integer, vec![5, 9, 4_000_000, UNREACHABLE, 3]),
            (Metric::Integer, vec![5, 9, 40, UNREACHABLE, 3]),
            (Metric::Integer, vec![]),
        ] {
            let mut t = Table::new(metric, entries.clone(), true);
            if !t.is_empty() {
                t.via_border.set(0, true);
                t.via_block.set(t.len() - 1, true);
            }
            let back = round_trip(&t);
            assert_eq!(back, t);
            assert_eq!(back.entries.to_wide(), entries);
        }
    }

    #[test]
    fn tables_of_small_steps_take_few_bits() {
        // A column of a corridor: distances 0, 1, 2, ... and back.
        let entries: Vec<Packed> = (0..200).chain((0..200).rev()).collect();
        let t = Table::new(Metric::Octile, entries, false);
        let bytes = postcard::to_stdvec(&t).unwrap();
        // Two bits an entry plus one domination bit, against 800 bytes in 16-bit entries.
        assert!(bytes.len() < 190, "{} bytes for 400 entries", bytes.len());
    }

    #[test]
    fn grids_are_stored_as_their_bitmap() {
        let passable: Vec<bool> = (0..64 * 64).map(|i| i % 7 != 3).collect();
        let mut g = Graph::octile_grid(64, 64, &passable).unwrap();
        let bytes = postcard::to_stdvec(&g).unwrap();
        assert!(bytes.len() < 64 * 64 / 8 + 32, "{} bytes", bytes.len());
        assert_eq!(round_trip(&g), g);
        g.remove_edge(0, 1);
        assert_eq!(round_trip(&g), g);
    }

    #[test]
    fn other_graphs_keep_their_edges_and_positions() {
        let g = Graph::from_edges(
            4,
            Metric::Integer,
            &[(0, 1, 3), (1, 2, 4), (2, 3, 5), (3, 0, 90)],
        )
        .unwrap()
        .with_points(vec![[0, 0], [3, 0], [3, -4], [-1000, 7]])
        .unwrap();
        assert_eq!(round_trip(&g), g);
        let mut h = g.clone();
        h.remove_edge(2, 3);
        assert_eq!(round_trip(&h), h);
    }

    #[test]
    fn varints_refuse_overlong_input() {
        let mut r = ByteReader {
            bytes: &[0xff; 11],
            at: 0,
        };
        assert!(r.varint().is_err());
        let mut r = ByteReader {
            bytes: &[0x80],
            at: 0,
        };
        assert!(r.varint().is_err());
        for v in [0u64, 1, 127, 128, u32::MAX as u64, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(ByteReader { bytes: &out, at: 0 }.varint(), Ok(v));
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }
}
