//! `*.nav.ron`: a project's navigation graph (docs/formats/nav.md). Exactly one of three
//! sources: nodes and edges written here, a MovingAI grid map, or a DIMACS road graph with
//! coordinates; doors on any of them.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Navigation", deny_unknown_fields)]
pub struct NavAsset {
    /// Waypoints, in metres; a name makes a node referable (edges, doors, the trace).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeAsset>,
    /// Undirected edges between nodes, by name or by index in `nodes`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<EdgeAsset>,
    /// A MovingAI `.map` laid over the world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<GridAsset>,
    /// A DIMACS `.gr` road graph with its `.co` coordinates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roads: Option<RoadsAsset>,
    /// Edges scene events open and close.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub doors: Vec<DoorAsset>,
    /// Largest PPA* leaf cluster, in nodes (default 4000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf_size: Option<u32>,
    /// How far, in metres, a location may stand from its node on a node or road graph
    /// (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snap: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub x: f64,
    pub y: f64,
}

/// A node named or counted (0-based, in `nodes` order; for road graphs the DIMACS id).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum NodeRef {
    Name(String),
    Index(u64),
}

impl std::fmt::Display for NodeRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeRef::Name(n) => write!(f, "`{n}`"),
            NodeRef::Index(i) => write!(f, "#{i}"),
        }
    }
}

impl<'de> Deserialize<'de> for NodeRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = NodeRef;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a node name (a string) or index (a whole number)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<NodeRef, E> {
                Ok(NodeRef::Name(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<NodeRef, E> {
                Ok(NodeRef::Index(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<NodeRef, E> {
                u64::try_from(v)
                    .map(NodeRef::Index)
                    .map_err(|_| E::custom("a node index cannot be negative"))
            }
        }
        d.deserialize_any(V)
    }
}

/// An edge: `("A", "B")`, `("A", "B", 3.5)` with a cost in metres, or
/// `(from: "A", to: "B", cost: 3.5)`. Without a cost it is the straight-line length. It is
/// written back in the form it was read in.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeAsset {
    pub from: NodeRef,
    pub to: NodeRef,
    pub cost: Option<f64>,
    /// Written as a tuple (its parts are located by index, not by field name).
    pub tuple: bool,
}

impl Serialize for EdgeAsset {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeStruct, SerializeTuple};
        if self.tuple {
            let mut t = s.serialize_tuple(2 + self.cost.is_some() as usize)?;
            t.serialize_element(&self.from)?;
            t.serialize_element(&self.to)?;
            if let Some(c) = &self.cost {
                t.serialize_element(c)?;
            }
            t.end()
        } else {
            let mut t = s.serialize_struct("EdgeAsset", 2 + self.cost.is_some() as usize)?;
            t.serialize_field("from", &self.from)?;
            t.serialize_field("to", &self.to)?;
            if let Some(c) = &self.cost {
                t.serialize_field("cost", c)?;
            }
            t.end()
        }
    }
}

impl<'de> Deserialize<'de> for EdgeAsset {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EdgeAsset;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an edge: (\"A\", \"B\"), (\"A\", \"B\", cost) or (from: \"A\", to: \"B\", cost: ...)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<EdgeAsset, A::Error> {
                let from = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let to = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                let cost = seq.next_element::<f64>()?;
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(4, &self));
                }
                Ok(EdgeAsset {
                    from,
                    to,
                    cost,
                    tuple: true,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EdgeAsset, A::Error> {
                let (mut from, mut to, mut cost) = (None, None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "from" => from = Some(map.next_value()?),
                        "to" => to = Some(map.next_value()?),
                        "cost" => cost = Some(map.next_value::<f64>()?),
                        other => {
                            return Err(de::Error::unknown_field(other, &["from", "to", "cost"]));
                        }
                    }
                }
                Ok(EdgeAsset {
                    from: from.ok_or_else(|| de::Error::missing_field("from"))?,
                    to: to.ok_or_else(|| de::Error::missing_field("to"))?,
                    cost,
                    tuple: false,
                })
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridAsset {
    /// The `.map` file, relative to this file.
    pub map: String,
    /// Metres a cell is wide (default 1).
    #[serde(default = "one")]
    pub cell_size: f64,
    /// World position of the map's top-left corner, cell (0, 0); rows go towards +y.
    #[serde(default)]
    pub origin: (f64, f64),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoadsAsset {
    /// The `.gr` file, relative to this file.
    pub graph: String,
    /// The `.co` file giving each node's coordinates.
    pub coordinates: String,
    /// Metres per coordinate unit (default 1).
    #[serde(default = "one")]
    pub unit: f64,
    /// Metres per unit of arc weight (default 1).
    #[serde(default = "one")]
    pub cost_unit: f64,
    /// World position of coordinate (0, 0).
    #[serde(default)]
    pub origin: (f64, f64),
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoorAsset {
    pub name: String,
    /// Edges it blocks (node and road graphs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<EdgeAsset>,
    /// Cells it blocks (grid maps): every edge touching them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<(u32, u32)>,
    /// Closed when a scene starts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
}
