//! Planning previews on a worker thread: for an action list, the compiler's planning graph
//! (Hewlett §2.5) built from the asset as it is now — its states and edges, or the
//! state-explosion report when it passes the limit — and a plan from each seed; for a problem,
//! the grounded task of the last compile planned the way an agent plans (the problem's own
//! search and heuristic), with the plan validated step by step.
//!
//! **Invariant:** an answer is shown only if it answers the latest request; the worker skips to
//! the newest request waiting for it, and the UI never waits.

use ensemble_compiler::formats::planning::ActionListAsset;
use ensemble_compiler::formats::planning::{ActionDomain, Compiled, Condition, Value, VarState};
use ensemble_compiler::plan::{ExplosionReport, PlanningGraph};
use ensemble_runtime::plan::pop::{self, AchieverIndex, Achievers, PopOutcome};
use ensemble_runtime::plan::search::{self, Limits, Outcome};
use ensemble_runtime::plan::section::Planner;
use ensemble_runtime::plan::{Task, minmin, validate};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// How long edits must pause before a preview is asked for.
pub const DEBOUNCE: Duration = Duration::from_millis(200);

/// Default limit of an action list's planning graph (as the compiler's).
pub const STATE_LIMIT: usize = 10_000;

/// What to preview.
#[derive(Clone, Debug)]
pub enum Job {
    /// An action list, from its asset.
    List(ActionListAsset),
    /// A grounded problem from the last compile, planned with `planner`.
    Task {
        task: Task,
        planner: Planner,
        max_nodes: u64,
        /// The machine that performs each operator, by name.
        machines: Vec<Option<String>>,
    },
}

/// One seed's plan on the planning graph.
#[derive(Clone, Debug, PartialEq)]
pub struct SeedPlan {
    pub seed: u32,
    /// Actions (by index) and the state each leads to; `None`: no goal state is reachable.
    pub steps: Option<Vec<(u32, u32)>>,
}

/// An action list's graph and plans.
#[derive(Clone, Debug)]
pub struct GraphPreview {
    pub compiled: Compiled,
    pub graph: PlanningGraph,
    /// State ids of the seeds, in seed order.
    pub seeds: Vec<u32>,
    pub goal: Vec<bool>,
    pub plans: Vec<SeedPlan>,
}

/// A problem's plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanPreview {
    pub search: &'static str,
    /// Ground actions in order, each with the machine that performs it.
    pub steps: Vec<(String, Option<String>)>,
    /// Found, or why not.
    pub outcome: Result<(), String>,
    /// Whether replaying the plan reaches the goal (the CLI's check).
    pub valid: bool,
    pub expanded: u64,
    pub facts: usize,
    pub operators: usize,
}

#[derive(Clone, Debug)]
pub enum Preview {
    Graph(Box<GraphPreview>),
    /// The graph passed its limit: why.
    Explosion(ExplosionReport),
    Plan(PlanPreview),
    /// The asset does not resolve (a name the compiler would report).
    Invalid(Vec<String>),
}

#[derive(Clone, Debug)]
pub struct Answer {
    pub id: u64,
    pub preview: Preview,
    pub elapsed: Duration,
}

fn conditions(
    domain: &ActionDomain,
    goal: &[Condition],
) -> Result<Vec<(usize, i64, bool)>, String> {
    goal.iter()
        .map(|c| {
            let (n, v, eq) = match c {
                Condition::Eq(n, v) => (n, v, true),
                Condition::Ne(n, v) => (n, v, false),
            };
            let var = domain
                .var(n)
                .ok_or_else(|| format!("goal: unknown variable `{n}`"))?;
            Ok((var, domain.value(var, v)?, eq))
        })
        .collect()
}

fn seed_state(domain: &ActionDomain, seed: &[(String, Value)]) -> Result<VarState, String> {
    let mut s = vec![0; domain.variables.len()];
    for (n, v) in seed {
        let var = domain
            .var(n)
            .ok_or_else(|| format!("seed: unknown variable `{n}`"))?;
        s[var] = domain.value(var, v)?;
    }
    Ok(s)
}

/// The graph of an action list and a plan from each seed, as the compiler builds them.
pub fn list_preview(list: &ActionListAsset) -> Preview {
    let domain = ActionDomain {
        variables: list.variables.clone(),
        actions: list.actions.clone(),
    };
    let compiled = match domain.compile() {
        Ok(c) => c,
        Err(errors) => {
            return Preview::Invalid(
                errors
                    .into_iter()
                    .map(|e| match e.action {
                        Some(a) => format!("{a}: {}", e.message),
                        None => e.message,
                    })
                    .collect(),
            );
        }
    };
    let mut problems = Vec::new();
    let seeds: Vec<VarState> = list
        .seeds
        .iter()
        .filter_map(|s| seed_state(&domain, s).map_err(|e| problems.push(e)).ok())
        .collect();
    let goal = conditions(&domain, &list.goal).unwrap_or_else(|e| {
        problems.push(e);
        Vec::new()
    });
    if !problems.is_empty() {
        return Preview::Invalid(problems);
    }
    if seeds.is_empty() {
        return Preview::Invalid(vec![
            "no seed state: the graph starts from the seeds".into(),
        ]);
    }
    let limit = list.state_limit.unwrap_or(STATE_LIMIT);
    let graph = match PlanningGraph::build(&compiled, &seeds, limit) {
        Ok(g) => g,
        Err(report) => return Preview::Explosion(report),
    };
    let holds = |s: &[i64]| goal.iter().all(|&(v, x, eq)| (s[v] == x) == eq);
    let goal_flags: Vec<bool> = graph.states.iter().map(|s| holds(s)).collect();
    let seed_ids: Vec<u32> = seeds.iter().filter_map(|s| graph.find(s)).collect();
    let plans = seed_ids
        .iter()
        .map(|&start| SeedPlan {
            seed: start,
            steps: plan_on_graph(&graph, start, &goal_flags),
        })
        .collect();
    Preview::Graph(Box::new(GraphPreview {
        compiled,
        graph,
        seeds: seed_ids,
        goal: goal_flags,
        plans,
    }))
}

/// Breadth-first from `start` to the nearest goal state, as agents plan on the shared graph:
/// the actions and the state each leads to.
pub fn plan_on_graph(graph: &PlanningGraph, start: u32, goal: &[bool]) -> Option<Vec<(u32, u32)>> {
    let actions = graph.plan(start, |s| graph.find(s).is_some_and(|i| goal[i as usize]))?;
    let mut at = start;
    let mut steps = Vec::with_capacity(actions.len());
    for a in actions {
        let next = graph.edges[at as usize]
            .iter()
            .find(|(x, _)| *x == a)
            .map_or(at, |&(_, t)| t);
        steps.push((a, next));
        at = next;
    }
    Some(steps)
}

/// Plans on `task` from its initial state as an agent with `planner` would (for MinMin, the
/// whole plan–act loop with the world behaving as planned).
pub fn task_preview(
    task: &Task,
    planner: Planner,
    max_nodes: u64,
    machines: &[Option<String>],
) -> Preview {
    let limits = Limits {
        max_expansions: Some(max_nodes),
        max_time: Some(Duration::from_secs(10)),
        ..Limits::default()
    };
    let s0 = task.initial_state();
    let searched = |r: search::SearchResult| match r.outcome {
        Outcome::Plan(p) => (Ok(p), r.stats.expanded),
        Outcome::Unsolvable => (
            Err("no plan reaches the goal (proven)".to_string()),
            r.stats.expanded,
        ),
        Outcome::LimitReached => (
            Err(format!("no plan within {max_nodes} nodes")),
            r.stats.expanded,
        ),
    };
    let (found, expanded) = match planner {
        // The graph lives in the program; from the initial state, breadth-first search finds
        // the same shortest plan.
        Planner::Graph => searched(search::breadth_first(task, limits)),
        Planner::AStar(h) => searched(search::astar(task, h, limits)),
        Planner::Gbfs(h) => searched(search::gbfs(task, h, limits)),
        Planner::MinMin { .. } => {
            let cfg = planner.minmin_config(max_nodes).unwrap_or_default();
            let steps = 10 * task.operators.len().max(10);
            let ep = minmin::run(task, &s0, cfg, steps, |_, o, s| task.op(o).apply(s));
            if ep.reached_goal {
                (Ok(ep.executed), ep.nodes)
            } else {
                (
                    Err("MinMin found no way forward within its bounds".to_string()),
                    ep.nodes,
                )
            }
        }
        Planner::Pop => {
            let idx = AchieverIndex::build(task);
            let r = pop::plan(
                task,
                Achievers::Index(&idx),
                &s0,
                Planner::pop_config(max_nodes),
            );
            match (r.outcome, r.plan) {
                (PopOutcome::Found, Some(p)) => (Ok(p.linear_plan()), r.nodes),
                (PopOutcome::Unsolvable, _) => {
                    (Err("no plan reaches the goal (proven)".into()), r.nodes)
                }
                _ => (
                    Err(format!("no partial-order plan within {max_nodes} nodes")),
                    r.nodes,
                ),
            }
        }
    };
    let (steps, outcome, valid) = match found {
        Ok(plan) => {
            let valid = validate(task, &s0, &plan).is_ok();
            let steps = task
                .plan_names(&plan)
                .into_iter()
                .zip(&plan)
                .map(|(n, &o)| (n, machines.get(o as usize).cloned().flatten()))
                .collect();
            (steps, Ok(()), valid)
        }
        Err(e) => (Vec::new(), Err(e), false),
    };
    Preview::Plan(PlanPreview {
        search: planner.name(),
        steps,
        outcome,
        valid,
        expanded,
        facts: task.facts.len(),
        operators: task.operators.len(),
    })
}

fn run(job: Job) -> Preview {
    match job {
        Job::List(list) => list_preview(&list),
        Job::Task {
            task,
            planner,
            max_nodes,
            machines,
        } => task_preview(&task, planner, max_nodes, &machines),
    }
}

/// The worker and what was last asked of it.
pub struct Worker {
    jobs: Sender<(u64, Job)>,
    answers: Receiver<Answer>,
    asked: u64,
    /// The job waiting for the debounce, and since when.
    pending: Option<(Job, Instant)>,
    pub latest: Option<Answer>,
}

impl Worker {
    /// Starts the thread; `wake` is called when an answer is ready (a repaint).
    pub fn start(wake: impl Fn() + Send + 'static) -> Worker {
        let (jobs, rx) = channel::<(u64, Job)>();
        let (tx, answers) = channel();
        std::thread::Builder::new()
            .name("ensemble-planning-preview".into())
            .spawn(move || {
                while let Ok(first) = rx.recv() {
                    let Some((id, job)) = crate::marks::newest(&rx, first) else {
                        break;
                    };
                    let start = Instant::now();
                    let preview = run(job);
                    if tx
                        .send(Answer {
                            id,
                            preview,
                            elapsed: start.elapsed(),
                        })
                        .is_err()
                    {
                        break;
                    }
                    wake();
                }
            })
            .expect("the planning preview thread starts");
        Worker {
            jobs,
            answers,
            asked: 0,
            pending: None,
            latest: None,
        }
    }

    /// Asks for `job` once edits pause ([`DEBOUNCE`]); the answer to an older job is dropped.
    pub fn ask(&mut self, job: Job) {
        self.pending = Some((job, Instant::now()));
    }

    /// Asks at once (the first preview of a document).
    pub fn ask_now(&mut self, job: Job) {
        self.asked += 1;
        let _ = self.jobs.send((self.asked, job));
        self.pending = None;
    }

    /// Sends a due job and takes the newest answer; returns how long until the next poll is
    /// worth it, if a job is still waiting.
    pub fn poll(&mut self) -> Option<Duration> {
        if let Some((_, at)) = &self.pending
            && at.elapsed() >= DEBOUNCE
            && let Some((job, _)) = self.pending.take()
        {
            self.asked += 1;
            let _ = self.jobs.send((self.asked, job));
        }
        while let Ok(a) = self.answers.try_recv() {
            if a.id == self.asked {
                self.latest = Some(a);
            }
        }
        match &self.pending {
            Some((_, at)) => Some(DEBOUNCE.saturating_sub(at.elapsed())),
            None if self.is_waiting() => Some(Duration::from_millis(30)),
            None => None,
        }
    }

    /// Whether an answer is awaited: a job waits for the debounce, or the latest answer is older
    /// than what was asked (nothing asked: nothing awaited).
    pub fn is_waiting(&self) -> bool {
        self.pending.is_some()
            || (self.asked > 0 && self.latest.as_ref().is_none_or(|a| a.id != self.asked))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn traveller() -> ActionListAsset {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../samples/airport/traveller/traveller.actionlist.ron"),
        )
        .unwrap();
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(&text)
            .unwrap()
    }

    #[test]
    fn the_traveller_plans_fig_2_3_from_her_first_seed() {
        let Preview::Graph(g) = list_preview(&traveller()) else {
            panic!("no graph")
        };
        let plan = g.plans[0].steps.as_ref().unwrap();
        let names: Vec<&str> = plan
            .iter()
            .map(|(a, _)| g.compiled.actions[*a as usize].name.as_str())
            .collect();
        // Hewlett Fig. 2.3.
        assert_eq!(names, ensemble_compiler::plan::fixtures::FIG_2_3);
        // From the wrong gate she replans: check the gate, go to the right one.
        let wrong = g.plans[1].steps.as_ref().unwrap();
        assert_eq!(g.compiled.actions[wrong[0].0 as usize].name, "Check_Gate");
        assert!(*g.goal.get(plan.last().unwrap().1 as usize).unwrap());
    }

    #[test]
    fn an_unbounded_variable_explodes_with_a_report_naming_it() {
        let mut list = traveller();
        list.variables
            .push(ensemble_compiler::formats::planning::Variable {
                name: "Steps".into(),
                values: None,
            });
        list.actions[0]
            .effects
            .push(ensemble_compiler::formats::planning::Effect::Add(
                "Steps".into(),
                1,
            ));
        list.actions
            .push(ensemble_compiler::formats::planning::Action {
                name: "Walk".into(),
                constraints: Vec::new(),
                effects: vec![ensemble_compiler::formats::planning::Effect::Add(
                    "Steps".into(),
                    1,
                )],
                machine: None,
            });
        list.state_limit = Some(500);
        let Preview::Explosion(r) = list_preview(&list) else {
            panic!("no explosion")
        };
        assert_eq!(r.unbounded, ["Steps"]);
        assert!(r.describe().contains("Walk"));
        // A name that does not resolve is said, not planned.
        list.goal.push(Condition::Eq("Nope".into(), Value::Int(1)));
        assert!(matches!(list_preview(&list), Preview::Invalid(_)));
    }

    #[test]
    fn the_worker_answers_only_the_latest_request() {
        let mut w = Worker::start(|| {});
        assert!(!w.is_waiting(), "nothing asked, nothing awaited");
        let mut bounded = traveller();
        bounded.state_limit = Some(3);
        // The first is sent at once; the second waits for the debounce and replaces it.
        w.ask_now(Job::List(bounded));
        w.ask(Job::List(traveller()));
        assert!(w.is_waiting());
        let start = Instant::now();
        while w.is_waiting() {
            assert!(start.elapsed() < Duration::from_secs(30), "no answer");
            w.poll();
            std::thread::sleep(Duration::from_millis(5));
        }
        let answer = w.latest.as_ref().unwrap();
        assert_eq!(answer.id, 2);
        assert!(
            matches!(&answer.preview, Preview::Graph(g) if g.graph.states.len() == 19),
            "the answer to the second request, not the bounded first: {:?}",
            answer.preview
        );
    }
}
