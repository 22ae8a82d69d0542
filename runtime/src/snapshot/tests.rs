//! The snapshot format: round trip, and every way bytes can be wrong refused with a message.

use super::*;
use crate::hsm::{Inert, Scene, StateCode, StateCx, StateLibrary, StateSpec};
use crate::program::{Kind as ContainerKind, ModifierKind, Terminal};
use std::sync::Arc;

struct Start;
impl StateCode<()> for Start {
    fn init(&mut self, cx: &mut StateCx<'_, ()>) {
        cx.raise("Empty");
    }
}

fn library() -> StateLibrary<()> {
    let mut lib = StateLibrary::new();
    lib.register("Start", StateSpec::new(ModifierKind::None), || {
        Box::new(Start)
    });
    lib.register(
        "Finish",
        StateSpec::new(ModifierKind::None).terminal(Terminal::End),
        || Box::new(Inert),
    );
    lib.register("Host", StateSpec::new(ModifierKind::Machine), || {
        Box::new(Inert)
    });
    lib
}

/// A snapshot of the program tests' sample scene after a few ticks, with a game section.
fn snapshot() -> (Arc<Program>, Vec<u8>) {
    let program = Arc::new(crate::program::tests::sample());
    let mut scene = Scene::new(program.clone(), library(), "scene", (), 7).unwrap();
    for _ in 0..3 {
        scene.tick();
    }
    let mut w = SnapshotWriter::new(&program, "sample");
    scene.save(&mut w);
    w.put("game", &("the game's own", 42u32));
    (program, w.to_bytes())
}

#[test]
fn round_trip_keeps_every_section_and_the_program_stamp() {
    let (program, bytes) = snapshot();
    let r = SnapshotReader::from_bytes(&bytes).unwrap();
    assert_eq!(
        r.sections().collect::<Vec<_>>(),
        ["scene", "scene.roster", "game"]
    );
    assert_eq!(
        r.get::<(String, u32)>("game").unwrap(),
        ("the game's own".to_string(), 42)
    );
    assert_eq!(r.program(), &ProgramStamp::of(&program, "sample"));
    assert_eq!(r.check_program(&program, "sample"), Ok(true));
    let (scene, report) = Scene::restore(program.clone(), library(), (), &r).unwrap();
    assert_eq!(scene.tick_count(), 3);
    assert!(report.fallbacks.is_empty(), "{report:?}");
    // Saving the restored scene gives the same bytes.
    let mut w = SnapshotWriter::new(&program, "sample");
    scene.save(&mut w);
    w.put("game", &("the game's own", 42u32));
    assert_eq!(w.to_bytes(), bytes);
}

#[test]
fn every_truncation_is_refused() {
    let (_, bytes) = snapshot();
    for len in 0..bytes.len() {
        let e = SnapshotReader::from_bytes(&bytes[..len]).unwrap_err();
        let expected = match len {
            0 => matches!(e, SnapshotError::Empty),
            1..8 => matches!(e, SnapshotError::NotASnapshot),
            _ => matches!(e, SnapshotError::Truncated { .. }),
        };
        assert!(expected, "truncated to {len} bytes: {e}");
    }
}

#[test]
fn every_byte_flipped_is_refused() {
    let (_, bytes) = snapshot();
    for i in 0..bytes.len() {
        // The two reserved header bytes too: they must be zero.
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            assert!(
                SnapshotReader::from_bytes(&b).is_err(),
                "byte {i} xor {flip:#x} was accepted"
            );
        }
    }
}

#[test]
fn foreign_bytes_are_refused_with_what_they_are() {
    let program = crate::program::tests::sample();
    let e = SnapshotReader::from_bytes(&program.to_bytes()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "this is an Ensemble program (.ensb), not a snapshot"
    );
    let e = SnapshotReader::from_bytes(b"PK\x03\x04 a zip file, not a savegame").unwrap_err();
    assert_eq!(e, SnapshotError::NotASnapshot);
    assert_eq!(
        SnapshotReader::from_bytes(&[]).unwrap_err(),
        SnapshotError::Empty
    );
    let (_, mut bytes) = snapshot();
    bytes[0] = b'{';
    assert_eq!(
        SnapshotReader::from_bytes(&bytes).unwrap_err(),
        SnapshotError::NotASnapshot
    );
}

#[test]
fn a_future_version_is_refused_and_said_to_be_newer() {
    let (_, mut bytes) = snapshot();
    bytes[8..10].copy_from_slice(&(SNAPSHOT_VERSION + 1).to_le_bytes());
    let e = SnapshotReader::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        e,
        SnapshotError::UnsupportedVersion {
            found: SNAPSHOT_VERSION + 1,
            supported: SNAPSHOT_VERSION
        }
    );
    assert!(e.to_string().contains("newer runtime"), "{e}");
}

#[test]
fn a_snapshot_of_another_program_is_refused_and_a_rebuild_is_told_apart() {
    let (program, bytes) = snapshot();
    let r = SnapshotReader::from_bytes(&bytes).unwrap();
    let e = r.check_program(&program, "weapon-shop").unwrap_err();
    assert_eq!(
        e.to_string(),
        "the snapshot was taken from program `sample`, not `weapon-shop`"
    );
    let mut rebuilt = (*program).clone().into_parts();
    rebuilt.locations[0].x += 1.0;
    let rebuilt = rebuilt.verify().unwrap();
    assert_eq!(r.check_program(&rebuilt, "sample"), Ok(false));
}

#[test]
fn a_missing_or_misshapen_section_is_named() {
    let (_, bytes) = snapshot();
    let r = SnapshotReader::from_bytes(&bytes).unwrap();
    assert_eq!(
        r.get::<u8>("world").unwrap_err().to_string(),
        "the snapshot has no `world` section"
    );
    let e = r.get::<u8>("game").unwrap_err();
    assert!(
        matches!(&e, SnapshotError::BadSection { section, .. } if section == "game"),
        "{e}"
    );
}

#[test]
fn duplicate_sections_are_refused() {
    let payload = Payload {
        program: ProgramStamp {
            name: "x".into(),
            checksum: 0,
        },
        sections: vec![
            Section {
                name: "a".into(),
                bytes: vec![],
            },
            Section {
                name: "a".into(),
                bytes: vec![1],
            },
        ],
    };
    let bytes = container::wrap(ContainerKind::Snapshot, &encode(&payload));
    assert_eq!(
        SnapshotReader::from_bytes(&bytes).unwrap_err(),
        SnapshotError::DuplicateSection("a".into())
    );
}

#[test]
fn an_inconsistent_scene_section_is_refused_not_run() {
    // A scene section whose message names an agent that does not exist.
    let (program, bytes) = snapshot();
    let r = SnapshotReader::from_bytes(&bytes).unwrap();
    let mut scene_bytes = r.bytes(SCENE_SECTION).unwrap().to_vec();
    // Appending bytes makes the section's value misshapen: refused by `decode`.
    scene_bytes.push(0);
    let mut w = SnapshotWriter::new(&program, "sample");
    w.put_bytes(SCENE_SECTION, scene_bytes);
    let r = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
    let e = Scene::restore(program, library(), (), &r).err().unwrap();
    assert!(matches!(e, SnapshotError::BadSection { .. }), "{e}");
}

/// The snapshot reader's fuzz target: every input is refused or read, never a panic; what is
/// read restores or is refused, never a panic.
pub(crate) fn read_and_restore(bytes: &[u8]) {
    let Ok(r) = SnapshotReader::from_bytes(bytes) else {
        return;
    };
    let program = Arc::new(crate::program::tests::sample());
    if let Ok((mut scene, _)) = Scene::restore(program, library(), (), &r) {
        scene.tick();
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1000))]
    /// Arbitrary bytes behind a valid header and checksum never panic the reader.
    #[test]
    fn random_payloads_never_panic(payload in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
        read_and_restore(&container::wrap(ContainerKind::Snapshot, &payload));
    }

    /// A real snapshot's payload edited in a few places, re-checksummed so the decoder and
    /// the scene's consistency checks (not the checksum) must catch it.
    #[test]
    fn edited_payloads_never_panic(edits in proptest::collection::vec((proptest::prelude::any::<proptest::sample::Index>(), proptest::prelude::any::<u8>()), 1..6)) {
        let (_, bytes) = snapshot();
        let mut payload = bytes[24..].to_vec();
        for (at, value) in edits {
            let i = at.index(payload.len());
            payload[i] = value;
        }
        read_and_restore(&container::wrap(ContainerKind::Snapshot, &payload));
    }
}
