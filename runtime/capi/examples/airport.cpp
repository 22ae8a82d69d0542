// Host 1 again, in C++ through the RAII wrapper (include/ensemble.hpp): runs a scene on the
// simulated world, printing its trace; halfway it saves the scene and goes on from the
// restored copy. Any failure is an ens::Error.
//
//   airport_cpp PROGRAM.ensb SCENE SEED TICKS [ADDRESS]
//
// With ADDRESS it serves tools there (ens::Inspector); with none attached the trace is the same.
#include "ensemble.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        std::cerr << "usage: " << argv[0] << " PROGRAM.ensb SCENE SEED TICKS [ADDRESS]\n";
        return 2;
    }
    try {
        const std::uint64_t seed = std::strtoull(argv[3], nullptr, 10);
        const unsigned long long ticks = std::strtoull(argv[4], nullptr, 10);
        ens::Program program = ens::Program::load_file(argv[1]);
        ens::Scene scene = ens::Scene::simulated(program, argv[2], seed);
        std::optional<ens::Inspector> inspector;
        if (argc == 6) {
            inspector = ens::Inspector::bind(argv[5]);
            std::cerr << "inspecting on " << inspector->address() << std::endl;
        }
        std::cout << scene.take_trace_json();
        for (unsigned long long t = 1; t <= ticks; t++) {
            while (inspector && !inspector->frame(scene)) {
                std::cout << scene.take_trace_json(); // paused by a tool: what it did meanwhile
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            }
            if (t == ticks / 2) {
                std::vector<std::uint8_t> saved = scene.save();
                scene = ens::Scene::restore_simulated(program, saved); // the old scene is freed
                scene.take_trace_json(); // a restore records nothing the CLI would print
            }
            scene.tick();
            std::cout << scene.take_trace_json();
        }
    } catch (const ens::Error &e) {
        std::cerr << "error " << static_cast<int>(e.status()) << ": " << e.what() << "\n";
        return 1;
    }
    return 0;
}
