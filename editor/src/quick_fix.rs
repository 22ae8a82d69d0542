//! The Problems panel's one-click edits of a source: apply a diagnostic's suggested fix, or
//! mark a warning as intended with an `// allow(code)` comment above its line (the convention
//! of docs/formats/diagnostics.md, which the compiler honours). Both work on the text the
//! compiler read, so the offsets they use are the diagnostic's own.

use ensemble_compiler::diag::{Diagnostic, Severity};

/// What the Problems panel offers for a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickFix {
    /// Replace the misspelt name by the suggestion.
    Apply,
    /// Add `// allow(code): …` above the warning's line.
    MarkIntended,
}

impl QuickFix {
    /// The fixes `d` offers, in the file named `file`.
    pub fn offered(d: &Diagnostic, file: &str) -> Vec<QuickFix> {
        let mut offered = Vec::new();
        if d.fix.is_some() {
            offered.push(QuickFix::Apply);
        }
        // Comments exist in RON sources only; errors cannot be silenced.
        if d.severity != Severity::Error && d.primary.is_some() && file.ends_with(".ron") {
            offered.push(QuickFix::MarkIntended);
        }
        offered
    }

    /// The button's text.
    pub fn title(self, d: &Diagnostic) -> String {
        match (self, &d.fix) {
            (QuickFix::Apply, Some(f)) => format!("Fix: {}", f.replacement),
            (QuickFix::Apply, None) => "Fix".into(),
            (QuickFix::MarkIntended, _) => "Mark as intended".into(),
        }
    }

    /// The button's tooltip.
    pub fn hint(self, d: &Diagnostic) -> String {
        match (self, &d.fix) {
            (QuickFix::Apply, Some(f)) => {
                format!(
                    "Replace `{}` by `{}` (undo with Ctrl+Z)",
                    f.was, f.replacement
                )
            }
            (QuickFix::Apply, None) => String::new(),
            (QuickFix::MarkIntended, _) => format!(
                "Add `// allow({})` above this line: the warning is silenced where review sees it (undo with Ctrl+Z)",
                d.code.as_str()
            ),
        }
    }

    /// `text` (the source `d` was found in) with this fix made; `None` when it no longer
    /// applies (the text changed under it).
    pub fn apply(self, d: &Diagnostic, text: &str) -> Option<String> {
        match self {
            QuickFix::Apply => {
                let f = d.fix.as_ref()?;
                let range = f.span.range();
                (text.get(range.clone())? == f.was).then(|| {
                    let mut out = text.to_string();
                    out.replace_range(range, &f.replacement);
                    out
                })
            }
            QuickFix::MarkIntended => {
                let at = d.primary.as_ref()?.span.start as usize;
                let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
                let indent: String = text[line_start..]
                    .chars()
                    .take_while(|c| *c == ' ' || *c == '\t')
                    .collect();
                let comment = format!(
                    "{indent}// allow({}): intended (marked in the editor)\n",
                    d.code.as_str()
                );
                let mut out = text.to_string();
                out.insert_str(line_start, &comment);
                Some(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::diag::{Code, Diagnostic};
    use ensemble_compiler::source::{FileId, Span};

    fn warning_at(text: &str, word: &str) -> Diagnostic {
        let at = text.find(word).unwrap();
        Diagnostic::warning(Code::UnknownEvent, "never raised")
            .at(Span::new(FileId(0), at..at + word.len()), "here")
    }

    #[test]
    fn marking_as_intended_writes_the_comment_above_the_line_with_its_indent() {
        let text = "[\n    (name: \"Wait\", on: [(\"YourTurn\", \"Answer\")]),\n]";
        let d = warning_at(text, "YourTurn");
        assert_eq!(
            QuickFix::offered(&d, "a.machine.ron"),
            [QuickFix::MarkIntended]
        );
        assert!(QuickFix::offered(&d, "a.xlsx").is_empty());
        let out = QuickFix::MarkIntended.apply(&d, text).unwrap();
        assert_eq!(
            out,
            "[\n    // allow(unknown-event): intended (marked in the editor)\n    (name: \"Wait\", on: [(\"YourTurn\", \"Answer\")]),\n]"
        );
    }

    #[test]
    fn a_fix_replaces_the_name_and_refuses_text_that_changed() {
        let text = "(\"Fnish\", \"End\")";
        let d = warning_at(text, "\"Fnish\"").did_you_mean("Fnish", "Finish");
        // The compiler narrows the span to the name; here it is narrowed by hand.
        let mut d = d;
        let at = text.find("Fnish").unwrap();
        d.fix.as_mut().unwrap().span = Span::new(FileId(0), at..at + 5);
        assert_eq!(QuickFix::Apply.title(&d), "Fix: Finish");
        assert_eq!(
            QuickFix::Apply.apply(&d, text).as_deref(),
            Some("(\"Finish\", \"End\")")
        );
        assert_eq!(QuickFix::Apply.apply(&d, "(\"Other\", \"End\")"), None);
    }
}
