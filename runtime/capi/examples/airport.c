/*
 * Host 1: runs a scene of a built program on the standard simulated world and prints its
 * trace as JSON lines — what `ensemble run PROJECT --scene SCENE --trace json --seed SEED
 * --ticks TICKS` prints, byte for byte.
 *
 *   airport PROGRAM.ensb SCENE SEED TICKS
 */
#include "ensemble.h"

#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s PROGRAM.ensb SCENE SEED TICKS\n", argv[0]);
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

    print_trace(scene); /* tick 0: the agents enter their initial states */
    for (unsigned long long t = 0; t < ticks; t++) {
        check(ens_scene_tick(scene), "ens_scene_tick");
        print_trace(scene);
    }
    check(ens_scene_free(scene), "ens_scene_free");
    return 0;
}
