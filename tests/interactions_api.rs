//! What a game calls when the player acts or a proxied system reports: the runtime API of smart
//! locations (`Interactions::interact`, `player_input`, `proxy_push`, `notify`,
//! `player_leave`), on the market sample without its scripted events.

use ensemble_runtime::hsm::Scene;
use ensemble_runtime::trace::EventKind;
use ensemble_sim::{self as sim, Interactions, SimWorld};
use ensemble_tests::root;
use std::sync::Arc;

struct Game {
    scene: Scene<SimWorld>,
    interactions: Interactions,
    events: Vec<ensemble_runtime::trace::TraceEvent>,
}

impl Game {
    /// The market with no scripted events: the test plays the player.
    fn market() -> Game {
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(root().join("samples/shops")).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            let mut text = std::fs::read_to_string(entry.path()).unwrap();
            if name == "market.scene.ron" {
                let start = text.find("    events: [").unwrap();
                let end = text[start..].find("    ],\n").unwrap() + start + "    ],\n".len();
                text.replace_range(start..end, "");
            }
            std::fs::write(dir.path().join(&name), text).unwrap();
        }
        let c = ensemble_compiler::compile_path(dir.path()).unwrap();
        let program = Arc::new(c.output.expect("the market compiles").0);
        assert!(program.scene_events.is_empty());
        let id = program.scene_by_name("market").unwrap();
        let world = SimWorld::for_scene(&program, id);
        Game {
            scene: Scene::new_traced(program.clone(), sim::library(), "market", world, 7).unwrap(),
            interactions: Interactions::new(&program, id, 7),
            events: Vec::new(),
        }
    }

    fn ticks(&mut self, n: usize) {
        for _ in 0..n {
            self.scene.tick();
            self.interactions.advance(&mut self.scene);
            self.events.extend(self.scene.take_events());
        }
    }

    fn collect(&mut self) {
        self.events.extend(self.scene.take_events());
    }

    fn added(&self, fact: &str) -> Option<Option<String>> {
        self.events.iter().find_map(|e| match &e.kind {
            EventKind::Add { fact: f, .. } if f == fact => {
                Some(e.agent.as_deref().map(str::to_string))
            }
            _ => None,
        })
    }
}

#[test]
fn the_player_reacts_buys_asks_and_leaves_through_the_api() {
    let mut g = Game::market();
    let program = g.scene.program().clone();
    // Out of reach at the start of the street: no icon to react to.
    let err = g.interactions.interact(&mut g.scene, "bakery").unwrap_err();
    assert!(err.contains("beyond its reach"), "{err}");
    assert!(g.interactions.interact(&mut g.scene, "nowhere").is_err());
    // Walk to the bakery door (28 m at 1.4 m/s).
    g.ticks(25 * 30);
    g.interactions.interact(&mut g.scene, "bakery").unwrap();
    g.collect();
    assert!(g.events.iter().any(|e| e.agent.as_deref() == Some("player")
        && matches!(&e.kind, EventKind::Join { role, .. } if &**role == "buyer")));
    // Reacting again while taking part is refused.
    let err = g.interactions.interact(&mut g.scene, "bakery").unwrap_err();
    assert!(err.contains("already takes part"), "{err}");
    // The shop page reports a sale; the player asks a question.
    let sale = g.interactions.fact(&program, "sale", &["player", "roll"]);
    g.interactions
        .proxy_push(&mut g.scene, "bakery_till", sale)
        .unwrap();
    let asks = g.interactions.fact(&program, "asks", &["player", "bread"]);
    g.interactions.player_input(&mut g.scene, asks).unwrap();
    g.collect();
    assert_eq!(
        g.added("sale(player,roll)"),
        Some(Some("bakery_till".into()))
    );
    assert_eq!(g.added("asks(player,bread)"), Some(Some("player".into())));
    g.ticks(20 * 30);
    assert!(g.events.iter().any(|e| e.agent.as_deref() == Some("player")
        && matches!(&e.kind, EventKind::Done { action, target } if &**action == "take" && target.as_deref() == Some("roll"))));
    assert!(g.events.iter().any(|e| matches!(&e.kind,
        EventKind::Say { text, .. } if text == "Sourdough: forty hours of rising.")));
    // A notification on demand, then the player walks away.
    g.interactions
        .notify(&mut g.scene, "bakery", "FreshBread")
        .unwrap();
    g.collect();
    assert_eq!(g.added("fresh(bread)"), Some(None));
    assert!(
        g.interactions
            .notify(&mut g.scene, "bakery", "Stale")
            .is_err()
    );
    g.interactions.player_leave(&mut g.scene).unwrap();
    g.collect();
    assert!(g.events.iter().any(
        |e| e.agent.as_deref() == Some("player") && matches!(&e.kind, EventKind::Leave { .. })
    ));
    let err = g.interactions.player_leave(&mut g.scene).unwrap_err();
    assert!(err.contains("no script"), "{err}");
    let late = g.interactions.fact(&program, "asks", &["player", "fish"]);
    assert!(g.interactions.player_input(&mut g.scene, late).is_err());
    // Numbers in facts are numbers.
    let f = g
        .interactions
        .fact(&program, "due", &["player", "roll", "1"]);
    assert!(matches!(f.args[2], ensemble_runtime::script::Value::Num(x) if x == 1.0));
}
