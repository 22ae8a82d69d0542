//! Interaction scripts, compiler side: one row/cell model ([`source`]) fed by two frontends —
//! native `*.script.ron` assets and Excel workbooks ([`xlsx`]) — so both get the same parsing
//! ([`cell`]), templating, lowering ([`lower`]) and validation (`valid::script`), with
//! diagnostics pointing into the RON string or at the sheet and cell. [`xlsx_write`] goes the
//! other way: a native script out to a workbook in the contract's layout (`ensemble export`).

pub mod cell;
pub mod contract;
pub mod location;
pub mod lower;
pub mod source;
pub mod xlsx;
pub mod xlsx_patch;
pub mod xlsx_write;
