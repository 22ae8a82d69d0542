//! The rule table as a panel of `*.script.ron` documents and workbooks ([`AssetPanel`]): a
//! reveal (a clicked diagnostic, a find) becomes the table's own target the next time it is
//! drawn, when the value is at hand.

use super::{Column, RuleTable, RuleTarget};
use crate::panel::{AssetPanel, PanelCx, Reveal};
use eframe::egui;
use ensemble_compiler::formats::locate::PathSeg;
use ensemble_compiler::formats::scripts::ScriptAsset;

/// The rule table, as a panel of `*.script.ron` documents.
#[derive(Default)]
pub struct RulesPanel {
    table: RuleTable,
    pending: Option<Reveal>,
}

/// Where `target` is in `script`: a cell, a rule, a role, or the script's keys.
pub fn rule_target(script: &ScriptAsset, target: &Reveal) -> Option<RuleTarget> {
    match target {
        Reveal::Item { name, .. } => RuleTarget::find(script, name),
        Reveal::Path(path) => Some(match path.as_slice() {
            [PathSeg::Field(list), PathSeg::Index(i), rest @ ..] if list == "rules" => {
                match rest.first() {
                    Some(PathSeg::Field(f)) => Column::ALL
                        .into_iter()
                        .find(|c| c.ron_field() == f)
                        .map_or(RuleTarget::Rule(*i), |c| RuleTarget::Cell(*i, c)),
                    _ => RuleTarget::Rule(*i),
                }
            }
            [PathSeg::Field(list), PathSeg::Index(i), ..] if list == "roles" => {
                RuleTarget::Role(*i)
            }
            _ => RuleTarget::Script,
        }),
    }
}

impl AssetPanel<ScriptAsset> for RulesPanel {
    fn ui(&mut self, ui: &mut egui::Ui, value: &mut ScriptAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take().and_then(|r| rule_target(value, &r)) {
            self.table.reveal(t);
        }
        self.table.unreached = cx
            .compiled
            .and_then(|c| c.tests)
            .map(|t| t.unreached_rules(&value.name))
            .unwrap_or_default();
        self.table.ui(ui, value, cx)
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reveals_become_the_panels_own_targets() {
        let script = ScriptAsset {
            name: "s".into(),
            rules: vec![Default::default(), Default::default()],
            ..Default::default()
        };
        let path = |p: Vec<PathSeg>| Reveal::Path(p);
        assert_eq!(
            rule_target(
                &script,
                &path(vec![
                    PathSeg::Field("rules".into()),
                    PathSeg::Index(1),
                    PathSeg::Field("precondition".into())
                ])
            ),
            Some(RuleTarget::Cell(1, Column::Precondition))
        );
        assert_eq!(
            rule_target(&script, &path(vec![PathSeg::Field("initial_state".into())])),
            Some(RuleTarget::Script)
        );
    }
}
