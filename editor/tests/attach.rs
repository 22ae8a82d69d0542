//! The preview showing a scene it does not run (egui_kittest): a recorded trace opened from
//! the File menu's "Open trace…", scrubbed through; a game attached over the inspection
//! protocol (`ensemble run --inspect`, run in-process on a thread as the CLI tests do).

use eframe::egui;
use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use ensemble_editor::EditorApp;
use ensemble_editor::preview::Preview;
use ensemble_runtime::trace::EventKind;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Sender, channel};
use std::time::Duration;

mod support;
use support::app::{
    click_with, find, harness, sample_copy, samples, select, settle, type_into, type_over, until,
};

fn preview<'a>(h: &'a Harness<'static, EditorApp>) -> &'a Preview {
    &h.state().session().unwrap().preview
}

/// What "Open trace…" does once the file dialog has answered.
fn open_trace(h: &mut Harness<'static, EditorApp>, path: &Path) {
    h.state_mut()
        .session_mut()
        .unwrap()
        .preview
        .open_trace(path);
    settle(h);
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden")
        .join(name)
}

#[test]
fn a_recorded_trace_opens_in_the_timeline_and_scrubs() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    let file = "airport-ticket-counter-seed7.jsonl";
    open_trace(&mut h, &golden(file));
    h.get_by_label(&format!("trace {file}"));
    assert!(!preview(&h).is_running(), "a trace runs nothing");
    // It opens at its start: the seller has just set off.
    assert_eq!(preview(&h).viewing, Some(0));
    let live = preview(&h).live("StandSellTicket").unwrap();
    assert!(live.scrubbed);
    assert!(live.agents_in("Goto1").iter().any(|a| a.name == "seller"));
    // Found in the timeline by its name, the seller's talk: clicking it shows the scene then
    // (the tick the protocol's example names for it).
    type_into(&mut h, "filter", "StandSellTicket/TalkStateMachine");
    h.get_all_by_label("StandSellTicket/TalkStateMachine")
        .next()
        .expect("the event in the timeline")
        .click();
    settle(&mut h);
    assert_eq!(preview(&h).viewing, Some(391));
    let live = preview(&h).live("StandSellTicket").unwrap();
    assert!(
        live.agents_in("TalkStateMachine")
            .iter()
            .any(|a| a.name == "seller"),
        "{live:?}"
    );
    assert!(live.agents_in("Goto1").is_empty());
    h.key_press(Key::Escape);
    settle(&mut h);
    // The transcript follows the scrubbed tick: nothing said yet at the start, lines later.
    let said_by =
        |h: &Harness<'static, EditorApp>, tick| preview(h).history.transcript_until(tick).count();
    assert_eq!(said_by(&h, 0), 0);
    assert!(said_by(&h, preview(&h).history.latest().unwrap().tick) > 0);
}

#[test]
fn a_malformed_trace_is_refused_with_its_line_number() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    let good = golden("airport-ticket-counter-seed7.jsonl");
    open_trace(&mut h, &good);
    let events = preview(&h).history.event_total();
    let text = std::fs::read_to_string(&good).unwrap();
    let mut lines: Vec<&str> = text.lines().take(5).collect();
    lines[3] = r#"{"tick":0,"time":0.0,"agent":"seller","event":"enter"#;
    let bad = dir.path().join("broken.jsonl");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    open_trace(&mut h, &bad);
    let refusal = h.get_by_label_contains("Cannot open the trace");
    let node = refusal.accesskit_node();
    let shown = node.label().or_else(|| node.value()).unwrap_or_default();
    assert!(shown.contains("broken.jsonl: line 4: "), "{shown}");
    // The trace shown before stays.
    assert_eq!(preview(&h).history.event_total(), events);
}

/// The lines a running command writes, sent down a channel as they come.
struct Lines {
    partial: Vec<u8>,
    to: Sender<String>,
}

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let _ = self
                .to
                .send(String::from_utf8_lossy(&line[..end]).into_owned());
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `ensemble run samples/airport --scene ticket-counter --inspect 127.0.0.1:0 --inspect-wait`
/// on a thread of its own (it ends with the test process); the address it serves.
fn serve_ticket_counter() -> String {
    serve("airport", "ticket-counter", &[])
}

/// `ensemble run samples/SAMPLE --scene SCENE --inspect 127.0.0.1:0 --inspect-wait EXTRA…`
/// on a thread of its own (it ends with the test process); the address it serves.
fn serve(sample: &str, scene: &str, extra: &[&str]) -> String {
    let (err_tx, err) = channel();
    let project = samples().join(sample).display().to_string();
    let mut args: Vec<String> = [
        "ensemble",
        "run",
        &project,
        "--scene",
        scene,
        "--ticks",
        "100000",
        "--speed",
        "4",
        "--seed",
        "7",
        "--inspect",
        "127.0.0.1:0",
        "--inspect-wait",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    std::thread::spawn(move || {
        let mut io = ensemble_cli::Io {
            out: &mut std::io::sink(),
            err: &mut Lines {
                partial: Vec::new(),
                to: err_tx,
            },
            color: false,
        };
        ensemble_cli::run(args, &mut io)
    });
    let announced = err
        .recv_timeout(Duration::from_secs(60))
        .expect("the game says where it serves");
    announced
        .strip_prefix("inspecting on ")
        .unwrap_or_else(|| panic!("stderr says where: {announced}"))
        .to_string()
}

/// The airport open, its preview attached to a ticket counter game that waits (--inspect-wait).
fn attached() -> (tempfile::TempDir, Harness<'static, EditorApp>) {
    let address = serve_ticket_counter();
    attached_to("airport", &address)
}

/// SAMPLE open, its preview attached to the game at `address`.
fn attached_to(sample: &str, address: &str) -> (tempfile::TempDir, Harness<'static, EditorApp>) {
    let dir = sample_copy(sample);
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    let remembered = preview(&h).attach_address.clone();
    type_over(&mut h, &remembered, address);
    h.get_by_label("Attach").click();
    settle(&mut h);
    assert!(preview(&h).is_attached());
    // The game waits (--inspect-wait): its agents are there, from its hello and snapshot.
    until(&mut h, "the game's agents", |h| {
        preview(h).history.latest().is_some_and(|s| {
            s.agents
                .iter()
                .any(|a| !a.states.is_empty() || a.at.is_some())
        })
    });
    (dir, h)
}

/// A raw tool's hello from the game at `address`: whether it is paused, and its breakpoints.
fn game_hello(address: &str) -> ensemble_runtime::inspect::protocol::Hello {
    use ensemble_runtime::inspect::protocol::{
        FromGame, GameMessage, PROTOCOL_VERSION, ToolMessage, decode_from_game, encode,
    };
    use std::io::BufRead;
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let hello = ToolMessage::Hello {
        version: PROTOCOL_VERSION,
        token: None,
        trace: false,
    };
    stream.write_all(encode(&hello).as_bytes()).unwrap();
    let mut line = Vec::new();
    std::io::BufReader::new(stream)
        .read_until(b'\n', &mut line)
        .unwrap();
    match decode_from_game(line.trim_ascii_end()) {
        Ok(FromGame::Message(GameMessage::Hello(hello))) => hello,
        other => panic!("expected the game's hello, got {other:?}"),
    }
}

#[test]
fn the_attached_games_map_and_variables_show_a_set_variable_is_sent_and_detach_leaves_it_running() {
    let address = serve_ticket_counter();
    let (_dir, mut h) = attached_to("airport", &address);
    // The map: the game's snapshot says where its agents stand, drawn on the scene's map as
    // the editor's program has it.
    until(&mut h, "the game's positions", |h| {
        preview(h)
            .history
            .latest()
            .is_some_and(|s| s.agent("buyer1").is_some_and(|a| a.at.is_some()))
    });
    assert_eq!(preview(&h).no_map(), None);
    // The game keeps its own seed; leaving it is Detach (Restart and Stop would not clear
    // the breakpoints or resume it).
    assert!(h.query_by_label("↻ Restart").is_none() && h.query_by_label("⏹").is_none());
    let world = preview(&h).history.latest().unwrap().world.clone();
    assert!(world.locations.iter().any(|(n, _)| &**n == "Entrance"));
    // The agent pane: buyer1's variables, from the game; typing one sends `set`.
    h.state_mut()
        .session_mut()
        .unwrap()
        .preview
        .select(Some("buyer1".into()));
    h.get_by_label("Agent").click();
    until(&mut h, "the game's variables", |h| {
        preview(h).game_agents.is_some()
    });
    settle(&mut h);
    h.get_by_label_contains("variables (game, tick");
    type_over(&mut h, "Boston", "Denver");
    settle(&mut h);
    let city = |h: &Harness<'static, EditorApp>| {
        let (_, agents) = preview(h).game_agents.clone().unwrap();
        let buyer = agents.iter().find(|a| a.name == "buyer1").unwrap();
        buyer.variables["CityName"].clone()
    };
    until(&mut h, "the variable set in the game", |h| {
        city(h) == "Denver"
    });
    // The game says it with the new value: in the transcript panel.
    h.get_by_label("▶ Resume").click();
    until(&mut h, "buyer1 asking for a ticket", |h| {
        preview(h)
            .history
            .events()
            .any(|(_, e)| matches!(&e.kind, EventKind::Say { text, .. } if text.contains("ticket")))
    });
    h.get_by_label("Transcript").click();
    settle(&mut h);
    h.get_by_label("I would like to buy a ticket to Denver.");
    // A breakpoint from the editor and a pause: detaching clears the one and resumes the game.
    h.state_mut()
        .session_mut()
        .unwrap()
        .preview
        .toggle_breakpoint("StandSellTicket", "Goto1");
    h.get_by_label("⏸ Pause").click();
    until(&mut h, "the game paused", |h| !preview(h).is_playing());
    assert!(game_hello(&address).paused);
    h.get_by_label("Detach").click();
    settle(&mut h);
    assert!(!preview(&h).is_attached());
    assert!(preview(&h).is_running(), "back to the simulation");
    // The scene picked in the toolbar, its own simulation.
    assert_eq!(preview(&h).running_scene(), preview(&h).scene.as_deref());
    h.get_by_label("↻ Restart");
    let game = game_hello(&address);
    assert!(!game.paused && game.breakpoints.is_empty(), "{game:?}");
}

#[test]
fn a_token_is_sent_remembered_and_required_for_another_machine() {
    let token_dir = tempfile::tempdir().unwrap();
    let token_file = token_dir.path().join("token");
    std::fs::write(&token_file, "5e5a3e5e5a3e5e5a\n").unwrap();
    let token_file = token_file.to_string_lossy().into_owned();
    let address = serve(
        "airport",
        "ticket-counter",
        &["--inspect-token-file", &token_file],
    );
    let dir = sample_copy("airport");
    let config = tempfile::tempdir().unwrap();
    let mut h = harness(EditorApp::open(dir.path()));
    h.state_mut()
        .session_mut()
        .unwrap()
        .preview
        .with_config(Some(config.path().to_path_buf()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    // Another machine, no token: refused before anything is attempted.
    let remembered = preview(&h).attach_address.clone();
    type_over(&mut h, &remembered, "192.0.2.7:7878");
    h.get_by_label("Attach").click();
    settle(&mut h);
    assert!(!preview(&h).is_attached());
    h.get_by_label_contains("192.0.2.7:7878 is not this machine");
    // This machine, no token: the game refuses.
    type_over(&mut h, "192.0.2.7:7878", &address);
    h.get_by_label("Attach").click();
    until(&mut h, "the refusal", |h| preview(h).failure().is_some());
    assert!(
        preview(&h).failure().unwrap().contains("wrong token"),
        "{:?}",
        preview(&h).failure()
    );
    // With the token typed beside the address: attached, and both remembered.
    // A password field: its text is not shown.
    let password = egui::accesskit::Role::PasswordInput;
    h.get_all_by_role(password)
        .find(|n| n.accesskit_node().placeholder() == Some("token"))
        .expect("the token field")
        .focus();
    h.run_steps(2);
    h.get_all_by_role(password)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text("5e5a3e5e5a3e5e5a");
    settle(&mut h);
    // The refused hello is backed off: the next from this address is heard after 0.5 s.
    std::thread::sleep(std::time::Duration::from_millis(600));
    h.get_by_label("Attach").click();
    until(&mut h, "the game's agents", |h| {
        preview(h)
            .history
            .latest()
            .is_some_and(|s| s.agent("seller").is_some())
    });
    assert!(preview(&h).is_attached() && preview(&h).failure().is_none());
    assert_eq!(
        ensemble_editor::recent::load_game_token(config.path()).as_deref(),
        Some("5e5a3e5e5a3e5e5a")
    );
    assert_eq!(
        ensemble_editor::recent::load_game_address(config.path()),
        Some(address)
    );
}

#[test]
fn the_attached_games_blackboards_show_in_the_blackboards_pane() {
    let address = serve("shops", "market", &[]);
    let (_dir, mut h) = attached_to("shops", &address);
    h.get_by_label("▶ Resume").click();
    until(&mut h, "a blackboard", |h| {
        preview(h)
            .history
            .latest()
            .is_some_and(|s| s.boards.iter().any(|b| &*b.script == "baker"))
    });
    h.get_by_label("Blackboards").click();
    settle(&mut h);
    let board = preview(&h)
        .history
        .latest()
        .unwrap()
        .boards
        .iter()
        .find(|b| &*b.script == "baker")
        .unwrap()
        .clone();
    h.get_by_label(&format!("{} · baker", board.location));
    assert!(
        board
            .participants
            .iter()
            .any(|p| &*p.name == "baker" && &*p.role == "keeper")
    );
}

#[test]
fn the_preview_attaches_to_a_running_game_and_follows_its_trace() {
    let (_dir, mut h) = attached();
    h.get_by_label("game paused");
    assert_eq!(preview(&h).history.event_total(), 0);
    // Play resumes the game: its trace arrives, the seller sets off.
    h.get_by_label("▶ Resume").click();
    until(&mut h, "the game running", |h| preview(h).is_playing());
    until(&mut h, "the seller's trace", |h| {
        preview(h).history.events().any(|(_, e)| {
            e.agent.as_deref() == Some("seller") && matches!(e.kind, EventKind::Exit { .. })
        })
    });
    h.get_by_label("game running");
    let seller = |h: &Harness<'static, EditorApp>| {
        preview(h)
            .history
            .latest()
            .unwrap()
            .agent("seller")
            .unwrap()
            .states
            .clone()
    };
    assert!(!seller(&h).is_empty());
    // Pause stops the game; the editor hears it.
    h.get_by_label("⏸ Pause").click();
    until(&mut h, "the game paused", |h| !preview(h).is_playing());
    settle(&mut h);
    h.get_by_label("game paused");
    // The editor shows the pause at once; what the game ran before it heard it may still be
    // on its way (events, the snapshot it answers once paused).
    std::thread::sleep(Duration::from_millis(300));
    settle(&mut h);
    let tick = preview(&h).history.latest().unwrap().tick;
    std::thread::sleep(Duration::from_millis(300));
    settle(&mut h);
    assert_eq!(preview(&h).history.latest().unwrap().tick, tick, "paused");
}

#[test]
fn a_breakpoint_on_a_state_pauses_the_game_and_step_goes_on() {
    let (_dir, mut h) = attached();
    // Toggled on the state's node in the graph: a red dot, listed in the Breakpoints pane.
    find(&mut h, "StandSellTicket");
    h.run_steps(8);
    assert_eq!(h.state().current_machine_name(), Some("StandSellTicket"));
    h.key_press(Key::Escape);
    settle(&mut h);
    select(&mut h, "TalkStateMachine");
    // The node's menu opens on its frame (its title is a label of its own).
    let node = h
        .state()
        .session()
        .unwrap()
        .graph
        .state_rect("TalkStateMachine")
        .unwrap();
    click_with(
        &mut h,
        node.left_top() + egui::vec2(4.0, 4.0),
        egui::PointerButton::Secondary,
    );
    settle(&mut h);
    h.get_by_label("Toggle breakpoint").click();
    settle(&mut h);
    assert_eq!(
        preview(&h).breakpoints,
        [(
            "StandSellTicket".to_string(),
            "TalkStateMachine".to_string()
        )]
    );
    h.get_by_label("Breakpoints").click();
    settle(&mut h);
    h.get_by_label("StandSellTicket/TalkStateMachine");
    // Resumed, the game stops at the tick the recorded trace has the seller enter it.
    h.get_by_label("▶ Resume").click();
    until(&mut h, "the game running", |h| preview(h).is_playing());
    until(&mut h, "the breakpoint", |h| {
        !preview(h).is_playing() && preview(h).game_note.is_some()
    });
    settle(&mut h);
    let note = preview(&h).game_note.clone().unwrap();
    assert!(
        note.starts_with("stopped at the breakpoint StandSellTicket/TalkStateMachine"),
        "{note}"
    );
    h.get_by_label(&note);
    let latest = preview(&h).history.latest().unwrap();
    assert_eq!(latest.tick, 391);
    assert_eq!(
        &*latest.agent("seller").unwrap().states[0].state,
        "TalkStateMachine"
    );
    // Step: one tick more, paused again.
    h.get_by_label("⏭ Step").click();
    until(&mut h, "the step", |h| {
        preview(h).history.latest().is_some_and(|s| s.tick == 392)
    });
    std::thread::sleep(Duration::from_millis(300));
    settle(&mut h);
    assert!(!preview(&h).is_playing());
    assert_eq!(preview(&h).history.latest().unwrap().tick, 392);
}

#[test]
fn a_change_to_the_project_is_pushed_to_the_attached_game() {
    let (dir, mut h) = attached();
    // Changed on disk (the same path as a save): compiled and sent as `reload`.
    let file = dir.path().join("machines/StandSellTicket.machine.ron");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\n// tuned in the game\n")).unwrap();
    until(&mut h, "the game's answer", |h| {
        preview(h).last_reload.is_some()
    });
    let note = preview(&h).last_reload.as_ref().unwrap();
    assert!(note.ok, "{}", note.summary);
    // The game's trace says so too: a reload event, in the timeline.
    until(&mut h, "the reload in the trace", |h| {
        preview(h)
            .history
            .events()
            .any(|(_, e)| matches!(e.kind, EventKind::Reload { .. }))
    });
    // A change that does not compile is refused in the editor; nothing reaches the game.
    std::fs::write(&file, "this is not a machine").unwrap();
    until(&mut h, "the refusal", |h| {
        preview(h).last_reload.as_ref().is_some_and(|n| !n.ok)
    });
    let note = preview(&h).last_reload.as_ref().unwrap();
    assert!(
        note.summary.contains("StandSellTicket.machine.ron"),
        "{}",
        note.summary
    );
    h.get_by_label_contains("save refused");
    assert!(preview(&h).is_attached() && preview(&h).failure().is_none());
}
