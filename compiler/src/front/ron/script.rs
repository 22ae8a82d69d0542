//! `*.script.ron`: the serde shapes of a native interaction script, with the other native asset
//! shapes; `script::source` re-exports them beside the row/cell model both forms are read into.

use serde::{Deserialize, Serialize};

/// `*.script.ron`: the native form, with the columns of the Excel contract as fields (cell
/// syntax inside strings). `ensemble import` writes this from a workbook.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Script", deny_unknown_fields)]
pub struct ScriptAsset {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Meta-parameters, `("$name", "value")`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<(String, String)>,
    /// Predicates supplied from outside (the smart location, a proxy): `"seat/1, sale/2"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supplies: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<RoleAsset>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleAsset>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Role", deny_unknown_fields)]
pub struct RoleAsset {
    pub name: String,
    /// Kept as text so templated values (`$max`) work as in the workbook.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub min: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub max: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub flags: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Rule", deny_unknown_fields)]
pub struct RuleAsset {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub state: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub precondition: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub action: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parameters: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub add: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub delete: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deferred_add: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deferred_delete: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub on_error: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub next_state: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub terminate: String,
}
