//! The runtime's conversation example (runtime/examples/conversation.rs) on the innkeeper as
//! the compiler builds it today: the chat box shows every line the player typed and the
//! innkeeper's answer to each, with the ids its voice-over is found under. The other examples
//! run in the runtime's own tests (runtime/tests/examples.rs), on programs committed beside
//! them.

#[allow(dead_code)]
#[path = "../runtime/examples/conversation.rs"]
mod conversation;

use ensemble_tests::{ensemble, repo_path};

#[test]
fn the_conversation_example_shows_each_line_and_its_answer() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_string_lossy().into_owned();
    let built = ensemble(&["build", &repo_path("samples/innkeeper"), "-o", &dir]);
    assert_eq!(built.code, 0, "{}{}", built.stdout, built.stderr);
    let typed = ["hi there", "i need a new sword", "thanks, bye"];
    let chat_box = conversation::conversation(&out.path().join("innkeeper.ensb"), &typed).unwrap();
    for line in typed {
        let at = chat_box
            .iter()
            .position(|l| *l == format!("you:       {line}"))
            .unwrap_or_else(|| panic!("`{line}` not shown: {chat_box:#?}"));
        let answer = chat_box.get(at + 1).map_or("", String::as_str);
        assert!(answer.starts_with("innkeeper: "), "{chat_box:#?}");
        assert!(answer.contains("(voice: "), "{chat_box:#?}");
    }
    assert!(
        chat_box.iter().any(|l| l.contains("sword")),
        "{chat_box:#?}"
    );
}
