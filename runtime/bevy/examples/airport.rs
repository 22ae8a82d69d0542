//! The airport's ticket counter (samples/airport) as a small Bevy game:
//!
//! ```text
//! cargo run -p ensemble-bevy --example airport --features game
//! ```
//!
//! The seller walks to the counter; two buyers come in, walk the terminal's walkways to the
//! counter and buy their tickets in turn, the conversation shown in speech bubbles; with a
//! ticket, a buyer walks on through security to the gate. Hover over someone to see the
//! states their machines are in and what they carry. Everything they decide is authored
//! (`samples/airport`, built into `assets/airport.ensb`); this file is only the game's side:
//! drawing, walking the routes, showing the lines.
//!
//! Hot reload: rebuild the program while the game runs (`ensemble build samples/airport -o
//! runtime/bevy/assets`) and the running scene takes it, live state carried across.
//!
//! Attach tools: `-- --inspect 127.0.0.1:7878` (or `ENSEMBLE_INSPECT=127.0.0.1:7878`) serves
//! the inspection protocol there, so that `ensemble attach 127.0.0.1:7878 --trace json --break
//! StandSellTicket/TalkStateMachine` stops the seller as it starts talking, `ensemble push
//! 127.0.0.1:7878 samples/airport` hot-reloads an edited project, and the editor's "Attach to
//! game…" shows the running scene. Add `--inspect-wait` to start paused until a tool resumes.

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::text::{TextBackgroundColor, TextBounds};
use bevy::window::WindowResolution;
use ensemble_bevy::{
    Actions, Agent, EnsembleInspector, EnsemblePlugin, EnsembleProgram, EnsembleScene,
    EnsembleSystems, EnsembleTrace, InspectPlugin, MoveReport, ProgramReloaded, ReloadRejected,
    SceneFailed, Speaking, Variables, Walking,
};
use ensemble_runtime::Program;
use ensemble_runtime::nav::Workspace;
use ensemble_runtime::program::LocationId;
use ensemble_runtime::script::ActionOutcome;
use ensemble_runtime::trace::EventKind;
use std::collections::{BTreeMap, VecDeque};

/// Pixels per metre.
const UNITS: f32 = 30.0;
/// The middle of the view, metres: the hall, the counter and the gate (the traveller's spurs
/// to the south-east are off screen).
const CENTRE: Vec2 = Vec2::new(13.0, -3.3);
/// Walking speed, metres per second.
const SPEED: f32 = 1.4;
/// How long an action of an interaction script takes, seconds.
const ACTION_SECONDS: f64 = 1.5;
/// Trace lines shown at the bottom of the window.
const LOG_LINES: usize = 6;

fn main() -> AppExit {
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(AssetPlugin {
                file_path: concat!(env!("CARGO_MANIFEST_DIR"), "/assets").into(),
                // Needs Bevy's `file_watcher` feature (the `game` feature enables it).
                watch_for_changes_override: Some(true),
                ..default()
            })
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "Ensemble in Bevy: the airport's ticket counter".into(),
                    resolution: WindowResolution::new(1280, 720),
                    ..default()
                }),
                ..default()
            }),
    )
    .add_plugins(EnsemblePlugin::default())
    .insert_resource(ClearColor(Color::srgb(0.95, 0.94, 0.9)))
    .init_resource::<TraceLog>()
    .add_systems(Startup, setup)
    .add_systems(
        Update,
        (dress_agents, walk, perform, speak).before(EnsembleSystems),
    )
    .add_systems(
        Update,
        (draw_terminal, draw_routes, hover, log_trace).after(EnsembleSystems),
    );
    if let Some(plugin) = inspect_plugin() {
        app.add_plugins(plugin)
            .add_systems(Startup, say_where_tools_attach);
    }
    app.run()
}

/// The inspection protocol's plugin, when asked for: `--inspect ADDR` (or the environment's
/// `ENSEMBLE_INSPECT`), `--inspect-wait` to start paused.
fn inspect_plugin() -> Option<InspectPlugin> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = args
        .iter()
        .position(|a| a == "--inspect")
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var("ENSEMBLE_INSPECT").ok())?;
    let plugin = InspectPlugin::new(address);
    Some(if args.iter().any(|a| a == "--inspect-wait") {
        plugin.waiting()
    } else {
        plugin
    })
}

/// Says on stderr where tools attach (with port 0, the port the system chose), or why they
/// cannot.
fn say_where_tools_attach(inspector: Res<EnsembleInspector>) {
    match inspector.address() {
        Ok(address) => eprintln!("inspecting on {address}"),
        Err(e) => eprintln!("error: {e}"),
    }
}

/// The running scene and its program.
#[derive(Resource)]
struct Airport {
    program: Handle<EnsembleProgram>,
}

/// The route an agent walks: the walkway nodes on the way, then the destination itself.
#[derive(Component)]
struct Route {
    /// The destination it was planned for.
    to: Vec2,
    points: Vec<Vec2>,
    next: usize,
}

/// The bubble an agent's line is shown in, and when it was said.
#[derive(Component)]
struct Bubble {
    entity: Entity,
    since: f64,
    shown_at: f64,
}

/// The panel showing the state of the agent under the mouse.
#[derive(Component)]
struct HoverPanel;

/// The recent trace, shown at the bottom.
#[derive(Resource, Default)]
struct TraceLog(VecDeque<String>);

#[derive(Component)]
struct LogText;

fn metres(at: [f64; 2]) -> Vec2 {
    Vec2::new(at[0] as f32, at[1] as f32)
}

fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    commands.spawn((
        Camera2d,
        Transform::from_translation((CENTRE * UNITS).extend(0.0)),
    ));
    let program = assets.load::<EnsembleProgram>("airport.ensb");
    commands.spawn((
        EnsembleScene::new(program.clone(), "ticket-counter")
            .with_seed(7)
            .with_units_per_metre(UNITS),
        Visibility::default(),
    ));
    commands.insert_resource(Airport { program });

    // The game's own scenery: what the program knows are walkways and named places; walls,
    // kiosks and the counter are the level's art.
    let wall = Color::srgb(0.45, 0.42, 0.38);
    let block = |commands: &mut Commands, from: Vec2, to: Vec2, color: Color| {
        commands.spawn((
            Sprite::from_color(color, (to - from).abs() * UNITS),
            Transform::from_translation(((from + to) / 2.0 * UNITS).extend(-2.0)),
        ));
    };
    // The kiosk row between the entrances and the counter, and the security wall with its
    // two lanes.
    block(
        &mut commands,
        Vec2::new(3.7, -12.5),
        Vec2::new(4.3, -7.0),
        wall,
    );
    block(
        &mut commands,
        Vec2::new(19.7, -11.0),
        Vec2::new(20.3, -7.0),
        wall,
    );
    block(
        &mut commands,
        Vec2::new(19.7, -5.0),
        Vec2::new(20.3, 4.0),
        wall,
    );
    // The counter the seller serves from.
    block(
        &mut commands,
        Vec2::new(10.0, -0.9),
        Vec2::new(14.0, -0.5),
        Color::srgb(0.55, 0.36, 0.2),
    );

    let top = (CENTRE.y * UNITS) + 340.0;
    let (left, right) = ((CENTRE.x * UNITS) - 620.0, (CENTRE.x * UNITS) + 620.0);
    commands.spawn((
        Text2d::new(
            "Ensemble in Bevy: the airport's ticket counter (samples/airport). \
             Hover over someone for their states.",
        ),
        TextFont::from_font_size(16.0),
        TextColor(Color::srgb(0.15, 0.15, 0.2)),
        Anchor::TOP_LEFT,
        Transform::from_xyz(left, top, 5.0),
    ));
    commands.spawn((
        Text2d::new(""),
        TextFont::from_font_size(12.0),
        TextColor(Color::srgb(0.25, 0.25, 0.3)),
        Anchor::BOTTOM_RIGHT,
        Transform::from_xyz(right, (CENTRE.y * UNITS) - 350.0, 5.0),
        LogText,
    ));
    commands.spawn((
        Text2d::new(""),
        TextFont::from_font_size(14.0),
        TextColor(Color::WHITE),
        TextBackgroundColor(Color::srgba(0.1, 0.12, 0.2, 0.9)),
        Anchor::BOTTOM_LEFT,
        Transform::from_xyz(0.0, 0.0, 50.0),
        Visibility::Hidden,
        HoverPanel,
    ));
}

/// Draws the walkways of the program's navigation graph and its named places.
fn draw_terminal(
    airport: Res<Airport>,
    programs: Res<Assets<EnsembleProgram>>,
    mut gizmos: Gizmos,
    mut commands: Commands,
    mut labelled: Local<bool>,
) {
    let Some(asset) = programs.get(&airport.program) else {
        return;
    };
    let program = &asset.program;
    let nav = &program.nav;
    if let Some(data) = &nav.data {
        let walkway = Color::srgb(0.8, 0.78, 0.72);
        for v in 0..data.graph.node_count() {
            let Some(a) = nav.world(v) else { continue };
            for (w, _) in data.graph.neighbors(v) {
                if let (true, Some(b)) = (v < w, nav.world(w)) {
                    gizmos.line_2d(metres(a) * UNITS, metres(b) * UNITS, walkway);
                }
            }
        }
    }
    for l in &program.locations {
        let at = metres([l.x, l.y]) * UNITS;
        gizmos.rect_2d(at, Vec2::splat(8.0), Color::srgb(0.3, 0.5, 0.35));
    }
    if !*labelled {
        *labelled = true;
        for l in &program.locations {
            commands.spawn((
                Text2d::new(program.name(l.name)),
                TextFont::from_font_size(11.0),
                TextColor(Color::srgb(0.3, 0.5, 0.35)),
                Anchor::TOP_CENTER,
                Transform::from_translation(
                    (metres([l.x, l.y]) * UNITS - Vec2::new(0.0, 6.0)).extend(-1.0),
                ),
            ));
        }
    }
}

/// Gives each agent the runtime spawns a body and a name tag.
fn dress_agents(
    mut commands: Commands,
    agents: Query<(Entity, &Agent), Added<Agent>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    for (entity, agent) in &agents {
        let color = if agent.name.starts_with("seller") {
            Color::srgb(0.85, 0.45, 0.15)
        } else {
            Color::srgb(0.2, 0.45, 0.8)
        };
        commands.entity(entity).insert((
            Mesh2d(meshes.add(Circle::new(0.4 * UNITS))),
            MeshMaterial2d(materials.add(color)),
            Visibility::default(),
            children![(
                Text2d::new(agent.name.clone()),
                TextFont::from_font_size(12.0),
                TextColor(Color::srgb(0.1, 0.1, 0.1)),
                Anchor::TOP_CENTER,
                Transform::from_xyz(0.0, -0.45 * UNITS, 1.0),
            )],
        ));
    }
}

/// Plans a walk on the program's walkways: from the node nearest the agent to the
/// destination's node, then to the destination itself. `None` when no walkway leads there.
fn plan(program: &Program, from: Vec2, walking: &Walking) -> Option<Vec<Vec2>> {
    let to = walking.to / UNITS;
    let nav = &program.nav;
    let Some(data) = &nav.data else {
        return Some(vec![to]);
    };
    let location = walking.location.as_deref().and_then(|name| {
        program
            .locations
            .iter()
            .position(|l| program.name(l.name) == name)
    });
    let goal = location
        .and_then(|i| nav.location_node(LocationId(i as u32)))
        .or_else(|| nav.node_near(f64::from(to.x), f64::from(to.y)))?;
    let start = nav.node_near(f64::from(from.x), f64::from(from.y))?;
    let mut workspace = Workspace::new(data.graph.node_count());
    let path = data.find_path(start, goal, &mut workspace).ok()??;
    let mut points: Vec<Vec2> = path
        .path
        .iter()
        .filter_map(|&v| nav.world(v))
        .map(metres)
        .collect();
    points.push(to);
    Some(points)
}

/// Carries out the runtime's moves: plans each on the walkways and walks it, reporting
/// arrival (or that there is no way).
fn walk(
    mut commands: Commands,
    time: Res<Time>,
    airport: Res<Airport>,
    programs: Res<Assets<EnsembleProgram>>,
    mut walkers: Query<(Entity, &mut Transform, &mut Walking, Option<&mut Route>)>,
    stopped: Query<Entity, (With<Route>, Without<Walking>)>,
) {
    for entity in &stopped {
        commands.entity(entity).remove::<Route>();
    }
    let Some(asset) = programs.get(&airport.program) else {
        return;
    };
    for (entity, mut transform, mut walking, route) in &mut walkers {
        let at = transform.translation.truncate() / UNITS;
        let Some(mut route) = route.filter(|r| r.to == walking.to) else {
            match plan(&asset.program, at, &walking) {
                Some(points) => {
                    commands.entity(entity).insert(Route {
                        to: walking.to,
                        points,
                        next: 0,
                    });
                }
                None => walking.report = Some(MoveReport::NoPath),
            }
            continue;
        };
        if walking.report.is_some() {
            continue;
        }
        let mut stride = SPEED * time.delta_secs();
        let mut here = at;
        while let Some(&point) = route.points.get(route.next) {
            let gap = here.distance(point);
            if gap > stride {
                here += (point - here) / gap * stride;
                break;
            }
            stride -= gap;
            here = point;
            route.next += 1;
        }
        transform.translation = (here * UNITS).extend(transform.translation.z.max(1.0));
        if route.next >= route.points.len() {
            walking.report = Some(MoveReport::Arrived);
        }
    }
}

/// Performs the actions of interaction scripts: each takes [`ACTION_SECONDS`].
fn perform(
    time: Res<Time>,
    mut performers: Query<&mut Actions>,
    mut began: Local<BTreeMap<u64, f64>>,
) {
    let now = time.elapsed_secs_f64();
    for mut actions in &mut performers {
        for action in &mut actions.0 {
            let since = *began.entry(action.id.0).or_insert(now);
            if action.outcome.is_none() && now - since >= ACTION_SECONDS {
                action.outcome = Some(ActionOutcome::Succeeded);
            }
        }
    }
}

/// Shows each line in a bubble above the speaker for a time that grows with its length,
/// then tells the runtime it is over.
fn speak(
    mut commands: Commands,
    time: Res<Time>,
    mut speakers: Query<(Entity, &Agent, &mut Speaking, Option<&Bubble>)>,
    silent: Query<(Entity, &Bubble), Without<Speaking>>,
) {
    let now = time.elapsed_secs_f64();
    for (entity, bubble) in &silent {
        commands.entity(bubble.entity).despawn();
        commands.entity(entity).remove::<Bubble>();
    }
    for (entity, agent, mut speaking, bubble) in &mut speakers {
        match bubble {
            Some(b) if b.since == speaking.since => {
                let length = 1.2 + 0.06 * speaking.text.len() as f64;
                if !speaking.finished && now - b.shown_at >= length {
                    speaking.finished = true;
                }
            }
            _ => {
                if let Some(old) = bubble {
                    commands.entity(old.entity).despawn();
                }
                // The seller speaks from behind the counter (up and left), buyers from in
                // front of it (down and right), so that a conversation's bubbles do not cover
                // each other.
                let (anchor, offset) = if agent.name.starts_with("seller") {
                    (Anchor::BOTTOM_RIGHT, Vec2::new(-0.4, 0.4) * UNITS)
                } else {
                    (Anchor::TOP_LEFT, Vec2::new(0.4, -0.4) * UNITS)
                };
                let shown = commands
                    .spawn((
                        Text2d::new(speaking.text.clone()),
                        TextFont::from_font_size(14.0),
                        TextColor(Color::srgb(0.05, 0.05, 0.1)),
                        TextBackgroundColor(Color::WHITE),
                        TextLayout::new(Justify::Left, LineBreak::WordBoundary),
                        TextBounds::new_horizontal(200.0),
                        anchor,
                        Transform::from_translation(offset.extend(10.0)),
                        ChildOf(entity),
                    ))
                    .id();
                commands.entity(entity).insert(Bubble {
                    entity: shown,
                    since: speaking.since,
                    shown_at: now,
                });
            }
        }
    }
}

/// Draws the rest of each route being walked.
fn draw_routes(walkers: Query<(&GlobalTransform, &Route), With<Walking>>, mut gizmos: Gizmos) {
    for (transform, route) in &walkers {
        let here = transform.translation().truncate();
        let ahead = route.points[route.next.min(route.points.len())..]
            .iter()
            .map(|p| *p * UNITS);
        gizmos.linestrip_2d(
            std::iter::once(here).chain(ahead),
            Color::srgb(0.3, 0.55, 0.9),
        );
    }
}

/// Shows the states and variables of the agent under the mouse.
fn hover(
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    agents: Query<(&GlobalTransform, &Agent, &Variables)>,
    panel: Single<(&mut Text2d, &mut Transform, &mut Visibility), With<HoverPanel>>,
    mut gizmos: Gizmos,
) {
    let (camera, camera_transform) = *camera;
    let (mut text, mut transform, mut visibility) = panel.into_inner();
    let cursor = window
        .cursor_position()
        .and_then(|c| camera.viewport_to_world_2d(camera_transform, c).ok());
    let under = cursor.and_then(|c| {
        agents
            .iter()
            .map(|(t, a, v)| (t.translation().truncate().distance(c), t, a, v))
            .filter(|(d, ..)| *d <= 0.6 * UNITS)
            .min_by(|a, b| a.0.total_cmp(&b.0))
    });
    let (Some(cursor), Some((_, at, agent, variables))) = (cursor, under) else {
        *visibility = Visibility::Hidden;
        return;
    };
    gizmos.circle_2d(
        at.translation().truncate(),
        0.6 * UNITS,
        Color::srgb(0.9, 0.2, 0.2),
    );
    let mut shown = format!(" {} ", agent.name);
    if !agent.running {
        shown.push_str("(done)");
    }
    for (depth, state) in agent.states.iter().enumerate() {
        shown.push_str(&format!("\n {}{state} ", "  ".repeat(depth)));
    }
    for (name, value) in &variables.0 {
        shown.push_str(&format!("\n {name} = {value} "));
    }
    text.0 = shown;
    transform.translation = (cursor + Vec2::new(14.0, 14.0)).extend(50.0);
    *visibility = Visibility::Visible;
}

/// Keeps the last trace lines on screen and reports hot reloads.
fn log_trace(
    mut trace: MessageReader<EnsembleTrace>,
    mut reloaded: MessageReader<ProgramReloaded>,
    mut rejected: MessageReader<ReloadRejected>,
    mut failed: MessageReader<SceneFailed>,
    mut log: ResMut<TraceLog>,
    mut text: Single<&mut Text2d, With<LogText>>,
) {
    let before = log.0.len();
    for t in trace.read() {
        // Entering and leaving states is what the hover panel shows; the log keeps the rest.
        if matches!(
            t.event.kind,
            EventKind::Enter { .. } | EventKind::Exit { .. }
        ) {
            continue;
        }
        log.0.push_back(t.event.to_text());
    }
    for r in reloaded.read() {
        info!("program reloaded: {} states kept", r.report.kept);
    }
    for r in rejected.read() {
        warn!("reload refused: {}", r.reason);
    }
    for f in failed.read() {
        error!("the scene could not start: {}", f.reason);
        log.0
            .push_back(format!("the scene could not start: {}", f.reason));
    }
    if log.0.len() != before {
        while log.0.len() > LOG_LINES {
            log.0.pop_front();
        }
        text.0 = log.0.iter().cloned().collect::<Vec<_>>().join("\n");
    }
}
