//! The handle table: every object the host holds lives here, and a handle is its slot, kind
//! and generation packed in a number. A handle is checked before use, so a freed one, one of
//! another kind or a number never given out is an error code, never a wild pointer.

use crate::library::HostLibrary;
use crate::program::LoadedProgram;
use crate::scene::RunningScene;
use crate::status::{EnsStatus, Failure, Outcome, panic_text};
#[cfg(feature = "inspect")]
use ensemble_runtime::inspect::Inspector;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard};

/// A loaded program. Free it with `ens_program_free`; scenes started from it keep what they
/// need, so it may be freed while they run. A zero id is never a valid handle.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnsProgram {
    /// Opaque: the slot, kind and generation. Copy the handle; do not make one up.
    pub id: u64,
}

/// A state library: the standard states plus the host's own. Free it with
/// `ens_library_free`; scenes started with it keep a copy of its registrations.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnsLibrary {
    /// Opaque: the slot, kind and generation.
    pub id: u64,
}

/// A running scene. Free it with `ens_scene_free`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnsScene {
    /// Opaque: the slot, kind and generation.
    pub id: u64,
}

/// An inspector: serves the inspection protocol to tools for a scene. Free it with
/// `ens_inspector_free`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnsInspector {
    /// Opaque: the slot, kind and generation.
    pub id: u64,
}

/// An object the host holds.
pub(crate) enum Object {
    Program(Arc<LoadedProgram>),
    Library(HostLibrary),
    Scene(SceneSlot),
    /// Locked (not taken out of the table) while a frame runs: the host's callbacks may use
    /// the API meanwhile, and one calling back into the same inspector is told it is busy.
    #[cfg(feature = "inspect")]
    Inspector(Arc<Mutex<Inspector>>),
}

impl Object {
    fn kind(&self) -> &'static str {
        match self {
            Object::Program(_) => "program",
            Object::Library(_) => "library",
            Object::Scene(_) => "scene",
            #[cfg(feature = "inspect")]
            Object::Inspector(_) => "inspector",
        }
    }
}

/// A scene's place in the table: here, taken out by a call running on it, or lost to an
/// internal error during such a call.
pub(crate) enum SceneSlot {
    Here(Box<RunningScene>),
    InUse,
    Lost,
}

struct Slot {
    generation: u32,
    object: Option<Object>,
}

struct Table {
    slots: Vec<Slot>,
    free: Vec<u32>,
}

static TABLE: Mutex<Table> = Mutex::new(Table {
    slots: Vec::new(),
    free: Vec::new(),
});

/// Mixed into the generation so that small numbers and pointer values are not handles.
const SALT: u32 = 0x454e_5300; // "ENS\0"

fn table() -> MutexGuard<'static, Table> {
    // The table is consistent between statements: a panic elsewhere cannot leave it half-done.
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

fn pack(index: u32, generation: u32) -> u64 {
    (u64::from(generation ^ SALT) << 32) | (u64::from(index) + 1)
}

/// Puts `object` in the table and returns its handle id.
pub(crate) fn insert(object: Object) -> u64 {
    let mut t = table();
    let index = match t.free.pop() {
        Some(i) => i,
        None => {
            t.slots.push(Slot {
                generation: 0,
                object: None,
            });
            (t.slots.len() - 1) as u32
        }
    };
    let slot = &mut t.slots[index as usize];
    slot.generation = slot.generation.wrapping_add(1);
    slot.object = Some(object);
    pack(index, slot.generation)
}

/// The slot index of handle `id` of `kind` after checking it is live and of that kind.
fn check(t: &Table, id: u64, kind: &str) -> Outcome<usize> {
    if id == 0 {
        return Err(Failure::new(
            EnsStatus::NullHandle,
            format!("the {kind} handle is null (id 0)"),
        ));
    }
    let foreign = || {
        Failure::new(
            EnsStatus::InvalidHandle,
            format!("{id:#x} is not a handle this library gave out (expected a {kind})"),
        )
    };
    let index = (id & 0xffff_ffff) as usize;
    let generation = ((id >> 32) as u32) ^ SALT;
    let slot = index
        .checked_sub(1)
        .and_then(|i| t.slots.get(i).map(|s| (i, s)));
    let Some((i, slot)) = slot else {
        return Err(foreign());
    };
    if generation == 0 || generation > slot.generation {
        return Err(foreign());
    }
    match &slot.object {
        Some(object) if generation == slot.generation => {
            if object.kind() == kind {
                Ok(i)
            } else {
                Err(Failure::new(
                    EnsStatus::WrongHandleKind,
                    format!(
                        "a {} handle was given where a {kind} was expected",
                        object.kind()
                    ),
                ))
            }
        }
        _ => Err(Failure::new(
            EnsStatus::StaleHandle,
            format!("the {kind} handle was freed"),
        )),
    }
}

/// Removes the object of handle `id` of `kind` (freeing it when the caller drops it).
pub(crate) fn remove(id: u64, kind: &str) -> Outcome<Object> {
    let mut t = table();
    let i = check(&t, id, kind)?;
    if let Some(Object::Scene(SceneSlot::InUse)) = t.slots[i].object {
        return Err(Failure::new(
            EnsStatus::Busy,
            "the scene is in use by a call still running (free it after that call returns)",
        ));
    }
    t.free.push(i as u32);
    Ok(t.slots[i].object.take().expect("checked live"))
}

/// The program of handle `id`.
pub(crate) fn program(id: u64) -> Outcome<Arc<LoadedProgram>> {
    let t = table();
    let i = check(&t, id, "program")?;
    match &t.slots[i].object {
        Some(Object::Program(p)) => Ok(p.clone()),
        _ => unreachable!("checked kind"),
    }
}

/// The inspector of handle `id`.
#[cfg(feature = "inspect")]
pub(crate) fn inspector(id: u64) -> Outcome<Arc<Mutex<Inspector>>> {
    let t = table();
    let i = check(&t, id, "inspector")?;
    match &t.slots[i].object {
        Some(Object::Inspector(inspector)) => Ok(inspector.clone()),
        _ => unreachable!("checked kind"),
    }
}

/// Whether handle `id` of `kind` is live (not freed).
#[cfg(feature = "inspect")]
pub(crate) fn is_live(id: u64, kind: &str) -> bool {
    check(&table(), id, kind).is_ok()
}

/// Runs `f` on the library of handle `id` (under the table's lock: keep it short).
pub(crate) fn with_library<T>(
    id: u64,
    f: impl FnOnce(&mut HostLibrary) -> Outcome<T>,
) -> Outcome<T> {
    let mut t = table();
    let i = check(&t, id, "library")?;
    match &mut t.slots[i].object {
        Some(Object::Library(l)) => f(l),
        _ => unreachable!("checked kind"),
    }
}

/// Runs `f` on the scene of handle `id`, taken out of the table meanwhile: callbacks `f`
/// makes may use the API (other scenes, this scene is `Busy`). A panic inside loses the scene
/// (its state may be half-updated) and is reported as `ENS_STATUS_PANIC`.
pub(crate) fn with_scene<T>(
    id: u64,
    f: impl FnOnce(&mut RunningScene) -> Outcome<T>,
) -> Outcome<T> {
    let (i, mut scene) = {
        let mut t = table();
        let i = check(&t, id, "scene")?;
        let slot = t.slots[i].object.as_mut().expect("checked live");
        match std::mem::replace(slot, Object::Scene(SceneSlot::InUse)) {
            Object::Scene(SceneSlot::Here(scene)) => (i, scene),
            Object::Scene(other) => {
                let message = match other {
                    SceneSlot::InUse => {
                        "the scene is in use by a call still running (a callback called back into its own scene)"
                    }
                    _ => "the scene was lost to an earlier internal error; free it",
                };
                *slot = Object::Scene(other);
                return Err(Failure::new(EnsStatus::Busy, message));
            }
            _ => unreachable!("checked kind"),
        }
    };
    let result = catch_unwind(AssertUnwindSafe(|| f(&mut scene)));
    let mut t = table();
    let slot = t.slots[i]
        .object
        .as_mut()
        .expect("a scene in use is not freed");
    match result {
        Ok(outcome) => {
            *slot = Object::Scene(SceneSlot::Here(scene));
            outcome
        }
        Err(payload) => {
            *slot = Object::Scene(SceneSlot::Lost);
            Err(Failure::new(
                EnsStatus::Panic,
                format!(
                    "internal error, the scene is lost: {}",
                    panic_text(payload.as_ref())
                ),
            ))
        }
    }
}
