/*
 * Host 1: runs a scene of a built program on the standard simulated world and prints its
 * trace as JSON lines — what `ensemble run PROJECT --scene SCENE --trace json --seed SEED
 * --ticks TICKS` prints, byte for byte.
 *
 *   airport PROGRAM.ensb SCENE SEED TICKS [ADDRESS [wait]]
 *
 * With ADDRESS it serves the inspection protocol there (`ensemble attach ADDRESS`), saying
 * on stderr where it listens; `wait` starts paused until a tool resumes it. Tools pause and
 * step the scene; the trace printed is the same whatever they do (pushing a program adds
 * its `reload` event).
 */
#define _POSIX_C_SOURCE 199309L
#include "ensemble.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Prints a failed call's message and exits. */
static void check(EnsStatus status, const char *what) {
    if (status != ENS_STATUS_OK) {
        fprintf(stderr, "%s failed (%d): %s\n", what, (int)status, ens_last_error_message());
        exit(1);
    }
}

/* Prints the events recorded since the last call. */
static void print_trace(EnsScene scene) {
    char *lines = NULL;
    check(ens_scene_take_trace_json(scene, &lines), "ens_scene_take_trace_json");
    fputs(lines, stdout);
    ens_string_free(lines);
}

/* Serves the tools until they let the scene tick (at once when none holds it). */
static void serve_until_tick(EnsInspector inspector, EnsScene scene) {
    const struct timespec frame = {0, 5 * 1000 * 1000}; /* a paused game's frame: 5 ms */
    for (;;) {
        EnsFlow flow;
        check(ens_inspector_frame(inspector, scene, &flow), "ens_inspector_frame");
        if (flow == ENS_FLOW_TICK) {
            return;
        }
        print_trace(scene); /* what the tools did meanwhile (a reload) */
        nanosleep(&frame, NULL);
    }
}

int main(int argc, char **argv) {
    if (argc < 5 || argc > 7 || (argc == 7 && strcmp(argv[6], "wait") != 0)) {
        fprintf(stderr, "usage: %s PROGRAM.ensb SCENE SEED TICKS [ADDRESS [wait]]\n", argv[0]);
        return 2;
    }
    unsigned long long seed = strtoull(argv[3], NULL, 10);
    unsigned long long ticks = strtoull(argv[4], NULL, 10);

    EnsProgram program;
    check(ens_program_load_file(argv[1], &program), "ens_program_load_file");
    EnsScene scene;
    check(ens_scene_start_simulated(program, argv[2], seed, &scene), "ens_scene_start_simulated");
    /* The scene holds the program: the handle can go now. */
    check(ens_program_free(program), "ens_program_free");

    EnsInspector inspector = {0};
    if (argc >= 6) {
        check(ens_inspector_bind(argv[5], NULL, argc == 7, &inspector), "ens_inspector_bind");
        char *address = NULL;
        check(ens_inspector_address(inspector, &address), "ens_inspector_address");
        fprintf(stderr, "inspecting on %s\n", address);
        fflush(stderr);
        ens_string_free(address);
    }

    print_trace(scene); /* tick 0: the agents enter their initial states */
    for (unsigned long long t = 0; t < ticks; t++) {
        if (inspector.id != 0) {
            serve_until_tick(inspector, scene);
        }
        check(ens_scene_tick(scene), "ens_scene_tick");
        print_trace(scene);
    }
    if (inspector.id != 0) {
        check(ens_inspector_free(inspector), "ens_inspector_free");
    }
    check(ens_scene_free(scene), "ens_scene_free");
    return 0;
}
