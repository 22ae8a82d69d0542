//! Cost of one HPMM iteration (preprocessing, evidence estimation, trackers, belief update of
//! every space, arbitration and output), for the innkeeper sample and for a generated model of
//! the Breakup Conversation's size (75 spaces, 417 states, about 1,000 estimator fragments).
//!
//! Anchor: Zubek reports under 500 µs per iteration for Breakup, excluding the Link parser, on a
//! 1.8 GHz Pentium 4 (§4.1.4, Fig. 4-10); the issue aims for under 20 µs here.
//! Reproduce: `cargo bench -p ensemble-compiler --bench hpmm`.

use criterion::{Criterion, criterion_group, criterion_main};
use ensemble_compiler::compile_path;
use ensemble_runtime::Program;
use ensemble_runtime::hpmm::{Input, SocialAgent};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

/// A small deterministic generator (xorshift), so the model is the same on every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const CATEGORIES: usize = 40;
const WORDS_PER_CATEGORY: usize = 12;
const SPACES: usize = 75;
const STATES: usize = 417;

fn word(c: usize, k: usize) -> String {
    format!("w{c}x{k}")
}

/// Space sizes between 1 and 11 that sum to 417, as in Breakup.
fn sizes() -> Vec<usize> {
    let mut sizes: Vec<usize> = (0..SPACES).map(|i| 1 + (i * 7) % 11).collect();
    let mut total: usize = sizes.iter().sum();
    let mut i = 0;
    while total != STATES {
        if total < STATES && sizes[i] < 11 {
            sizes[i] += 1;
            total += 1;
        } else if total > STATES && sizes[i] > 1 {
            sizes[i] -= 1;
            total -= 1;
        }
        i = (i + 1) % SPACES;
    }
    sizes
}

/// Writes the Breakup-scale project into `dir`; returns how many estimator fragments (evidence
/// entries after compilation) it has, for the report.
fn write_breakup_scale(dir: &Path) {
    let mut g = Gen(0x2545_F491_4F6C_DD1D);
    let mut lexicon = String::from("Lexicon(categories: [\n");
    for c in 0..CATEGORIES {
        let words: Vec<String> = (0..WORDS_PER_CATEGORY)
            .map(|k| format!("{:?}", word(c, k)))
            .collect();
        writeln!(
            lexicon,
            "    (name: \"c{c}\", words: [{}]),",
            words.join(", ")
        )
        .unwrap();
    }
    lexicon.push_str("])\n");
    // Surface patterns: words, sequences, categories, gaps; then combinations of them.
    let mut evidence =
        String::from("Evidence(estimators: [\n    (name: \"agent-spoke\", is: Speaker(Agent)),\n");
    let any_word = |g: &mut Gen| word(g.below(CATEGORIES), g.below(WORDS_PER_CATEGORY));
    let patterns = 420;
    for i in 0..patterns {
        let p = match i % 5 {
            0 => any_word(&mut g),
            1 => format!("{} {}", any_word(&mut g), any_word(&mut g)),
            2 => format!("@c{}", g.below(CATEGORIES)),
            3 => format!("^ @c{} * {}", g.below(CATEGORIES), any_word(&mut g)),
            _ => format!(
                "{}|{} @c{}&c{}",
                any_word(&mut g),
                any_word(&mut g),
                g.below(CATEGORIES),
                g.below(CATEGORIES)
            ),
        };
        writeln!(
            evidence,
            "    (name: \"p{i}\", is: Match({p:?}, 0.{})),",
            5 + g.below(5)
        )
        .unwrap();
    }
    let combos = 330;
    for i in 0..combos {
        let a = g.below(patterns);
        let b = g.below(patterns);
        let c = g.below(patterns);
        let e = match i % 3 {
            0 => format!("And([Ev(\"p{a}\"), Ev(\"p{b}\")])"),
            1 => format!("Or([Ev(\"p{a}\"), Ev(\"p{b}\"), Ev(\"p{c}\")])"),
            _ => format!("Max([Ev(\"p{a}\"), Not(Ev(\"p{b}\"))])"),
        };
        writeln!(evidence, "    (name: \"e{i}\", is: {e}),").unwrap();
    }
    let sizes = sizes();
    let mut actions = String::from("Actions(actions: [\n");
    let mut inputs: Vec<Vec<String>> = vec![Vec::new(); 5];
    for (s, &n) in sizes.iter().enumerate() {
        let mut states = String::new();
        for k in 0..n {
            let name = format!("s{k}");
            let last = k + 1 == n;
            let to = if last {
                if n == 1 {
                    String::new()
                } else {
                    "to: [(\"s0\", 0.3), (\"".to_string() + &name + "\", 0.7)], "
                }
            } else {
                format!("to: [(\"{name}\", 0.5), (\"s{}\", 0.5)], ", k + 1)
            };
            // Every third state acts; its successor expects the agent's own output.
            let acts = k % 3 == 1 && !last;
            let expects = if k > 0 && k % 3 == 2 {
                format!("expects: [\"did-a{s}x{}\"], ", k - 1)
            } else {
                format!("expects: [\"e{}\"], ", g.below(combos))
            };
            let action = if acts {
                writeln!(
                    actions,
                    "    (name: \"a{s}x{k}\", say: [\"{{ok|fine|right}} number {s} {k}\"]),"
                )
                .unwrap();
                writeln!(
                    evidence,
                    "    (name: \"did-a{s}x{k}\", is: Did(\"a{s}x{k}\")),"
                )
                .unwrap();
                format!("action: \"a{s}x{k}\", ")
            } else {
                String::new()
            };
            writeln!(states, "        (name: \"{name}\", {expects}{action}{to}),").unwrap();
        }
        std::fs::write(
            dir.join(format!("s{s}.space.ron")),
            format!("Space(name: \"space{s}\", initial: \"s0\", states: [\n{states}])\n"),
        )
        .unwrap();
        inputs[s % 5].push(format!("\"space{s}\""));
    }
    // Inspections coupling spaces (one iteration late).
    for i in 0..60 {
        let s = g.below(SPACES);
        let k = g.below(sizes[s]);
        writeln!(
            evidence,
            "    (name: \"look{i}\", is: Inspect(of: [\"space{s}.s{k}\"], shape: Threshold(0.5))),"
        )
        .unwrap();
    }
    evidence.push_str("])\n");
    actions.push_str("], accumulators: [\n");
    for (i, group) in inputs.iter().enumerate() {
        let rule = if i % 2 == 0 { "First" } else { "Max" };
        writeln!(
            actions,
            "    (name: \"level{i}\", rule: {rule}, inputs: [{}]),",
            group.join(", ")
        )
        .unwrap();
    }
    actions.push_str("    (name: \"respond\", rule: First, inputs: [\"level0\", \"level1\", \"level2\", \"level3\", \"level4\"]),\n])\n");
    std::fs::write(
        dir.join("Ensemble.ron"),
        "Project(name: \"breakup-scale\")\n",
    )
    .unwrap();
    std::fs::write(dir.join("b.lexicon.ron"), lexicon).unwrap();
    std::fs::write(dir.join("b.evidence.ron"), evidence).unwrap();
    std::fs::write(dir.join("b.actions.ron"), actions).unwrap();
    std::fs::write(
        dir.join("chat.chat.ron"),
        "Chat(name: \"chat\", agent: \"Bob\", output: \"respond\")\n",
    )
    .unwrap();
}

fn compile(path: &Path) -> Arc<Program> {
    let c = compile_path(path).expect("loads");
    if c.output.is_none() {
        panic!("{}", c.diagnostics.render(&c.sources, false));
    }
    Arc::new(c.output.unwrap().0)
}

/// Runs iterations on `lines` in turn, feeding outputs back as the report's engine does.
fn bench_model(c: &mut Criterion, name: &str, program: Arc<Program>, lines: Vec<String>) {
    let m = &program.hpmm;
    eprintln!(
        "{name}: {} spaces, {} states, {} evidence entries ({} patterns), {} accumulators",
        m.spaces.len(),
        m.states.len(),
        m.evidence.len(),
        m.patterns.len(),
        m.accumulators.len()
    );
    let inputs: Vec<Input> = lines.iter().map(|l| Input::player(l)).collect();
    let mut agent = SocialAgent::new(program, "chat", 1).unwrap();
    let mut i = 0;
    let mut feedback: Option<Input> = None;
    c.bench_function(name, |b| {
        b.iter(|| {
            let input = match feedback.take() {
                Some(own) => own,
                None => {
                    i = (i + 1) % inputs.len();
                    inputs[i].clone()
                }
            };
            feedback = black_box(agent.iterate(Some(&input))).map(|o| o.as_input());
        })
    });
}

fn innkeeper(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let program = compile(&root.join("samples/innkeeper"));
    let transcript =
        std::fs::read_to_string(root.join("samples/innkeeper/transcripts/xenos.txt")).unwrap();
    let lines = transcript
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    bench_model(c, "hpmm iteration/innkeeper", program, lines);
}

fn breakup_scale(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    write_breakup_scale(dir.path());
    let program = compile(dir.path());
    let mut g = Gen(7);
    // Eight-word utterances over the model's vocabulary, with some unknown words.
    let lines = (0..64)
        .map(|_| {
            (0..8)
                .map(|_| {
                    if g.below(4) == 0 {
                        "zzz".to_string()
                    } else {
                        word(g.below(CATEGORIES), g.below(WORDS_PER_CATEGORY))
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    bench_model(c, "hpmm iteration/breakup-scale", program, lines);
}

criterion_group!(benches, innkeeper, breakup_scale);
criterion_main!(benches);
