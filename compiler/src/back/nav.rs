//! Lowering the navigation graph into the program's navigation section: names interned with
//! the rest of the program, locations by id, door events by scene id. The PPA* data was
//! precomputed before (compiler/src/nav/precompute.rs) and moves in as it is.

use crate::ir::Module;
use ensemble_runtime::nav::NavData;
use ensemble_runtime::program::nav::{Door, DoorEvent, NavSection};
use ensemble_runtime::program::{NameId, SceneId};

/// The section for `module`'s navigation graph (empty without one). `data` is the graph's
/// precomputed PPA* data.
pub(crate) fn emit(
    module: &Module,
    data: Option<NavData>,
    intern: &mut dyn FnMut(&str) -> NameId,
) -> Result<NavSection, String> {
    let Some(nav) = &module.nav else {
        return Ok(NavSection::default());
    };
    let bug = |what: &str| format!("internal compiler error: {what}");
    let data = data.ok_or_else(|| bug("the navigation graph was not precomputed"))?;
    let location_nodes = nav
        .location_nodes
        .iter()
        .map(|v| v.ok_or_else(|| bug("a location off the navigation graph survived validation")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(NavSection {
        data: Some(data),
        placement: nav.placement,
        location_nodes,
        names: nav
            .names
            .iter()
            .map(|(n, v)| (intern(&n.text), *v))
            .collect(),
        doors: nav
            .doors
            .iter()
            .map(|d| Door {
                name: intern(&d.name.text),
                edges: d.edges.clone(),
                closed: d.closed,
            })
            .collect(),
        events: nav
            .events
            .iter()
            .map(|&(scene, at, door, open)| DoorEvent {
                scene: SceneId(scene.index() as u32),
                at,
                door: door as u32,
                open,
            })
            .collect(),
        fingerprint: nav.fingerprint,
    })
}
