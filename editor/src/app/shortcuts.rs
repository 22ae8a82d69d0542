//! The window's keyboard shortcuts: one table, read both by the key handler and by the Help
//! menu, so what Help lists is what the keys do.

use super::action::Action;
use eframe::egui;
use egui::{Key, KeyboardShortcut, Modifiers};

/// When a shortcut applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Always, even while typing in a field.
    Always,
    /// Unless a text field has the keyboard (there the keys edit the text).
    NotTyping,
    /// In the graph of a machine, unless typing.
    InGraph,
}

/// What a shortcut does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Save,
    Find,
    Open,
    Undo,
    Redo,
    Delete,
    SelectNone,
    SelectAll,
    Copy,
    Paste,
    Arrange,
}

impl Command {
    fn action(self) -> Action {
        match self {
            Command::Save => Action::Save,
            Command::Find => Action::Find,
            Command::Open => Action::OpenDialog,
            Command::Undo => Action::Undo,
            Command::Redo => Action::Redo,
            Command::Delete => Action::DeleteSelection,
            Command::SelectNone => Action::Select(false),
            Command::SelectAll => Action::Select(true),
            Command::Copy => Action::Copy,
            Command::Paste => Action::Paste,
            Command::Arrange => Action::Arrange,
        }
    }
}

pub struct Shortcut {
    /// The keys, the first one shown in menus.
    pub keys: &'static [KeyboardShortcut],
    /// What it does, in the menu's words.
    pub what: &'static str,
    pub when: When,
    pub command: Command,
}

const fn keys(modifiers: Modifiers, key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(modifiers, key)
}

const COMMAND_SHIFT: Modifiers = Modifiers {
    shift: true,
    ..Modifiers::COMMAND
};

/// Every shortcut the window handles, in the order they are tried: a longer chord before the
/// shorter one it contains (Ctrl+Shift+Z before Ctrl+Z).
pub const SHORTCUTS: &[Shortcut] = &[
    Shortcut {
        keys: &[keys(Modifiers::COMMAND, Key::S)],
        what: "Save all",
        when: When::Always,
        command: Command::Save,
    },
    Shortcut {
        keys: &[keys(Modifiers::COMMAND, Key::F)],
        what: "Find a state, rule or asset",
        when: When::Always,
        command: Command::Find,
    },
    Shortcut {
        keys: &[keys(Modifiers::COMMAND, Key::O)],
        what: "Open a project",
        when: When::Always,
        command: Command::Open,
    },
    Shortcut {
        keys: &[
            keys(COMMAND_SHIFT, Key::Z),
            keys(Modifiers::COMMAND, Key::Y),
        ],
        what: "Redo",
        when: When::NotTyping,
        command: Command::Redo,
    },
    Shortcut {
        keys: &[keys(Modifiers::COMMAND, Key::Z)],
        what: "Undo",
        when: When::NotTyping,
        command: Command::Undo,
    },
    Shortcut {
        keys: &[keys(Modifiers::NONE, Key::Delete)],
        what: "Delete the selected states",
        when: When::InGraph,
        command: Command::Delete,
    },
    Shortcut {
        keys: &[keys(Modifiers::NONE, Key::Escape)],
        what: "Select nothing",
        when: When::InGraph,
        command: Command::SelectNone,
    },
    Shortcut {
        keys: &[keys(Modifiers::COMMAND, Key::A)],
        what: "Select every state",
        when: When::InGraph,
        command: Command::SelectAll,
    },
    Shortcut {
        keys: &[keys(Modifiers::COMMAND, Key::C)],
        what: "Copy the selected states",
        when: When::InGraph,
        command: Command::Copy,
    },
    Shortcut {
        keys: &[keys(Modifiers::COMMAND, Key::V)],
        what: "Paste states",
        when: When::InGraph,
        command: Command::Paste,
    },
    Shortcut {
        keys: &[keys(COMMAND_SHIFT, Key::L)],
        what: "Arrange the states in layers that follow the flow",
        when: When::InGraph,
        command: Command::Arrange,
    },
];

/// The actions the keys pressed this frame ask for. `typing`: a text field has the keyboard;
/// `in_graph`: a machine's graph is shown.
pub fn pressed(input: &mut egui::InputState, typing: bool, in_graph: bool) -> Vec<Action> {
    let mut actions = Vec::new();
    for s in SHORTCUTS {
        let applies = match s.when {
            When::Always => true,
            When::NotTyping => !typing,
            When::InGraph => !typing && in_graph,
        };
        if !applies {
            continue;
        }
        // The platform turns Ctrl+C and Ctrl+V into copy and paste events.
        let mut hit = match s.command {
            Command::Copy => input.events.iter().any(|e| matches!(e, egui::Event::Copy)),
            Command::Paste => input
                .events
                .iter()
                .any(|e| matches!(e, egui::Event::Paste(_))),
            _ => false,
        };
        for k in s.keys {
            hit |= input.consume_shortcut(k);
        }
        if hit {
            actions.push(s.command.action());
        }
    }
    actions
}

/// The keys of `command` as menus show them (`Ctrl+S`; `⌘S` on a Mac).
pub fn keys_for(ctx: &egui::Context, command: Command) -> String {
    SHORTCUTS
        .iter()
        .find(|s| s.command == command)
        .and_then(|s| s.keys.first())
        .map(|k| ctx.format_shortcut(k))
        .unwrap_or_default()
}

/// The Help menu's list: every shortcut with all its keys.
pub fn help(ui: &mut egui::Ui) {
    egui::Grid::new("shortcuts")
        .num_columns(2)
        .spacing([18.0, 4.0])
        .show(ui, |ui| {
            for s in SHORTCUTS {
                let keys: Vec<String> =
                    s.keys.iter().map(|k| ui.ctx().format_shortcut(k)).collect();
                ui.label(egui::RichText::new(keys.join(" or ")).monospace());
                let when = match s.when {
                    When::Always | When::NotTyping => "",
                    When::InGraph => " (in a machine's graph)",
                };
                ui.label(format!("{}{when}", s.what));
                ui.end_row();
            }
        });
}
