/*
 * Host 2: a small world of its own, written in C — bodies that walk at 2 m/s, actions that
 * take a second, agents' variables, lines printed with their ids — and a library state of its
 * own, `Hammer`, whose code is C callbacks reading typed parameters. It runs the forge
 * (tests/forge): a machine, a conversation and an interaction script, all through the seam.
 * Mid-hammering it saves the scene to bytes, frees it and restores it; a tick later it
 * hot-reloads the program. It prints what its world is asked to do on stdout, and the trace (JSON lines) to
 * TRACE.
 *
 *   forge PROGRAM.ensb TICKS TRACE
 */
#include "ensemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AGENTS 16
#define MAX_ACTIONS 16
#define MAX_VARIABLES 32
#define SPEED 2.0          /* metres per second */
#define ACTION_TIME 1.0    /* seconds an action takes */
#define LINE_TIME 0.3      /* seconds a line takes to say */
#define SAVE_AFTER 37      /* mid-hammering, mid-stoking: the savegame carries both */
#define RELOAD_AFTER 38

typedef struct Body {
    int present;
    double x, y;
    int moving, arrived;
    double tx, ty;
    char destination[32];
} Body;

typedef struct Action {
    int open;
    uint64_t id;
    uint32_t agent;
    char name[32];
    double started;
} Action;

typedef struct Variable {
    int used;
    uint32_t agent;
    char name[32];
    char value[64];
} Variable;

typedef struct Forge {
    Body bodies[MAX_AGENTS];
    Action actions[MAX_ACTIONS];
    Variable variables[MAX_VARIABLES];
    double speaking_until[MAX_AGENTS];
    char names[MAX_AGENTS][32];
    char removed[64]; /* the value remove_variable returned last */
} Forge;

static void check(EnsStatus status, const char *what) {
    if (status != ENS_STATUS_OK) {
        fprintf(stderr, "%s failed (%d): %s\n", what, (int)status, ens_last_error_message());
        exit(1);
    }
}

static const char *name_of(Forge *f, uint32_t agent) {
    if (agent < MAX_AGENTS && f->names[agent][0] != '\0') return f->names[agent];
    return "(new agent)";
}

/* ---- the world: one callback per call of the seam ---- */

static bool position(void *user, uint32_t agent, double *at) {
    Forge *f = user;
    if (agent >= MAX_AGENTS || !f->bodies[agent].present) return false;
    at[0] = f->bodies[agent].x;
    at[1] = f->bodies[agent].y;
    return true;
}

static void place(void *user, uint32_t agent, double x, double y) {
    Forge *f = user;
    if (agent >= MAX_AGENTS) return;
    Body *b = &f->bodies[agent];
    memset(b, 0, sizeof *b);
    b->present = 1;
    b->x = x;
    b->y = y;
    printf("place agent %u at (%.1f, %.1f)\n", agent, x, y);
}

static void move_to(void *user, uint32_t agent, const EnsDestination *to, double now, double dt) {
    Forge *f = user;
    (void)dt;
    if (agent >= MAX_AGENTS) return;
    Body *b = &f->bodies[agent];
    b->moving = 1;
    b->arrived = 0;
    b->tx = to->x;
    b->ty = to->y;
    snprintf(b->destination, sizeof b->destination, "%s", to->location ? to->location : "a point");
    printf("%.1f move %s to %s (%.1f, %.1f)\n", now, name_of(f, agent), b->destination, to->x, to->y);
}

static int32_t follow_move(void *user, uint32_t agent, double now, double dt, const char **reason) {
    Forge *f = user;
    (void)reason;
    if (agent >= MAX_AGENTS) return ENS_MOVE_EVENT_FAILED;
    Body *b = &f->bodies[agent];
    if (b->arrived) return ENS_MOVE_EVENT_ARRIVED;
    if (!b->moving) return ENS_MOVE_EVENT_MOVING;
    double dx = b->tx - b->x, dy = b->ty - b->y;
    double distance = sqrt(dx * dx + dy * dy), step = SPEED * dt;
    if (distance <= step) {
        b->x = b->tx;
        b->y = b->ty;
        b->moving = 0;
        b->arrived = 1;
        printf("%.1f arrive %s at %s\n", now, name_of(f, agent), b->destination);
        return ENS_MOVE_EVENT_ARRIVED;
    }
    b->x += dx / distance * step;
    b->y += dy / distance * step;
    return ENS_MOVE_EVENT_MOVING;
}

static void stop_move(void *user, uint32_t agent) {
    Forge *f = user;
    if (agent < MAX_AGENTS) f->bodies[agent].moving = 0;
}

static void start_action(void *user, const EnsActionRequest *request, double now, double dt) {
    Forge *f = user;
    (void)dt;
    for (int i = 0; i < MAX_ACTIONS; i++) {
        Action *a = &f->actions[i];
        if (a->open) continue;
        a->open = 1;
        a->id = request->id;
        a->agent = request->agent;
        snprintf(a->name, sizeof a->name, "%s", request->action);
        a->started = now;
        printf("%.1f action %llu: %s %s", now, (unsigned long long)request->id, name_of(f, request->agent),
               request->action);
        for (size_t p = 0; p < request->parameter_count; p++)
            printf(" %s='%s'", request->parameter_names[p], request->parameter_values[p]);
        if (request->line) printf(" saying \"%s\"", request->line);
        printf("\n");
        return;
    }
}

static int32_t action_outcome(void *user, uint64_t id, double now, double dt) {
    Forge *f = user;
    (void)dt;
    for (int i = 0; i < MAX_ACTIONS; i++) {
        Action *a = &f->actions[i];
        if (!a->open || a->id != id) continue;
        if (now - a->started + 1e-9 < ACTION_TIME) return ENS_ACTION_OUTCOME_RUNNING;
        a->open = 0;
        printf("%.1f action %llu done: %s %s\n", now, (unsigned long long)id, name_of(f, a->agent), a->name);
        return ENS_ACTION_OUTCOME_SUCCEEDED;
    }
    return ENS_ACTION_OUTCOME_FAILED; /* an action this world never started */
}

static void cancel_action(void *user, uint64_t id) {
    Forge *f = user;
    for (int i = 0; i < MAX_ACTIONS; i++)
        if (f->actions[i].open && f->actions[i].id == id) f->actions[i].open = 0;
}

static Variable *find_variable(Forge *f, uint32_t agent, const char *name) {
    for (int i = 0; i < MAX_VARIABLES; i++) {
        Variable *v = &f->variables[i];
        if (v->used && v->agent == agent && strcmp(v->name, name) == 0) return v;
    }
    return NULL;
}

static const char *variable(void *user, uint32_t agent, const char *name) {
    Variable *v = find_variable(user, agent, name);
    return v ? v->value : NULL; /* stays put until set or removed */
}

static void set_variable(void *user, uint32_t agent, const char *name, const char *value) {
    Forge *f = user;
    Variable *v = find_variable(f, agent, name);
    for (int i = 0; v == NULL && i < MAX_VARIABLES; i++)
        if (!f->variables[i].used) v = &f->variables[i];
    if (v == NULL) return;
    v->used = 1;
    v->agent = agent;
    snprintf(v->name, sizeof v->name, "%s", name);
    snprintf(v->value, sizeof v->value, "%s", value);
    printf("set %s.%s = %s\n", name_of(f, agent), name, value);
}

static const char *remove_variable(void *user, uint32_t agent, const char *name) {
    Forge *f = user;
    Variable *v = find_variable(f, agent, name);
    if (v == NULL) return NULL;
    v->used = 0;
    snprintf(f->removed, sizeof f->removed, "%s", v->value);
    printf("remove %s.%s (was %s)\n", name_of(f, agent), name, f->removed);
    return f->removed;
}

static void say(void *user, uint32_t agent, const EnsLine *line, double now, double dt) {
    Forge *f = user;
    (void)dt;
    /* The key is what recorded voice-over is found under, in every locale. */
    if (line->sentence)
        printf("%.1f say %s: \"%s\" [%s #%u]", now, name_of(f, agent), line->text, line->sentence, line->candidate);
    else
        printf("%.1f say %s: \"%s\" [written]", now, name_of(f, agent), line->text);
    if (line->key) printf(" voice %s", line->key);
    printf("\n");
    if (agent < MAX_AGENTS) f->speaking_until[agent] = now + LINE_TIME;
}

static bool still_speaking(void *user, uint32_t agent, double now, double dt) {
    Forge *f = user;
    (void)dt;
    return agent < MAX_AGENTS && now + 1e-9 < f->speaking_until[agent];
}

/* ---- the host's own state: Hammer(strikes: Number, metal: OneOf(iron, bronze) = iron) ---- */

typedef struct Hammering {
    int strikes, struck;
    char metal[16];
} Hammering;

static void hammer_init(EnsStateCx *cx, void *user) {
    (void)user;
    /* The scene's world, whichever scene runs the state: the library could serve several. */
    Forge *f = NULL;
    check(ens_cx_world(cx, (void **)&f), "ens_cx_world");
    double strikes = 0;
    const char *metal = NULL;
    uint32_t agent = 0;
    check(ens_cx_number_param(cx, "strikes", &strikes), "ens_cx_number_param");
    check(ens_cx_text_param(cx, "metal", &metal), "ens_cx_text_param");
    check(ens_cx_agent(cx, &agent), "ens_cx_agent");
    Hammering *h = calloc(1, sizeof *h);
    if (h == NULL) exit(1);
    h->strikes = (int)strikes;
    snprintf(h->metal, sizeof h->metal, "%s", metal);
    check(ens_cx_set_visit_data(cx, h), "ens_cx_set_visit_data");
    const char *coal = NULL;
    check(ens_cx_variable(cx, "Coal", &coal), "ens_cx_variable");
    printf("hammer %s: %d strikes on %s (coal: %s)\n", name_of(f, agent), h->strikes, h->metal,
           coal ? coal : "none");
}

static void hammer_update(EnsStateCx *cx, double dt, void *user) {
    (void)dt;
    (void)user;
    void *data = NULL;
    check(ens_cx_visit_data(cx, &data), "ens_cx_visit_data");
    Hammering *h = data;
    if (h == NULL || h->struck >= h->strikes) return;
    h->struck++;
    char line[64];
    snprintf(line, sizeof line, "Clang %d on the %s!", h->struck, h->metal);
    check(ens_cx_say(cx, line), "ens_cx_say");
    if (h->struck == h->strikes) check(ens_cx_raise(cx, "Done"), "ens_cx_raise");
}

static void hammer_cleanup(EnsStateCx *cx, void *user) {
    (void)user;
    void *data = NULL;
    check(ens_cx_visit_data(cx, &data), "ens_cx_visit_data");
    Hammering *h = data;
    printf("hammer done after %d strikes\n", h ? h->struck : 0);
    free(h);
    check(ens_cx_set_visit_data(cx, NULL), "ens_cx_set_visit_data");
}

/* A savegame carries the visit's strikes: the struct as it is (this host reads its own bytes). */
static size_t hammer_save(void *visit, uint8_t *buffer, size_t capacity, void *user) {
    (void)user;
    if (visit != NULL && capacity >= sizeof(Hammering)) memcpy(buffer, visit, sizeof(Hammering));
    return visit ? sizeof(Hammering) : 0;
}

static bool hammer_restore(void **visit, const uint8_t *data, size_t len, void *user) {
    (void)user;
    if (len != sizeof(Hammering)) return false;
    Hammering *h = malloc(sizeof *h);
    if (h == NULL) return false;
    memcpy(h, data, sizeof *h);
    *visit = h;
    printf("hammer restored after %d of %d strikes\n", h->struck, h->strikes);
    return true;
}

static void write_trace(EnsScene scene, FILE *trace) {
    char *lines = NULL;
    check(ens_scene_take_trace_json(scene, &lines), "ens_scene_take_trace_json");
    fputs(lines, trace);
    ens_string_free(lines);
}

static void learn_names(Forge *f, EnsScene scene) {
    uint32_t count = 0;
    check(ens_scene_agent_count(scene, &count), "ens_scene_agent_count");
    for (uint32_t a = 0; a < count && a < MAX_AGENTS; a++) {
        char *name = NULL;
        check(ens_scene_agent_name(scene, a, &name), "ens_scene_agent_name");
        snprintf(f->names[a], sizeof f->names[a], "%s", name);
        ens_string_free(name);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PROGRAM.ensb TICKS TRACE\n", argv[0]);
        return 2;
    }
    int ticks = atoi(argv[2]);
    FILE *trace = fopen(argv[3], "w");
    if (trace == NULL) {
        perror(argv[3]);
        return 2;
    }
    static Forge forge; /* zeroed */

    EnsProgram program;
    check(ens_program_load_file(argv[1], &program), "ens_program_load_file");

    EnsLibrary library;
    check(ens_library_new(&library), "ens_library_new");
    EnsStateCallbacks hammer_code = {
        .user_data = NULL, /* the state reaches the forge through ens_cx_world */
        .init = hammer_init,
        .update = hammer_update,
        .cleanup = hammer_cleanup,
        .save = hammer_save,
        .restore = hammer_restore,
    };
    /* `Hammer` is declared once, in the project's forge.statelib.ron (its parameters `strikes`
       and `metal`, its event `Done`): the program carries the declaration. */
    check(ens_library_register_declared(library, "Hammer", &hammer_code),
          "ens_library_register_declared");

    EnsWorldCallbacks world = {
        .user_data = &forge,
        .position = position,
        .place = place,
        .move_to = move_to,
        .follow_move = follow_move,
        .stop_move = stop_move,
        .start_action = start_action,
        .action_outcome = action_outcome,
        .cancel_action = cancel_action,
        .variable = variable,
        .set_variable = set_variable,
        .remove_variable = remove_variable,
        .say = say,
        .still_speaking = still_speaking,
    };
    EnsScene scene;
    check(ens_scene_start(program, library, "morning", 1, &world, &scene), "ens_scene_start");
    learn_names(&forge, scene);
    write_trace(scene, trace);

    for (int t = 1; t <= ticks; t++) {
        if (t == SAVE_AFTER + 1) {
            /* A savegame: the scene to bytes, then back (this world's own state stays in memory). */
            uint8_t *bytes = NULL;
            size_t len = 0;
            check(ens_scene_save(scene, &bytes, &len), "ens_scene_save");
            check(ens_scene_free(scene), "ens_scene_free");
            EnsScene old = scene;
            check(ens_scene_restore(program, library, bytes, len, &world, &scene), "ens_scene_restore");
            ens_bytes_free(bytes, len);
            EnsStatus stale = ens_scene_tick(old);
            printf("saved %zu bytes and restored; the old handle: status %d (%s)\n", len, (int)stale,
                   ens_last_error_message());
        }
        if (t == RELOAD_AFTER + 1) {
            /* A hot reload: the same build loaded again, as a game does when its file changes. */
            EnsProgram rebuilt;
            check(ens_program_load_file(argv[1], &rebuilt), "ens_program_load_file");
            check(ens_scene_reload(scene, rebuilt, "forge.ensb changed"), "ens_scene_reload");
            check(ens_program_free(rebuilt), "ens_program_free");
            printf("reloaded\n");
        }
        check(ens_scene_tick(scene), "ens_scene_tick");
        learn_names(&forge, scene);
        write_trace(scene, trace);
    }

    uint32_t count = 0;
    check(ens_scene_agent_count(scene, &count), "ens_scene_agent_count");
    for (uint32_t a = 0; a < count; a++) {
        char *states = NULL;
        check(ens_scene_active_states(scene, a, &states), "ens_scene_active_states");
        const char *had = variable(&forge, a, "Horseshoe");
        printf("end %s: [%s] horseshoe: %s\n", name_of(&forge, a), states, had ? had : "none");
        ens_string_free(states);
    }
    check(ens_scene_free(scene), "ens_scene_free");
    check(ens_library_free(library), "ens_library_free");
    check(ens_program_free(program), "ens_program_free");
    fclose(trace);
    return 0;
}
