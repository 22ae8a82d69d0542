//! The rule table editor for interaction scripts (Skubch): the Excel contract's grid, one rule
//! per row in precedence order, cells checked with the compiler's cell parser as the designer
//! types, compiler diagnostics on the cells they name, the script keys and roles, and import
//! from / export to Excel.
//!
//! The document is the native asset, [`ScriptAsset`]: the same value `*.script.ron` holds and a
//! workbook imports into, so what the table shows is exactly what is saved and exported.
//!
//! - [`columns`]: the fourteen columns, their fields and syntax.
//! - [`check`]: per-keystroke checks of cells, roles and keys.
//! - [`locate`]: which cell a compiler diagnostic names (RON spans or workbook cells).
//! - [`highlight`]: colouring cell syntax.
//! - `grid`, `roles`: drawing; [`excel`]: import, export and the file dialog.

pub mod check;
pub use crate::workbook::columns;
pub mod excel;
mod grid;
pub mod highlight;
pub mod locate;
pub mod panel;
mod roles;
mod table;

pub use columns::Column;
pub use excel::{FilePicker, FileRequest};
pub(crate) use table::RowOp;
use table::Status;
pub use table::{RuleTable, RuleTarget, Selection};

use crate::marks::severity_glyph;
use crate::panel::{PanelCx, Request};
use crate::reach::Asked;
use crate::theme;
use check::CheckCx;
use eframe::egui;
use egui::{Key, Modifiers, RichText, Ui, vec2};
use ensemble_compiler::diag::{Diagnostic, Severity};
use ensemble_compiler::formats::scripts::{RuleAsset, ScriptAsset};
use excel::Message;
use locate::{Markers, Place};
use std::path::Path;

impl RuleTarget {
    pub(crate) fn row(self) -> Option<usize> {
        match self {
            RuleTarget::Rule(r) => Some(r),
            RuleTarget::Cell(r, _) => Some(r),
            _ => None,
        }
    }

    pub(crate) fn cell(self) -> Option<(usize, Column)> {
        match self {
            RuleTarget::Cell(r, c) => Some((r, c)),
            _ => None,
        }
    }

    /// Find by name, as Ctrl+F does: a rule's label, else the first rule of a state, else a
    /// role (case-insensitive).
    pub fn find(script: &ScriptAsset, name: &str) -> Option<RuleTarget> {
        let name = name.trim();
        let eq = |s: &str| s.trim().eq_ignore_ascii_case(name);
        if let Some(i) = script.rules.iter().position(|r| eq(&r.rule)) {
            return Some(RuleTarget::Rule(i));
        }
        if let Some(i) = script.rules.iter().position(|r| eq(&r.state)) {
            return Some(RuleTarget::Cell(i, Column::State));
        }
        script
            .roles
            .iter()
            .position(|r| eq(&r.name))
            .map(RuleTarget::Role)
    }

    /// Where a compiler diagnostic about this document points.
    pub fn of_diagnostic(d: &Diagnostic, cx: &PanelCx<'_>) -> RuleTarget {
        let tree = ensemble_compiler::formats::locate::parse(cx.text());
        match locate::place_of(d, tree.as_ref()) {
            Place::Cell(r, c) => RuleTarget::Cell(r, c),
            Place::Row(r) => RuleTarget::Rule(r),
            Place::Role(r, _) => RuleTarget::Role(r),
            Place::Key(_) | Place::Script => RuleTarget::Script,
        }
    }
}

impl Default for RuleTable {
    fn default() -> Self {
        Self::new()
    }
}

impl RuleTable {
    /// A table that asks for files with the system's dialogs.
    pub fn new() -> Self {
        Self::with_picker(excel::native_picker())
    }

    /// A table that asks `picker` for files (tests; a host with its own dialogs).
    pub fn with_picker(picker: FilePicker) -> Self {
        RuleTable {
            widths: Column::ALL.map(Column::default_width),
            selection: Selection::default(),
            reveal: None,
            focus: None,
            open_script: None,
            grid_focus: false,
            focus_role: None,
            markers: Markers::default(),
            checks: Default::default(),
            row_heights: Vec::new(),
            typed: None,
            picker,
            status: None,
            unreached: Default::default(),
        }
    }

    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// Scrolls to and selects `target` on the next frame.
    pub fn reveal(&mut self, target: RuleTarget) {
        match target {
            RuleTarget::Rule(r) => {
                self.selection = Selection {
                    row: Some(r),
                    column: None,
                }
            }
            RuleTarget::Role(i) => {
                self.open_script = Some(true);
                self.focus_role = Some(i);
            }
            RuleTarget::Script => self.open_script = Some(true),
            RuleTarget::Cell(..) => {}
        }
        self.reveal = Some(target);
    }

    /// The status line's text (the last import or export report), if any.
    pub fn status(&self) -> Option<&str> {
        self.status.as_ref().map(|s| s.text.as_str())
    }

    /// Draws the panel; edits `value` in place and returns whether it changed it.
    pub fn ui(&mut self, ui: &mut Ui, value: &mut ScriptAsset, cx: &PanelCx<'_>) -> bool {
        self.markers.update(cx, locate::place_of);
        self.checks.sync(&value.roles, &value.params);
        let mut ops = Vec::new();
        let mut changed = false;
        self.keyboard(ui, value.rules.len(), &mut ops);
        changed |= self.toolbar(ui, value, &mut ops);
        self.status_line(ui);

        let open = self.open_script.take();
        egui::CollapsingHeader::new(RichText::new("Script and roles").strong())
            .id_salt("rules-script-roles")
            .default_open(true)
            .open(open)
            .show(ui, |ui| {
                let row = ui.horizontal_top(|ui| {
                    let keys = ui.vertical(|ui| changed |= roles::keys(ui, value, &self.markers));
                    ui.add_space(36.0);
                    let focus = self.focus_role.take();
                    ui.vertical(|ui| changed |= roles::roles(ui, value, &self.markers, focus));
                    keys.response.rect.right() + 18.0
                });
                let x = row.inner;
                let r = row.response.rect;
                ui.painter().line_segment(
                    [egui::pos2(x, r.top()), egui::pos2(x, r.bottom())],
                    egui::Stroke::new(1.0, theme::BORDER),
                );
            });
        ui.add_space(4.0);

        crate::marks::docked(
            egui::Panel::bottom(ui.id().with("rules-inspector")),
            150.0,
            90.0,
        )
        .show(ui, |ui| changed |= self.inspector(ui, value));

        changed |= self.grid(ui, value, &mut ops);
        for op in &ops {
            if let RowOp::Reach(i) = *op
                && let Some(r) = value.rules.get(i)
            {
                cx.requests
                    .borrow_mut()
                    .push(Request::Reach(Asked::Rule(rule_spec(&value.name, r, i))));
            }
        }
        changed |= self.apply(ops, &mut value.rules);
        changed
    }

    fn keyboard(&mut self, ui: &mut Ui, len: usize, ops: &mut Vec<RowOp>) {
        let Some(row) = self.selection.row.filter(|&r| r < len) else {
            return;
        };
        // Only while the grid has the keyboard (a cell last frame) or nothing has it (a row
        // picked by its number): typing elsewhere, say in a role's name, moves no rule.
        let nothing_focused = ui.memory(|m| m.focused().is_none());
        if !(self.grid_focus || nothing_focused) {
            return;
        }
        // Consumed before the cells are drawn, so a focused cell does not move its cursor too.
        let (up, down) = ui.input_mut(|i| {
            (
                i.consume_key(Modifiers::ALT, Key::ArrowUp),
                i.consume_key(Modifiers::ALT, Key::ArrowDown),
            )
        });
        if up && row > 0 {
            ops.push(RowOp::Move {
                from: row,
                to: row - 1,
            });
        }
        if down && row + 1 < len {
            ops.push(RowOp::Move {
                from: row,
                to: row + 1,
            });
        }
        if nothing_focused
            && self.selection.column.is_none()
            && ui.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Delete))
        {
            ops.push(RowOp::Delete(row));
        }
    }

    fn toolbar(&mut self, ui: &mut Ui, value: &mut ScriptAsset, ops: &mut Vec<RowOp>) -> bool {
        let mut changed = false;
        let len = value.rules.len();
        let row = self.selection.row.filter(|&r| r < len);
        ui.horizontal(|ui| {
            if ui
                .button("+ Rule")
                .on_hover_text("Add a rule after the selected one (at the end if none is selected)")
                .clicked()
            {
                ops.push(RowOp::Insert(row.map_or(len, |r| r + 1)));
            }
            let on_row = |ui: &mut Ui, text: &str, tip: &str, enabled: bool| {
                ui.add_enabled(enabled, egui::Button::new(text))
                    .on_hover_text(tip)
                    .on_disabled_hover_text("Select a rule first (click its number)")
                    .clicked()
            };
            if let Some(r) = row {
                if on_row(ui, "Duplicate", "Copy the selected rule below it", true) {
                    ops.push(RowOp::Duplicate(r));
                }
                if on_row(ui, "Delete", "Delete the selected rule (Delete)", true) {
                    ops.push(RowOp::Delete(r));
                }
                if on_row(
                    ui,
                    "⏶ Up",
                    "Move up: fire before the rule above (Alt+Up)",
                    r > 0,
                ) {
                    ops.push(RowOp::Move { from: r, to: r - 1 });
                }
                if on_row(
                    ui,
                    "⏷ Down",
                    "Move down: fire after the rule below (Alt+Down)",
                    r + 1 < len,
                ) {
                    ops.push(RowOp::Move { from: r, to: r + 1 });
                }
            } else {
                for (text, tip) in [
                    ("Duplicate", ""),
                    ("Delete", ""),
                    ("⏶ Up", ""),
                    ("⏷ Down", ""),
                ] {
                    on_row(ui, text, tip, false);
                }
            }
            ui.separator();
            self.problem_summary(ui, value);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .button("Export to .xlsx…")
                    .on_hover_text(
                        "Write this script as an Excel workbook (sheets Script, Roles, Rules)",
                    )
                    .clicked()
                {
                    let request = FileRequest::Export {
                        suggested: excel::suggested_name(value),
                    };
                    changed |= self.ask(request, value);
                }
                if ui
                    .button("Import from Excel…")
                    .on_hover_text("Replace this script with a workbook's (undo brings it back)")
                    .clicked()
                {
                    changed |= self.ask(FileRequest::Import, value);
                }
            });
        });
        if let Some((typed, request)) = self.typed.as_mut()
            && let Some(answer) = typed.show(ui.ctx())
        {
            let request = request.clone();
            self.typed = None;
            if let Some(path) = answer {
                changed |= self.answered(&request, &path, value);
            }
        }
        changed
    }

    /// Asks for the file of `request`: the picker's dialog, or a typed path when it has none.
    fn ask(&mut self, request: FileRequest, value: &mut ScriptAsset) -> bool {
        match (self.picker)(&request) {
            crate::file_dialog::Answer::Path(path) => self.answered(&request, &path, value),
            crate::file_dialog::Answer::Cancelled => false,
            crate::file_dialog::Answer::NoDialog => {
                self.typed = Some((crate::file_dialog::Typed::new(request.ask(), None), request));
                false
            }
        }
    }

    fn answered(&mut self, request: &FileRequest, path: &Path, value: &mut ScriptAsset) -> bool {
        match request {
            FileRequest::Export { .. } => {
                self.export_to(path, value);
                false
            }
            FileRequest::Import => self.import_from(path, value),
        }
    }

    /// Replaces `value` with the workbook at `path`. Returns whether it did; either way the
    /// status line says what happened.
    pub fn import_from(&mut self, path: &Path, value: &mut ScriptAsset) -> bool {
        let name = path.display();
        match excel::import(path) {
            Ok((script, warnings)) => {
                let text = format!(
                    "Imported {} rules and {} roles from {name}{}",
                    script.rules.len(),
                    script.roles.len(),
                    match warnings.len() {
                        0 => String::new(),
                        n => format!(" ({n} warnings)"),
                    }
                );
                self.status = Some(Status {
                    severity: if warnings.is_empty() {
                        Severity::Info
                    } else {
                        Severity::Warning
                    },
                    text,
                    details: warnings,
                });
                self.selection = Selection::default();
                self.row_heights.clear();
                let changed = *value != script;
                *value = script;
                changed
            }
            Err(problems) => {
                self.status = Some(Status {
                    severity: Severity::Error,
                    text: format!("Cannot import {name}: nothing was changed"),
                    details: problems,
                });
                false
            }
        }
    }

    /// Writes `value` as a workbook at `path` (atomically); the status line says how it went.
    pub fn export_to(&mut self, path: &Path, value: &ScriptAsset) {
        self.status = Some(match excel::export(value, path) {
            Ok(()) => Status {
                severity: Severity::Info,
                text: format!("Exported {} rules to {}", value.rules.len(), path.display()),
                details: Vec::new(),
            },
            Err(e) => Status {
                severity: Severity::Error,
                text: format!("Cannot export to {}", path.display()),
                details: vec![Message {
                    severity: Severity::Error,
                    text: e,
                    notes: Vec::new(),
                }],
            },
        });
    }

    fn status_line(&mut self, ui: &mut Ui) {
        let Some(status) = &self.status else { return };
        let mut close = false;
        let color = match status.severity {
            Severity::Info => theme::OK,
            s => theme::severity_color(s),
        };
        egui::Frame::new()
            .fill(theme::BOX_FILL)
            .corner_radius(4.0)
            .inner_margin(egui::Margin::symmetric(10, 6))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal(|ui| {
                    ui.label(RichText::new(&status.text).color(color));
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        close = ui.small_button("🗙").on_hover_text("Dismiss").clicked();
                    });
                });
                for m in &status.details {
                    let r = ui.label(
                        RichText::new(format!("{} {}", severity_glyph(m.severity), m.text))
                            .color(theme::severity_color(m.severity)),
                    );
                    if !m.notes.is_empty() {
                        r.on_hover_text(m.notes.join("\n"));
                    }
                }
            });
        if close {
            self.status = None;
        }
    }

    /// Places with problems (own checks, then the compiler's), in reading order.
    fn problems(&mut self, value: &ScriptAsset) -> Vec<(Place, Severity)> {
        let check = CheckCx::of(value);
        let mut out = Vec::new();
        for (i, r) in value.rules.iter().enumerate() {
            for c in Column::ALL {
                let own = self.checks.get(c, c.get(r), &check).map(|p| p.severity);
                let worst = [own, self.markers.worst(Place::Cell(i, c))]
                    .into_iter()
                    .flatten()
                    .filter(|s| *s != Severity::Info)
                    .min();
                if let Some(s) = worst {
                    out.push((Place::Cell(i, c), s));
                }
            }
            if let Some(s) = self.markers.worst(Place::Row(i)) {
                out.push((Place::Row(i), s));
            }
        }
        out.sort_by_key(|(p, _)| match p {
            Place::Cell(r, c) => (*r, c.index() + 1),
            Place::Row(r) => (*r, 0),
            _ => (usize::MAX, 0),
        });
        let serious = |p: &Option<check::Problem>| {
            p.as_ref()
                .map(|p| p.severity)
                .filter(|s| *s != Severity::Info)
        };
        for i in 0..value.roles.len() {
            let p = check::check_role(i, &value.roles, &value.params);
            let fields = [
                (locate::RoleField::Name, &p.name),
                (locate::RoleField::Min, &p.min),
                (locate::RoleField::Max, &p.max),
                (locate::RoleField::Flags, &p.flags),
            ];
            for (f, problem) in fields {
                out.extend(serious(problem).map(|s| (Place::Role(i, f), s)));
            }
        }
        let k = check::check_keys(value);
        for (key, problem) in [
            (locate::Key::Name, &k.name),
            (locate::Key::InitialState, &k.initial_state),
            (locate::Key::Supplies, &k.supplies),
        ] {
            out.extend(serious(problem).map(|s| (Place::Key(key), s)));
        }
        out.extend(
            k.params
                .iter()
                .map(|(i, p)| (Place::Key(locate::Key::Param(*i)), p.severity)),
        );
        out.extend(
            self.markers
                .all()
                .filter(|(p, _)| !matches!(p, Place::Cell(..) | Place::Row(_)))
                .map(|(p, m)| (p, m.severity)),
        );
        out
    }

    /// "2 errors, 1 warning — next ›": counts and a button that steps through them.
    fn problem_summary(&mut self, ui: &mut Ui, value: &ScriptAsset) {
        let problems = self.problems(value);
        let errors = problems.iter().filter(|p| p.1 == Severity::Error).count();
        let warnings = problems.iter().filter(|p| p.1 == Severity::Warning).count();
        if errors + warnings == 0 {
            ui.label(RichText::new("✔ no problems").color(theme::OK));
            return;
        }
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        let text = match (errors, warnings) {
            (0, w) => plural(w, "warning"),
            (e, 0) => plural(e, "error"),
            (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
        };
        let color = if errors > 0 {
            theme::ERROR
        } else {
            theme::WARNING
        };
        ui.label(RichText::new(text).color(color));
        if ui
            .small_button("next ›")
            .on_hover_text("Go to the next cell with a problem")
            .clicked()
        {
            let here = (
                self.selection.row.unwrap_or(0),
                self.selection.column.map_or(0, |c| c.index() + 1),
            );
            let key = |p: &Place| match p {
                Place::Cell(r, c) => (*r, c.index() + 1),
                Place::Row(r) => (*r, 0),
                _ => (usize::MAX, 0),
            };
            let started = self.selection.row.is_some();
            let next = problems
                .iter()
                .find(|(p, _)| {
                    if started {
                        key(p) > here
                    } else {
                        key(p) >= here
                    }
                })
                .or(problems.first());
            if let Some((p, _)) = next {
                self.reveal(match *p {
                    Place::Cell(r, c) => RuleTarget::Cell(r, c),
                    Place::Row(r) => RuleTarget::Rule(r),
                    Place::Role(r, _) => RuleTarget::Role(r),
                    _ => RuleTarget::Script,
                });
            }
        }
    }

    fn grid(&mut self, ui: &mut Ui, value: &mut ScriptAsset, ops: &mut Vec<RowOp>) -> bool {
        let (header_rect, _) = ui.allocate_exact_size(
            vec2(ui.available_width(), grid::HEADER_HEIGHT),
            egui::Sense::hover(),
        );
        let ScriptAsset {
            rules,
            roles,
            params,
            ..
        } = value;
        let check = CheckCx {
            roles: roles.iter().map(|r| r.name.trim()).collect(),
            params,
        };
        let mut changed = false;
        let output = egui::ScrollArea::both()
            .id_salt("rules-grid")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                changed |= grid::rows(ui, self, rules, &check, ops);
                ui.spacing_mut().item_spacing = vec2(8.0, 6.0);
                ui.add_space(6.0);
                ui.horizontal(|ui| {
                    ui.add_space(grid::ROW_HEADER_WIDTH);
                    if rules.is_empty() {
                        ui.label(
                            RichText::new("No rules yet: add one, or import a workbook.")
                                .color(theme::TEXT_WEAK),
                        );
                    }
                    if ui.button("+ Add a rule").clicked() {
                        ops.push(RowOp::Insert(rules.len()));
                    }
                });
            });
        grid::header(ui, self, header_rect, output.state.offset.x);
        changed
    }

    /// The selected cell at full size, its problems, and what the column expects.
    fn inspector(&mut self, ui: &mut Ui, value: &mut ScriptAsset) -> bool {
        let Some(row) = self.selection.row.filter(|&r| r < value.rules.len()) else {
            ui.label(RichText::new("No rule selected").color(theme::TEXT));
            ui.label(
                RichText::new(
                    "Click a cell to edit it here at full size, or a rule's number to select the rule. \
                     Rows are precedence: the first rule whose precondition holds fires. \
                     Alt+Up/Down moves the selected rule; drag its number to reorder.",
                )
                .color(theme::TEXT_WEAK),
            );
            return false;
        };
        let check = CheckCx::of(value);
        let rule: &RuleAsset = &value.rules[row];
        let title = format!(
            "Rule {}{} · state {} · role {}",
            row + 1,
            if rule.rule.trim().is_empty() {
                String::new()
            } else {
                format!(" ({})", rule.rule.trim())
            },
            if rule.state.trim().is_empty() {
                "any"
            } else {
                rule.state.trim()
            },
            if rule.role.trim().is_empty() {
                "any"
            } else {
                rule.role.trim()
            },
        );
        let Some(column) = self.selection.column else {
            ui.label(RichText::new(title).strong().color(theme::TEXT));
            let mut any = false;
            for (place, m) in locate::of_rule(&self.markers, row) {
                any = true;
                let at = match place {
                    Place::Cell(_, c) => format!("{}: ", c.header()),
                    _ => String::new(),
                };
                ui.label(
                    RichText::new(format!(
                        "{} {at}{}: {}",
                        severity_glyph(m.severity),
                        m.code,
                        m.message
                    ))
                    .color(theme::severity_color(m.severity)),
                );
            }
            if !any {
                ui.label(
                    RichText::new("The compiler reports nothing on this rule.")
                        .color(theme::TEXT_WEAK),
                );
            }
            return false;
        };
        let problem = self.checks.get(column, column.get(rule), &check);
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(format!("{title} · {}", column.header()))
                    .strong()
                    .color(theme::TEXT),
            );
        });
        let error = problem
            .as_ref()
            .filter(|p| p.severity == Severity::Error)
            .and_then(|p| p.range.clone());
        let mut layouter = |ui: &Ui, buf: &dyn egui::TextBuffer, wrap: f32| {
            let job = grid::layout_cell(buf.as_str(), column, error.clone(), wrap);
            ui.fonts_mut(|f| f.layout_job(job))
        };
        let text = column.get_mut(&mut value.rules[row]);
        let r = ui.add(
            egui::TextEdit::multiline(text)
                .id(ui.id().with(("inspector", row, column)))
                .desired_width(f32::INFINITY)
                .desired_rows(2)
                .layouter(&mut layouter),
        );
        crate::marks::name_widget(ui, &r, format!("{} (full size)", column.header()));
        let changed = r.changed();
        if let Some(p) = &problem {
            ui.label(
                RichText::new(format!(
                    "{} {}",
                    severity_glyph(p.severity),
                    p.located(text)
                ))
                .color(theme::severity_color(p.severity)),
            );
        }
        let own_error = problem
            .as_ref()
            .is_some_and(|p| p.severity == Severity::Error);
        for m in self
            .markers
            .at(Place::Cell(row, column))
            .iter()
            .filter(|m| !(own_error && m.code == "syntax"))
        {
            ui.label(
                RichText::new(format!(
                    "{} {}: {}",
                    severity_glyph(m.severity),
                    m.code,
                    m.message
                ))
                .color(theme::severity_color(m.severity)),
            );
            for n in &m.notes {
                ui.label(RichText::new(format!("   note: {n}")).color(theme::ACCENT));
            }
        }
        ui.label(RichText::new(column.help()).color(theme::TEXT_WEAK));
        changed
    }

    fn apply(&mut self, ops: Vec<RowOp>, rules: &mut Vec<RuleAsset>) -> bool {
        let mut changed = false;
        for op in ops {
            let len = rules.len();
            match op {
                RowOp::Insert(at) => {
                    let at = at.min(len);
                    // A new rule continues the state and role of the rule before it.
                    let near = at.checked_sub(1).and_then(|p| rules.get(p));
                    let rule = RuleAsset {
                        state: near.map(|r| r.state.clone()).unwrap_or_default(),
                        role: near.map(|r| r.role.clone()).unwrap_or_default(),
                        ..RuleAsset::default()
                    };
                    rules.insert(at, rule);
                    self.row_heights.insert(at.min(self.row_heights.len()), 0.0);
                    self.selection = Selection {
                        row: Some(at),
                        column: Some(Column::Precondition),
                    };
                    self.focus = Some((at, Column::Precondition));
                    self.reveal = Some(RuleTarget::Cell(at, Column::Precondition));
                }
                RowOp::Duplicate(i) if i < len => {
                    rules.insert(i + 1, rules[i].clone());
                    self.selection = Selection {
                        row: Some(i + 1),
                        column: None,
                    };
                    self.reveal = Some(RuleTarget::Rule(i + 1));
                }
                RowOp::Delete(i) if i < len => {
                    rules.remove(i);
                    self.selection = Selection {
                        row: (!rules.is_empty()).then(|| i.min(rules.len() - 1)),
                        column: None,
                    };
                }
                RowOp::Move { from, to } if from < len && to < len && from != to => {
                    let rule = rules.remove(from);
                    rules.insert(to, rule);
                    let column = self.selection.column;
                    self.selection = Selection {
                        row: Some(to),
                        column,
                    };
                    if let Some(c) = column {
                        self.focus = Some((to, c));
                    }
                    self.reveal = Some(match column {
                        Some(c) => RuleTarget::Cell(to, c),
                        None => RuleTarget::Rule(to),
                    });
                }
                _ => continue,
            }
            changed = true;
        }
        if changed {
            // Heights follow the rows only roughly after a change; the next frame measures them.
            self.row_heights.clear();
        }
        changed
    }
}

/// How a search names rule `r` (row `i`) of `script`: `SCRIPT/STATE/RULE`, or `SCRIPT/RULE`
/// when the row names no state. A rule without a name is named by its row, as the compiler
/// names it.
fn rule_spec(script: &str, r: &RuleAsset, i: usize) -> String {
    let rule = match r.rule.trim() {
        "" => (i + 1).to_string(),
        name => name.to_string(),
    };
    match r.state.trim() {
        "" => format!("{script}/{rule}"),
        state => format!("{script}/{state}/{rule}"),
    }
}
