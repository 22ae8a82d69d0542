//! Plan files, as `ensemble plan DOMAIN PROBLEM --validate PLAN` reads them: one action a line,
//! `(name arg ...)`, `;` comments; replayed on a grounded task to say whether the plan reaches
//! its goal and, if not, which step on which line fails.

use ensemble_runtime::plan::validate::validate_names;
use ensemble_runtime::plan::{PlanError, Task};

/// The actions of a plan file, each with its line: `(name arg ...)` lowercased with single
/// spaces, `;` comments and blank lines skipped.
pub fn read(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let action = line.split(';').next().unwrap_or("").trim();
            if action.is_empty() {
                return None;
            }
            let inner = action.trim_start_matches('(').trim_end_matches(')');
            let words: Vec<String> = inner.split_whitespace().map(str::to_lowercase).collect();
            Some((i + 1, format!("({})", words.join(" "))))
        })
        .collect()
}

/// Replays the plan file `text` (named `file` in messages) on `task`: its number of steps, and
/// what is wrong with it (`file:line: step N: …`), if anything.
pub fn check(task: &Task, file: &str, text: &str) -> (usize, Option<String>) {
    let steps = read(text);
    let names: Vec<&str> = steps.iter().map(|(_, n)| n.as_str()).collect();
    let outcome = validate_names(task, &task.initial_state(), &names);
    let error = outcome.as_ref().err().map(|e| {
        let line = match e {
            PlanError::UnknownOperator { step, .. } | PlanError::NotApplicable { step, .. } => {
                format!("{file}:{}: ", steps[*step].0)
            }
            PlanError::GoalNotReached { .. } => format!("{file}: "),
        };
        let hint = match e {
            PlanError::UnknownOperator { .. } => {
                " (no such action, wrong arguments, or a precondition on a fact that never changes is false)"
            }
            _ => "",
        };
        format!("{line}{}{hint}", e.describe(task))
    });
    (steps.len(), error)
}
