//! Find (Ctrl+F): a state, machine, rule or any other named item across the project, by name,
//! from the documents as they are now. Exact matches first, then prefixes, then substrings,
//! then names that contain the typed letters in order.

use crate::document::Reveal;
use crate::document::{DocId, Project};
use ensemble_compiler::formats::ron::AnyAsset;

#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// What it is (`state`, `machine`, `rule`, ...).
    pub kind: &'static str,
    pub name: String,
    /// Where it is (`BuyTicket`, `bench.script.ron`).
    pub context: String,
    pub doc: DocId,
    /// `None`: the document itself.
    pub reveal: Option<Reveal>,
}

fn item(kind: &'static str, name: &str, context: &str, doc: DocId, list: &str) -> Hit {
    Hit {
        kind,
        name: name.to_string(),
        context: context.to_string(),
        doc,
        reveal: Some(Reveal::Item {
            list: list.to_string(),
            name: name.to_string(),
        }),
    }
}

/// Every named item of the project.
pub fn index(project: &Project) -> Vec<Hit> {
    let mut out = Vec::new();
    for (doc, d) in project.live() {
        let file = d.state.path.as_str();
        let Some(asset) = d.state.asset() else {
            // A workbook: its script's rules and roles, as for a `*.script.ron`.
            if let Some(s) = d.state.workbook() {
                out.push(Hit {
                    kind: "workbook",
                    name: s.name.clone(),
                    context: file.to_string(),
                    doc,
                    reveal: None,
                });
                out.extend(
                    s.rules
                        .iter()
                        .filter(|r| !r.rule.is_empty())
                        .map(|r| item("rule", &r.rule, &s.name, doc, "rules")),
                );
                out.extend(
                    s.roles
                        .iter()
                        .map(|r| item("role", &r.name, &s.name, doc, "roles")),
                );
            }
            // A PDDL file: the domain or problem it defines and a domain's actions.
            if let crate::document::Content::Text(t) = &d.state.content {
                let checked = crate::pddl::check(t);
                if let Some((domain, name)) = checked.header {
                    out.push(Hit {
                        kind: if domain {
                            "PDDL domain"
                        } else {
                            "PDDL problem"
                        },
                        name,
                        context: file.to_string(),
                        doc,
                        reveal: None,
                    });
                }
                out.extend(
                    checked
                        .actions
                        .iter()
                        .map(|(a, _)| item("PDDL action", a, file, doc, "actions")),
                );
            }
            continue;
        };
        let whole = |kind, name: &str| Hit {
            kind,
            name: name.to_string(),
            context: file.to_string(),
            doc,
            reveal: None,
        };
        match asset {
            AnyAsset::Machine(m) => {
                out.push(whole("machine", &m.name));
                out.extend(
                    m.states
                        .iter()
                        .map(|s| item("state", &s.name, &m.name, doc, "states")),
                );
            }
            AnyAsset::Script(s) => {
                out.push(whole("script", &s.name));
                out.extend(
                    s.rules
                        .iter()
                        .filter(|r| !r.rule.is_empty())
                        .map(|r| item("rule", &r.rule, &s.name, doc, "rules")),
                );
                out.extend(
                    s.roles
                        .iter()
                        .map(|r| item("role", &r.name, &s.name, doc, "roles")),
                );
            }
            AnyAsset::Scene(s) => {
                out.push(whole("scene", &s.name));
                out.extend(
                    s.agents
                        .iter()
                        .map(|a| item("agent", &a.name, &s.name, doc, "agents")),
                );
            }
            AnyAsset::Locations(l) => out.extend(
                l.locations
                    .iter()
                    .map(|x| item("location", &x.name, file, doc, "locations")),
            ),
            AnyAsset::Sentences(s) => out.extend(
                s.states
                    .iter()
                    .map(|x| item("sentence", &x.name, file, doc, "states")),
            ),
            AnyAsset::Space(s) => {
                out.push(whole("space", &s.name));
                out.extend(
                    s.states
                        .iter()
                        .map(|x| item("space state", &x.name, &s.name, doc, "states")),
                );
            }
            AnyAsset::SmartLocation(s) => {
                out.push(whole("smart location", &s.name));
                let lists = [
                    (
                        "proxy",
                        "proxies",
                        s.proxies
                            .iter()
                            .map(|x| x.name.as_str())
                            .collect::<Vec<_>>(),
                    ),
                    (
                        "notification",
                        "notifications",
                        s.notifications.iter().map(|x| x.name.as_str()).collect(),
                    ),
                    (
                        "spawn",
                        "spawns",
                        s.spawns.iter().map(|x| x.name.as_str()).collect(),
                    ),
                    (
                        "prop",
                        "props",
                        s.props.iter().map(|x| x.name.as_str()).collect(),
                    ),
                ];
                for (kind, list, names) in lists {
                    out.extend(names.into_iter().map(|n| item(kind, n, &s.name, doc, list)));
                }
            }
            AnyAsset::Chat(c) => out.push(whole("chat", &c.name)),
            AnyAsset::Strings(t) => out.extend(
                t.lines
                    .iter()
                    .map(|x| item("translation", &x.id, &t.locale, doc, "lines")),
            ),
            AnyAsset::Lexicon(l) => out.extend(
                l.categories
                    .iter()
                    .map(|x| item("category", &x.name, file, doc, "categories")),
            ),
            AnyAsset::Evidence(e) => out.extend(
                e.estimators
                    .iter()
                    .map(|x| item("estimator", &x.name, file, doc, "estimators")),
            ),
            AnyAsset::Concepts(c) => {
                out.extend(
                    c.concepts
                        .iter()
                        .map(|x| item("concept", &x.name, file, doc, "concepts")),
                );
                out.extend(
                    c.variables
                        .iter()
                        .map(|x| item("variable", &x.name, file, doc, "variables")),
                );
            }
            AnyAsset::Actions(a) => {
                out.extend(
                    a.actions
                        .iter()
                        .map(|x| item("action", &x.name, file, doc, "actions")),
                );
                out.extend(
                    a.templates
                        .iter()
                        .map(|x| item("template", &x.name, file, doc, "templates")),
                );
                out.extend(
                    a.accumulators
                        .iter()
                        .map(|x| item("accumulator", &x.name, file, doc, "accumulators")),
                );
            }
            AnyAsset::ActionList(l) => {
                out.push(whole("planning problem", &l.name));
                out.extend(
                    l.actions
                        .iter()
                        .map(|x| item("planning action", &x.name, &l.name, doc, "actions")),
                );
            }
            AnyAsset::Domain(dm) => {
                out.push(whole("planning domain", &dm.name));
                out.extend(
                    dm.actions
                        .iter()
                        .map(|x| item("operator", &x.name, &dm.name, doc, "actions")),
                );
            }
            AnyAsset::Problem(p) => out.push(whole("planning problem", &p.name)),
            AnyAsset::Navigation(g) => {
                out.extend(
                    g.nodes
                        .iter()
                        .filter_map(|x| x.name.as_deref())
                        .map(|x| item("navigation node", x, file, doc, "nodes")),
                );
                out.extend(
                    g.doors
                        .iter()
                        .map(|x| item("door", &x.name, file, doc, "doors")),
                );
            }
            AnyAsset::StateLibrary(l) => out.extend(
                l.states
                    .iter()
                    .map(|x| item("library state", &x.name, file, doc, "states")),
            ),
            _ => {}
        }
    }
    out
}

/// How well `name` matches `query` (lower is better); `None` if it does not.
fn rank(name: &str, query: &str) -> Option<u8> {
    let (n, q) = (name.to_lowercase(), query.to_lowercase());
    if n == q {
        Some(0)
    } else if n.starts_with(&q) {
        Some(1)
    } else if n.contains(&q) {
        Some(2)
    } else {
        let mut letters = n.chars();
        q.chars().all(|c| letters.any(|x| x == c)).then_some(3)
    }
}

/// The hits for `query`, best first (stable within a rank: project order).
pub fn search(index: &[Hit], query: &str, limit: usize) -> Vec<Hit> {
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    let mut ranked: Vec<(u8, usize, &Hit)> = index
        .iter()
        .enumerate()
        .filter_map(|(i, h)| rank(&h.name, query).map(|r| (r, i, h)))
        .collect();
    ranked.sort_by_key(|(r, i, _)| (*r, *i));
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, _, h)| h.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn finds_states_machines_and_rules_by_name() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
        let airport = Project::open(&root.join("airport")).unwrap();
        let hits = search(&index(&airport), "talkstate", 10);
        assert!(hits.iter().all(|h| h.kind == "state"));
        assert_eq!(hits[0].context, "BuyTicketAtCounter");
        let hits = search(&index(&airport), "SellTicket", 10);
        assert_eq!(
            (hits[0].kind, hits[0].name.as_str()),
            ("machine", "SellTicket")
        );
        assert!(hits.iter().any(|h| h.name == "StandSellTicket"));

        let bench = Project::open(&root.join("bench")).unwrap();
        let hits = search(&index(&bench), "giveup", 10);
        assert_eq!(hits[0].kind, "rule");
        assert_eq!(
            hits[0].reveal,
            Some(Reveal::Item {
                list: "rules".into(),
                name: "giveup".into()
            })
        );
        assert!(search(&index(&bench), "   ", 10).is_empty());
    }
}
