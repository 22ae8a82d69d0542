//! `ensemble test PATH [--format human|json|junit] [--coverage] [--filter TEXT]`: run the
//! project's content tests (docs/formats/test.md). Exit 0: every run passed; 1: a test failed
//! (or the project has errors); 2: could not run (bad path, no tests to run).

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io, cannot_run, report};
use clap::{Args, ValueEnum};
use ensemble_compiler::content_test::coverage::{self, Reached, Section};
use ensemble_compiler::content_test::expect::kind;
use ensemble_compiler::content_test::run::{RunResult, run_all_within};
use ensemble_compiler::content_test::{ContentTest, lower};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TestFormat {
    Human,
    Json,
    Junit,
}

#[derive(Args, Debug)]
pub struct TestArgs {
    /// The project directory.
    path: PathBuf,
    #[arg(long, value_enum, default_value = "human")]
    format: TestFormat,
    /// Also report every state, rule, line, HMM state and planning action no run reached.
    #[arg(long)]
    coverage: bool,
    /// Run only the tests whose name (or file) contains TEXT.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Threads to run on (default: one per core).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Fail a run (a test with one seed) still going after SECONDS, rather than wait for it.
    #[arg(long, value_name = "SECONDS", default_value_t = DEADLINE, value_parser = crate::io::seconds)]
    deadline: f64,
}

/// `--deadline` by default: five minutes a run.
pub const DEADLINE: f64 = 300.0;

pub fn run(args: TestArgs, io: &mut Io<'_>) -> i32 {
    let c = match ensemble_compiler::compile_path(&args.path) {
        Ok(c) => c,
        Err(e) => return cannot_run(io, &e),
    };
    if c.diagnostics.has_errors() {
        report(&c, Format::Human, io);
        return EXIT_ERRORS;
    }
    let Some((program, _)) = &c.output else {
        return EXIT_ERRORS;
    };
    let program = Arc::new(program.clone());
    // Checked already by the compilation (no errors): read again for the tests themselves.
    let mut quiet = ensemble_compiler::diag::Diagnostics::default();
    let mut tests = lower(&c.sources, &c.module, &mut quiet);
    if let Some(text) = &args.filter {
        tests.retain(|t| t.test.name.contains(text.as_str()) || t.file.contains(text.as_str()));
    }
    if tests.is_empty() {
        let what = match &args.filter {
            Some(f) => format!("no test matches `{f}`"),
            None => "no tests (*.test.ron) in this project".to_string(),
        };
        let _ = writeln!(io.err, "error: {}: {what}", args.path.display());
        return EXIT_CANNOT_RUN;
    }
    // The game's own states have no code here: said once, as `ensemble run` says it.
    if let Ok((_, stand_ins)) = ensemble_sim::stand_in::library_for(&program, &[]) {
        for s in stand_ins {
            let _ = writeln!(io.err, "note: {s} (the tests run against the stand-in)");
        }
    }
    let threads = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let started = std::time::Instant::now();
    let within = std::time::Duration::from_secs_f64(args.deadline);
    let results = run_all_within(&program, &tests, threads, Some(within));
    let seconds = started.elapsed().as_secs_f64();
    let sections = args.coverage.then(|| {
        let mut all = Reached::default();
        for r in &results {
            all.merge(&r.reached);
        }
        coverage::report(&program, &all)
    });
    let outcome = Outcome {
        project: &c.name,
        path: &args.path,
        tests: &tests,
        results: &results,
        seconds,
        coverage: sections.as_deref(),
    };
    let text = match args.format {
        TestFormat::Human => outcome.human(),
        TestFormat::Json => outcome.json(),
        TestFormat::Junit => outcome.junit(),
    };
    let _ = write!(io.out, "{text}");
    if results.iter().all(RunResult::passed) {
        EXIT_OK
    } else {
        EXIT_ERRORS
    }
}

/// Everything a report says.
struct Outcome<'a> {
    project: &'a str,
    path: &'a Path,
    tests: &'a [ContentTest],
    results: &'a [RunResult],
    seconds: f64,
    coverage: Option<&'a [Section]>,
}

impl Outcome<'_> {
    fn runs_of(&self, test: usize) -> impl Iterator<Item = &RunResult> {
        self.results.iter().filter(move |r| r.test == test)
    }

    fn failed_runs(&self) -> usize {
        self.results.iter().filter(|r| !r.passed()).count()
    }

    /// One paragraph per failing run: the test, the seed, each broken expectation with its
    /// tick, and the trace around the first failing tick.
    fn failure_text(&self, r: &RunResult) -> String {
        let t = &self.tests[r.test];
        let mut s = String::new();
        if let Some(e) = &r.error {
            s.push_str(&format!("  could not run: {e}\n"));
        }
        for line in r.broken(&t.test) {
            s.push_str(&format!("  {line}\n"));
        }
        if let Some(tick) = r.first_failing_tick() {
            s.push_str(&format!("  trace around tick {tick}:\n"));
            for e in &r.context {
                s.push_str(&format!("    {}\n", e.to_text()));
            }
        }
        s
    }

    fn human(&self) -> String {
        let mut s = String::new();
        for (i, t) in self.tests.iter().enumerate() {
            let runs: Vec<&RunResult> = self.runs_of(i).collect();
            let failed: Vec<&&RunResult> = runs.iter().filter(|r| !r.passed()).collect();
            let status = if failed.is_empty() { "ok  " } else { "FAIL" };
            s.push_str(&format!(
                "{status} {}:{}: {} ({}, {} seed{})\n",
                t.file,
                t.line,
                t.test.name,
                t.test.scene,
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            ));
            for r in failed {
                s.push_str(&format!(
                    "  seed {}{}:\n",
                    r.seed,
                    r.first_failing_tick()
                        .map(|t| format!(", first failing tick {t}"))
                        .unwrap_or_default()
                ));
                s.push_str(&self.failure_text(r));
            }
        }
        if let Some(sections) = self.coverage {
            s.push('\n');
            s.push_str(&coverage_text(sections));
        }
        let passed_tests = (0..self.tests.len())
            .filter(|i| self.runs_of(*i).all(RunResult::passed))
            .count();
        s.push_str(&format!(
            "\n{}: {} tests, {} runs: {} tests passed, {} failed ({} failing runs) in {:.2} s\n",
            self.project,
            self.tests.len(),
            self.results.len(),
            passed_tests,
            self.tests.len() - passed_tests,
            self.failed_runs(),
            self.seconds
        ));
        s
    }

    fn json(&self) -> String {
        let tests: Vec<_> = self
            .tests
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let runs: Vec<_> = self
                    .runs_of(i)
                    .map(|r| {
                        json!({
                            "seed": r.seed,
                            "passed": r.passed(),
                            "ticks": r.ticks,
                            "error": r.error,
                            "first_failing_tick": r.first_failing_tick(),
                            "failures": r.failures.iter().map(|(e, b)| json!({
                                "expectation": e,
                                "kind": kind(&t.test.expect[*e]),
                                "tick": b.tick,
                                "message": b.message,
                            })).collect::<Vec<_>>(),
                            "trace": r.context.iter().map(|e| {
                                serde_json::from_str::<serde_json::Value>(&e.to_json())
                                    .unwrap_or(serde_json::Value::Null)
                            }).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                json!({
                    "name": t.test.name,
                    "file": t.file,
                    "line": t.line,
                    "scene": t.test.scene,
                    "passed": self.runs_of(i).all(RunResult::passed),
                    "runs": runs,
                })
            })
            .collect();
        let mut doc = json!({
            "project": self.project,
            "tests": tests,
            "summary": {
                "tests": self.tests.len(),
                "runs": self.results.len(),
                "failed_runs": self.failed_runs(),
                "seconds": (self.seconds * 1000.0).round() / 1000.0,
            },
        });
        if let Some(sections) = self.coverage {
            doc["coverage"] = serde_json::to_value(sections).unwrap_or_default();
        }
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    }

    /// JUnit XML as CI servers read it: one `testsuite` per test file, one `testcase` per
    /// test and seed; with `--coverage`, a last `testsuite` named `coverage` (no test cases)
    /// whose properties give each kind's counts and every item no run reached, and whose
    /// `system-out` is the human report's coverage section.
    fn junit(&self) -> String {
        let mut files: Vec<&str> = self.tests.iter().map(|t| t.file.as_str()).collect();
        files.dedup();
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.push_str(&format!(
            "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" time=\"{:.3}\">\n",
            xml(self.project),
            self.results.len(),
            self.failed_runs(),
            self.seconds
        ));
        for file in files {
            let runs: Vec<&RunResult> = self
                .results
                .iter()
                .filter(|r| self.tests[r.test].file == file)
                .collect();
            let failures = runs
                .iter()
                .filter(|r| !r.failures.is_empty() && r.error.is_none())
                .count();
            let errors = runs.iter().filter(|r| r.error.is_some()).count();
            s.push_str(&format!(
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\">\n",
                xml(file),
                runs.len()
            ));
            for r in runs {
                let t = &self.tests[r.test];
                s.push_str(&format!(
                    "    <testcase classname=\"{}\" name=\"{} [seed {}]\" file=\"{}\" line=\"{}\"",
                    xml(&format!(
                        "{}.{}",
                        self.project,
                        file.trim_end_matches(".test.ron")
                    )),
                    xml(&t.test.name),
                    r.seed,
                    xml(&self.path.join(&t.file).to_string_lossy()),
                    t.line
                ));
                if r.passed() {
                    s.push_str("/>\n");
                    continue;
                }
                s.push_str(">\n");
                let tag = if r.error.is_some() {
                    "error"
                } else {
                    "failure"
                };
                let message = match (&r.error, r.failures.first()) {
                    (Some(e), _) => e.clone(),
                    (None, Some((_, b))) => format!("tick {}: {}", b.tick, b.message),
                    (None, None) => String::new(),
                };
                s.push_str(&format!(
                    "      <{tag} message=\"{}\">{}</{tag}>\n",
                    xml(&message),
                    xml(&self.failure_text(r))
                ));
                s.push_str("    </testcase>\n");
            }
            s.push_str("  </testsuite>\n");
        }
        if let Some(sections) = self.coverage {
            s.push_str(&junit_coverage(sections));
        }
        s.push_str("</testsuites>\n");
        s
    }
}

/// The coverage section of the human report: each kind's counts, then what no run reached. A
/// kind the project has none of ("actions 0/0" in a project without planning) is left out, as
/// in the editor's Tests tab; the JSON and JUnit reports keep every kind, which CI reads by key.
fn coverage_text(sections: &[Section]) -> String {
    let mut s = String::from("coverage (over every run):\n");
    for section in sections.iter().filter(|section| section.total > 0) {
        s.push_str(&format!(
            "  {:<10} {}/{} reached\n",
            section.kind, section.reached, section.total
        ));
        for item in section.never_reached() {
            s.push_str(&format!("    never reached: {}\n", item.name));
        }
    }
    s
}

/// The coverage as a JUnit `testsuite` of no test cases: `coverage.KIND.reached` and
/// `coverage.KIND.total` for every kind, one `never-reached.KIND` property per item no run
/// reached, and the human report's text as its `system-out` (what CI servers show of a suite).
fn junit_coverage(sections: &[Section]) -> String {
    let mut s = String::from(
        "  <testsuite name=\"coverage\" tests=\"0\" failures=\"0\" errors=\"0\">\n    <properties>\n",
    );
    let property = |name: String, value: &str| {
        format!(
            "      <property name=\"{}\" value=\"{}\"/>\n",
            xml(&name),
            xml(value)
        )
    };
    for section in sections {
        let kind = section.kind;
        s.push_str(&property(
            format!("coverage.{kind}.reached"),
            &section.reached.to_string(),
        ));
        s.push_str(&property(
            format!("coverage.{kind}.total"),
            &section.total.to_string(),
        ));
        for item in section.never_reached() {
            s.push_str(&property(format!("never-reached.{kind}"), &item.name));
        }
    }
    s.push_str("    </properties>\n");
    s.push_str(&format!(
        "    <system-out>{}</system-out>\n",
        xml(&coverage_text(sections))
    ));
    s.push_str("  </testsuite>\n");
    s
}

/// Text as XML character data or an attribute value. Characters XML 1.0 cannot hold at all
/// (control characters other than tab and line breaks) become `?`.
fn xml(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&apos;"),
            '\t' | '\n' | '\r' => s.push(c),
            c if (c as u32) < 0x20 => s.push('?'),
            c => s.push(c),
        }
    }
    s
}
