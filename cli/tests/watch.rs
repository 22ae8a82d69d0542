//! Hot reload end to end, through the real `ensemble` binary: `run --watch` and `watch`.

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "build" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

fn sample_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../samples")
            .join(name),
        &copy,
    );
    (dir, copy)
}

fn airport_copy() -> (tempfile::TempDir, PathBuf) {
    sample_copy("airport")
}

/// A child process whose stdout lines arrive on a channel; killed on drop.
struct Running {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ensemble"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ensemble");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// `ensemble run PROJECT --scene SCENE --watch --trace json` in real time at `speed`.
    fn watch(project: &Path, scene: &str, speed: &str, extra: &[&str]) -> Running {
        let mut args = vec![
            "run",
            project.to_str().unwrap(),
            "--scene",
            scene,
            "--watch",
            "--trace",
            "json",
            "--ticks",
            "1000000",
            "--speed",
            speed,
        ];
        args.extend(extra);
        Running::start(&args)
    }

    /// Reads lines until one satisfies `pred`; panics after the timeout.
    fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "timed out waiting for {what}; last lines:\n{}",
                    self.seen
                        .iter()
                        .rev()
                        .take(15)
                        .rev()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            });
            self.seen.push(line.clone());
            let v: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if pred(&v) {
                return v;
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is(v: &Value, agent: &str, event: &str, state: &str) -> bool {
    v["agent"] == agent && v["event"] == event && v["state"] == state
}

#[test]
fn run_watch_reloads_keeps_agents_states_and_survives_broken_saves() {
    let (_tmp, airport) = airport_copy();
    let mut run = Running::watch(&airport, "ticket-counter", "10", &[]);
    run.until("the seller waiting at the counter", |v| {
        is(v, "seller", "enter", "WaitForConversation")
    });

    // Rename a transition target to a new state, added by the same save.
    let machine = airport.join("machines/StandSellTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    let edited = text
        .replace(r#"("FinishTalk", "Goto1")"#, r#"("FinishTalk", "Stretch1")"#)
        .replace("    ],\n)", "        (name: \"Stretch1\", code: \"Wait\", modifier: 1.5, on: [(\"Done\", \"Goto1\")]),\n    ],\n)");
    assert_ne!(text, edited);
    std::fs::write(&machine, &edited).unwrap();
    let reload = run.until("a reload", |v| v["event"] == "reload");
    // Every agent kept its current state: nothing fell back.
    assert_eq!(reload["fallbacks"].as_array().unwrap().len(), 0, "{reload}");
    assert!(reload["kept"].as_u64().unwrap() >= 3, "{reload}");
    let reload_tick = reload["tick"].as_u64().unwrap();
    // No agent restarted: the next seller state entered is the conversation, not Start.
    let next = run.until("the seller's next state", |v| {
        v["agent"] == "seller" && v["event"] == "enter"
    });
    assert_ne!(next["state"], "Start", "{next}");
    run.until("the new behaviour", |v| {
        is(v, "seller", "enter", "Stretch1")
    });

    // A broken save is refused, and the scene goes on with the last good program.
    std::fs::write(
        &machine,
        "Machine(name: \"StandSellTicket\", states: [(name: ",
    )
    .unwrap();
    let rejected = run.until("reload-rejected", |v| v["event"] == "reload-rejected");
    assert!(
        rejected["reason"]
            .as_str()
            .unwrap()
            .contains("StandSellTicket.machine.ron"),
        "{rejected}"
    );
    let at = rejected["tick"].as_u64().unwrap();
    assert!(at > reload_tick);
    run.until("the trace going on", |v| {
        v["tick"].as_u64().unwrap_or(0) > at && v["event"] == "enter"
    });

    // Fixing the file reloads again.
    std::fs::write(&machine, &edited).unwrap();
    run.until("a second reload", |v| v["event"] == "reload");
}

#[test]
fn watch_rebuilds_and_keeps_the_last_good_build() {
    let (tmp, airport) = airport_copy();
    let out = tmp.path().join("out");
    let mut watch = Running::start(&[
        "watch",
        airport.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let first = watch.until("the first build", |v| v.get("summary").is_some());
    assert_eq!(first["summary"]["errors"], 0);
    let ensb = out.join("airport.ensb");
    // The program is written right after the diagnostics line.
    let deadline = Instant::now() + TIMEOUT;
    while !ensb.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let good = std::fs::read(&ensb).unwrap();

    let machine = airport.join("machines/BuyTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    std::fs::write(
        &machine,
        text.replace(
            r#"("WaitForResponse", "LeaveAtX")"#,
            r#"("WaitForResponse", "LeaveAtZ")"#,
        ),
    )
    .unwrap();
    let broken = watch.until("the broken build", |v| {
        v["summary"]["errors"].as_u64().unwrap_or(0) > 0
    });
    assert_eq!(broken["diagnostics"][0]["code"], "unknown-reference");
    assert_eq!(
        std::fs::read(&ensb).unwrap(),
        good,
        "the last good build must stay"
    );

    std::fs::write(
        &machine,
        text.replace(
            r#"(name: "Finish"),"#,
            r#"(name: "Finish"), (name: "Finish2", code: "Finish"),"#,
        ),
    )
    .unwrap();
    watch.until("the fixed build", |v| v["summary"]["errors"] == 0);
    let deadline = Instant::now() + TIMEOUT;
    while std::fs::read(&ensb).unwrap() == good && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_ne!(
        std::fs::read(&ensb).unwrap(),
        good,
        "the fixed build is written"
    );
}

/// `run --watch` on a conversation (HMM-space chat) scene: the player's transcript goes on in
/// real time while an action's lines are edited; the reload keeps every belief (nothing falls
/// back), the new line is said, a broken save is refused and the conversation goes on.
#[test]
fn run_watch_reloads_a_chat_scene_keeping_its_beliefs() {
    let (_tmp, inn) = sample_copy("innkeeper");
    let mut run = Running::watch(
        &inn,
        "chat",
        "4",
        &[
            "--input",
            inn.join("transcripts/xenos.txt").to_str().unwrap(),
        ],
    );
    let first = run.until("Xenos greeting back", |v| v["event"] == "output");
    let actions = inn.join("innkeeper.actions.ron");
    let text = std::fs::read_to_string(&actions).unwrap();
    let edited = text.replace("me fix that right away", "me mend that at once");
    assert_ne!(text, edited);
    std::fs::write(&actions, &edited).unwrap();
    let reload = run.until("a reload", |v| v["event"] == "reload");
    assert_eq!(reload["fallbacks"].as_array().unwrap().len(), 0, "{reload}");
    assert!(reload["kept"].as_u64().unwrap() > 0, "{reload}");
    assert!(
        reload["tick"].as_u64() >= first["tick"].as_u64(),
        "{reload}"
    );
    // The conversation did not restart: the player's next line is a later one.
    let next = run.until("the player's next line", |v| v["event"] == "input");
    assert_ne!(next["text"], "hi there", "{next}");
    run.until("the edited line", |v| {
        v["event"] == "output" && v["text"] == "me mend that at once"
    });

    std::fs::write(&actions, "Actions(actions: [(name: ").unwrap();
    let rejected = run.until("reload-rejected", |v| v["event"] == "reload-rejected");
    assert!(
        rejected["reason"]
            .as_str()
            .unwrap()
            .contains("innkeeper.actions.ron"),
        "{rejected}"
    );
    let at = rejected["tick"].as_u64().unwrap();
    run.until("the conversation going on", |v| {
        v["tick"].as_u64().unwrap_or(0) > at && v["event"] == "output"
    });
}

/// The ticket sale (sentence states, dialog and one-off states, a transaction) under
/// `run --watch`: editing the seller's conversation machine mid-scene reloads it, keeps every
/// agent where it is, and the next buyer hears the new line.
#[test]
fn run_watch_reloads_the_ticket_sale() {
    let (_tmp, airport) = airport_copy();
    let mut run = Running::watch(&airport, "ticket-sale", "10", &[]);
    run.until("the first buyer asking for a ticket", |v| {
        v["agent"] == "customer" && v["event"] == "say" && v["sentence"] == "WantTicketToX"
    });
    let machine = airport.join("machines/SellTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    let edited = text.replace(r#"modifier: "OK.|Sure.""#, r#"modifier: "Right away.""#);
    assert_ne!(text, edited);
    std::fs::write(&machine, &edited).unwrap();
    let reload = run.until("a reload", |v| v["event"] == "reload");
    assert_eq!(reload["fallbacks"].as_array().unwrap().len(), 0, "{reload}");
    let next = run.until("the seller's next state", |v| {
        v["agent"] == "seller" && v["event"] == "enter"
    });
    assert_ne!(next["state"], "Start", "{next}");
    run.until("the hand-over to the first buyer", |v| {
        v["event"] == "add" && v["fact"] == "Ticket(customer) = ticket to Boston"
    });
    run.until("the second buyer hearing the new line", |v| {
        v["agent"] == "seller" && v["event"] == "say" && v["text"] == "Right away."
    });
    run.until("the hand-over to the second buyer", |v| {
        v["event"] == "add" && v["fact"] == "Ticket(traveler) = ticket to Chicago"
    });
}

/// `run --watch` on an interaction-script scene: a rule's action is edited while two sit on
/// the bench; the running script instance is carried across (nobody leaves or re-joins), the new
/// action is taken, a broken save is refused and the script goes on.
#[test]
fn run_watch_keeps_script_instances_across_a_reload() {
    let (_tmp, bench) = sample_copy("bench");
    let mut run = Running::watch(&bench, "bench", "20", &["--seed", "3"]);
    // Wait until someone sits on the bench, then make listeners nod instead.
    let first = run.until("someone sitting", |v| {
        v["event"] == "done" && v["action"] == "sit"
    });
    let sitter = first["agent"].as_str().unwrap().to_string();
    let script = bench.join("bench.script.ron");
    let text = std::fs::read_to_string(&script).unwrap();
    let edited = text.replace(r#"action: "listen""#, r#"action: "nod""#);
    assert_ne!(text, edited);
    std::fs::write(&script, &edited).unwrap();
    let reload = run.until("a reload", |v| v["event"] == "reload");
    assert_eq!(reload["fallbacks"].as_array().unwrap().len(), 0, "{reload}");
    assert!(reload["kept"].as_u64().unwrap() >= 1, "{reload}");
    let at = reload["tick"].as_u64().unwrap();
    // The sitter stays in the running instance: nobody re-joins, and the new behaviour (or the
    // sitter getting up under the new program) follows.
    let next = run.until("the new behaviour or the sitter's getting up", |v| {
        (v["event"] == "act" && v["action"] == "nod")
            || (v["event"] == "join" && v["agent"] == sitter.as_str())
            || (v["event"] == "done" && v["action"] == "getup" && v["agent"] == sitter.as_str())
    });
    assert_ne!(next["event"], "join", "{next}");
    assert!(next["tick"].as_u64().unwrap() > at);
    // A broken script is refused and the instance goes on.
    std::fs::write(&script, edited.replace("seat(X), not", "seat(X) not")).unwrap();
    let rejected = run.until("reload-rejected", |v| v["event"] == "reload-rejected");
    assert!(
        rejected["reason"]
            .as_str()
            .unwrap()
            .contains("bench.script.ron"),
        "{rejected}"
    );
    run.until("the script going on", |v| {
        v["tick"].as_u64().unwrap_or(0) > rejected["tick"].as_u64().unwrap()
            && (v["event"] == "act" || v["event"] == "done")
    });
}
