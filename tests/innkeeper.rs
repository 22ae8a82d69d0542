//! The innkeeper as visitors talk to an innkeeper (issue 22): every line answered in the
//! iteration it is said, no reply with an empty slot, and a new question never answered with
//! an old topic. `transcripts/visitor.txt` is the conversation the sample was grown on;
//! `fixtures/innkeeper/visitor-heldout.txt` was written with it and never run while growing it.

use ensemble_tests::{ensemble, json_lines as events, repo_path};

/// One player line, the tick it was said at, and the agent's outputs (tick, action, text)
/// before the next player line.
struct Exchange {
    line: String,
    tick: u64,
    replies: Vec<(u64, String, String)>,
}

fn talk(input_text: &str) -> Vec<Exchange> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    std::fs::write(&input, input_text).unwrap();
    let out = ensemble(&[
        "run",
        &repo_path("samples/innkeeper"),
        "--scene",
        "chat",
        "--input",
        &input.to_string_lossy(),
        "--seed",
        "7",
        "--trace",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut exchanges: Vec<Exchange> = Vec::new();
    for e in events(&out.stdout) {
        let tick = e["tick"].as_u64().unwrap();
        match e["event"].as_str().unwrap() {
            "input" => exchanges.push(Exchange {
                line: e["text"].as_str().unwrap().to_string(),
                tick,
                replies: Vec::new(),
            }),
            "output" => {
                let reply = (
                    tick,
                    e["action"].as_str().unwrap().to_string(),
                    format!(
                        "{} {}",
                        e["emote"].as_str().unwrap(),
                        e["text"].as_str().unwrap()
                    ),
                );
                exchanges
                    .last_mut()
                    .expect("the player speaks first")
                    .replies
                    .push(reply);
            }
            other => panic!("unexpected event {other}"),
        }
    }
    exchanges
}

fn transcript(rel: &str) -> String {
    std::fs::read_to_string(repo_path(rel)).unwrap()
}

/// A rendered slot that came out empty leaves a space before punctuation ("what about ?") or
/// a dangling preposition at the end.
fn has_hole(text: &str) -> bool {
    let t = text.trim_end();
    t.contains(" ?")
        || t.contains(" ,")
        || t.contains(" .")
        || ["for", "about", "is", "the", "a"]
            .iter()
            .any(|w| t.ends_with(&format!(" {w}")))
}

/// Every line gets a reply in its own iteration, and no reply has a hole. Returns how many
/// lines got more than the catch-all (`pardon`).
fn every_line_answered(rel: &str) -> (usize, usize) {
    let exchanges = talk(&transcript(rel));
    let lines = transcript(rel)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .count();
    assert_eq!(exchanges.len(), lines, "{rel}: every line is heard");
    let mut understood = 0;
    for x in &exchanges {
        let first = x.replies.first();
        assert!(
            first.is_some_and(|(t, _, _)| *t == x.tick),
            "{rel}: `{}` got no reply in its iteration: {:?}",
            x.line,
            x.replies
        );
        for (_, _, text) in &x.replies {
            assert!(
                !has_hole(text),
                "{rel}: `{}` got a reply with a hole: `{text}`",
                x.line
            );
        }
        understood += usize::from(x.replies.iter().all(|(_, a, _)| a != "pardon"));
    }
    (understood, exchanges.len())
}

#[test]
fn the_visitor_is_answered_every_line_without_holes() {
    let (understood, lines) = every_line_answered("samples/innkeeper/transcripts/visitor.txt");
    eprintln!("visitor: {understood}/{lines} lines answered by more than the catch-all");
    // The sample was grown on this conversation: every line has a handler of its own.
    assert_eq!(understood, lines);
}

#[test]
fn the_held_out_visitor_is_answered_every_line_without_holes() {
    let (understood, lines) = every_line_answered("tests/fixtures/innkeeper/visitor-heldout.txt");
    eprintln!("held-out visitor: {understood}/{lines} lines answered by more than the catch-all");
    // 12 of 12 when the sample grew (BENCHMARKS.md); a few may fall to the catch-all, not more.
    assert!(understood * 4 >= lines * 3, "{understood}/{lines}");
}

/// The scripted conversation the sample was first written for still gets a reply to every
/// line, and none with a hole.
#[test]
fn the_first_script_is_still_answered() {
    every_line_answered("samples/innkeeper/transcripts/xenos.txt");
}

/// "what time is breakfast?" after talking about the mayor: the reply is about breakfast, or
/// asks what is meant — never the mayor.
#[test]
fn an_old_topic_is_not_answered_to_a_new_question() {
    for (old, new) in [
        ("where is the mayor?", "what time is breakfast?"),
        ("i need to find the smith", "what is that noise?"),
        ("where is the temple?", "heard any news?"),
    ] {
        let exchanges = talk(&format!("{old}\n\n{new}\n"));
        let last = exchanges.last().unwrap();
        assert_eq!(last.line, new);
        let stale = old.split_whitespace().last().unwrap().trim_end_matches('?');
        for (_, _, text) in &last.replies {
            assert!(
                !text.contains(stale),
                "`{new}` after `{old}` was answered `{text}`"
            );
        }
        assert!(!last.replies.is_empty(), "`{new}` got no reply");
    }
}
