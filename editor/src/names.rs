//! The names a project defines, for the forms' pickers: smart locations with their proxies and
//! notifications, scripts and their roles, HMM spaces with their states, estimators, actions,
//! accumulators, templates, lexicon categories, concepts and situational variables, the
//! `VARIABLE` slots sentence states speak, and the project's files. Read from the documents as
//! they are now (not the last compile), so a name typed in one panel is offered in the next.

use crate::document::Project;
use ensemble_compiler::formats::ron::AnyAsset;
use ensemble_compiler::formats::spaces::ExpectAsset;
use std::collections::BTreeMap;

/// A smart location and the names a scene's events pick inside it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SmartLocationNames {
    pub name: String,
    /// The location it stands at, and how far it reaches (metres).
    pub at: String,
    pub radius: f64,
    pub proxies: Vec<String>,
    pub notifications: Vec<String>,
}

/// An HMM space and its states.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpaceNames {
    pub name: String,
    pub states: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoreNames {
    pub scenes: Vec<String>,
    pub smart_locations: Vec<SmartLocationNames>,
    pub scripts: Vec<String>,
    /// Roles of every script, for agents, proxies, spawns and player emitters.
    pub roles: Vec<String>,
    pub spaces: Vec<SpaceNames>,
    pub estimators: Vec<String>,
    /// Actions of `*.actions.ron` (what HMM states perform).
    pub actions: Vec<String>,
    pub accumulators: Vec<String>,
    pub templates: Vec<String>,
    pub categories: Vec<String>,
    pub concepts: Vec<String>,
    /// Situational variables of `*.concepts.ron`.
    pub variables: Vec<String>,
    /// `VARIABLE` slots of sentence states (what an agent's variables fill).
    pub slots: Vec<String>,
    /// Every file of the project, relative (the manifest's `exclude` picks from these).
    pub files: Vec<String>,
    /// Every location of the project with where it is, for plots.
    pub places: Vec<(String, [f64; 2])>,
    /// Which space states expect which estimator: `(estimator, "space.state")`.
    pub expected_by: Vec<(String, String)>,
    /// Planning problems (action lists, `*.problem.ron`, PDDL problems) and domains.
    pub problems: Vec<String>,
    pub domains: Vec<String>,
    /// The doors of the project's navigation graphs (scene `Open` and `Close` events).
    pub doors: Vec<String>,
    /// Per planning domain (native or PDDL), what a problem picks from it.
    pub domain_names: BTreeMap<String, DomainNames>,
}

/// The types of a native domain: `object` and those it declares, sorted.
pub fn domain_types(d: &ensemble_compiler::formats::planning::DomainAsset) -> Vec<String> {
    let mut types: Vec<String> = d.types.keys().cloned().collect();
    types.push("object".into());
    types.sort();
    types.dedup();
    types
}

/// The names a problem picks from its domain.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DomainNames {
    /// `object` and the declared types.
    pub types: Vec<String>,
    /// Its operators (actions).
    pub actions: Vec<String>,
}

impl MoreNames {
    pub fn smart_location(&self, name: &str) -> Option<&SmartLocationNames> {
        self.smart_locations.iter().find(|s| s.name == name)
    }

    pub fn space(&self, name: &str) -> Option<&SpaceNames> {
        self.spaces.iter().find(|s| s.name == name)
    }

    /// `space` and `space.state` for every space and state: what an inspection names.
    pub fn inspection_targets(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in &self.spaces {
            out.push(s.name.clone());
            out.extend(s.states.iter().map(|st| format!("{}.{st}", s.name)));
        }
        out
    }

    /// What an accumulator takes: spaces and accumulators.
    pub fn arbitration_inputs(&self) -> Vec<String> {
        let mut out: Vec<String> = self.spaces.iter().map(|s| s.name.clone()).collect();
        out.extend(self.accumulators.iter().cloned());
        out
    }

    pub fn proxies(&self) -> Vec<String> {
        self.smart_locations
            .iter()
            .flat_map(|s| s.proxies.iter().cloned())
            .collect()
    }
}

/// The `VARIABLE` slots of a Fig. 3.2 line (`you, flight, VARIABLE CityName` -> `CityName`).
pub fn slots_of(line: &str) -> impl Iterator<Item = &str> {
    line.split(',').filter_map(|item| {
        let mut words = item.split_whitespace();
        while let Some(w) = words.next() {
            if w == "VARIABLE" {
                return words.next();
            }
        }
        None
    })
}

fn sorted(v: &mut Vec<String>) {
    v.sort();
    v.dedup();
}

/// Everything [`MoreNames`] lists, from `project`'s live documents.
pub fn collect(project: &Project) -> MoreNames {
    let mut n = MoreNames::default();
    for (_, d) in project.live() {
        n.files.push(d.state.path.clone());
        let Some(asset) = d.state.asset() else {
            match &d.state.content {
                crate::document::Content::Workbook(s) => {
                    n.scripts.push(s.name.clone());
                    n.roles.extend(s.roles.iter().map(|r| r.name.clone()));
                }
                crate::document::Content::Text(t) => {
                    match ensemble_compiler::formats::pddl::header(t) {
                        Some((true, name)) => n.domains.push(name),
                        Some((false, name)) => n.problems.push(name),
                        None => {}
                    }
                }
                _ => {}
            }
            continue;
        };
        match asset {
            AnyAsset::Scene(s) => n.scenes.push(s.name.clone()),
            AnyAsset::ActionList(l) => n.problems.push(l.name.clone()),
            AnyAsset::Problem(p) => n.problems.push(p.name.clone()),
            AnyAsset::Navigation(g) => n.doors.extend(g.doors.iter().map(|d| d.name.clone())),
            AnyAsset::Domain(d) => {
                n.domains.push(d.name.clone());
                n.domain_names.insert(
                    d.name.clone(),
                    DomainNames {
                        types: domain_types(d),
                        actions: d.actions.iter().map(|a| a.name.clone()).collect(),
                    },
                );
            }
            AnyAsset::Locations(l) => n
                .places
                .extend(l.locations.iter().map(|x| (x.name.clone(), [x.x, x.y]))),
            AnyAsset::SmartLocation(s) => n.smart_locations.push(SmartLocationNames {
                name: s.name.clone(),
                at: s.at.clone(),
                radius: s.radius,
                proxies: s.proxies.iter().map(|p| p.name.clone()).collect(),
                notifications: s.notifications.iter().map(|x| x.name.clone()).collect(),
            }),
            AnyAsset::Script(s) => {
                n.scripts.push(s.name.clone());
                n.roles.extend(s.roles.iter().map(|r| r.name.clone()));
            }
            AnyAsset::Space(s) => {
                n.spaces.push(SpaceNames {
                    name: s.name.clone(),
                    states: s.states.iter().map(|x| x.name.clone()).collect(),
                });
                for st in &s.states {
                    for e in &st.expects {
                        let (ExpectAsset::Evidence(y) | ExpectAsset::Weighted(y, _)) = e;
                        n.expected_by
                            .push((y.clone(), format!("{}.{}", s.name, st.name)));
                    }
                }
            }
            AnyAsset::Evidence(e) => {
                n.estimators
                    .extend(e.estimators.iter().map(|x| x.name.clone()));
            }
            AnyAsset::Actions(a) => {
                n.actions.extend(a.actions.iter().map(|x| x.name.clone()));
                n.accumulators
                    .extend(a.accumulators.iter().map(|x| x.name.clone()));
                n.templates
                    .extend(a.templates.iter().map(|x| x.name.clone()));
            }
            AnyAsset::Lexicon(l) => {
                n.categories
                    .extend(l.categories.iter().map(|x| x.name.clone()));
            }
            AnyAsset::Concepts(c) => {
                n.concepts.extend(c.concepts.iter().map(|x| x.name.clone()));
                n.variables
                    .extend(c.variables.iter().map(|x| x.name.clone()));
            }
            AnyAsset::Sentences(s) => {
                for st in &s.states {
                    n.slots.extend(
                        slots_of(&st.nouns)
                            .chain(slots_of(&st.verbs))
                            .map(str::to_string),
                    );
                }
                n.slots.extend(s.examples.keys().cloned());
            }
            _ => {}
        }
    }
    n.smart_locations.sort_by(|a, b| a.name.cmp(&b.name));
    n.spaces.sort_by(|a, b| a.name.cmp(&b.name));
    for v in [
        &mut n.scenes,
        &mut n.scripts,
        &mut n.roles,
        &mut n.estimators,
        &mut n.actions,
        &mut n.accumulators,
        &mut n.templates,
        &mut n.categories,
        &mut n.concepts,
        &mut n.variables,
        &mut n.slots,
        &mut n.files,
        &mut n.problems,
        &mut n.domains,
        &mut n.doors,
    ] {
        sorted(v);
    }
    n
}

/// Names the project defines, from the documents as they are now (not the last compile).
#[derive(Clone, Debug, Default)]
pub struct ProjectNames {
    pub machines: Vec<String>,
    pub locations: Vec<String>,
    pub agents: Vec<String>,
    pub sentences: Vec<String>,
    /// Library states: name, modifier kind, whether it ends the machine, events it raises, doc.
    pub library: Vec<LibraryEntry>,
    /// Everything else the forms pick from (this module).
    pub more: MoreNames,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LibraryEntry {
    pub name: String,
    pub modifier: ensemble_runtime::program::ModifierKind,
    pub terminal: ensemble_runtime::program::Terminal,
    pub raises: Option<Vec<String>>,
    pub doc: String,
    /// One of the core's standard states (`ensemble_runtime::stdlib`), not a game's own state
    /// of the same name: only these are drawn and offered as the standard states.
    pub standard: bool,
    /// Named, typed parameters, when the state is declared with `params` (then `modifier`
    /// is `None`): the inspector shows a field for each.
    pub params: Vec<ensemble_runtime::program::ParamSpec>,
}

impl LibraryEntry {
    /// The standard state this entry is, by name (`None` for a game's own state).
    pub fn standard_name(&self) -> Option<&str> {
        self.standard.then_some(self.name.as_str())
    }
}

impl ProjectNames {
    pub fn library(&self, name: &str) -> Option<&LibraryEntry> {
        self.library.iter().find(|l| l.name == name)
    }
}

/// Names for pickers: from the documents as they are now, and the library and sentence lines
/// from the last compile.
pub fn names_from(
    project: Option<&Project>,
    c: Option<&ensemble_compiler::Compilation>,
) -> ProjectNames {
    let mut n = ProjectNames::default();
    if let Some(c) = c {
        n.library = c
            .module
            .library
            .iter()
            .map(|(_, l)| LibraryEntry {
                name: l.name.clone(),
                modifier: l.modifier,
                terminal: l.terminal,
                raises: l.raises.clone(),
                doc: l.doc.clone(),
                standard: l.standard,
                params: l
                    .params
                    .iter()
                    .map(|p| ensemble_runtime::program::ParamSpec {
                        name: p.name.clone(),
                        ty: p.ty.clone(),
                        default: p.default_written.clone(),
                    })
                    .collect(),
            })
            .collect();
        n.machines = c
            .module
            .machines
            .iter()
            .map(|(_, m)| m.name.text.clone())
            .collect();
        n.locations = c
            .module
            .locations
            .iter()
            .map(|(_, l)| l.name.text.clone())
            .collect();
        n.sentences = c
            .module
            .sentences
            .iter()
            .map(|(_, s)| s.name.text.clone())
            .collect();
    }
    if let Some(p) = project {
        n.more = collect(p);
        n.machines.clear();
        n.locations.clear();
        n.sentences.clear();
        for (_, d) in p.live() {
            match d.state.asset() {
                Some(AnyAsset::Machine(m)) => n.machines.push(m.name.clone()),
                Some(AnyAsset::Locations(l)) => n
                    .locations
                    .extend(l.locations.iter().map(|x| x.name.clone())),
                Some(AnyAsset::Sentences(s)) => {
                    n.sentences.extend(s.states.iter().map(|x| x.name.clone()))
                }
                Some(AnyAsset::Scene(s)) => {
                    n.agents.extend(s.agents.iter().map(|a| a.name.clone()))
                }
                _ => {}
            }
        }
        n.agents.sort();
        n.agents.dedup();
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn slots_are_read_from_the_figure_lines() {
        let slots: Vec<&str> =
            slots_of("you, flight, VARIABLE CityName, PAST VARIABLE Time").collect();
        assert_eq!(slots, ["CityName", "Time"]);
        assert_eq!(slots_of("be, PAST book").count(), 0);
    }

    #[test]
    fn the_innkeeper_names_its_spaces_estimators_and_actions() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/innkeeper");
        let p = Project::open(&root).unwrap();
        let n = collect(&p);
        let haggle = n.space("haggle").unwrap();
        assert!(haggle.states.contains(&"idle".to_string()));
        assert!(n.estimators.contains(&"player-greeting".to_string()));
        assert!(n.actions.contains(&"glance".to_string()));
        assert!(n.accumulators.contains(&"respond".to_string()));
        assert!(n.inspection_targets().contains(&"haggle.idle".to_string()));
        assert!(n.categories.iter().any(|c| c == "pleasant"));
    }
}
