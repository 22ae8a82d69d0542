//! The editor's look: a calm dark slate theme with one accent colour. Colours live here so the
//! panels and the diagram agree, and severity colours mean the same thing everywhere.

use eframe::egui;
use egui::{Color32, CornerRadius, FontFamily, FontId, Stroke, TextStyle, Visuals};
use ensemble_compiler::diag::Severity;

/// Canvas behind the diagram.
pub const CANVAS: Color32 = Color32::from_rgb(22, 25, 31);
/// Side panels and bars.
pub const PANEL: Color32 = Color32::from_rgb(29, 33, 41);
pub const BORDER: Color32 = Color32::from_rgb(46, 52, 63);
pub const BOX_FILL: Color32 = Color32::from_rgb(38, 43, 54);
pub const BOX_FILL_HOVER: Color32 = Color32::from_rgb(46, 52, 65);
pub const BOX_STROKE: Color32 = Color32::from_rgb(74, 84, 103);
pub const TEXT: Color32 = Color32::from_rgb(221, 226, 235);
pub const TEXT_WEAK: Color32 = Color32::from_rgb(140, 150, 168);
pub const ACCENT: Color32 = Color32::from_rgb(108, 182, 217);
pub const EDGE: Color32 = Color32::from_rgb(122, 134, 154);
pub const ERROR: Color32 = Color32::from_rgb(232, 102, 112);
pub const WARNING: Color32 = Color32::from_rgb(226, 166, 90);
pub const INFO: Color32 = Color32::from_rgb(120, 160, 230);
pub const OK: Color32 = Color32::from_rgb(128, 192, 144);
/// The canvas grid, barely there.
pub const GRID: Color32 = Color32::from_rgb(30, 34, 42);
/// Speech states (dialog, one-off, say): their accent and their box.
pub const SPEECH: Color32 = Color32::from_rgb(190, 160, 235);
pub const SPEECH_FILL: Color32 = Color32::from_rgb(44, 40, 62);
/// Conversation plumbing (`Set`, `Listen`, ...).
pub const SPECIAL: Color32 = Color32::from_rgb(214, 190, 120);
pub const SPECIAL_FILL: Color32 = Color32::from_rgb(48, 45, 38);
/// States that host a child machine.
pub const HOST_FILL: Color32 = Color32::from_rgb(34, 50, 60);
/// `Finish` and `Fail`.
pub const TERMINAL_FILL: Color32 = Color32::from_rgb(32, 36, 44);
/// The box standing for a transition target that names no state.
pub const MISSING_FILL: Color32 = Color32::from_rgb(58, 34, 38);

pub fn severity_color(severity: Severity) -> Color32 {
    match severity {
        Severity::Error => ERROR,
        Severity::Warning => WARNING,
        Severity::Info => INFO,
    }
}

/// Small caps-like section titles in the side panels.
/// Diagonal hatching over `rect` (lines `spacing` apart): what no content test reached.
pub fn hatch(painter: &egui::Painter, rect: egui::Rect, stroke: Stroke, spacing: f32) {
    let clip = painter.with_clip_rect(rect.intersect(painter.clip_rect()));
    let mut x = rect.left() - rect.height();
    while x < rect.right() {
        clip.line_segment(
            [
                egui::pos2(x, rect.bottom()),
                egui::pos2(x + rect.height(), rect.top()),
            ],
            stroke,
        );
        x += spacing.max(1.0);
    }
}

pub fn section_font() -> FontId {
    FontId::new(11.5, FontFamily::Proportional)
}

/// Installs the theme; dark whatever the system prefers, since the colours above assume it.
pub fn apply(ctx: &egui::Context) {
    ctx.set_theme(egui::ThemePreference::Dark);
    ctx.style_mut_of(egui::Theme::Dark, |style| {
        style.visuals = visuals();
        style.spacing.item_spacing = egui::vec2(8.0, 6.0);
        style.spacing.button_padding = egui::vec2(10.0, 4.0);
        style
            .text_styles
            .insert(TextStyle::Body, FontId::new(14.0, FontFamily::Proportional));
        style.text_styles.insert(
            TextStyle::Button,
            FontId::new(14.0, FontFamily::Proportional),
        );
        style.text_styles.insert(
            TextStyle::Heading,
            FontId::new(17.0, FontFamily::Proportional),
        );
        style.text_styles.insert(
            TextStyle::Small,
            FontId::new(11.5, FontFamily::Proportional),
        );
        style.text_styles.insert(
            TextStyle::Monospace,
            FontId::new(12.5, FontFamily::Monospace),
        );
    });
}

fn visuals() -> Visuals {
    let mut v = Visuals::dark();
    let radius = CornerRadius::same(5);
    v.panel_fill = PANEL;
    v.window_fill = PANEL;
    v.extreme_bg_color = CANVAS;
    v.faint_bg_color = Color32::from_rgb(34, 38, 47);
    v.code_bg_color = BOX_FILL;
    v.window_stroke = Stroke::new(1.0, BORDER);
    v.warn_fg_color = WARNING;
    v.error_fg_color = ERROR;
    v.hyperlink_color = ACCENT;
    v.override_text_color = None;
    v.selection.bg_fill = Color32::from_rgb(44, 78, 98);
    v.selection.stroke = Stroke::new(1.0, ACCENT);

    let w = &mut v.widgets;
    w.noninteractive.bg_fill = PANEL;
    w.noninteractive.weak_bg_fill = PANEL;
    w.noninteractive.bg_stroke = Stroke::new(1.0, BORDER);
    w.noninteractive.fg_stroke = Stroke::new(1.0, TEXT);
    w.inactive.weak_bg_fill = Color32::from_rgb(44, 50, 62);
    w.inactive.bg_fill = Color32::from_rgb(44, 50, 62);
    w.inactive.fg_stroke = Stroke::new(1.0, TEXT);
    w.hovered.weak_bg_fill = Color32::from_rgb(54, 62, 77);
    w.hovered.bg_fill = Color32::from_rgb(54, 62, 77);
    w.hovered.bg_stroke = Stroke::new(1.0, BOX_STROKE);
    w.hovered.fg_stroke = Stroke::new(1.5, Color32::WHITE);
    w.active.weak_bg_fill = Color32::from_rgb(60, 70, 88);
    w.active.bg_fill = Color32::from_rgb(60, 70, 88);
    w.active.fg_stroke = Stroke::new(1.5, Color32::WHITE);
    for visuals in [
        &mut w.noninteractive,
        &mut w.inactive,
        &mut w.hovered,
        &mut w.active,
        &mut w.open,
    ] {
        visuals.corner_radius = radius;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The non-ASCII characters inside the string literals of `source`, outside comments.
    fn literal_chars(source: &str, out: &mut std::collections::BTreeSet<char>) {
        for line in source.lines() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            let mut in_string = false;
            let mut escaped = false;
            let mut chars = code.chars().peekable();
            while let Some(c) = chars.next() {
                if in_string {
                    match c {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        '"' => in_string = false,
                        c if !c.is_ascii() => {
                            out.insert(c);
                        }
                        _ => {}
                    }
                } else if c == '"' {
                    in_string = true;
                } else if c == '/' && chars.peek() == Some(&'/') {
                    break;
                } else if c == '\'' {
                    // A char literal: '⚠'.
                    let rest: String = chars.clone().take(3).collect();
                    if let Some(q) = rest.chars().next()
                        && !q.is_ascii()
                        && rest.chars().nth(1) == Some('\'')
                    {
                        out.insert(q);
                    }
                }
            }
        }
    }

    fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// A glyph the fonts lack is drawn as an empty box (the delete confirmation and the
    /// breakpoint button showed some, issue 32): every character the editor's strings write is
    /// one the bundled fonts have.
    #[test]
    fn every_glyph_the_editor_writes_is_in_its_fonts() {
        let mut files = Vec::new();
        sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut used = std::collections::BTreeSet::new();
        for f in &files {
            literal_chars(&std::fs::read_to_string(f).unwrap(), &mut used);
        }
        assert!(used.contains(&'⚠'), "{used:?}");
        let ctx = egui::Context::default();
        apply(&ctx);
        let mut out = ctx.run_ui(Default::default(), |_| {});
        out.textures_delta.clear();
        let missing: Vec<(char, &str)> = ctx.fonts_mut(|f| {
            let mut missing = Vec::new();
            // `has_glyph` says no for what the replacement glyph's face has: ask the faces.
            for (family, name) in [
                (FontFamily::Proportional, "proportional"),
                (FontFamily::Monospace, "monospace"),
            ] {
                let mut font = f.fonts.font(&family);
                let has = font.characters();
                missing.extend(
                    used.iter()
                        .filter(|c| !has.contains_key(c))
                        .map(|c| (*c, name)),
                );
            }
            missing
        });
        assert!(missing.is_empty(), "no glyph for {missing:?}");
    }
}
