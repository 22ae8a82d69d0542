//! docs/formats/script.md lists each workbook sheet's columns; the compiler's contract table
//! (`script::contract`) is the definition the reader, the writer and the editor use. This test
//! fails when the two disagree: a column renamed, added, reordered or made (not) required in one
//! and not the other.

use ensemble_compiler::script::contract::{SHEETS, Sheet};
use std::path::Path;

/// The documented columns of one sheet: the backticked `A | B | ...` list of its bullet
/// (`- **Rules** — ...`), and the names of the parenthesis after it that ends in `required`.
fn documented(doc: &str, sheet: &Sheet) -> Result<(Vec<String>, Vec<String>), String> {
    let start = format!("- **{}** —", sheet.name);
    let bullet = bullet(doc, &start).ok_or_else(|| format!("no bullet starting `{start}`"))?;
    let after = &bullet[start.len()..];
    let open = after
        .find('`')
        .ok_or_else(|| format!("`{start}` has no backticked column list"))?;
    let close = after[open + 1..]
        .find('`')
        .ok_or_else(|| format!("`{start}`: unclosed backtick"))?
        + open
        + 1;
    let columns = after[open + 1..close]
        .split('|')
        .map(|c| c.trim().to_string())
        .collect();
    let tail = after[close + 1..].trim_start();
    let required = tail
        .strip_prefix('(')
        .and_then(|t| t.split_once(" required"))
        .map(|(names, _)| names.split(',').map(|n| n.trim().to_string()).collect())
        .ok_or_else(|| {
            format!("`{start}`: the column list is not followed by `(..., ... required`")
        })?;
    Ok((columns, required))
}

#[test]
fn script_format_doc_lists_the_contracts_columns() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/formats/script.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    for sheet in SHEETS {
        let (columns, required) = documented(&doc, &sheet).unwrap_or_else(|e| panic!("{e}"));
        let want: Vec<&str> = sheet.headers().collect();
        assert_eq!(
            columns, want,
            "docs/formats/script.md: sheet `{}` columns disagree with script::contract",
            sheet.name
        );
        let want_required: Vec<&str> = sheet
            .columns
            .iter()
            .filter(|c| c.required)
            .map(|c| c.header)
            .collect();
        assert_eq!(
            required, want_required,
            "docs/formats/script.md: sheet `{}` required columns disagree with script::contract",
            sheet.name
        );
    }
}

/// The check itself notices a renamed column, so it cannot pass vacuously.
#[test]
fn a_renamed_column_is_noticed() {
    let doc = "- **Roles** — `Role | Minimum | Max | Flags` (Role, Min, Max required). More.\n";
    let sheet = SHEETS.iter().find(|s| s.name == "Roles").unwrap();
    let (columns, required) = documented(doc, sheet).unwrap();
    assert_ne!(columns, sheet.headers().collect::<Vec<_>>());
    assert_eq!(required, ["Role", "Min", "Max"]);
    assert!(documented("- **Roles** — no list\n", sheet).is_err());
}

/// The text of the bullet starting `start` (it runs to the next bullet, heading or blank line).
fn bullet(doc: &str, start: &str) -> Option<String> {
    let mut lines = doc.lines().skip_while(|l| !l.starts_with(start));
    let first = lines.next()?;
    let rest =
        lines.take_while(|l| !l.trim().is_empty() && !l.starts_with("- ") && !l.starts_with('#'));
    Some(
        std::iter::once(first)
            .chain(rest)
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// The script functions the docs list are the runtime's, which the checks and the back end read.
#[test]
fn script_format_doc_lists_the_runtimes_functions_and_comparisons() {
    use ensemble_runtime::script::{CmpOp, Function};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/formats/script.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let functions = bullet(&doc, "- Function terms").expect("a `- Function terms` bullet");
    // Backticked names, with their arguments if written: `randf(a, b)`, `min`; not `+ - * /`.
    let mut listed: Vec<&str> = functions
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|t| t.split('(').next().unwrap_or(t))
        .filter(|t| t.chars().all(|c| c.is_ascii_lowercase()) && !t.is_empty())
        .collect();
    listed.sort_unstable();
    let mut want: Vec<&str> = Function::ALL.iter().map(|f| f.name()).collect();
    want.sort_unstable();
    assert_eq!(listed, want, "docs/formats/script.md: `- Function terms`");
    let symbols: Vec<String> = CmpOp::ALL
        .iter()
        .map(|op| op.symbol().to_string())
        .collect();
    assert!(
        doc.contains(&format!("`{}`", symbols.join(" "))),
        "docs/formats/script.md does not list the comparisons `{}`",
        symbols.join(" ")
    );
}
